"""Behaviour cloning data: Full Greedy's best-move sets contain its moves; records are consistent."""

from __future__ import annotations

import random

import numpy as np
import torch

from agents.greedy import FullGreedy
from kdenv.game import OVER, Game
from kdenv.rules import STUDY_RULES
from training.bc import BOARD_LEVELS, fg_choices, imitation_loss, record_decisions


def test_fg_plays_one_of_its_best_moves():
    fg, judge, rng = FullGreedy(), FullGreedy(), random.Random(0)
    ties = 0
    for seed in range(3):
        game = Game(4, STUDY_RULES, seed=seed)
        while game.phase != OVER:
            best = fg_choices(judge, game)
            action = fg.act(game, rng)
            assert action in best
            ties += len(best) > 1
            game.step(action)
    assert ties > 0


def test_recorded_decisions_are_legal_and_complete():
    data = record_decisions("fg", 4, STUDY_RULES.to_dict(), "rank", [7])
    n = len(data["value"])
    assert data["games"] == 1 and n == data["board"].shape[0] == data["target"].shape[0]
    assert 90 <= n <= 110  # 4 players x (13 picks + 12 placements), fewer picks in the last round
    assert not (data["target"] & ~data["mask"]).any()  # every target is a legal move
    assert data["target"].any(axis=1).all()
    assert data["board"].max() <= BOARD_LEVELS
    assert data["value"].min() >= -1.0 and np.isclose(data["value"].max(), 1.0)  # rank rewards; someone won


def test_imitation_loss_rewards_mass_on_the_target_set():
    mask = torch.tensor([[True, True, True, False]])
    target = torch.tensor([[True, True, False, False]])
    good, accuracy_good = imitation_loss(torch.tensor([[5.0, 5.0, 0.0, 9.0]]), mask, target)
    bad, accuracy_bad = imitation_loss(torch.tensor([[0.0, 0.0, 5.0, 9.0]]), mask, target)
    assert good < bad
    assert accuracy_good == 1.0 and accuracy_bad == 0.0


def test_dagger_records_the_students_games_with_the_teachers_labels():
    from conftest import SETTINGS

    from agents.ppo_player import build_policy

    torch.manual_seed(0)
    student = (SETTINGS, build_policy(SETTINGS).state_dict())
    taught = record_decisions("fg", 4, STUDY_RULES.to_dict(), "rank", [7])
    dagger = record_decisions("fg", 4, STUDY_RULES.to_dict(), "rank", [7], student=student, student_share=1.0)
    assert not (dagger["target"] & ~dagger["mask"]).any() and dagger["target"].any(axis=1).all()
    assert dagger["board"].shape != taught["board"].shape or (dagger["board"] != taught["board"]).any()
