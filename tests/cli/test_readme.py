"""The README's two commands: CI runs the second; the first is run here in a fresh venv."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def readme_command(marker: str) -> str:
    """The first line of the code block under ``<!-- marker -->`` in the README."""
    match = re.search(rf"<!-- {marker} -->\s*```bash\n(.+)\n", (ROOT / "README.md").read_text())
    assert match, f"README.md has no command under <!-- {marker} -->"
    return match.group(1)


def test_ci_runs_the_readme_test_command():
    extracted = subprocess.run(
        ["bash", "-c", "grep -o \"awk '.*' README.md\" .ci/run | bash"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    assert extracted == readme_command("test-command")
    assert extracted.endswith("pytest") and "pip install torch==2.13.0" in extracted


@pytest.mark.slow
def test_the_first_command_sets_up_and_plays_the_quick_tournament_in_a_fresh_venv(tmp_path):
    checkout = tmp_path / "kdenv"
    listed = subprocess.run(  # what a clean checkout holds: the files git keeps, and new ones it does not ignore
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
        check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        if (ROOT / name).is_file():  # a file deleted in the work tree is still listed as cached
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    done = subprocess.run(
        ["bash", "-c", readme_command("main-command")], cwd=checkout, env=env, capture_output=True, text=True,
        timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Win rate" in done.stdout and "Rating" in done.stdout
    out = checkout / "runs" / "tournament-quick"
    assert (out / "ratings.png").stat().st_size > 10_000 and (out / "results.md").exists()


def test_the_docs_own_player_plays_the_tournament_they_show(tmp_path):
    """The 15-line player of the docs' "A player of your own", saved as it says, seated by its command (fewer games)."""
    text = (ROOT / "docs" / "players.md").read_text()
    player = re.search(r"Save this as `mybots.py`:\n\n```python\n(.+?)```", text, re.S)
    command = re.search(r"and seat it: `(kdenv tournament [^`]+)`", text)
    assert player and command, "docs/players.md has no own player under 'A player of your own'"
    assert len(player.group(1).splitlines()) <= 20
    (tmp_path / "mybots.py").write_text(player.group(1))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        f"{command.group(1)} --games 6 --no-progress --out t", shell=True, cwd=tmp_path, env=env,
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "mybots:Cautious,last=true" in done.stdout and (tmp_path / "t" / "games.jsonl").exists()
