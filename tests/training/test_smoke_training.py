"""A whole training run in miniature: warm start, PPO with a league, checkpoints, resume, a player that plays."""

from __future__ import annotations

import json

import pytest

from agents.game_loop import play_game
from agents.registry import make_player
from kdenv.game import Game
from kdenv.rules import STUDY_RULES
from tests.helpers.configs import load_config
from training.ppo.train import load_run_config, train
from training.runs.config import ConfigError
from training.runs.directory import LAST


@pytest.mark.slow
def test_train_resume_and_play(tmp_path):
    overrides = [
        f"runs_dir={tmp_path}",
        "network={channels: 8, blocks: 1, hidden: 16}",
        "ppo.total_timesteps=512",
        "ppo.n_envs=4",
        "ppo.n_steps=128",
        "ppo.batch_size=128",
        "league.snapshot_every=256",
        "checkpoint_every=256",
        "eval={every: 512, games: 4, opponents: [fg, random], workers: 2}",
        "bc={games: 8, epochs: 1, batch_size: 128}",
        "env.gains=true",  # the observation of the shipped configs
    ]
    run = train(load_config("configs/smoke.yaml", overrides))
    for name in ("config.yaml", "last.zip", "best.zip", "bc.zip", "eval.jsonl"):
        assert (run / name).is_file(), name
    assert list((run / "snapshots").glob("*.zip"))
    assert list((run / "tb").rglob("events.out.tfevents.*"))
    evaluations = [json.loads(line) for line in (run / "eval.jsonl").read_text().splitlines()]
    assert [e["step"] for e in evaluations] == [0, 512]
    assert evaluations[-1]["results"]["fg"]["games"] == 4

    resumed = train(load_run_config(run, ["ppo.total_timesteps=768"]), resume=run)
    assert resumed == run
    with __import__("zipfile").ZipFile(run / LAST) as archive:
        state = json.loads(archive.read("kdenv.json"))["training"]
    assert state["step"] >= 768
    assert state["league"]["snapshots"]  # the pool came back with the run

    player = make_player(f"ppo:{run / LAST}")
    for seed in range(2):
        others = [make_player(spec) for spec in ("random", "fg", "gprd")]
        game = play_game([player, *others], Game(4, STUDY_RULES, seed))
        assert game.is_over  # every move was legal (Game.step raises otherwise)


def test_resume_needs_a_run_directory(tmp_path):
    with pytest.raises(ConfigError, match="cannot resume"):
        load_run_config(tmp_path)


@pytest.mark.slow
def test_sigint_saves_last_zip_and_resume_drops_evaluations_past_it(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    overrides = [f"runs_dir={tmp_path}", "network={channels: 8, blocks: 1, hidden: 16}", "ppo.n_envs=4",
                 "ppo.n_steps=32", "ppo.batch_size=64", "ppo.total_timesteps=10000000", "checkpoint_every=100000",
                 "eval={every: 256, games: 2, opponents: [random]}", "bc={games: 0}"]  # fmt: skip
    command = [sys.executable, "-m", "training.cli", "train", "configs/smoke.yaml"]
    for override in overrides:
        command += ["--set", override]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not list(tmp_path.glob("*/eval.jsonl")):
        time.sleep(0.5)
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "resume with kdenv train --resume" in err and "Traceback" not in err
    run = next(tmp_path.glob("smoke-*"))
    with __import__("zipfile").ZipFile(run / LAST) as archive:
        saved = json.loads(archive.read("kdenv.json"))["training"]["step"]
    with open(run / "eval.jsonl", "a") as log:  # an evaluation written after last.zip, as a kill -9 leaves it
        log.write(json.dumps({"step": saved + 999, "results": {}}) + "\n")
    train(load_run_config(run, ["ppo.total_timesteps=" + str(saved + 128)]), resume=run)
    steps = [json.loads(line)["step"] for line in (run / "eval.jsonl").read_text().splitlines()]
    assert saved + 999 not in steps and steps == sorted(steps) and len(steps) == len(set(steps))
