"""The compiled core's cache: a change to a compiled file recompiles the functions that call into it."""

import subprocess
import sys
import textwrap


def run(package, code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=package.parent, capture_output=True, text=True, check=True, timeout=120
    )
    return result.stdout.strip()


def test_a_changed_helper_in_another_file_reaches_its_cached_callers(tmp_path):
    package = tmp_path / "cached"
    package.mkdir()
    (package / "__init__.py").write_text("")
    helper = "from kdenv.core.jit import jit\n\n\n@jit\ndef crowns():\n    return {}\n"
    (package / "helper.py").write_text(helper.format(1))
    (package / "caller.py").write_text(
        textwrap.dedent(
            """
            from cached.helper import crowns
            from kdenv.core.jit import jit


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
