"""Training configs: defaults, overrides with type checks, and one-line errors naming the bad key."""

from __future__ import annotations

import re

import pytest

from tests.helpers.configs import load_config
from training.ppo.config import Stage, TrainConfig, config_from_dict
from training.runs.config import ConfigError


def test_every_shipped_config_loads():
    from pathlib import Path

    from training.az.config import az_config
    from training.rllib.config import rllib_config
    from training.runs.config import read_yaml

    paths = sorted(Path("configs").glob("*.yaml"))
    trainers = {path: read_yaml(path).get("trainer", "sb3") for path in paths}
    rllib = [path for path in paths if trainers[path] == "rllib"]
    tables = {load_config(path).env.num_players for path in paths if trainers[path] == "sb3"}
    assert tables == {2, 3, 4}
    assert {tuple(rllib_config(read_yaml(path)).rllib.opponents) for path in rllib} == {(), ("fg", "fg", "fg")}
    az = {
        (c.env.num_players, c.rules().kingdom_size)
        for c in (az_config(read_yaml(p)) for p in paths if trainers[p] == "az")
    }
    assert az == {(2, 5), (3, 5), (4, 5), (2, 7)}  # every table with a shipped network


def test_shipped_configs_load():
    for name in ("smoke", "ppo_vs_fg", "selfplay"):
        config = load_config(f"configs/{name}.yaml")
        assert config.env.num_players == 4
        assert config.rules().middle_kingdom and config.rules().harmony


def test_set_overrides_with_types():
    overrides = ["ppo.n_steps=128", "ppo.learning_rate=1e-4", "eval.opponents=[fg]", "bc.max_minutes=2"]
    config = config_from_dict({}, overrides)
    assert config.ppo.n_steps == 128
    assert config.ppo.learning_rate == pytest.approx(1e-4)
    assert config.eval.opponents == ["fg"]
    assert config.bc.max_minutes == 2.0


def test_int_accepted_for_float_but_not_the_reverse():
    assert config_from_dict({"ppo": {"learning_rate": 1}}).ppo.learning_rate == 1.0
    with pytest.raises(ConfigError, match="'ppo.n_steps'"):
        config_from_dict({"ppo": {"n_steps": 12.5}})


@pytest.mark.parametrize(
    ("data", "overrides", "key"),
    [
        ({"ppo": {"n_stepz": 3}}, [], "ppo.n_stepz"),
        ({"colour": "red"}, [], "colour"),
        ({}, ["ppo.batch_size=many"], "ppo.batch_size"),
        ({}, ["network.channels=0"], "network.channels"),
        ({}, ["league.prioritise=maybe"], "league.prioritise"),
        ({}, ["env.reward=win"], "env.reward"),
        ({}, ["env.num_players=5"], "env"),
        ({}, ["eval.opponents=[nobody]"], "eval.opponents"),
        ({"curriculum": [{"opponents": {"fg": -1}}]}, [], "curriculum[0].opponents"),
        ({"curriculum": [{"opponents": {"fg": 1}, "untill": 5}]}, [], "curriculum[0].untill"),
        ({"ppo": 3}, [], "ppo"),
    ],
)
def test_bad_keys_and_values_name_the_key(data, overrides, key):
    with pytest.raises(ConfigError) as info:
        config_from_dict(data, overrides)
    message = str(info.value)
    assert f"'{key}'" in message
    assert "\n" not in message


def test_bad_set_syntax():
    with pytest.raises(ConfigError, match="key=value"):
        config_from_dict({}, ["ppo.n_steps"])


def test_missing_file_and_bad_yaml(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)


def test_curriculum_stage_by_step():
    config = TrainConfig(curriculum=[Stage({"random": 1.0}, 100), Stage({"fg": 1.0}, None)])
    assert config.stage(0).opponents == {"random": 1.0}
    assert config.stage(99).opponents == {"random": 1.0}
    assert config.stage(100).opponents == {"fg": 1.0}
    assert config.stage(10**9).opponents == {"fg": 1.0}


@pytest.mark.parametrize(
    "text, overrides, message",
    [
        ("- a\n- b\n", [], "a config is a mapping of keys"),
        ("", [], "is empty"),
        ("name: x\n", ["ppo.device=tpu"], "'ppo.device': 'tpu' is not a torch device"),
        ("name: x\n", ["runs_dir=/proc/x"], "'runs_dir': '/proc/x' cannot be written here"),
        ("name: x\n", ["max_minutes=-1"], "'max_minutes' must be positive"),
        ("name: x\n", ["bc.teacher=nosuch"], "'bc.teacher': 'nosuch' is not one of fg, gprd"),
        ("name: x\n", ["env.reward=win"], "'env.reward': 'win' is not one of rank, margin, score"),
        ("name: x\n", ["eval.backend=gpu"], "'eval.backend': 'gpu' is not one of local, ray"),
        ("name: x\n", ["init=/no/such.zip"], "'init': checkpoint '/no/such.zip' not found"),
        ("name: x\n", ["init=agents/checkpoints/default-2p.zip"], "trained for 2 players at kingdom size 5 and cannot"),
        ("name: x\n", ["init=default"], "observes gains=True, this run env.gains=False"),
    ],
)
def test_bad_configs_are_one_line_errors_before_anything_is_made(tmp_path, text, overrides, message):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message) if "'" in message else message):
        load_config(path, [f"runs_dir={tmp_path / 'runs'}", *overrides])
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("device", "message", "present"),
    [
        ("meta", "'meta' is not supported; use cpu, cuda or mps", lambda torch: False),
        ("cuda:1", "'cuda:1', but torch sees no CUDA device here; use cpu", lambda torch: torch.cuda.is_available()),
        ("mps", "'mps', but torch sees no MPS device here; use cpu", lambda torch: torch.backends.mps.is_available()),
    ],
)
def test_a_device_this_machine_lacks_is_a_one_line_error_before_anything_is_made(tmp_path, device, message, present):
    """SB3 would fall back to cpu from a missing cuda without a word, and fail late, with torch's traceback, on mps
    or meta: after imitation and the run folder."""
    import torch

    if present(torch):
        pytest.skip(f"this machine has {device}'s kind of device")
    path = tmp_path / "config.yaml"
    path.write_text("name: x\n")
    with pytest.raises(ConfigError, match=re.escape(f"config key 'ppo.device': {message}")):
        load_config(path, [f"runs_dir={tmp_path / 'runs'}", f"ppo.device={device}"])
    assert not (tmp_path / "runs").exists()


def test_a_binary_config_file_is_a_one_line_error(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_bytes(bytes(range(256)))
    with pytest.raises(ConfigError, match="is not a UTF-8 text file"):
        load_config(path)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["configs/rllib_selfplay.yaml", "--set", "rllib.iterationz=1"], "unknown config key 'rllib.iterationz'"),
        (["--trainer", "rllib", "--set", "env.num_players=5"], "config key 'env'"),
        (["configs/rllib_vs_fg.yaml", "--trainer", "sb3"], "is a config for trainer rllib"),
        (
            ["configs/az_smoke.yaml", "--set", "selfplay.backend=gpu"],
            "'selfplay.backend': 'gpu' is not one of local, ray",
        ),
        (
            ["configs/az_smoke.yaml", "--set", "selfplay.opponent=mce"],
            "'selfplay.opponent': 'mce' is not one of none, random, gprd, fg, fgt",
        ),
        (
            ["configs/az_smoke.yaml", "--set", "selfplay.target_temperature=0"],
            "'selfplay.target_temperature' must be positive",
        ),
        (
            ["configs/az_smoke.yaml", "--set", "selfplay.evaluation=wdl"],
            "'selfplay.evaluation': 'wdl' is not one of rank, r",
        ),
    ],
)
def test_train_takes_rllib_configs_and_refuses_bad_ones_in_one_line(argv, message, capsys):
    from training.cli import main

    assert main(["train", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_an_old_configs_backend_key_is_read_as_its_trainer_with_one_note(capsys):
    """``backend:`` named the trainer before ``trainer:`` did; an old config still trains, told once in one line."""
    from training.az.config import az_config
    from training.runs import config as runs_config
    from training.trainers import trainer_of

    runs_config._note_renamed.cache_clear()
    old = {"backend": "az", "env": {"num_players": 2, "gains": True}}
    assert trainer_of(old, None) == "az"
    assert az_config(old).trainer == "az"
    err = capsys.readouterr().err
    assert err == "kdenv: note: config key 'backend' is now 'trainer'; read as trainer: az\n"
    with pytest.raises(ConfigError, match="give 'trainer' alone"):
        az_config({"backend": "az", "trainer": "az"})
