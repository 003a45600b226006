"""A network player infers on one torch thread and leaves the process's own thread count as it found it (a
player seated in a training process must not slow the learner)."""

from __future__ import annotations

import pytest
import torch

from agents import make_player
from agents.game_loop import play_game
from kdenv.game import Game
from kdenv.rules import STUDY_RULES


@pytest.mark.parametrize("spec", ["ppo:default", "az:default,simulations=4,rollout=none"])
def test_a_network_player_leaves_the_thread_count_as_it_was(spec):
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        seen = []
        player = make_player(spec, 2, STUDY_RULES)
        original = torch.set_num_threads

        def spy(count: int) -> None:
            seen.append(count)
            original(count)

        torch.set_num_threads = spy
        try:
            play_game([player, make_player("random", 2, STUDY_RULES)], Game(2, STUDY_RULES, 1), 1)
        finally:
            torch.set_num_threads = original
        assert torch.get_num_threads() == 2
        assert 1 in seen  # it did infer on one thread
    finally:
        torch.set_num_threads(threads)
