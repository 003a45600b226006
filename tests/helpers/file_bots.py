"""A player of one's own that a ``kdenv benchmark`` entry's command trains into a file in its ``{work}`` folder: it
plays the first or the last legal action as the number of lines of that file is odd or even (it must be there)."""

from __future__ import annotations

from pathlib import Path

from agents import Player
from tests.helpers.own_bots import Cautious


def from_file(file: str) -> Player:
    return Cautious(Cautious.Options(last=len(Path(file).read_text().splitlines()) % 2 == 0))
