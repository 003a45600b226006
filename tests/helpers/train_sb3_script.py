"""An outside learning script, as a ``kdenv benchmark`` command entry runs it: MaskablePPO from sb3-contrib on the
registered Gymnasium view (flat observation) against ``fg``, trained up to ``--steps`` learner steps, going on from
the model it saved last time."""

from __future__ import annotations

import argparse
from pathlib import Path

import gymnasium
from sb3_contrib import MaskablePPO

import kdenv  # noqa: F401  (registers kdenv/Kingdomino-v0)
from kdenv.rules import Rules


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("--steps", "--seed", "--players"):
        parser.add_argument(name, type=int, required=True)
    parser.add_argument("--rules", default="")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rules = Rules.from_names(args.rules).to_dict()
    env = gymnasium.make("kdenv/Kingdomino-v0", num_players=args.players, opponents=["fg"] * (args.players - 1),
                         observation="flat", **rules)  # fmt: skip
    if args.out.exists():
        model = MaskablePPO.load(args.out, env=env)
    else:
        model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=args.seed, verbose=0)
    model.learn(max(0, args.steps - model.num_timesteps), reset_num_timesteps=False)
    model.save(args.out)


if __name__ == "__main__":
    main()
