"""Behaviour cloning data: Full Greedy's best-move sets contain its moves; records are consistent."""

from __future__ import annotations

import random

import numpy as np
import torch

from agents.greedy import FullGreedy
from kdenv.game import OVER, Game
from kdenv.replay import replay_record
from kdenv.rules import STUDY_RULES
from tests.helpers.references import fg_choices
from training.ppo.bc import BOARD_LEVELS, imitation_loss, teacher_decisions


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
    data = next(teacher_decisions("fg", 4, STUDY_RULES, "rank", games=2, chunk_games=2, num_envs=2))
    n = len(data["value"])
    assert data["games"] == 2 and n == data["board"].shape[0] == data["target"].shape[0] == 2 * 96
    assert not (data["target"] & ~data["mask"]).any()  # every target is a legal move
    assert data["target"].any(axis=1).all()
    assert data["board"].max() <= BOARD_LEVELS
    assert data["value"].min() >= -1.0 and np.isclose(data["value"].max(), 1.0)  # rank rewards; someone won


def test_score_returns_sum_each_seats_remaining_score():
    data = next(teacher_decisions("gprd", 2, STUDY_RULES, "score", games=1, chunk_games=1, num_envs=1))
    assert data["games"] == 1 and data["value"][0] > 0  # the whole game's score / 100 is still ahead
    assert data["value"].min() >= 0.0


def test_the_compiled_teachers_targets_are_the_python_full_greedys_best_moves():
    records: list = []
    data = next(teacher_decisions("fg", 3, STUDY_RULES, "rank", 1, seed=5, num_envs=1, chunk_games=1, records=records))
    record = records[0]
    replay_record(record)  # a legal game
    game, judge = Game.from_deck(3, STUDY_RULES, record["deck"], record["king_order"]), FullGreedy()
    for k, move in enumerate(replay_record(record).moves):
        assert np.flatnonzero(data["target"][k]).tolist() == sorted(fg_choices(judge, game))
        game.step(move[1], move[0])
    assert game.is_over and len(data["target"]) == len(game.moves)


def test_imitation_loss_rewards_mass_on_the_target_set():
    mask = torch.tensor([[True, True, True, False]])
    target = torch.tensor([[True, True, False, False]])
    good, accuracy_good = imitation_loss(torch.tensor([[5.0, 5.0, 0.0, 9.0]]), mask, target)
    bad, accuracy_bad = imitation_loss(torch.tensor([[0.0, 0.0, 5.0, 9.0]]), mask, target)
    assert good < bad
    assert accuracy_good == 1.0 and accuracy_bad == 0.0


def test_dagger_records_the_students_games_with_the_teachers_labels():
    from agents.ppo_player import build_policy
    from tests.helpers.checkpoints import tiny

    torch.manual_seed(0)
    student = build_policy(tiny())
    taught = next(teacher_decisions("fg", 4, STUDY_RULES, "rank", 1, seed=7, num_envs=1, chunk_games=1))
    dagger = next(teacher_decisions("fg", 4, STUDY_RULES, "rank", 1, seed=7, num_envs=1, chunk_games=1,
                                    student=student, student_share=1.0))  # fmt: skip
    assert not (dagger["target"] & ~dagger["mask"]).any() and dagger["target"].any(axis=1).all()
    assert (dagger["board"] != taught["board"]).any()


def test_a_last_chunk_stops_at_the_games_asked_for_though_more_envs_finish_at_once():
    records: list = []
    chunks = list(teacher_decisions("gprd", 2, STUDY_RULES, "rank", games=3, num_envs=8, chunk_games=2,
                                    records=records))  # fmt: skip
    assert [chunk["games"] for chunk in chunks] in ([2, 1], [3])  # 8 games end in the same step or two
    assert len(records) == 3


def test_the_warm_start_imitates_the_games_its_progress_bar_counts_to():
    """``kdenv train configs/smoke.yaml`` showed ``imitating fg (games): 64/16``: 64 envs finishing together."""
    from agents.ppo_player import build_policy
    from kdenv.table import Table
    from tests.helpers.checkpoints import tiny
    from training.ppo.bc import behaviour_clone
    from training.ppo.config import BCConfig

    counted: list[int] = []
    bc = BCConfig(games=4, teacher="fg", epochs=1, batch_size=64, learning_rate=1e-3, value_weight=0.5)
    summary = behaviour_clone(build_policy(tiny()), bc, Table(4, STUDY_RULES, "rank"), on_games=counted.append)
    assert sum(counted) == summary["bc/games"] == 4
