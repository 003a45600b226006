"""The network: logits land on the action they belong to, and masks are honoured."""

from __future__ import annotations

import torch
from gymnasium import spaces

from agents.policy_network import KingdomPolicy, policy_kwargs
from kdenv.actions import discard_action, num_actions, pick_action
from kdenv.encoding import ObservationEncoder

F = 9


def _policy(channels=4):
    encoder = ObservationEncoder(4, 5)
    kwargs = policy_kwargs(channels, 1, 8)
    return KingdomPolicy(encoder.space, spaces.Discrete(num_actions(5)), lambda _: 1e-3, **kwargs)


def test_place_logit_of_a_cell_and_direction_is_at_its_action_index():
    heads = _policy().mlp_extractor
    with torch.no_grad():
        heads.place.weight.zero_()
        heads.place.bias.zero_()
        for d in range(4):
            heads.place.weight[d, 0, 0, 0] = d + 1.0
    x = torch.zeros(1, 4, F, F)
    x[0, 0, 2, 6] = 1.0
    features = torch.cat([x.flatten(1), torch.zeros(1, 8 + 4 * 4)], dim=1)
    logits = heads.forward_actor(features)[0]
    assert logits.shape == (num_actions(5),)
    for d in range(4):
        assert logits[4 * (2 * F + 6) + d] == d + 1.0
    assert torch.count_nonzero(logits[: discard_action(5)]) == 4


def test_masked_prediction_is_always_legal():
    from kdenv.encoding import action_mask
    from kdenv.game import Game
    from kdenv.rules import STUDY_RULES

    policy = _policy()
    encoder = ObservationEncoder(4, 5)
    game = Game(4, STUDY_RULES, seed=3)
    while not game.is_over:
        obs = encoder.encode(game, game.current_player)
        action, _ = policy.predict(obs, action_masks=action_mask(game).astype(bool), deterministic=False)
        game.step(int(action))
    assert pick_action(0) == discard_action(5) + 1
