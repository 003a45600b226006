"""``kdenv benchmark --backend ray``: the grid's runs as Ray tasks side by side, each holding its share of the
CPUs, give the summary of one run at a time in this process."""

import pytest

pytest.importorskip("ray")
pytest.importorskip("rliable")

from training.cli import main

PARALLEL = "tests/helpers/benchmark/parallel.yaml"


def kdenv(*argv: str) -> int:
    return main(["benchmark", *argv, "--no-progress"])


# the grid's players that train nothing, so that the test measures the driver and Ray's tasks, not PPO (whose runs
# side by side tests/training/test_benchmark_parallel.py compares); one of them carries its policy from point to point
LIGHT = "algorithms=[tests/helpers/benchmark/gprd.yaml, tests/helpers/benchmark/file.yaml]"


def test_a_grid_on_ray_gives_the_summary_of_one_run_at_a_time(local_ray, tmp_path):
    here, ray = tmp_path / "here", tmp_path / "ray"
    assert kdenv(PARALLEL, "--set", LIGHT, "--out", str(here)) == 0
    assert kdenv(PARALLEL, "--set", LIGHT, "--out", str(ray), "--workers", "2", "--backend", "ray") == 0
    assert (ray / "summary.json").read_text() == (here / "summary.json").read_text()
    assert (ray / "training" / "file" / "vs-fg-2p" / "seed-0" / "policy").read_text() == "512\n1024\n"
