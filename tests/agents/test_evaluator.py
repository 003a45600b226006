"""The network's part of a search: where rollouts alone value the leaves, it reads the prior and nothing else."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_player
from agents.evaluator import Evaluator
from kdenv.rules import STUDY_RULES
from kdenv.vector import VectorEnv


@pytest.mark.parametrize("players", [2, 4])
def test_where_rollouts_alone_value_the_leaves_the_evaluator_reads_the_prior_alone(players):
    """The az player's default (fg rollouts, mix=1) reads one row a leaf and never the value (its head, nor its tower
    where it has one: the 2-player default); its logits are the full evaluator's, its values zeros. With the
    network's values in the mix they are read."""
    az = make_player("az:default", players, STUDY_RULES)
    assert az.evaluator.prior_only and az.evaluator.views == 1
    settings, policy = az.network.settings, az.network.policy
    env = VectorEnv(8, players, gains=settings.gains, rules=STUDY_RULES)
    env.reset(seed=0)
    obs, movers = env.observation(), env.movers()
    value = [policy.value_net] if policy.share_features_extractor else [policy.vf_features_extractor, policy.value_net]
    calls: list[int] = []
    hooks = [module.register_forward_hook(lambda *_: calls.append(1)) for module in value]
    try:
        logits, values = az.evaluator(obs["board"], obs["features"], obs["action_mask"], movers)
        assert not calls and not values.any() and values.shape == (8, players)
        full = Evaluator(settings, policy, "mover")
        full_logits, full_values = full(obs["board"], obs["features"], obs["action_mask"], movers)
        assert len(calls) == len(value) and full_values.any()
    finally:
        for hook in hooks:
            hook.remove()
    np.testing.assert_array_equal(logits, full_logits)
    assert not make_player("az:default,mix=0.5", players, STUDY_RULES).evaluator.prior_only
