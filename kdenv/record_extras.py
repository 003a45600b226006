"""The optional fields of a game record that the engine does not re-play, checked against their documented shapes
(DESIGN.md): the ``agents``, a move's ``trace`` (what its player thought; ``agents/trace.py`` writes them), a
tournament game's ``tournament`` entry and its ``forfeits`` (the seats whose player broke the game). A record that
passes is one the viewer and the statistics can read whole.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kdenv.errors import RecordError
from kdenv.game import Game


def is_integer(value: Any) -> bool:
    """A JSON integer (``true`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# what a trace's candidates hold, by the trace's kind: field -> (test, what it must be)
Shape = dict[str, tuple[Callable[[Any], bool], str]]
CANDIDATE: Shape = {
    "action": (is_integer, "an integer (the action)"),
    "move": (lambda v: isinstance(v, str), "a string (the move in words)"),
}
CANDIDATE_OF: dict[str, Shape] = {
    "search": {
        "value": (lambda v: v is None or _is_number(v), "a number or null (the mean playout value)"),
        "visits": (lambda v: is_integer(v) and v >= 0, "an integer, 0 or more (the playouts)"),
    },
    "policy": {"probability": (lambda v: _is_number(v) and 0 <= v <= 1, "a number from 0 to 1")},
}

FORFEIT_REASONS = ("raised", "exited", "move limit", "illegal move")  # how a player breaks a game (agents/referee.py)
OPTIONAL_SHARES = ("prior", "policy")  # a guided search's candidates (az): the network's prior, the improved policy


def check_agents(record: dict, num_players: int) -> None:
    """``agents``, if given: one name (a string) per player."""
    agents = record.get("agents")
    if agents is not None and (
        not isinstance(agents, list) or len(agents) != num_players or not all(isinstance(a, str) for a in agents)
    ):
        raise RecordError(f"record field 'agents' must be null or a list of {num_players} names, not {agents!r}")


def check_trace(trace: Any, where: str) -> None:
    """A move's trace: ``{"kind": "search", "candidates": [...]}`` or ``{"kind": "policy", "value": v,
    "candidates": [...]}``, each candidate with its ``action`` and ``move``, and its ``value`` and ``visits``
    (search) or ``probability`` (policy); ``prior`` and ``policy`` (az), if present, from 0 to 1; ``chosen``, if
    present, is true or false."""
    if not isinstance(trace, dict):
        raise RecordError(f"{where} must be an object (what the player thought), if present")
    kind = trace.get("kind")
    if kind not in CANDIDATE_OF:
        raise RecordError(f"{where}.kind must be 'search' or 'policy', not {kind!r}")
    if kind == "policy" and not _is_number(trace.get("value")):
        raise RecordError(f"{where}.value must be a number (the policy's value estimate), not {trace.get('value')!r}")
    candidates = trace.get("candidates")
    if not isinstance(candidates, list):
        raise RecordError(f"{where}.candidates must be a list (the moves the player weighed), not {candidates!r}")
    for i, candidate in enumerate(candidates):
        _check_candidate(candidate, CANDIDATE | CANDIDATE_OF[kind], f"{where}.candidates[{i}]")


def _check_candidate(candidate: Any, shape: Shape, where: str) -> None:
    """One candidate of a trace: the fields of ``shape``, and the optional ones of every kind."""
    if not isinstance(candidate, dict):
        raise RecordError(f"{where} must be an object, not {candidate!r}")
    for name, (test, wanted) in shape.items():
        if name not in candidate or not test(candidate[name]):
            got = repr(candidate[name]) if name in candidate else "missing"
            raise RecordError(f"{where}.{name} must be {wanted}, not {got}")
    for name in OPTIONAL_SHARES:
        if name in candidate and not (_is_number(candidate[name]) and 0 <= candidate[name] <= 1):
            raise RecordError(f"{where}.{name} must be a number from 0 to 1, if present")
    if not isinstance(candidate.get("chosen", False), bool):
        raise RecordError(f"{where}.chosen must be true or false, if present")


def forfeited(record: dict, game: Game) -> list[int]:
    """The seats of the record's ``forfeits``, if any: a list of objects, each with the ``seat`` that broke the game,
    its ``reason`` (one of :data:`FORFEIT_REASONS`), the ``move`` it broke at (an index into ``moves``) and the
    ``error`` in a line; a seat forfeits once. Its later moves, if any, are its stand-in's."""
    entries = record.get("forfeits", [])
    if not isinstance(entries, list):
        raise RecordError(f"record field 'forfeits' must be a list, if present, not {entries!r}")
    seats: list[int] = []
    for i, entry in enumerate(entries):
        where = f"forfeits[{i}]"
        if not isinstance(entry, dict):
            raise RecordError(f"{where} must be an object (seat, reason, move, error), not {entry!r}")
        seat: Any = entry.get("seat")
        move: Any = entry.get("move")
        if not (is_integer(seat) and 0 <= seat < game.num_players) or seat in seats:
            raise RecordError(f"{where}.seat must be a seat of the game that has not forfeited yet, not {seat!r}")
        if entry.get("reason") not in FORFEIT_REASONS:
            wanted = ", ".join(FORFEIT_REASONS)
            raise RecordError(f"{where}.reason must be one of {wanted}, not {entry.get('reason')!r}")
        if not (is_integer(move) and 0 <= move <= len(game.moves)):
            raise RecordError(f"{where}.move must be the index of a move of the game, not {move!r}")
        if not isinstance(entry.get("error"), str):
            raise RecordError(f"{where}.error must be a string (what went wrong), not {entry.get('error')!r}")
        seats.append(seat)
    return seats


def check_tournament(record: dict, game: Game) -> None:
    """A tournament game's ``tournament`` entry, if present: an object with the whole numbers ``game_id`` and
    ``deal`` (the integers ``table``, ``seating``, ``play_seed`` when given) and the ``placings`` of the finished
    game re-played, its forfeited seats last (:func:`forfeited`, checked with or without a ``tournament``); the
    record names its ``agents``."""
    out = forfeited(record, game)
    if "tournament" not in record:
        return
    entry = record["tournament"]
    if not isinstance(entry, dict):
        raise RecordError(f"record field 'tournament' must be an object (game_id, deal, placings), not {entry!r}")
    for name in ("game_id", "deal"):
        if not (is_integer(entry.get(name)) and entry[name] >= 0):
            raise RecordError(f"tournament.{name} must be a whole number (0 or more), not {entry.get(name)!r}")
    for name in ("table", "seating", "play_seed"):
        if name in entry and not is_integer(entry[name]):
            raise RecordError(f"tournament.{name} must be an integer, if present, not {entry[name]!r}")
    if record.get("agents") is None:
        raise RecordError("a tournament game's record must name its 'agents'")
    if not game.is_over:
        raise RecordError("record has a 'tournament' entry but its moves do not finish the game")
    if entry.get("placings") != game.placings(out):
        raise RecordError(
            f"tournament.placings {entry.get('placings')!r} differ from the re-played {game.placings(out)}"
        )
