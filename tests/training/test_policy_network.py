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


def test_a_slot_s_fit_is_its_best_cell_of_the_map():
    """Each next-line slot's fit is, per channel, the best over the map's cells of relu(cell + the slot's
    embedding), as the network reads it (computed from the map's peak, which is exactly the same)."""
    from kdenv.actions import MAX_LINE

    extractor = _policy(channels=6).features_extractor
    encoder = ObservationEncoder(4, 5)
    torch.manual_seed(0)
    board = torch.rand(3, *encoder.space["board"].shape)
    features = torch.rand(3, *encoder.space["features"].shape)
    with torch.no_grad():
        out = extractor({"board": board, "features": features})
        x = torch.relu(extractor.stem(board) + extractor.condition(features)[:, :, None, None])
        x = extractor.blocks(x).flatten(2)  # (B, channels, cells)
        slots = extractor.slot(features[:, extractor.slots])  # (B, L, channels)
        explicit = torch.relu(x[:, None, :, :] + slots[:, :, :, None]).amax(dim=3)
    assert torch.equal(out[:, -MAX_LINE * 6 :].reshape(3, MAX_LINE, 6), explicit)
