"""A user's script that starts a tournament with worker processes outside ``if __name__ == "__main__":`` is told
what to do before any worker starts; with the guard, the same script plays."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORTS = "from training.arena.tournament import Tournament\nfrom training.backends.local import Processes\n"
START = 'Tournament(["gprd", "random"], players=2, games=2, out="t").play(Processes(2))\n'


def run_script(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    (tmp_path / "play.py").write_text(IMPORTS + text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "play.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def test_an_unguarded_script_is_told_to_guard_its_entry_point(tmp_path):
    done = run_script(tmp_path, START)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and "UnguardedScriptError" in last
    assert f"your script {tmp_path / 'play.py'}" in last and 'no `if __name__ == "__main__":` block' in last
    assert "worker process died" not in done.stderr and not (tmp_path / "t" / "games.jsonl").exists()


def test_the_guarded_script_plays(tmp_path):
    done = run_script(tmp_path, 'if __name__ == "__main__":\n    ' + START)
    assert done.returncode == 0, done.stderr
    assert len((tmp_path / "t" / "games.jsonl").read_text().splitlines()) == 2
