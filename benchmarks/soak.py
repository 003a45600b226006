"""`kdenv bench soak`: random decisions in every set-up, through ``env()`` and the vector env, every game checked.

A soak test rather than a speed figure: for each of the 32 set-ups (2, 3 and 4 players and Mighty Duel, each
with every combination of Middle Kingdom, Harmony and the voluntary discard), uniformly random legal decisions
are played through ``kdenv.env()`` (the AEC env as users get it, one decision a call) and through
:class:`kdenv.vector.VectorEnv` (``--num-envs`` games a step), ``--decisions`` through each, shared equally by
the set-ups. Every game's ``kingdomino-replay/1`` record, the games left unfinished at the end included, is
written to a JSON Lines file and re-played by the checker of ``kdenv replay`` (``read_records`` and
``replay_record``); a game the vector env finished must also end with the scores and winners it reported. A
failure is any exception or mismatch: each is printed with its set-up and seed, the run goes on, and the exit
status is 1 if there was any.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kdenv.kingdomino_v0 import env
from kdenv.replay import read_records, replay_record, to_record
from kdenv.rules import Rules
from kdenv.vector import VectorEnv
from training.progress import ProgressBar

TABLES = ((2, 5), (3, 5), (4, 5), (2, 7))  # (players, kingdom size): Mighty Duel is 2 players on 7x7
SET_UPS = [
    (players, Rules(kingdom_size=size, middle_kingdom=middle, harmony=harmony, voluntary_discard=discard))
    for players, size in TABLES
    for middle, harmony, discard in itertools.product((False, True), repeat=3)
]
Result = tuple[list[int], list[int]]  # (scores, winners) of a finished game
MAX_SHOWN = 20  # failures printed in the summary


def set_up_name(players: int, rules: Rules) -> str:
    """``"2 players, mighty_duel, harmony"``: a set-up as the failure lines name it."""
    flags = ["mighty_duel"] * rules.mighty_duel + [
        name for name in ("middle_kingdom", "harmony", "voluntary_discard") if getattr(rules, name)
    ]
    return ", ".join([f"{players} players", *flags])


class Soak:
    """The run: decisions made through each env, records checked, failures, and the progress bar."""

    def __init__(self, bar: ProgressBar, num_envs: int, quota: int) -> None:
        self.bar, self.num_envs, self.quota = bar, num_envs, quota
        self.decisions = {"env()": 0, "vector env": 0}
        self.records = 0
        self.failures: list[str] = []
        self.runs = 0  # set-up runs (of one env) done

    def fail(self, where: str, err: Exception) -> None:
        """Count a failure and print it at once, above the bar."""
        line = f"{where}: {type(err).__name__}: {err}"
        self.failures.append(line)
        self.bar.print(f"FAILED {line}", style="red")

    def advance(self, kind: str, count: int, made: int) -> None:
        """``count`` more decisions through ``kind``, ``made`` in this set-up run so far (the bar stops at
        each run's quota, which a run's last game or step goes past)."""
        self.decisions[kind] += count
        self.bar.update(self.runs * self.quota + min(made, self.quota), f"{len(self.failures)} failures")

    def aec(self, players: int, rules: Rules, seed: int) -> None:
        """Random games through ``env()`` until the quota of decisions is made, then check their records; a
        failure ends the run of this set-up."""
        where = f"{set_up_name(players, rules)}, env()"
        aec, rng = env(num_players=players, rules=rules), np.random.default_rng(seed)
        games, made = [], 0
        while made < self.quota:
            game_seed, before = int(rng.integers(2**31)), made
            try:
                aec.reset(seed=game_seed)
                for _ in aec.agent_iter():
                    observation, _, termination, truncation, _ = aec.last()
                    if termination or truncation:
                        aec.step(None)
                        continue
                    legal = np.flatnonzero(observation["action_mask"])
                    aec.step(int(legal[rng.integers(legal.size)]))
                    made += 1
                games.append((aec.unwrapped.record(), None))
            except Exception as err:
                self.fail(f"{where}, game seed {game_seed}", err)
                break
            finally:
                self.advance("env()", made - before, made)
        self.runs += 1
        self.check(games, where)

    def vector(self, players: int, rules: Rules, seed: int) -> None:
        """Random steps of the vector env until the quota of decisions is made, then check every game's record;
        a failure ends the run of this set-up."""
        where = f"{set_up_name(players, rules)}, vector env (reset seed {seed})"
        venv, rng = VectorEnv(self.num_envs, players, rules=rules), np.random.default_rng(seed)
        games: list[tuple[dict, Result | None]] = []
        try:
            obs, _ = venv.reset(seed=seed)
            made = 0
            while made < self.quota:
                mask = obs["action_mask"]  # + a uniform number below 1: the largest is a uniform legal action
                obs, _, ended, _, info = venv.step(np.argmax(mask + rng.random(mask.shape), axis=1))
                made += self.num_envs
                self.advance("vector env", self.num_envs, made)
                final = info.get("final_info", {})
                for i, record in zip(np.flatnonzero(ended).tolist(), venv.records(), strict=True):
                    places = final["placings"][i]
                    winners = np.flatnonzero(places == places.min()).tolist()
                    games.append((record, (final["scores"][i].tolist(), winners)))
            games.extend((to_record(venv.game(i)), None) for i in range(self.num_envs))
        except Exception as err:
            self.fail(where, err)
        self.runs += 1
        self.check(games, where)

    def check(self, games: Sequence[tuple[dict, Result | None]], where: str) -> None:
        """Write the records to a JSON Lines file and re-play each as ``kdenv replay`` does; a game with a
        known result must end with it."""
        if not games:
            return
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "records.jsonl"
            path.write_text("".join(json.dumps(record) + "\n" for record, _ in games))
            for index, (record, (_, result)) in enumerate(zip(read_records(path), games, strict=True), start=1):
                try:
                    game = replay_record(record)
                    if result is not None and result != (game.scores(), game.winners()):
                        raise AssertionError(
                            f"the vector env ended it with scores and winners {result}, the engine with "
                            f"{(game.scores(), game.winners())}"
                        )
                except Exception as err:
                    self.fail(f"{where}, record {index}", err)
                self.records += 1


def positive(text: str) -> int:
    """An argparse type: a positive integer."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kdenv bench soak", description=__doc__)
    parser.add_argument(
        "--decisions", type=positive, default=1_000_000,
        help="random decisions through each of env() and the vector env, shared by the set-ups (default 1000000)",
    )  # fmt: skip
    parser.add_argument("--num-envs", type=positive, default=64, help="games the vector env steps at once (64)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole run (default 0)")
    args = parser.parse_args(argv)
    quota = -(-args.decisions // len(SET_UPS))  # per set-up and env, rounded up
    start, cpu = time.perf_counter(), time.process_time()
    with ProgressBar("soak (decisions)", total=2 * quota * len(SET_UPS)) as bar:
        soak = Soak(bar, args.num_envs, quota)
        for k, (players, rules) in enumerate(SET_UPS):
            aec_seed, vector_seed = np.random.SeedSequence([args.seed, k]).generate_state(2).tolist()
            soak.aec(players, rules, aec_seed)
            soak.vector(players, rules, vector_seed)
    made = soak.decisions
    print(
        f"soak: {made['env()']:,} random decisions through env() and {made['vector env']:,} through the vector env"
        f" over {len(SET_UPS)} set-ups; {soak.records:,} records re-played by kdenv replay's checker;"
        f" {time.perf_counter() - start:,.0f} s ({time.process_time() - cpu:,.0f} CPU s); {len(soak.failures)} failures"
    )
    for line in soak.failures[:MAX_SHOWN]:
        print(f"  {line}")
    if len(soak.failures) > MAX_SHOWN:
        print(f"  ... and {len(soak.failures) - MAX_SHOWN} more")
    return 1 if soak.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
