"""Worker processes start by importing the running script (the spawn and forkserver start methods): a script
that starts a tournament or a training run outside ``if __name__ == "__main__":`` would start it again in every
worker, which dies of it. Such a script is told so before any worker starts, in one line."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from kdenv.errors import KingdominoError

HOW = "https://docs.python.org/3/library/multiprocessing.html#the-spawn-and-forkserver-start-methods"


class UnguardedScriptError(KingdominoError):
    """The running script would be run again by each worker process."""


def unguarded_script() -> str | None:
    """The running script's path if it has no ``if __name__ == "__main__":`` block at its top level; None for
    ``python -m``, the REPL, a notebook, or a script that has one."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(main, "__spec__", None) is not None:
        return None
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    guarded = any(isinstance(node, ast.If) and "__name__" in ast.unparse(node.test) for node in tree.body)
    return None if guarded else str(path)


def check_main_guarded(what: str = "worker processes") -> None:
    """A one-line :class:`UnguardedScriptError` if :func:`unguarded_script` finds the running script unguarded."""
    path = unguarded_script()
    if path is not None:
        raise UnguardedScriptError(
            f'{what} start by importing your script {path}, which has no `if __name__ == "__main__":` block: put '
            f"the code that starts the work under one (see {HOW}), or play in this process (InProcess, --workers 1)"
        )
