"""The docs site builds with ``mkdocs build --strict``: a broken link, anchor or API symbol fails the suite."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_site_builds_strictly(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "reference" / "kdenv" / "index.html").read_text().count("doc-class") > 5


def test_the_readme_stays_a_front_door():
    """The README is the front door (at most 260 lines); the reference lives in docs/."""
    assert len((ROOT / "README.md").read_text().splitlines()) <= 260


def test_every_results_heading_names_its_issue_and_date():
    """Each of RESULTS.md's sections says what it measures, then (issue N, YYYY-MM-DD), and nothing else."""
    text = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(headings) > 10
    for heading in headings:
        assert re.fullmatch(r"## [^()]+(\(.+\))?[^()]* \(issues? \d+( and \d+)*, \d{4}-\d\d-\d\d\)", heading), heading
