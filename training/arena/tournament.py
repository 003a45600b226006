"""Head-to-head tournaments between players named by spec strings, played in parallel and resumable.

Example::

    from training.arena.tournament import Tournament, run_tournament

    t = Tournament(["random", "gprd", "fg"], players=3, games=120, out="runs/demo")
    results = t.run(workers=2)       # plays what is not in runs/demo/games.jsonl yet
    t.write_reports(results)         # results.json, results.md, ratings.png
    results.agent("fg").win_rate     # or all at once: run_tournament([...], players=3, games=120, out=...)

Who sits where and on which deal is :mod:`training.arena.schedule`; the statistics are
:mod:`training.arena.stats` and :mod:`training.arena.ratings`; the output is :mod:`training.arena.report`.

With an output directory ``DIR`` a tournament keeps ``DIR/tournament.json`` (its settings),
``DIR/games.jsonl`` (one ``kingdomino-replay/1`` record per finished game, written by the parent
process as each game finishes, with a ``tournament`` key: game id, deal, table, seating and
placings) and ``DIR/errors.jsonl`` (games whose player raised, with the seeds to reproduce
them). Running the same tournament again resumes: finished games are never played twice. The
directory is locked (``DIR/.lock``) while the tournament is open: one process at a time plays it.
"""

from __future__ import annotations

import itertools
import json
import os
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from agents.arena import play_game
from agents.base import Player
from agents.registry import PLAYERS, make_player
from kdenv.errors import KingdominoError
from kdenv.files import FolderLock, JsonFileError, append_jsonl, read_jsonl, write_atomically
from kdenv.game import Game
from kdenv.replay import append_record, to_record
from kdenv.rules import Rules
from training.arena.pool import worker_pool
from training.arena.schedule import Schedule, ScheduledGame
from training.arena.stats import Results, summarize
from training.progress import ProgressBar

FORMAT = "kdenv-tournament/1"


class TournamentError(KingdominoError):
    """A tournament that cannot start or go on: bad output directory, other settings there, a dead worker."""


@dataclass(frozen=True)
class Outcome:
    """What playing one scheduled game gave: its record, or the error a player raised."""

    game: ScheduledGame
    record: dict | None = None
    error: str | None = None
    trace: str | None = None


class Seats:
    """The players of one process, made once per (spec, copy, table) and reused from game to game; past
    ``keep`` of them the least recently seated are closed (a Ray worker outlives its tournaments)."""

    def __init__(self, keep: int = 32) -> None:
        self.players: OrderedDict[tuple, Player] = OrderedDict()
        self.keep = keep

    def table(self, agents: Sequence[str], rules: Rules) -> list[Player]:
        keys = [(spec, agents[:seat].count(spec), len(agents), rules) for seat, spec in enumerate(agents)]
        for key in keys:
            if key not in self.players:
                self.players[key] = make_player(key[0], len(agents), rules)
            self.players.move_to_end(key)
        while len(self.players) > max(self.keep, len(keys)):
            self.players.popitem(last=False)[1].close()
        return [self.players[key] for key in keys]

    def drop(self, agents: Sequence[str]) -> None:
        """Forget the players of a table whose game failed (they may be left in a bad state)."""
        for key in [k for k in self.players if k[0] in agents]:
            self.players.pop(key).close()

    def close(self) -> None:
        for player in self.players.values():
            player.close()
        self.players.clear()


def play_scheduled(game: ScheduledGame, rules: Rules, seats: Seats, trace: bool = False) -> Outcome:
    """Play one scheduled game; a player that raises gives an Outcome with the error, not an exception. With
    ``trace`` each move of the record keeps what its player thought (:meth:`agents.base.Player.trace`)."""
    traces: list[dict | None] | None = [] if trace else None
    try:
        table = seats.table(game.agents, rules)
        played = play_game(table, Game(len(game.agents), rules, game.deal_seed), game.play_seed, traces)
    except Exception as err:  # a player's bug must not end the tournament: it is reported with the seeds
        seats.drop(game.agents)
        return Outcome(game, error=f"{type(err).__name__}: {err}", trace=traceback.format_exc())
    record = to_record(played, agents=list(game.agents), traces=traces)
    record["tournament"] = {
        "game_id": game.game_id,
        "deal": game.deal,
        "table": game.table,
        "seating": game.seating,
        "play_seed": game.play_seed,
        "placings": played.placings(),
    }
    return Outcome(game, record=record)


_worker_seats: Seats | None = None  # the players of a worker process (of the pool, or of Ray)


def play_in_worker(game: ScheduledGame, rules: Rules, players: dict[str, str], trace: bool = False) -> Outcome:
    """One game in a worker process, with the parent's player registry ``players`` (players registered at
    run time too: a Ray worker outlives the run that started it); the worker's players are made at their first
    game and kept for the next."""
    global _worker_seats
    PLAYERS.update(players)
    if _worker_seats is None:
        _worker_seats = Seats()
    return play_scheduled(game, rules, _worker_seats, trace)


def check_agents(agents: Iterable[str], players: int, rules: Rules) -> None:
    """Make each distinct spec once at the table, so a typo, a missing checkpoint or one trained for another
    table fails before any game is played."""
    for spec in dict.fromkeys(agents):
        make_player(spec, players, rules).close()


class Tournament:
    """A balanced, duplicate-dealt tournament; with ``out`` it is recorded there and resumable."""

    def __init__(
        self,
        agents: Sequence[str],
        players: int = 4,
        games: int = 100,
        rules: Rules | None = None,
        seed: int = 0,
        out: str | os.PathLike | None = None,
        trace: bool = False,
    ) -> None:
        self.trace = trace  # keep what the players thought in each move of the records (Player.trace)
        self.schedule = Schedule(tuple(agents), players, rules or Rules(), seed, games)
        check_agents(agents, players, self.schedule.rules)
        self.records: dict[int, dict] = {}  # game id -> the finished game's record, less its moves (see _summary)
        self.failures: list[Outcome] = []  # games of this run whose player raised
        self.notes: list[str] = []  # things worth telling the user (a truncated last line dropped)
        self.out = Path(out) if out is not None else None
        self._lock: FolderLock | None = None
        if self.out is not None:
            self._open()

    @property
    def settings(self) -> dict:
        s = self.schedule
        return {
            "format": FORMAT,
            "agents": list(s.agents),
            "players": s.players,
            "rules": s.rules.to_dict(),
            "seed": s.seed,
            "games": s.requested,
        }

    @property
    def pending(self) -> list[ScheduledGame]:
        """Scheduled games not finished yet, in game-id order."""
        return [g for g in self.schedule.games() if g.game_id not in self.records]

    # ----- the output directory ------------------------------------------------------------------
    def _open(self) -> None:
        """Lock the directory (a second process on it is a one-line error), then create it or resume from it."""
        assert self.out is not None
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            self._lock = FolderLock(self.out, "tournament folder")
        except OSError as err:
            raise TournamentError(f"cannot write the tournament to {self.out}: {err.strerror or err}") from None
        try:
            self._resume()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Free the directory's lock (the end of the process frees it too)."""
        if self._lock is not None:
            self._lock.release()

    def __enter__(self) -> Tournament:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _resume(self) -> None:
        """Take the finished games of the directory; refuse one that holds another tournament."""
        out = self.out
        assert out is not None
        path = out / "tournament.json"
        try:
            old = json.loads(path.read_text()) if path.exists() else None
        except OSError as err:
            raise TournamentError(f"cannot read the tournament in {out}: {err.strerror or err}") from None
        except json.JSONDecodeError:
            raise TournamentError(f"{path} is not valid JSON; delete it or use another --out") from None
        if old is not None:
            self._check_same(old)
        self._read_finished(out)  # every check before anything is written
        try:
            out.mkdir(parents=True, exist_ok=True)
            write_atomically(path, json.dumps(self.settings, indent=1) + "\n")
        except OSError as err:
            raise TournamentError(f"cannot write the tournament to {out}: {err.strerror or err}") from None

    def _read_finished(self, out: Path) -> None:
        """Take the finished games of ``out/games.jsonl``; a game of another tournament there is an error."""
        scheduled = {g.game_id: g for g in self.schedule.games()}
        for record in self._finished_records(out / "games.jsonl"):
            game = scheduled.get(record.get("tournament", {}).get("game_id"))
            if game is None:  # beyond a shorter --games than before: kept in the file, left out of the results
                continue
            finished = "final" in record and "placings" in record["tournament"]
            if not finished or record.get("agents") != list(game.agents) or record.get("seed") != game.deal_seed:
                raise TournamentError(
                    f"{out / 'games.jsonl'} holds a game {game.game_id} that is not this tournament's; "
                    "use another --out, or delete it to start again"
                )
            self.records.setdefault(game.game_id, _summary(record))

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

    def _check_same(self, old: dict) -> None:
        new = self.settings
        for key in ("format", "agents", "players", "rules", "seed"):
            if old.get(key) != new[key]:
                raise TournamentError(
                    f"{self.out} holds a tournament with other settings ({key}: {old.get(key)} there, "
                    f"{new[key]} now); use another --out, or delete it to start again"
                )

    # ----- playing -----------------------------------------------------------------------------
    def run(
        self,
        workers: int | None = None,
        progress: bool = True,
        on_outcome: Callable[[Outcome], None] | None = None,
        backend: str = "local",
        address: str | None = None,
    ) -> Results:
        """Play the pending games and return the results: with the ``local`` backend in ``workers`` processes
        (1 = in this process), with ``ray`` as Ray tasks (:mod:`training.arena.ray_backend`), at most
        ``workers`` at once, on a local Ray or the cluster at ``address``.

        Each finished game is appended to ``games.jsonl`` at once; a game whose player raises is
        reported, written to ``errors.jsonl`` and skipped. Ctrl-C stops at once, keeping what is done.
        """
        pending = self.pending
        outcomes = self._outcomes(pending, workers, backend, address)
        bar = ProgressBar("tournament (games)", self.schedule.total, len(self.records), enabled=progress, stderr=True)
        with closing(outcomes), bar:
            for outcome in outcomes:
                self._accept(outcome, bar)
                if on_outcome is not None:
                    on_outcome(outcome)
        return self.results()

    def results(self) -> Results:
        """Results of the finished games (raises if there are none)."""
        if not self.records:
            raise TournamentError("no finished games to report on")
        return summarize(self.records.values())

    def _accept(self, outcome: Outcome, bar: ProgressBar) -> None:
        game = outcome.game
        if outcome.record is not None:
            self.records[game.game_id] = _summary(outcome.record)
            if self.out is not None:
                append_record(self.out / "games.jsonl", outcome.record)
            bar.advance()
            return
        self.failures.append(outcome)
        where = ""
        if self.out is not None:
            error = {
                "game_id": game.game_id,
                "agents": list(game.agents),
                "deal_seed": game.deal_seed,
                "play_seed": game.play_seed,
                "error": outcome.error,
                "traceback": outcome.trace,
            }
            append_jsonl(self.out / "errors.jsonl", error)
            where = f" (traceback in {self.out / 'errors.jsonl'})"
        bar.print(
            f"error: game {game.game_id} failed: {outcome.error} - agents {list(game.agents)}, "
            f"deal seed {game.deal_seed}, play seed {game.play_seed}{where}",
            style="red",
        )
        bar.advance()

    def _outcomes(
        self, pending: list[ScheduledGame], workers: int | None, backend: str, address: str | None
    ) -> Iterator[Outcome]:
        if backend == "ray":
            from training.arena.ray_backend import play_on_ray

            return play_on_ray(pending, self.schedule.rules, dict(PLAYERS), workers, address, self.trace)
        if backend != "local":
            raise TournamentError(f"unknown backend {backend!r}; choose local or ray")
        if address is not None:
            raise TournamentError("an address is for the ray backend; add --backend ray")
        workers = max(1, min(workers or os.cpu_count() or 1, len(pending) or 1))
        return self._play_here(pending) if workers == 1 else self._play_in_pool(pending, workers)

    def _play_here(self, pending: list[ScheduledGame]) -> Iterator[Outcome]:
        seats = Seats()
        try:
            for game in pending:
                yield play_scheduled(game, self.schedule.rules, seats, self.trace)
        finally:
            seats.close()

    def _play_in_pool(self, pending: list[ScheduledGame], workers: int) -> Iterator[Outcome]:
        """Outcomes as the worker processes finish them."""
        pool = worker_pool(workers)
        players = dict(PLAYERS)
        games = iter(pending)
        waiting: set = set()

        def submit(count: int) -> None:
            for game in itertools.islice(games, count):
                waiting.add(pool.submit(play_in_worker, game, self.schedule.rules, players, self.trace))

        try:
            submit(2 * workers)  # a few games queued per worker, not the whole schedule
            while waiting:
                done, _ = wait(waiting, return_when=FIRST_COMPLETED)
                waiting.difference_update(done)
                submit(len(done))
                for future in done:
                    yield future.result()
        except BrokenProcessPool:
            raise TournamentError(
                "a worker process died (out of memory?); the finished games are saved: run again to resume"
            ) from None
        finally:
            # Stop games in flight at once (an interrupt should not wait for a slow search player).
            for process in list(getattr(pool, "_processes", {}).values()):
                process.terminate()
            pool.shutdown(wait=True)

    def write_reports(self, results: Results) -> list[Path]:
        """Write results.json, results.md and ratings.png to the output directory; returns their paths."""
        from training.arena.report import write_reports

        if self.out is None:
            raise TournamentError("this tournament has no output directory to write reports to")
        return write_reports(self.out, results, self.settings, self.schedule.describe())


def run_tournament(
    agents: Sequence[str],
    players: int = 4,
    games: int = 100,
    rules: Rules | None = None,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    workers: int | None = None,
    progress: bool = False,
    backend: str = "local",
    address: str | None = None,
    trace: bool = False,
) -> Results:
    """Play (or resume) a tournament and return its results; with ``out``, also write the reports there."""
    with Tournament(agents, players, games, rules, seed, out, trace) as tournament:
        results = tournament.run(workers, progress, backend=backend, address=address)
        if out is not None:
            tournament.write_reports(results)
    return results


def _summary(record: dict) -> dict:
    """What the results need of a record (the moves stay in games.jsonl, not in memory)."""
    return {key: record[key] for key in ("seed", "agents", "final", "tournament")}
