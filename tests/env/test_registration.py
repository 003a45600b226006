"""``import kdenv`` registers the envs with PettingZoo and Gymnasium, in a fresh interpreter, and stops with one line
on a PettingZoo too old to have a registry."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from kdenv import registration
from kdenv.errors import KingdominoError

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


def test_an_old_pettingzoo_stops_import_kdenv_with_one_line_saying_what_to_install():
    fake = "import sys, types; old = types.ModuleType('pettingzoo'); old.__version__ = '1.26.1'; "
    done = python(fake + "sys.modules['pettingzoo'] = old; import kdenv")
    assert done.returncode != 0
    assert done.stderr.splitlines()[-1] == (
        "kdenv.registration.DependencyError: kdenv needs pettingzoo>=1.27 (found 1.26.1): "
        "pip install -U 'pettingzoo>=1.27'"
    )
    assert issubclass(registration.DependencyError, KingdominoError)
    assert issubclass(registration.DependencyError, ImportError)


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
def test_a_pettingzoo_without_its_registry_is_refused(monkeypatch, missing):
    import pettingzoo

    monkeypatch.delattr(pettingzoo, missing)
    line = f"kdenv needs pettingzoo>=1.27 (found {pettingzoo.__version__}): pip install -U 'pettingzoo>=1.27'"
    with pytest.raises(registration.DependencyError, match=re.escape(line)):
        registration.register()
