"""A Stable-Baselines3 or sb3-contrib model file as a player (``sb3:PATH``): MaskablePPO, PPO, A2C, DQN, QR-DQN...

The model may have been trained on the Gymnasium view (``{"board", "features"}`` observations) or through
PettingZoo's SB3 recipe on the AEC env with ``observation="flat"``; its saved observation space says which, and
whether it reads the gains. The player applies the mask: it plays the legal action the policy rates best (its
logits, or its Q-values for DQN-like models), also for a model trained without masking. A model of another table
(players, kingdom size) is refused with one line when it is seated.

Loading a model file unpickles its policy class and spaces (Stable-Baselines3's format), which runs code from the
file: play only files you trust. So ``sb3:`` is for the command line and Python, never offered by the web game.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import CheckpointError
from agents.inference import inference
from agents.learned import LearnedPlayer
from kdenv.encoding import observation_space
from kdenv.errors import KingdominoError
from kdenv.flat import Observation, flat_space
from kdenv.rules import Rules


@dataclass(frozen=True)
class SB3Options:
    """``sb3``'s options: the model file and whether to sample from its masked policy."""

    path: str
    sample: bool = False


class SB3Player(LearnedPlayer):
    """Plays a Stable-Baselines3 model's best legal action (``sample=true``: samples its masked policy instead)."""

    Options = SB3Options

    def __init__(self, options: SB3Options) -> None:
        self.where = f"sb3 model {options.path!r}"
        self.policy, self.spaces = load_policy(options.path, self.where)
        super().__init__(options.sample, _format(self.spaces[0]))

    def seat_at(self, num_players: int, rules: Rules) -> None:
        """The model must read this table's observations (with or without gains) and act in its action space."""
        observed, actions = self.spaces
        table = f"{num_players} players at kingdom size {rules.kingdom_size}"
        for gains in (False, True):
            expected = observation_space(num_players, rules.kingdom_size, gains)
            if _same(observed, flat_space(expected) if self.observation == "flat" else expected):
                self.gains = gains
                break
        else:
            raise CheckpointError(
                f"{self.where} observes {_shape(observed)}, not the observation of {table}; give a model "
                "trained for this table"
            )
        super().seat_at(num_players, rules)
        assert self.encoder is not None
        if getattr(actions, "n", None) != self.encoder.num_actions:
            space = f"Discrete({self.encoder.num_actions})"
            raise CheckpointError(f"{self.where} acts in {actions}, not {space} of {table}")

    def rate(self, observation: Any, mask: np.ndarray) -> np.ndarray:
        scores = self.scores(observation)
        scores[mask == 0] = -np.inf
        return scores

    def value(self, observation: Any, mask: np.ndarray) -> float:
        """The critic's estimate (actor-critic models), else the best legal action's Q-value."""
        if not hasattr(self.policy, "predict_values"):
            return float(self.rate(observation, mask).max())
        with inference():
            return float(self.policy.predict_values(self.policy.obs_to_tensor(observation)[0])[0, 0])

    def scores(self, observation: Any) -> np.ndarray:
        """The policy's rating of every action (float64): its logits, or its Q-values (mean over quantiles)."""
        policy = self.policy
        tensor = policy.obs_to_tensor(observation)[0]
        with inference():
            if hasattr(policy, "get_distribution"):
                rating = policy.get_distribution(tensor).distribution.logits
            elif hasattr(policy, "q_net"):
                rating = policy.q_net(tensor)
            else:
                rating = policy.quantile_net(tensor).mean(dim=1)
        return rating[0].cpu().numpy().astype(np.float64)


def load_policy(path: str, where: str) -> tuple[Any, tuple[Any, Any]]:
    """The policy network saved in an SB3 model file, on the CPU, and its (observation, action) spaces; a one-line
    CheckpointError for a missing file, one that is not an SB3 model, or a policy that rates no discrete actions."""
    if not Path(path).is_file():
        raise CheckpointError(f"{where} does not exist; give the .zip that model.save() wrote")
    try:
        from stable_baselines3.common.save_util import load_from_zip_file
    except ImportError:
        raise KingdominoError('sb3: players need Stable-Baselines3: pip install -e ".[train]"') from None
    try:
        data, params, _ = load_from_zip_file(path, device="cpu")
        kwargs = {key: value for key, value in (data.get("policy_kwargs") or {}).items() if key != "device"}
        spaces = (data["observation_space"], data["action_space"])
        policy = data["policy_class"](*spaces, lambda _: 0.0, **kwargs)
        policy.load_state_dict(params["policy"])
    except Exception as err:  # a zip of anything else, or of a policy this cannot rebuild: said in one line
        text = str(err).strip().splitlines()
        raise CheckpointError(
            f"{where} is not a Stable-Baselines3 model this can play ({type(err).__name__}: {text[0] if text else ''})"
        ) from None
    if not any(hasattr(policy, name) for name in ("get_distribution", "q_net", "quantile_net")):
        raise CheckpointError(f"{where}: its policy {type(policy).__name__} rates no discrete actions")
    policy.set_training_mode(False)
    return policy, spaces


def _format(space: Any) -> Observation:
    """The observation format of a model's saved observation space."""
    return "dict" if hasattr(space, "spaces") and {"board", "features"} <= set(space.spaces) else "flat"


def _same(space: Any, expected: Any) -> bool:
    """Whether a saved space has the shapes of ``expected`` (a Box, or a Dict of Boxes)."""
    if hasattr(expected, "spaces"):
        return hasattr(space, "spaces") and all(
            key in space.spaces and _same(space.spaces[key], part) for key, part in expected.spaces.items()
        )
    return getattr(space, "shape", None) == expected.shape


def _shape(space: Any) -> str:
    """A saved space's shapes in words."""
    if hasattr(space, "spaces"):
        return "{" + ", ".join(f"{key}: {getattr(part, 'shape', part)}" for key, part in space.spaces.items()) + "}"
    return str(getattr(space, "shape", space))
