"""The compiled core's cache: a change to a compiled file recompiles the functions that call into it, and a numba
that breaks the cache's patch stops the import."""

import os
import subprocess
import sys
import textwrap

import pytest


def run(package, code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}  # the cache in the tree, where it is read
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=package.parent, env=env, capture_output=True, text=True, check=True,
        timeout=120,
    )  # fmt: skip
    return result.stdout.strip()


def test_a_changed_helper_in_another_file_reaches_its_cached_callers(tmp_path):
    package = tmp_path / "cached"
    package.mkdir()
    (package / "__init__.py").write_text("")
    helper = "from kdenv.batched.jit import jit\n\n\n@jit\ndef crowns():\n    return {}\n"
    (package / "helper.py").write_text(helper.format(1))
    (package / "caller.py").write_text(
        textwrap.dedent(
            """
            from cached.helper import crowns
            from kdenv.batched.jit import jit


            @jit
            def score():
                return 10 * crowns()
            """
        )
    )
    call = "from cached.caller import score; print(score())"
    assert run(package, call) == "10"
    assert list((package / "__pycache__").glob("caller.score-*.nbi"))  # cached on disk
    assert run(package, call) == "10"  # from the cache
    (package / "helper.py").write_text(helper.format(3))  # plain numba would keep 10 for the caller
    assert run(package, call) == "30"


def test_a_changed_constant_in_a_plain_file_reaches_the_compiled_code_that_froze_it(tmp_path):
    package = tmp_path / "frozen"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text("BONUS = 1\n")
    (package / "score.py").write_text(
        "from frozen.rules import BONUS\nfrom kdenv.batched.jit import jit\n\n\n@jit\ndef bonus():\n    return BONUS\n"
    )
    call = "from frozen.score import bonus; print(bonus())"
    assert run(package, call) == "1" and run(package, call) == "1"
    (package / "rules.py").write_text("BONUS = 5\n")  # numba froze 1 into the cached machine code
    assert run(package, call) == "5"


def test_two_processes_that_import_in_another_order_share_the_cache(tmp_path):
    """The stamp of a file depends on what it imports, not on what this process happened to import first."""
    package = tmp_path / "order"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in ("first", "second"):
        (package / f"{name}.py").write_text(
            f"from kdenv.batched.jit import jit\n\n\n@jit\ndef {name}():\n    return 1\n"
        )
    stamp = "import os; from kdenv.batched.jit import _stamp; print(_stamp(os.path.abspath('order/second.py')))"
    assert run(package, f"import order.first, order.second; {stamp}") == run(package, f"import order.second; {stamp}")


@pytest.mark.parametrize(
    ("change", "environment", "message"),
    [
        ("CacheImpl._locator_classes.remove(InTreeCacheLocator)", {}, "no longer include InTreeCacheLocator"),
        ("CacheImpl._locator_classes = tuple(CacheImpl._locator_classes)", {}, "is a tuple, not a list"),
        ("", {"NUMBA_CACHE_LOCATOR_CLASSES": "InTreeCacheLocator"}, "NUMBA_CACHE_LOCATOR_CLASSES would bypass"),
    ],
    ids=["a-locator-gone", "not-a-list", "locators-replaced"],
)
def test_a_numba_that_breaks_the_cache_patch_stops_the_import_with_one_line(change, environment, message):
    code = f"from numba.core.caching import CacheImpl, InTreeCacheLocator\n{change}\nimport kdenv.batched.jit"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env={**os.environ, **environment}
    )
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("kdenv.batched.jit.NumbaCacheError: ") and message in last, result.stderr


def test_an_index_that_names_a_moved_module_is_a_stale_cache(tmp_path):
    """numba unpickles a function's cache index before it compares stamps; one that names a module since moved (a
    type of the arguments compiled for) reads as no cache, compiled again, instead of a ModuleNotFoundError."""
    import pickle

    from numba.core.caching import IndexDataCacheFile

    import kdenv.batched.jit  # noqa: F401  (its patch)

    index = IndexDataCacheFile(cache_path=str(tmp_path), filename_base="kernel", source_stamp="now")
    with open(index._index_path, "wb") as handle:
        pickle.dump(index._version, handle)
        handle.write(b"cno_such_module_of_ours\nWorkspace\n.")  # a pickle naming a class of a module that is gone
    assert index._load_index() == {}
