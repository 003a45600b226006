"""`kdenv bench vector` and `kdenv bench train` run in a short mode and print their figures (speed is for the
benchmarks, never for tests)."""

from __future__ import annotations

import pytest

from training.cli import main


def test_bench_vector_prints_every_figure_and_the_ratio_to_the_aec_env(capsys):
    assert main(["bench", "vector", "--short", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "vector 4 players   obs+masks  num_envs= 64:" in out and "masks only num_envs= 64" in out
    assert "learner view vs 3 random" in out and "learner view vs 3 fg" in out
    assert "AEC env (raw_env) 4 players" in out and "ratio vector" in out


def test_bench_train_prints_steps_per_second_and_where_the_time_goes(capsys):
    pytest.importorskip("sb3_contrib")
    options = ["--seconds", "0.5", "--n-envs", "8", "--n-steps", "8", "--batch-size", "32", "--channels", "8"]
    assert main(["bench", "train", "--opponents", "gprd", *options]) == 0
    out = capsys.readouterr().out
    assert "learner steps/s vs 3 gprd:" in out and "learner on cpu" in out
    for part in ("env", "opponents", "forward", "update"):
        assert f"{part} " in out.split("learner steps/s")[1]


@pytest.mark.parametrize("bench", ["train", "selfplay"])
def test_a_learner_device_this_machine_lacks_is_a_one_line_error_before_any_work(bench, capsys):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    assert main(["bench", bench, "--device", "cuda"]) != 0
    err = capsys.readouterr().err.strip()
    assert err == "kdenv bench: error: option '--device': 'cuda', but torch sees no CUDA device here; use cpu"
