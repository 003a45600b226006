"""A whole training run in miniature: warm start, PPO with a league, checkpoints, resume, a player that plays."""

from __future__ import annotations

import json

import pytest

from agents.arena import play_game
from agents.registry import make_player
from kdenv.game import Game
from kdenv.rules import STUDY_RULES
from training.config import ConfigError, load_config
from training.train import LAST, load_run_config, train


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
