"""Expert iteration (``trainer: az``): its targets are the search's, a tiny run goes end to end and its
checkpoints play as ``ppo:`` and ``az:``, a stopped or killed run resumes with nothing logged twice, and a
config of another backend is a one-line error."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest
import torch

from agents.az_search import Search
from agents.game_loop import play_game
from agents.registry import make_player
from agents.search_settings import settings_of
from kdenv.actions import discard_action
from kdenv.batched.machine import MADE, copy_game, games
from kdenv.encoding import ObservationEncoder, action_mask
from kdenv.game import Game
from kdenv.replay import replay_record
from kdenv.rules import STUDY_RULES
from kdenv.symmetry import symmetries
from training.az.buffer import ReplayBuffer
from training.az.config import az_config
from training.az.selfplay import FIELDS, Positions, SelfPlay
from training.az.start import starting_network
from training.az.train import LAST, train_az
from training.az.workers import make_selfplay
from training.cli import main
from training.runs.config import read_yaml

SMOKE = "configs/az_smoke.yaml"
TINY = ["warmup.games=2", "selfplay={games: 2, parallel: 2, simulations: 2, considered: 2, batch: 2}",
        "eval={every: 1, games: 2, opponents: [fg], search_games: 0, workers: 1}"]  # fmt: skip


def smoke(tmp_path, *overrides: str):
    return az_config(read_yaml(SMOKE), [f"runs_dir={tmp_path}", *TINY, *overrides])


def test_targets_are_the_search_output_and_the_seats_outcomes(tmp_path):
    """At a searched decision the target is the improved policy of the search run from that game with the same
    generator, spread over the action codec; the observation is the mover's; the values are every seat's rank
    reward in the order of the per-seat head (the mover first)."""
    config = smoke(tmp_path)
    settings, policy = starting_network(config)
    play = SelfPlay(settings, policy, 1, 3, settings_of(config.selfplay), seed=5)
    while play.obs["action_mask"][0].sum() < 3:
        play.step()
    t = play.tables
    before, rng = games(1, t), copy.deepcopy(play.rng)
    copy_game(play.env.games, 0, before, 0)
    mover, game = int(play.movers[0]), play.env.game(0)
    play.step()
    result = Search(t, 1, settings_of(config.selfplay)).run(play.evaluator, before, rng, 3)
    board, features, mask, target, recorded = play.pending[0].rows[-1]
    expected = np.zeros(t.num_actions, np.float32)
    expected[result.root.actions] = result.policy
    assert target == pytest.approx(expected) and recorded == mover
    made = play.env.games.counters[0, MADE]
    assert play.env.games.moves[0, made - 1, 1] == result.root.actions[result.chosen]  # the move played
    encoded = ObservationEncoder(4, 5, gains=True).encode(game, mover)
    assert board.astype(np.float32) == pytest.approx(encoded["board"], abs=1e-3)
    assert features.astype(np.float32) == pytest.approx(encoded["features"], abs=1e-3)
    assert mask.tolist() == action_mask(game).tolist()
    searched = len(play.pending[0].rows)
    done = []
    while not done:
        done = play.step()
    final = replay_record(play.env.records()[0])
    reward = np.array([1 - 2 * place / 3 for place in final.placings()])
    values = done[0].values
    assert len(done[0]) >= searched
    assert values[searched - 1] == pytest.approx(np.roll(reward, -mover))


@pytest.mark.parametrize("opponent", ["fg", "fgt"])
def test_with_an_opponent_one_seat_a_game_searches_and_the_opponent_holds_the_others(tmp_path, opponent):
    """``selfplay.opponent``: each game's labelled decisions are all one seat's, the seat the record names the
    learner, and every other seat's moves are the opponent's (the records name it)."""
    config = smoke(tmp_path, f"selfplay.opponent={opponent}", "selfplay.parallel=2")
    settings, policy = starting_network(config)
    threads = torch.get_num_threads()
    play = make_selfplay(settings, policy.state_dict(), config.selfplay, seed=3)  # as a worker makes it
    torch.set_num_threads(threads)  # a worker's one thread, not the test process's
    done: list = []
    while len(done) < 2:
        pending = [{row[4] for row in p.rows} for p in play.pending]
        assert all(len(movers) <= 1 for movers in pending)
        done += [positions for positions in play.step() if len(positions)]
    for record in play.env.records():
        assert sorted(record["agents"]) == [opponent, opponent, opponent, "learner"]
    assert all(len(positions) >= 10 for positions in done)  # a seat's choices of a whole game


def test_self_play_values_finished_games_as_its_config_says(tmp_path):
    """``selfplay.evaluation`` reaches the search (rank by default: the scale of ``target_temperature``)."""
    assert settings_of(smoke(tmp_path).selfplay).evaluation == "rank"
    assert settings_of(smoke(tmp_path, "selfplay.evaluation=r").selfplay).evaluation == "r"


def test_with_a_target_temperature_the_target_is_the_prior_tilted_by_the_q_values(tmp_path):
    """``selfplay.target_temperature``: the target is softmax(logits + Q / temperature), Q the search's completed
    Q-values as they are; the search's own improved policy (sigma rescales Q to [0, 1]) is another."""
    config = smoke(tmp_path, "selfplay.c_scale=1")
    settings, policy = starting_network(config)
    play = SelfPlay(settings, policy, 1, 4, settings_of(config.selfplay), seed=5, target_temperature=0.5)
    while play.obs["action_mask"][0].sum() < 3:
        play.step()
    t = play.tables
    before, rng = games(1, t), copy.deepcopy(play.rng)
    copy_game(play.env.games, 0, before, 0)
    play.step()
    result = Search(t, 1, settings_of(config.selfplay)).run(play.evaluator, before, rng, 4)
    target = play.pending[0].rows[-1][3]
    tilted = np.exp(result.root.logits + result.q / 0.5)
    assert target[result.root.actions] == pytest.approx(tilted / tilted.sum(), abs=1e-6)
    assert np.abs(np.log(result.policy) - np.log(tilted / tilted.sum())).max() > 1  # a factor e, somewhere


def test_with_the_symmetries_each_sampled_position_is_one_of_its_images(tmp_path):
    """A window of one searched placement late in a self-play game, sampled with the table's symmetries: every row
    is that decision's board, mask and target moved by one same symmetry, every image drawn; the features and
    values stay."""
    config = smoke(tmp_path)
    settings, policy = starting_network(config)
    played = SelfPlay(settings, policy, 1, 3, settings_of(config.selfplay), seed=5).play(1)
    placements = np.flatnonzero(played.mask[:, : discard_action(settings.kingdom_size)].sum(axis=1) > 2)
    buffer = ReplayBuffer(1)
    buffer.add(Positions(*(getattr(played, f)[placements[-1:]] for f in FIELDS)))
    table = symmetries(settings.num_players, settings.kingdom_size, settings.gains)
    sampled = buffer.sample(np.random.default_rng(0), 64, table)
    original = buffer.sample(np.random.default_rng(0), 1)
    images = [(s.board(original.board[0]), s.actions(original.mask[0]), s.actions(original.policy[0])) for s in table]
    assert len({row.tobytes() for row in sampled.board}) == len({i[0].tobytes() for i in images}) > 1  # all drawn
    for k in range(64):
        row = (sampled.board[k], sampled.mask[k], sampled.policy[k])
        assert any(all(np.array_equal(a, b) for a, b in zip(row, image, strict=True)) for image in images)
        np.testing.assert_array_equal(sampled.features[k], original.features[0])
        np.testing.assert_array_equal(sampled.values[k], original.values[0])


@pytest.mark.slow
def test_a_tiny_run_end_to_end_and_its_checkpoint_plays_as_ppo_and_az(tmp_path):
    run = train_az(smoke(tmp_path, "iterations=2", "eval.search_games=4", "eval.search_simulations=2"))
    for name in ("config.yaml", "last.zip", "best.zip", "eval.jsonl", "metrics.jsonl", "learning.png"):
        assert (run / name).is_file(), name
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    assert len(list((run / "buffer").glob("iter-*.npz"))) == 2
    evaluations = [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines()]
    assert [e["step"] for e in evaluations] == [0, 1, 2]
    assert set(evaluations[-1]["results"]) == {"fg", "fg (az, 2 simulations)"}
    for spec in (f"ppo:{run / LAST}", f"az:{run / LAST},simulations=2"):
        player = make_player(spec, 4, STUDY_RULES)
        game = play_game([player, *(make_player("fg") for _ in range(3))], Game(4, STUDY_RULES, 3))
        assert game.is_over  # every move was legal


def test_from_scratch_a_fresh_network_first_imitates_fg_then_the_run_goes_on(tmp_path):
    """init: scratch: a network of the config's shape, not a shipped one, taught by fg's games before self-play."""
    network = "network={channels: 8, blocks: 1, hidden: 32}"
    config = smoke(tmp_path, "init=scratch", "bc={games: 3, epochs: 1}", network, "iterations=1")
    logged: list[str] = []
    settings, _ = starting_network(config, log=logged.append)
    assert len(logged) == 1 and logged[0].startswith("imitation of fg: 3 games, accuracy ")
    assert (settings.network.channels, settings.network.blocks, settings.network.hidden) == (8, 1, 32)
    assert settings.network.seat_values and settings.network.value_tower
    run = train_az(config)
    assert (run / "last.zip").is_file() and len((run / "eval.jsonl").read_text().splitlines()) == 2


def _start(tmp_path, *overrides: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "training.cli", "train", SMOKE, "--set", f"runs_dir={tmp_path}"]
    for override in [*TINY, "iterations=1000", *overrides]:
        command += ["--set", override]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_evaluations(tmp_path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        logs = list(tmp_path.glob("*/eval.jsonl"))
        if logs and len(logs[0].read_text().splitlines()) >= count:
            return
        time.sleep(0.5)
    raise AssertionError(f"no {count} evaluations: {process.stderr.read() if process.poll() is not None else ''}")


def _steps(run) -> list[int]:
    return [json.loads(line)["step"] for line in (run / "eval.jsonl").read_text().splitlines()]


def _saved_iteration(run) -> int:
    with zipfile.ZipFile(run / LAST) as archive:
        return json.loads(archive.read("kdenv.json"))["training"]["iteration"]


@pytest.mark.slow
def test_sigint_saves_and_resume_goes_on(tmp_path):
    process = _start(tmp_path)
    _wait_for_evaluations(tmp_path, 2, process)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "resume with kdenv train --resume" in err and "Traceback" not in err
    run = next(tmp_path.glob("az_smoke-*"))
    assert (run / "learning.png").is_file()  # the curve so far
    saved = _saved_iteration(run)
    assert saved >= 1
    assert main(["train", "--resume", str(run), "--set", f"iterations={saved + 1}"]) == 0
    assert _saved_iteration(run) == saved + 1
    steps = _steps(run)
    assert steps == sorted(set(steps)) and steps[-1] == saved + 1


@pytest.mark.slow
def test_kill_9_then_resume_logs_no_evaluation_twice(tmp_path):
    """Evaluations logged after the last checkpoint (here only iteration 0's) are dropped, and played again."""
    process = _start(tmp_path, "checkpoint_every=1000")
    _wait_for_evaluations(tmp_path, 3, process)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)
    run = next(tmp_path.glob("az_smoke-*"))
    assert _saved_iteration(run) == 0 and len(_steps(run)) >= 3
    assert main(["train", "--resume", str(run), "--set", "iterations=2"]) == 0
    assert _steps(run) == [0, 1, 2]
    assert sorted(p.name.split("-")[1] for p in (run / "buffer").glob("iter-*.npz")) == ["0001", "0002"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["train", SMOKE, "--trainer", "sb3"], "is a config for trainer az"),
        (["train", "configs/smoke.yaml", "--trainer", "az"], "is a config for trainer sb3"),
        (["train", SMOKE, "--set", "selfplay.simulation=3"], "'selfplay.simulation'"),
        (["train", SMOKE, "--set", "env.reward=score"], "rank reward"),
        (["train", "configs/smoke.yaml", "--workers", "2"], "--workers is for trainer az"),
    ],
)
def test_config_errors_are_one_line(argv, expected, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert expected in err and "\n" not in err and err.startswith("kdenv train: error:")
