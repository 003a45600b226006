"""The RLlib RL module of ``rllib:`` players and of ``kdenv train`` with ``trainer: rllib``: the network of
``ppo`` players (:mod:`agents.policy_network`) over the env's Dict observation, with action masking.

RLlib's action-masking example module expects ``{"observations", "action_mask"}`` and a flat network; this one
reads the PettingZoo env's own ``{"observation": {"board", "features"}, "action_mask"}`` as it is, so the same
convolution over the kingdom planes and the same pick, place and discard heads serve both trainers. Illegal
actions get the lowest logit there is, so neither sampling nor the most probable action ever picks one.
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from agents.checkpoint import EXTRACTOR, SHARED_EXTRACTOR
from agents.policy_network import KingdomExtractor, KingdomHeads

NETWORK = {"channels": 16, "blocks": 2, "hidden": 128}  # the model_config keys and their defaults
# where each part of a ppo checkpoint's policy (agents.policy_network.KingdomPolicy) sits in this module
FROM_PPO = {EXTRACTOR: "extractor.", "mlp_extractor.": "heads.", "value_net.": "value."}


def weights_from_ppo(state: dict[str, Any]) -> dict[str, Any]:
    """A ppo checkpoint's policy weights as this module's state dict (same network sizes), so that an RLlib run
    can start from a shipped or trained ``ppo:`` player; the policy's per-head copies of the shared extractor
    (``pi_``/``vf_features_extractor``) are the same tensors and are left out."""
    return {
        new + key[len(old) :]: value
        for key, value in state.items()
        for old, new in FROM_PPO.items()
        if key.startswith(old)
    }


def weights_to_ppo(state: dict[str, Any]) -> dict[str, Any]:
    """This module's state dict as a ppo checkpoint's policy weights (the inverse of :func:`weights_from_ppo`),
    so that a policy trained with RLlib plays as ``ppo:PATH``, without Ray."""
    policy = {}
    for key, value in state.items():
        old, new = next((old, new) for old, new in FROM_PPO.items() if key.startswith(new))
        for prefix in (old, *(SHARED_EXTRACTOR if old == EXTRACTOR else ())):
            policy[prefix + key[len(new) :]] = value
    return policy


class KingdomRLModule(TorchRLModule, ValueFunctionAPI):
    """Masked policy logits over the whole action codec and a value, from one shared trunk."""

    def setup(self) -> None:
        sizes = {key: int(self.model_config.get(key, default)) for key, default in NETWORK.items()}
        self.extractor = KingdomExtractor(self.observation_space["observation"], **sizes)
        self.heads = KingdomHeads(sizes["channels"], self.extractor.width, sizes["hidden"])
        self.value = nn.Linear(sizes["hidden"], 1)
        for layer in (self.heads.place, self.heads.discard, self.heads.pick[-1]):  # near-uniform first policy
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch, self._embed(batch))}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        embeddings = self._embed(batch)
        return {Columns.ACTION_DIST_INPUTS: self._masked_logits(batch, embeddings), Columns.EMBEDDINGS: embeddings}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self._embed(batch)
        return self.value(self.heads.forward_critic(embeddings)).squeeze(-1)

    def _embed(self, batch: dict[str, Any]) -> torch.Tensor:
        observation = batch[Columns.OBS]["observation"]
        return self.extractor({key: observation[key].float() for key in ("board", "features")})

    def _masked_logits(self, batch: dict[str, Any], embeddings: torch.Tensor) -> torch.Tensor:
        mask = batch[Columns.OBS]["action_mask"].float()
        return self.heads.forward_actor(embeddings) + torch.clamp(torch.log(mask), min=FLOAT_MIN)
