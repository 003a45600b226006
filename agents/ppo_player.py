"""A player driven by a trained MaskablePPO policy (``ppo:PATH``; ``ppo:default`` is the shipped checkpoint).

Checkpoints are read by :mod:`agents.checkpoint` (never unpickling code); the network is rebuilt here from
their settings (``MaskablePPO.load`` would run cloudpickle on the zip's ``data``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agents.checkpoint import CheckpointError, CheckpointSettings, read_checkpoint
from agents.inference import inference
from agents.learned import LearnedPlayer, choose_rows
from kdenv.errors import KingdominoError
from kdenv.rules import Rules

CHECKPOINTS = Path(__file__).parent / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINTS / "default.zip"
DEFAULT_CHECKPOINTS = {  # (players, kingdom size) -> the shipped checkpoint that ``ppo:default`` plays there
    (4, 5): DEFAULT_CHECKPOINT,
    (3, 5): DEFAULT_CHECKPOINT.with_name("default-3p.zip"),
    (2, 5): DEFAULT_CHECKPOINT.with_name("default-2p.zip"),
    (2, 7): DEFAULT_CHECKPOINT.with_name("default-mighty-duel.zip"),
}


def checkpoint_path(path: str, num_players: int = 4, kingdom_size: int = 5) -> str:
    """The file ``ppo:PATH`` reads: ``default``, the table's shipped checkpoint; a shipped checkpoint's name
    (``ppo:v1``, the first 4-player default; ``ppo:default-2p``); else PATH itself."""
    if path == "default":
        return str(DEFAULT_CHECKPOINTS.get((num_players, kingdom_size), DEFAULT_CHECKPOINT))
    shipped = CHECKPOINTS / f"{path}.zip"
    return str(shipped) if Path(path).name == path and shipped.is_file() else path


def build_policy(settings: CheckpointSettings, state: dict | None = None, where: str = "checkpoint"):
    """The KingdomPolicy network that ``settings`` describe, with ``state`` loaded (CheckpointError on mismatch)."""
    from gymnasium import spaces

    from agents.policy_network import KingdomPolicy, policy_kwargs, seat_values
    from kdenv.actions import num_actions
    from kdenv.encoding import ObservationEncoder

    try:
        encoder = ObservationEncoder(settings.num_players, settings.kingdom_size, settings.gains)
        network = settings.network
        policy = KingdomPolicy(
            encoder.space,
            spaces.Discrete(num_actions(encoder.kingdom_size)),
            lambda _: 0.0,
            **policy_kwargs(network.channels, network.blocks, network.hidden, network.value_tower),
        )
        if network.seat_values:
            seat_values(policy, settings.num_players)
        if state is not None:
            policy.load_state_dict(state)
    except (KeyError, TypeError, ValueError, RuntimeError, KingdominoError) as err:
        raise CheckpointError(f"{where} does not match its settings: {str(err).splitlines()[0]}") from None
    policy.set_training_mode(False)
    return policy


def masked_logits(policy, obs: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
    """(B, A) float64 logits of ``policy`` for a batch of observations, illegal actions (``mask`` 0) at -inf;
    ``policy`` may sit on any device (a learner on cuda plays its own seats while it imitates)."""
    import torch

    from agents.policy_network import actor_logits

    with inference():
        tensors = {key: torch.from_numpy(np.ascontiguousarray(value)).to(policy.device) for key, value in obs.items()}
        latent = actor_logits(policy, tensors)
    logits = latent.cpu().numpy().astype(np.float64)
    logits[mask == 0] = -np.inf
    return logits


def check_table(settings: CheckpointSettings, num_players: int, kingdom_size: int, where: str) -> None:
    """A one-line CheckpointError when a checkpoint's table is not ``num_players`` at ``kingdom_size``."""
    players, size = settings.num_players, settings.kingdom_size
    if (players, size) != (num_players, kingdom_size):
        table = f"{num_players} players at kingdom size {kingdom_size}"
        raise CheckpointError(
            f"{where} was trained for {players} players at kingdom size {size} and cannot play {table}; "
            "give a checkpoint trained for this table"
        )


class BatchedPolicy:
    """A checkpoint's policy as a batched opponent: ``(obs_batch, mask_batch) -> actions``, the most probable
    legal action of each row (or one sampled from the masked policy with ``sample``)."""

    def __init__(self, policy, spec: str, sample: bool = False, seed: int | None = None) -> None:
        self.policy, self.spec, self.sample = policy, spec, sample
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        return choose_rows(masked_logits(self.policy, obs, mask), self.rng, self.sample)


def batched_policy(
    spec: str, played: PPOOptions, num_players: int, kingdom_size: int, gains: bool = False
) -> BatchedPolicy:
    """The batched opponent that a ``ppo:`` spec plays at that table, its options ``played`` as
    :func:`agents.specs.checkpoint_of` reads them (the checkpoint, ``default``: the table's shipped one; whether it
    samples), in a vector env whose observations have ``gains`` or not; named by the spec, as a tournament names it."""
    path = checkpoint_path(played.path, num_players, kingdom_size)
    settings, state = read_checkpoint(path)
    check_table(settings, num_players, kingdom_size, f"checkpoint {path!r}")
    if settings.gains != gains:
        with_gains = "with" if settings.gains else "without"
        raise CheckpointError(
            f"checkpoint {path!r} was trained on observations {with_gains} gains and cannot read this env's; "
            f"make the env with gains={settings.gains}"
        )
    return BatchedPolicy(build_policy(settings, state, f"checkpoint {path!r}"), spec, played.sample)


@dataclass(frozen=True)
class PPOOptions:
    """``ppo``'s options: the checkpoint (``default``: the table's shipped one) and whether to sample."""

    path: str = "default"
    sample: bool = False


class PPOPlayer(LearnedPlayer):
    """Plays a policy's most probable legal move (``sample=true``: samples from the masked policy instead)."""

    Options = PPOOptions

    def __init__(self, options: PPOOptions = PPOOptions()) -> None:
        super().__init__(options.sample)
        self.path = options.path
        self._read(checkpoint_path(options.path))

    def _read(self, path: str) -> None:
        settings, state = read_checkpoint(path)
        self.settings, self.gains = settings, settings.gains
        self.policy = build_policy(settings, state, f"checkpoint {path!r}")
        self.where = f"checkpoint {path!r}"

    def seat_at(self, num_players: int, rules: Rules) -> None:
        """``ppo:default`` takes the shipped checkpoint of the table; any checkpoint must fit the table."""
        if self.path == "default":
            shipped = DEFAULT_CHECKPOINTS.get((num_players, rules.kingdom_size))
            if shipped is None or not shipped.is_file():
                raise CheckpointError(
                    f"no shipped checkpoint for {num_players} players at kingdom size {rules.kingdom_size}; "
                    "train one with `kdenv train` and play it as ppo:PATH"
                )
            if (self.settings.num_players, self.settings.kingdom_size) != (num_players, rules.kingdom_size):
                self._read(str(shipped))
        check_table(self.settings, num_players, rules.kingdom_size, self.where)
        super().seat_at(num_players, rules)

    def rate(self, observation: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        return masked_logits(self.policy, _one(observation), mask[None])[0]

    def value(self, observation: dict[str, np.ndarray], mask: np.ndarray) -> float:
        import torch

        with inference():
            tensors = {key: torch.from_numpy(value) for key, value in _one(observation).items()}
            return float(self.policy.predict_values(tensors)[0, 0])


def _one(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A batch of one observation."""
    return {key: value[None] for key, value in observation.items()}
