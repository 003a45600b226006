"""RLlib run directories and checkpoints that are not what they should be: one line each, and Ray not started
for a run directory that cannot be resumed."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("ray")

from agents.checkpoint import CheckpointError
from agents.registry import make_player
from tests.helpers.locks import held_elsewhere
from training.cli import main
from training.runs.directory import CONFIG_FILE, LAST


@pytest.fixture
def no_ray(monkeypatch):
    """Fail the test if the trainer starts (or joins) Ray."""
    import training.rllib.train

    monkeypatch.setattr(training.rllib.train, "connected", lambda address: pytest.fail("Ray was started"))


@pytest.mark.parametrize("garbage", [b"garbage", pickle.dumps("garbage"), pickle.dumps({"class": int})])
def test_a_damaged_module_checkpoint_is_a_one_line_error(garbage, tmp_path):
    from agents.rllib_module import KingdomRLModule
    from kdenv.kingdomino_v0 import raw_env

    env = raw_env(2, gains=True)
    module = KingdomRLModule(
        observation_space=env.observation_space("player_0"), action_space=env.action_space("player_0"),
        model_config={"channels": 4, "blocks": 1, "hidden": 8}, inference_only=True,
    )  # fmt: skip
    module.save_to_path(str(tmp_path / "module"))
    assert make_player(f"rllib:{tmp_path / 'module'}", 2).module is not None  # the module as saved plays
    (tmp_path / "module" / "class_and_ctor_args.pkl").write_bytes(garbage)
    with pytest.raises(CheckpointError, match="cannot load the RLlib module in") as err:
        make_player(f"rllib:{tmp_path / 'module'}", 2)  # AttributeError: 'RLModule' object has no attribute 'eval'
    assert "\n" not in str(err.value)


def test_resuming_an_sb3_run_with_an_rllib_config_is_refused_before_ray_starts(no_ray, tmp_path, capsys):
    run = tmp_path / "sb3-run"
    run.mkdir()
    (run / CONFIG_FILE).write_text("{}\n")
    (run / LAST).write_bytes(b"")
    assert main(["train", "configs/rllib_vs_fg.yaml", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"cannot resume {str(run)!r}: it holds no checkpoint/ of an RLlib run" in err and err.count("\n") == 1


def test_an_rllib_run_another_process_trains_is_refused_before_ray_starts(no_ray, tmp_path, capsys):
    run = tmp_path / "rllib-run"
    (run / "checkpoint").mkdir(parents=True)
    (run / CONFIG_FILE).write_text("trainer: rllib\n")
    with held_elsewhere(run) as holder:
        assert main(["train", "--resume", str(run)]) == 2
    err = capsys.readouterr().err
    assert f"error: run directory {str(run)!r} is in use by process {holder.pid};" in err and err.count("\n") == 1
