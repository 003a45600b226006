"""``import kdenv`` registers the envs with PettingZoo and Gymnasium, in a fresh interpreter; on a PettingZoo without
a registry (before 1.27) it registers the Gymnasium id alone, says nothing, and the env is made by hand."""

from __future__ import annotations

import logging
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from kdenv import registration

ROOT = Path(__file__).resolve().parents[2]


def python(code: str) -> subprocess.CompletedProcess:
    """``code`` run by a fresh interpreter from the repository's root."""
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_pettingzoo_make_builds_the_flat_env_after_import_kdenv_in_a_fresh_interpreter():
    done = python(
        "import kdenv, pettingzoo; env = pettingzoo.make('aec', 'kdenv/kingdomino-v0', num_players=2, "
        "observation='flat'); env.reset(seed=0); print(env.observe(env.agent_selection)['observation'].shape)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(2156,)"]


def test_gymnasium_make_builds_the_view_after_import_kdenv_which_imports_no_training():
    done = python(
        "import sys, gymnasium, kdenv; assert 'training' not in sys.modules, 'import kdenv imported training'; "
        "env = gymnasium.make('kdenv/Kingdomino-v0', num_players=2, opponents=['random'], observation='flat'); "
        "print(env.reset(seed=0)[0].shape)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["(2156,)"]


# PettingZoo 1.26 as kdenv meets it: everything the env uses, but no registry (pettingzoo.register, aec_registry)
NO_REGISTRY = "import pettingzoo; del pettingzoo.register, pettingzoo.aec_registry; pettingzoo.__version__ = '1.26.1'; "


def test_without_pettingzoo_s_registry_import_kdenv_says_nothing_and_the_env_is_made_by_hand():
    done = python(
        NO_REGISTRY + "import kdenv, gymnasium; from kdenv import kingdomino_v0; "
        "from pettingzoo.test import api_test; import warnings; warnings.simplefilter('ignore'); "
        "api_test(kingdomino_v0.env(num_players=2, observation='flat'), num_cycles=100); "
        "print('kdenv/Kingdomino-v0' in gymnasium.registry)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout.splitlines()[-1] == "True"  # api_test prints its own lines before


def test_without_pettingzoo_s_registry_import_kdenv_logs_one_debug_line():
    done = python("import logging; logging.basicConfig(level=logging.DEBUG); " + NO_REGISTRY + "import kdenv")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "kdenv" in line]
    assert said == [
        "DEBUG:kdenv.registration:pettingzoo 1.26.1 has no registry (1.27 has): kdenv/kingdomino-v0 is not "
        "registered; make the env with kdenv.kingdomino_v0.env()"
    ]


def test_registering_again_changes_nothing_and_warns_of_nothing():
    import gymnasium
    import pettingzoo

    specs = pettingzoo.aec_registry[registration.PETTINGZOO_ID], gymnasium.registry[registration.GYMNASIUM_ID]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # both registries warn when an id is registered over
        registration.register()
    assert (pettingzoo.aec_registry[registration.PETTINGZOO_ID], gymnasium.registry[registration.GYMNASIUM_ID]) == specs
    assert specs[0].entry_point == "kdenv.kingdomino_v0:env"
    assert specs[1].entry_point == "training.envs.single_agent:KingdominoSingleAgentEnv"


@pytest.mark.parametrize("missing", ["register", "aec_registry"])
def test_a_pettingzoo_without_its_registry_is_left_out_and_gymnasium_s_kept(monkeypatch, caplog, missing):
    import gymnasium
    import pettingzoo

    monkeypatch.delattr(pettingzoo, missing)
    monkeypatch.delitem(gymnasium.registry, registration.GYMNASIUM_ID)  # restored after the test
    with caplog.at_level(logging.DEBUG, logger="kdenv.registration"), warnings.catch_warnings():
        warnings.simplefilter("error")
        registration.register()
    assert [record.levelno for record in caplog.records] == [logging.DEBUG]
    assert "kdenv/kingdomino-v0 is not registered" in caplog.records[0].getMessage()
    assert gymnasium.registry[registration.GYMNASIUM_ID].entry_point.startswith("training.envs.single_agent:")
