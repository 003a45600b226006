"""Whatever ``evaluation.json`` or ``games.jsonl`` ``kdenv evaluate --compare`` and ``kdenv benchmark --summarize``
are given (random JSON, a real file with a key changed or gone, wrong types, NaN, huge numbers, deep nesting, binary
garbage) is read or refused with a one-line KingdominoError, never a traceback."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kdenv.errors import KingdominoError
from training.arena.evaluation import check_comparable, compare, evaluate
from training.arena.protocols import get_protocol
from training.backends.local import InProcess

PROTOCOL = get_protocol("vs-fg-2p")
HOLE = "__hole__"  # where a mutated file's raw text goes
RAW = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1" * 5000, "-0", "0.5", "7", "true", "null", '"0"', "[]"]

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
raw = st.sampled_from(RAW) | values.map(json.dumps)  # a value's text, JSON or what Python's json also reads
deep = st.integers(1, 200_000).map(lambda n: "[" * n + "]" * n)


def mutated(value: dict, path: tuple, text: str | None) -> str:
    """``value``'s JSON with the key at ``path`` (keys and indices) given the raw ``text``, or gone (None)."""
    value = json.loads(json.dumps(value))
    *parents, last = path
    node = value
    for part in parents:
        node = node[part]
    if text is None:
        del node[last]
        return json.dumps(value)
    node[last] = HOLE
    return json.dumps(value).replace(json.dumps(HOLE), text)


def contents(real: dict, paths: list[tuple]) -> st.SearchStrategy[bytes]:
    """A file's bytes: ``real`` mutated at one of ``paths``, random JSON, deep nesting or garbage."""
    changed = st.builds(mutated, st.just(real), st.sampled_from(paths), st.none() | raw)
    text = st.one_of(changed, raw, deep, st.text(max_size=50))
    return text.map(lambda t: t.encode("utf-8", "surrogatepass")) | st.binary(max_size=100)


def refused_in_one_line(read) -> None:
    """Run ``read``: it reads the file, or raises a one-line KingdominoError."""
    try:
        read()
    except KingdominoError as err:
        assert "\n" not in str(err)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """An evaluation folder that kdenv evaluate wrote: random on vs-fg-2p, 8 games on 4 deals."""
    out = tmp_path_factory.mktemp("played") / "random"
    evaluate("random", "vs-fg-2p", games=8, out=out, backend=InProcess())
    return out


def real_evaluation(played: Path) -> dict:
    return json.loads((played / "evaluation.json").read_text())


def real_game(played: Path) -> dict:
    return json.loads((played / "games.jsonl").read_text().splitlines()[0])


GAME_PATHS = [("agents",), ("agents", 0), ("final",), ("final", "scores"), ("final", "scores", 1)]
GAME_PATHS += [("final", "winners"), ("final", "winners", 0), ("tournament",), ("tournament", "deal")]


def test_an_evaluation_to_compare_is_read_or_refused_in_one_line(played):
    @given(contents(real_evaluation(played), [(key,) for key in real_evaluation(played)]))
    def check(evaluation: bytes) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            theirs = Path(tmp) / "theirs"
            shutil.copytree(played, theirs)
            (theirs / "evaluation.json").write_bytes(evaluation)
            refused_in_one_line(lambda: check_comparable(theirs, PROTOCOL, 0))
            refused_in_one_line(lambda: compare(played, theirs))

    check()


def test_games_to_compare_are_read_or_refused_in_one_line(played):
    line = contents(real_game(played), GAME_PATHS).map(lambda b: b.replace(b"\n", b" "))

    @given(st.lists(line | st.sampled_from((played / "games.jsonl").read_bytes().splitlines()), max_size=6))
    def check(lines: list[bytes]) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            theirs = Path(tmp) / "theirs"
            shutil.copytree(played, theirs)
            (theirs / "games.jsonl").write_bytes(b"\n".join(lines))
            refused_in_one_line(lambda: check_comparable(theirs, PROTOCOL, 0))
            refused_in_one_line(lambda: compare(played, theirs))

    check()


def test_an_evaluation_to_summarize_is_read_or_refused_in_one_line(played):
    pytest.importorskip("rliable")
    from training.benchmark.aggregate import collect

    @given(contents(real_evaluation(played), [(key,) for key in real_evaluation(played)]))
    def check(evaluation: bytes) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            for algorithm in ("kept", "fuzzed"):
                place = Path(tmp) / algorithm / "vs-fg-2p" / "seed-0" / "step-100"
                place.mkdir(parents=True)
                shutil.copy(played / "evaluation.json", place)
            (place / "evaluation.json").write_bytes(evaluation)
            refused_in_one_line(lambda: collect(Path(tmp)))

    check()
