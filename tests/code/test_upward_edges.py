"""The layers' upward edges that import-linter cannot see: a module named in a string (an entry point, a lazy
import) from a lower layer. Each is declared in pyproject.toml beside the layers; this test finds every one."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ABOVE = {"kdenv": ("agents", "training", "benchmarks"), "agents": ("training", "benchmarks")}
DECLARED = {
    # the Gymnasium id kdenv/Kingdomino-v0 is made by the view that takes player specs, loaded on gymnasium.make only
    ("kdenv/registration.py", "training.envs.single_agent:KingdominoSingleAgentEnv"),
}


def _named_modules(package: str) -> set[tuple[str, str]]:
    """(file, string) of each string constant in ``package`` that names a module of a layer above it."""
    found = set()
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                head = node.value.split(":")[0].split(".")[0]
                if head in ABOVE[package] and "." in node.value.split(":")[0] and " " not in node.value:
                    found.add((str(path.relative_to(ROOT)), node.value))
    return found


def test_the_only_string_edges_upward_are_the_declared_ones():
    assert _named_modules("kdenv") | _named_modules("agents") == DECLARED
    declared = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "training.envs.single_agent" in declared  # said beside the layers
