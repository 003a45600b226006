"""A tournament's output directory ``DIR``: ``DIR/tournament.json`` (its settings), ``DIR/games.jsonl`` (one
``kingdomino-replay/1`` record per finished game, with a ``tournament`` key: game id, deal, table, seating and
placings; ``forfeits`` where a player broke the game) and ``DIR/errors.jsonl`` (the tracebacks of players that
raised, with the seeds to reproduce them).

Opening a folder again resumes its tournament: its finished games are taken, and a folder that holds another
tournament is refused. The directory is locked (``DIR/.lock``) while it is open: one process at a time plays it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from kdenv.files import FolderLock, JsonFileError, append_jsonl, read_json, read_jsonl, write_atomically
from kdenv.replay import append_record
from training.arena.errors import TournamentError
from training.arena.schedule import Schedule

SAME = ("format", "agents", "players", "rules", "seed")  # the settings a resumed tournament keeps (not "games")


class TournamentFolder:
    """The open output directory of one tournament, locked; ``finished`` holds the summaries of its games
    (:func:`summary`) by game id, ``notes`` what is worth telling the user (a truncated last line dropped)."""

    def __init__(self, path: Path, settings: dict, schedule: Schedule) -> None:
        """Lock ``path`` (a second process on it is a one-line error), then create it or resume from it: check
        its settings against ``settings`` and its games against ``schedule``'s, then write the settings."""
        self.path = path
        self.finished: dict[int, dict] = {}
        self.notes: list[str] = []
        self._lock: FolderLock | None = None
        try:
            path.mkdir(parents=True, exist_ok=True)
            self._lock = FolderLock(path, "tournament folder")
        except OSError as err:
            raise TournamentError(f"cannot write the tournament to {path}: {err.strerror or err}") from None
        try:
            self._resume(settings, schedule)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Free the directory's lock (the end of the process frees it too)."""
        if self._lock is not None:
            self._lock.release()

    def add(self, record: dict) -> None:
        """Append a finished game's record to games.jsonl."""
        append_record(self.path / "games.jsonl", record)

    def add_error(self, error: dict) -> Path:
        """Append a failed game to errors.jsonl; returns that file."""
        append_jsonl(self.path / "errors.jsonl", error)
        return self.path / "errors.jsonl"

    def _resume(self, settings: dict, schedule: Schedule) -> None:
        """Take the finished games of the directory; refuse one that holds another tournament."""
        out = self.path
        path = out / "tournament.json"
        try:
            old = read_json(path) if path.exists() else None
        except JsonFileError as err:
            raise TournamentError(f"{err}; delete it or use another --out") from None
        if old is not None and not isinstance(old, dict):
            raise TournamentError(f"{path} holds no tournament's settings; delete it or use another --out")
        if old is not None:
            self._check_same(old, settings)
            self._check_schedule(old, settings)
        self._read_finished(schedule)  # every check before anything is written
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_atomically(path, json.dumps(settings, indent=1) + "\n")
        except OSError as err:
            raise TournamentError(f"cannot write the tournament to {out}: {err.strerror or err}") from None

    def _read_finished(self, schedule: Schedule) -> None:
        """Take the finished games of games.jsonl; a game of another tournament there is an error."""
        for record in self._finished_records(self.path / "games.jsonl"):
            tournament = record.get("tournament") if isinstance(record, dict) else None
            if not isinstance(tournament, dict) or type(tournament.get("game_id")) is not int:
                raise TournamentError(
                    f"{self.path / 'games.jsonl'} holds a line that is no tournament game's record; use another "
                    "--out, or delete that line to resume"
                )
            game_id = tournament["game_id"]
            if not 0 <= game_id < schedule.total:  # beyond a shorter --games than before: kept, left out of the results
                continue
            game = schedule.game(game_id)
            finished = "final" in record and "placings" in record["tournament"]
            if not finished or record.get("agents") != list(game.agents) or record.get("seed") != game.deal_seed:
                raise TournamentError(
                    f"{self.path / 'games.jsonl'} holds a game {game.game_id} that is not this tournament's; "
                    "use another --out, or delete it to start again"
                )
            self.finished.setdefault(game.game_id, summary(record))

    def _finished_records(self, path: Path) -> Iterator[dict]:
        """The records of a games.jsonl, dropping a last line cut short by a kill (that game is played again)."""

        def note(cut: Path) -> None:
            self.notes.append(f"dropped a truncated last line of {cut} (that game will be played again)")

        try:
            yield from read_jsonl(path, on_cut_tail=note)
        except JsonFileError as err:
            raise TournamentError(
                f"{err.where} is not a valid record; remove that line to resume the tournament"
            ) from None

    def _check_schedule(self, old: dict, new: dict) -> None:
        """A folder of an older schedule resumes if the schedules agree on its table: they differ only where a
        spec is listed twice (schedule 1 played both seatings that swap its two players)."""
        agents = new["agents"]
        if old.get("schedule", 1) != new["schedule"] and len(set(agents)) < len(agents):
            raise TournamentError(
                f"{self.path} was played by an older kdenv (schedule {old.get('schedule', 1)}), which played a "
                f"repeated spec's swapped seatings as two games; today's schedule {new['schedule']} plays them once, "
                "so its games cannot be resumed: use another --out (its results stay readable there)"
            )

    def _check_same(self, old: dict, new: dict) -> None:
        for key in (*SAME, *(["move_limit"] if "move_limit" in old else [])):  # a folder from before move limits
            if old.get(key) != new[key]:
                raise TournamentError(
                    f"{self.path} holds a tournament with other settings ({key}: {old.get(key)} there, "
                    f"{new[key]} now); use another --out, or delete it to start again"
                )


def summary(record: dict) -> dict:
    """What the results need of a record (the moves stay in games.jsonl, not in memory)."""
    return {key: record[key] for key in ("seed", "agents", "final", "tournament", "forfeits") if key in record}
