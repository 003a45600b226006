"""A player driven by a policy trained with RLlib (``rllib:PATH``), so that it enters tournaments and
``kdenv play`` like any other player.

PATH is a run directory of ``kdenv train`` with ``trainer: rllib`` (its latest checkpoint is played), an RLlib
algorithm checkpoint, or the RL module's own folder in one. The module describes its table itself: its
observation space gives the players, the kingdom size and whether it observes the gains.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import CheckpointError
from agents.inference import inference
from agents.learned import LearnedPlayer
from kdenv.errors import KingdominoError
from kdenv.rules import Rules

POLICY = "kingdom"  # the module of the one policy that every learning seat plays
MODULE = Path("learner_group", "learner", "rl_module", POLICY)  # where it lies in an algorithm checkpoint
RUN_CHECKPOINT = "checkpoint"  # a run directory's latest checkpoint


def module_path(path: str) -> Path:
    """The RL module folder that ``rllib:PATH`` plays; a one-line CheckpointError when there is none."""
    where = Path(path)
    for candidate in (where / RUN_CHECKPOINT / MODULE, where / MODULE, where):
        if (candidate / "module_state.pkl").is_file() or (candidate / "module_state.pt").is_file():
            return candidate
    if not where.exists():
        raise CheckpointError(f"RLlib checkpoint {path!r} not found; give a run directory of kdenv train (rllib)")
    raise CheckpointError(
        f"{path!r} holds no RLlib module of policy {POLICY!r}; give a run directory of `kdenv train` with "
        "trainer: rllib, or a checkpoint in it"
    )


def load_module(path: str) -> Any:
    """The RL module that ``rllib:PATH`` plays, in evaluation mode."""
    try:
        from ray.rllib.core.rl_module.rl_module import RLModule

        from agents.rllib_module import KingdomRLModule
    except ImportError:
        raise KingdominoError('rllib players need Ray: pip install -e ".[ray]"') from None
    folder = module_path(path)
    try:
        module = RLModule.from_checkpoint(folder)
    except Exception as err:  # a damaged or foreign checkpoint: whatever RLlib raises, one line
        raise CheckpointError(f"cannot load the RLlib module in {str(folder)!r}: {str(err).splitlines()[0]}") from None
    if not isinstance(module, KingdomRLModule):  # RLlib falls back to a bare RLModule when its class file is bad
        raise CheckpointError(
            f"cannot load the RLlib module in {str(folder)!r}: it is a {type(module).__name__}, not the "
            f"{KingdomRLModule.__name__} of kdenv train (is its class_and_ctor_args.pkl damaged?)"
        )
    module.eval()
    return module


@dataclass(frozen=True)
class RLlibOptions:
    """``rllib``'s options: the run directory or checkpoint, and whether to sample."""

    path: str
    sample: bool = False


class RLlibPlayer(LearnedPlayer):
    """Plays the module's most probable legal move (``sample=true``: samples from its masked policy)."""

    Options = RLlibOptions

    def __init__(self, options: RLlibOptions) -> None:
        from kdenv.encoding import table_of

        self.where = f"RLlib checkpoint {options.path!r}"
        self.module = load_module(options.path)
        board = self.module.observation_space["observation"]["board"].shape
        players, gains = table_of(board[0])
        super().__init__(options.sample, gains=gains)
        self.table = (players, (board[1] + 1) // 2)

    def seat_at(self, num_players: int, rules: Rules) -> None:
        if self.table != (num_players, rules.kingdom_size):
            players, size = self.table
            raise CheckpointError(
                f"{self.where} was trained for {players} players at kingdom size {size} and cannot play "
                f"{num_players} players at kingdom size {rules.kingdom_size}; give one trained for this table"
            )
        super().seat_at(num_players, rules)

    def rate(self, observation: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        with inference():
            out = self.module.forward_inference(_batch(observation, mask))
        return out["action_dist_inputs"][0].numpy().astype(np.float64)

    def value(self, observation: dict[str, np.ndarray], mask: np.ndarray) -> float:
        with inference():
            return float(self.module.compute_values(_batch(observation, mask))[0])


def _batch(observation: dict[str, np.ndarray], mask: np.ndarray) -> dict:
    """RLlib's batch of one observation with its action mask."""
    import torch

    tensors = {key: torch.from_numpy(value[None]) for key, value in observation.items()}
    return {"obs": {"observation": tensors, "action_mask": torch.from_numpy(mask[None])}}
