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

from agents.base import Player
from agents.checkpoint import CheckpointError
from agents.inference import inference
from kdenv.errors import KingdominoError
from kdenv.rules import Rules
from kdenv.view import PublicView

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


class RLlibPlayer(Player):
    """Plays the module's most probable legal move (``sample=true``: samples from its masked policy)."""

    Options = RLlibOptions

    def __init__(self, options: RLlibOptions) -> None:
        super().__init__()
        from kdenv.encoding import ObservationEncoder, table_of

        self.sample = options.sample
        self.where = f"RLlib checkpoint {options.path!r}"
        self.module = load_module(options.path)
        board = self.module.observation_space["observation"]["board"].shape
        players, gains = table_of(board[0])
        self.table = (players, (board[1] + 1) // 2)
        self.encoder = ObservationEncoder(players, self.table[1], gains)
        self._last: tuple | None = None  # (view, batch, logits, action) of the last act, for trace()

    def seat_at(self, num_players: int, rules: Rules) -> None:
        if self.table != (num_players, rules.kingdom_size):
            players, size = self.table
            raise CheckpointError(
                f"{self.where} was trained for {players} players at kingdom size {size} and cannot play "
                f"{num_players} players at kingdom size {rules.kingdom_size}; give one trained for this table"
            )

    def logits(self, view: PublicView, player: int) -> np.ndarray:
        """The module's masked logits for ``player`` to move in ``view`` (illegal actions at the lowest value)."""
        return self._forward(self._batch(view, player))

    def _batch(self, view: PublicView, player: int) -> dict:
        import torch

        from kdenv.encoding import action_mask

        observation = {key: torch.from_numpy(value[None]) for key, value in self.encoder.encode(view, player).items()}
        return {"obs": {"observation": observation, "action_mask": torch.from_numpy(action_mask(view)[None])}}

    def _forward(self, batch: dict) -> np.ndarray:

        with inference():
            out = self.module.forward_inference(batch)
        return out["action_dist_inputs"][0].numpy().astype(np.float64)

    def act(self, view: PublicView) -> int:
        batch = self._batch(view, self.seat)
        logits = self._forward(batch)
        legal = view.legal_actions()
        if not self.sample:
            action = max(legal, key=lambda a: logits[a])
        else:
            weights = np.exp(logits[legal] - logits[legal].max())
            action = legal[int(self.rng.choices(range(len(legal)), weights=weights.tolist())[0])]
        self._last = (view, batch, logits, action)
        return action

    def trace(self) -> dict | None:
        """The module's top action probabilities and its value estimate at the last decision."""

        from agents.trace import policy_trace

        if self._last is None:
            return None
        view, batch, logits, chosen = self._last
        with inference():
            value = float(self.module.compute_values(batch)[0])
        return policy_trace(view, logits, chosen, value)
