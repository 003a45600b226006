"""Game records in the ``kingdomino-replay/1`` format: write, read, re-play and check.

A record is one JSON object (many make a JSON Lines file); see DESIGN.md for the fields.
:func:`replay_record` re-plays every move through the engine, so a record that passes is a
legal game whose final scores and winners are the ones written in it (``winners`` worked out when absent).
The optional fields the engine does not re-play (``agents``, a move's ``trace``, a tournament game's
``tournament``) are checked against their documented shapes by :mod:`kdenv.record_extras`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kdenv.actions import decode, discard_action, pick_action, place_action
from kdenv.errors import IllegalMoveError, KingdominoError, RecordError
from kdenv.files import JsonFileError, append_jsonl, parse_json, parse_jsonl, read_text, write_atomically
from kdenv.game import OVER, Game
from kdenv.record_extras import check_agents, check_tournament, check_trace, is_integer
from kdenv.rules import Rules

FORMAT = "kingdomino-replay/1"


def to_record(game: Game, agents: Sequence[str] | None = None, traces: Sequence[dict | None] | None = None) -> dict:
    """The record of ``game`` so far (``final`` only once it is over); ``traces[i]``, when given and not None,
    is kept as the optional ``trace`` of move i (what the deciding player thought)."""
    size = game.rules.kingdom_size
    moves = []
    for index, (player, action, number) in enumerate(game.moves):
        move = decode(action, size)
        entry: dict[str, Any] = {"player": player, "action": move.kind, "domino": number}
        if move.cells is not None:
            entry["cells"] = [list(move.cells[0]), list(move.cells[1])]
        if traces is not None and index < len(traces) and traces[index] is not None:
            entry["trace"] = traces[index]
        moves.append(entry)
    record = {
        "format": FORMAT,
        "num_players": game.num_players,
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "deck": game.drawn + game.deck,
        "king_order": list(game.king_order),
        "agents": list(agents) if agents is not None else None,
        "moves": moves,
    }
    if game.phase == OVER:
        record["final"] = {"scores": game.scores(), "winners": game.winners()}
    return record


def _field(record: dict, name: str, kind: type | tuple[type, ...]):
    if name not in record:
        raise RecordError(f"record has no {name!r} field")
    value = record[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"record field {name!r} has the wrong type ({type(value).__name__})")
    return value


def _action_of(move: dict, index: int, game: Game) -> int:
    size = game.rules.kingdom_size
    kind = move.get("action")
    if kind == "place":
        cells: Any = move.get("cells")
        if not _is_cell_pair(cells):
            raise RecordError(
                f"moves[{index}].cells must be two [row, col] pairs of integers (half A's cell, then half B's), "
                f"not {cells!r}"
            )
        try:
            return place_action(tuple(cells[0]), tuple(cells[1]), size)
        except ValueError as err:
            raise RecordError(f"moves[{index}].cells: {err}") from None
    if kind == "discard":
        return discard_action(size)
    if kind == "pick":
        number = move.get("domino")
        if number not in game.line:
            raise RecordError(f"moves[{index}]: domino {number!r} is not in the next line {game.line}")
        return pick_action(game.line.index(number), size)
    raise RecordError(f"moves[{index}].action must be 'pick', 'place' or 'discard', not {kind!r}")


def _is_cell_pair(cells: Any) -> bool:
    """``[[row, col], [row, col]]`` with integer rows and columns."""
    return (
        isinstance(cells, list)
        and len(cells) == 2
        and all(isinstance(cell, list) and len(cell) == 2 and all(map(is_integer, cell)) for cell in cells)
    )


def replay_record(record: dict) -> Game:
    """Re-play ``record`` through the engine, checking every move and the final result.

    Returns the game re-played; raises RecordError naming the first field or move that is wrong.
    """
    *_, game = replay_steps(record)
    return game


def replay_steps(record: dict) -> Iterator[Game]:
    """The game ``record`` deals, then the same game after each of its moves (one object, stepped in place),
    checked as :func:`replay_record` checks it: what a viewer shows move by move."""
    game = _dealt(record)
    check_agents(record, game.num_players)
    yield game
    for index, move in enumerate(_field(record, "moves", list)):
        _replay_move(game, move, index)
        yield game
    _check_final(record, game)
    check_tournament(record, game)


def _dealt(record: Any) -> Game:
    """The game a record deals, before any move."""
    if not isinstance(record, dict):
        raise RecordError("a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(f"record field 'format' must be {FORMAT!r}, not {record.get('format')!r}")
    num_players = _field(record, "num_players", int)
    seed = record.get("seed")
    if seed is not None and not is_integer(seed):
        raise RecordError(f"record field 'seed' must be an integer or null (absent: not known), not {seed!r}")
    try:
        rules = Rules.from_dict(_field(record, "rules", dict))
        return Game.from_deck(
            num_players, rules, _field(record, "deck", list), _field(record, "king_order", list), seed
        )
    except RecordError:
        raise
    except (KingdominoError, TypeError) as err:
        raise RecordError(f"record set-up: {err}") from None


def _replay_move(game: Game, move: Any, index: int) -> None:
    """Play ``moves[index]`` of a record, checking who plays it and with which domino."""
    if not isinstance(move, dict):
        raise RecordError(f"moves[{index}] must be an object")
    if "trace" in move:
        check_trace(move["trace"], f"moves[{index}].trace")
    if game.phase == OVER:
        raise RecordError(f"moves[{index}]: the game is already over")
    if move.get("player") != game.current_player:
        raise RecordError(
            f"moves[{index}].player is {move.get('player')!r}, but it is player {game.current_player}'s turn"
        )
    expected = game.held_domino if game.phase == "place" else None
    if expected is not None and move.get("domino") != expected:
        raise RecordError(f"moves[{index}].domino is {move.get('domino')!r}, but the king holds #{expected}")
    try:
        game.step(_action_of(move, index, game), move["player"])
    except IllegalMoveError as err:
        raise RecordError(f"moves[{index}]: {err}") from None


def _check_final(record: dict, game: Game) -> None:
    """``final``, if the record has it: the re-played game's scores and, when given, its winners (absent, they
    are the re-played game's)."""
    final = record.get("final")
    if final is not None:
        if game.phase != OVER:
            raise RecordError("record has 'final' but its moves do not finish the game")
        if not isinstance(final, dict):
            raise RecordError("record field 'final' must be an object")
        if final.get("scores") != game.scores():
            raise RecordError(f"final.scores {final.get('scores')} differ from the re-played {game.scores()}")
        if final.get("winners") is not None and final["winners"] != game.winners():
            raise RecordError(f"final.winners {final.get('winners')} differ from the re-played {game.winners()}")


def read_records(path: str | os.PathLike) -> Iterator[dict]:
    """The records of a file: one JSON object (``.json``) or one per line (``.jsonl``); a file of none (empty, or
    blank lines) is a RecordError, whichever its suffix."""
    what_to_do = f"give a file of {FORMAT} records"
    try:
        text = read_text(path)
        stripped = text.lstrip()
        if not stripped:
            raise RecordError(f"{path} holds no records (it is empty); {what_to_do}")
        if Path(path).suffix == ".json" or (stripped.startswith("{") and "\n{" not in stripped.rstrip()):
            yield parse_json(text, f"{path}")
        else:
            yield from parse_jsonl(text, f"{path}")
    except JsonFileError as err:
        raise RecordError(f"{err}; {what_to_do}") from None


def append_record(path: str | os.PathLike, record: dict) -> None:
    """Append ``record`` as one line to a JSON Lines file and flush it to disk."""
    append_jsonl(path, record)


def write_record(path: str | os.PathLike, record: dict) -> None:
    """Write one record as a readable ``.json`` file."""
    write_atomically(path, json.dumps(record, indent=1) + "\n")


# ----- the `kdenv replay` command ---------------------------------------------------------------
