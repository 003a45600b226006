"""The policy network of ``ppo`` players and of training: a small CNN over the kingdom planes and an
MLP over the line features, one shared trunk.

Placement logits come straight from the convolution map (one output channel per direction), so the
network scores ``place(r, c, d)`` at the frame cell it concerns; pick logits score each next-line
domino by how well it fits the observer's kingdom (the domino's embedding meets every cell of the map,
max-pooled; with gains, a slot is described by its domino, its claim and its gain in every kingdom);
discard and the value read the shared trunk. Sized for fast CPU inference at batch one.

With ``value_tower`` the value reads a tower of its own (a second extractor of the same shape, SB3's
``share_features_extractor=False``): the policy's trunk, trained to pick moves, predicts outcomes poorly, and a
value fitted on its own trunk leaves the policy as it was (expert iteration's networks, :mod:`training.az.start`).

The functions at the end read a policy's heads for the players, the search and the trainers: the one place that
knows how SB3 lays out a policy's parts.
"""

from __future__ import annotations

from typing import Literal

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from kdenv.actions import MAX_LINE
from kdenv.encoding import DOMINO_WIDTH, feature_layout, table_of


def slot_indices(planes: int) -> torch.Tensor:
    """(L, W) indices into the features of what describes each next-line slot: its domino and claim, and with
    gains its gain in each kingdom."""
    players, gains = table_of(planes)
    layout = feature_layout(players, gains)
    width = DOMINO_WIDTH + players
    slots = torch.arange(layout["next_line"].start, layout["next_line"].stop).reshape(MAX_LINE, width)
    if gains:
        slots = torch.cat([slots, torch.arange(layout["gains"].start, layout["gains"].stop).reshape(MAX_LINE, -1)], 1)
    return slots


class ResidualBlock(nn.Module):
    """Two 3x3 convolutions with a skip connection."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class KingdomExtractor(BaseFeaturesExtractor):
    """Shared trunk: returns [conv map (channels*F*F) | trunk vector (hidden) | slot fits (L*channels)] flat."""

    def __init__(self, observation_space: spaces.Dict, channels: int = 32, blocks: int = 2, hidden: int = 128):
        planes, width, _ = observation_space["board"].shape
        num_features = observation_space["features"].shape[0]
        super().__init__(observation_space, channels * width * width + hidden + MAX_LINE * channels)
        self.channels, self.width, self.hidden = channels, width, hidden
        self.register_buffer("slots", slot_indices(planes), persistent=False)
        self.slot_width = self.slots.shape[1]
        self.stem = nn.Conv2d(planes, channels, 3, padding=1)
        self.condition = nn.Linear(num_features, channels)  # the held domino, the line... as a bias per channel
        self.blocks = nn.Sequential(*[ResidualBlock(channels) for _ in range(blocks)])
        self.vector = nn.Sequential(nn.Linear(num_features, hidden), nn.ReLU())
        self.trunk = nn.Sequential(nn.Linear(hidden + 2 * channels, hidden), nn.ReLU())
        self.slot = nn.Linear(self.slot_width, channels)

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        board, features = observations["board"], observations["features"]
        x = torch.relu(self.stem(board) + self.condition(features)[:, :, None, None])
        x = self.blocks(x)  # (B, channels, F, F)
        peak = x.amax(dim=(2, 3))
        trunk = self.trunk(torch.cat([self.vector(features), x.mean(dim=(2, 3)), peak], dim=1))
        # max over cells of relu(cell + slot) is relu(max cell + slot), exactly (both are monotone): (B, L, channels)
        fits = torch.relu(peak[:, None, :] + self.slot(features[:, self.slots]))
        return torch.cat([x.flatten(1), trunk, fits.flatten(1)], dim=1)


class KingdomHeads(nn.Module):
    """Policy logits over the whole action codec and the value's latent, from the extractor's output."""

    def __init__(self, channels: int, width: int, hidden: int) -> None:
        super().__init__()
        self.channels, self.width, self.hidden = channels, width, hidden
        self.latent_dim_pi = 4 * width * width + 1 + MAX_LINE  # the logits themselves
        self.latent_dim_vf = hidden
        self.place = nn.Conv2d(channels, 4, 1)
        self.discard = nn.Linear(hidden, 1)
        self.pick = nn.Sequential(nn.Linear(channels + hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.value = nn.Sequential(nn.Linear(hidden, hidden), nn.ReLU())

    def _split(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        spatial = self.channels * self.width * self.width
        batch = features.shape[0]
        x = features[:, :spatial].reshape(batch, self.channels, self.width, self.width)
        trunk = features[:, spatial : spatial + self.hidden]
        fits = features[:, spatial + self.hidden :].reshape(batch, MAX_LINE, self.channels)
        return x, trunk, fits

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        x, trunk, fits = self._split(features)
        place = self.place(x).permute(0, 2, 3, 1).flatten(1)  # (B, F*F*4): index 4*(r*F + c) + d
        picks = torch.cat([fits, trunk[:, None, :].expand(-1, MAX_LINE, -1)], dim=2)
        return torch.cat([place, self.discard(trunk), self.pick(picks).squeeze(2)], dim=1)

    def trunk(self, features: torch.Tensor) -> torch.Tensor:
        """The shared trunk's vector of the extractor's output: what the value reads."""
        return self._split(features)[1]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value(self.trunk(features))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class KingdomPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose actor head is :class:`KingdomHeads` (its logits feed the masked distribution)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("features_extractor_class", KingdomExtractor)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        extractor = self.features_extractor
        self.mlp_extractor = KingdomHeads(extractor.channels, extractor.width, extractor.hidden)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the heads already give one logit per action
        for layer in (self.mlp_extractor.place, self.mlp_extractor.discard, self.mlp_extractor.pick[-1]):
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)


def policy_kwargs(channels: int, blocks: int, hidden: int, value_tower: bool = False) -> dict:
    """The ``policy_kwargs`` that build the network of a given size (saved with each checkpoint); with
    ``value_tower``, the value has an extractor of its own."""
    return {
        "features_extractor_kwargs": {"channels": channels, "blocks": blocks, "hidden": hidden},
        "share_features_extractor": not value_tower,
    }


def seat_values(policy, num_players: int) -> None:
    """Give ``policy`` a value per seat (observer first, then the seats after it): the value head of expert
    iteration's networks, whose first output is still the observer's own value, as a ``ppo`` player reads it."""
    policy.value_net = nn.Linear(policy.mlp_extractor.latent_dim_vf, num_players)


def heads(policy, observations: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits (B, A) over the whole codec, values (B, outputs)) of a batch, each from its own extractor."""
    actor = policy.pi_features_extractor(observations)
    if policy.share_features_extractor:
        return policy.mlp_extractor.forward_actor(actor), value_of(policy, actor)
    return policy.mlp_extractor.forward_actor(actor), values(policy, observations)


def actor_logits(policy, observations: dict[str, torch.Tensor]) -> torch.Tensor:
    """The logits (B, A) over the whole codec of a batch, from the policy's extractor."""
    return policy.mlp_extractor.forward_actor(policy.pi_features_extractor(observations))


def leaf_heads(
    policy, rows: dict[str, torch.Tensor], views: int, valued: Literal["all", "movers", "none"]
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(logits of the movers' rows, every ``views``-th; the value outputs of ``valued`` rows, or None) of a
    search's leaves: a shared extractor passes once over the rows for both heads, a value tower over those it
    values."""
    movers = {key: value[::views] for key, value in rows.items()}
    if policy.share_features_extractor:
        latent = policy.features_extractor(rows)
        actor = latent[::views]
        critic = {"all": latent, "movers": actor, "none": None}[valued]
    else:
        actor = policy.pi_features_extractor(movers)
        critic = None if valued == "none" else policy.vf_features_extractor(rows if valued == "all" else movers)
    return policy.mlp_extractor.forward_actor(actor), None if critic is None else value_of(policy, critic)


def values(policy, observations: dict[str, torch.Tensor]) -> torch.Tensor:
    """The value outputs (B, outputs) of a batch, from the value's extractor (its tower, or the shared one)."""
    return value_of(policy, policy.vf_features_extractor(observations))


def value_of(policy, extracted: torch.Tensor) -> torch.Tensor:
    """The value outputs of the value extractor's output."""
    return policy.value_net(policy.mlp_extractor.forward_critic(extracted))
