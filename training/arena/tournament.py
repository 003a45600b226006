"""Head-to-head tournaments between players named by spec strings (or given as Player objects), played in parallel
and resumable.

Example::

    from training.arena.tournament import Tournament
    from training.backends.choose import choose_backend

    t = Tournament(["random", "gprd", "fg"], players=3, games=120, out="runs/demo")
    results = t.run(choose_backend("local", 2))  # plays what is not in runs/demo/games.jsonl yet, in 2 processes
    t.write_reports(results)         # results.json, results.md, ratings.png
    results.agent("fg").win_rate     # or all at once: Tournament([...], players=3, games=120, out=...).play()

Who sits where and on which deal is :mod:`training.arena.schedule`; one game, wherever it is played, is
:mod:`training.arena.worker`; where the games run is a :class:`~training.backends.base.Backend` (in this process,
worker processes, Ray), each game one task (:mod:`training.arena.games`); the output directory, and resuming
from it, is :mod:`training.arena.folder`; the statistics are :mod:`training.arena.stats` and
:mod:`training.arena.ratings`; the output is :mod:`training.arena.report`.

Every game counts: a player that raises, exits, passes the move limit or returns an illegal action forfeits its
game (:mod:`agents.referee`), which is played to its end and scored as that player's loss. With an output
directory ``DIR`` each finished game is appended to ``DIR/games.jsonl`` by this process as it finishes, forfeits
included, and the traceback of a player that raised to ``DIR/errors.jsonl``. Running the same tournament again
resumes: finished games are never played twice. One process at a time plays a directory.

An agent may also be an :class:`~agents.base.Player` object made here, named by its ``spec`` (or its class's name).
Objects play in this process only; a player of one's own named by a ``MODULE:ATTR`` spec plays on every backend
(its module importable in every worker, on every machine of a Ray cluster). An agent named in ``made_from`` is made
from the spec it gives there, a copy of the files its name points to (``kdenv benchmark`` evaluates a run where it
trained, under the name of the grid's copy).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path

from agents.base import Player
from agents.referee import MOVE_LIMIT, Forfeit
from agents.registry import make_player
from kdenv.rules import Rules
from training.arena.errors import TournamentError
from training.arena.folder import TournamentFolder, summary
from training.arena.games import play_games
from training.arena.schedule import SCHEDULE, Schedule, ScheduledGame
from training.arena.stats import Results, summarize
from training.arena.worker import Outcome
from training.backends.base import Backend
from training.backends.choose import choose_backend
from training.progress import ProgressBar

FORMAT = "kdenv-tournament/1"
DAY = 86_400  # seconds: the longest move limit
SHOWN_FORFEITS = 3  # forfeits of a run told one by one as they happen; the command's summary counts them all


def check_agents(agents: Iterable[str], players: int, rules: Rules, objects: Mapping[str, Player]) -> None:
    """Make each distinct spec once at the table (seat each object there), so a typo, a missing checkpoint or one
    trained for another table fails before any game is played."""
    for spec in dict.fromkeys(agents):
        if spec in objects:
            objects[spec].seat_at(players, rules)
        else:
            make_player(spec, players, rules).close()


def name_agents(agents: Sequence[str | Player]) -> tuple[tuple[str, ...], dict[str, Player]]:
    """The agents' names (a spec as given; an object's ``spec``, or its class's name) and the objects by name;
    a one-line TournamentError for an object seated twice or a name that two agents share."""
    names: list[str] = []
    objects: dict[str, Player] = {}
    for agent in agents:
        if isinstance(agent, str):
            names.append(agent)
            continue
        if not isinstance(agent, Player):
            raise TournamentError(f"agent {agent!r} is neither a player spec nor an agents.Player")
        name = agent.spec if agent.spec != "?" else type(agent).__name__
        if any(other is agent for other in objects.values()):
            raise TournamentError(f"the player object {name!r} is listed twice; give each seat its own object")
        objects[name] = agent
        names.append(name)
    for name in objects:
        if names.count(name) > 1:
            raise TournamentError(f"two agents are named {name!r}; give the object another name (player.spec = '...')")
    return tuple(names), objects


class Tournament:
    """A balanced, duplicate-dealt tournament; with ``out`` it is recorded there and resumable."""

    def __init__(
        self,
        agents: Sequence[str | Player],
        players: int = 4,
        games: int = 100,
        rules: Rules | None = None,
        seed: int = 0,
        out: str | os.PathLike | None = None,
        trace: bool = False,
        move_limit: float | None = MOVE_LIMIT,
        made_from: Mapping[str, str] | None = None,
    ) -> None:
        self.made_from = dict(made_from or {})  # agent name -> the spec its player is made from, where not the name
        self.trace = trace  # keep what the players thought in each move of the records (Player.trace)
        self.move_limit = check_move_limit(move_limit)  # seconds a move may take before its player forfeits
        names, self.objects = name_agents(agents)  # the Player objects given, by name: they play in this process
        self.schedule = Schedule(names, players, rules or Rules(), seed, games)
        check_agents([self.made_from.get(n, n) for n in names], players, self.schedule.rules, self.objects)
        self.forfeits: list[tuple[ScheduledGame, Forfeit]] = []  # the forfeits of this run's games
        self.folder = TournamentFolder(Path(out), self.settings, self.schedule) if out is not None else None
        self.records: dict[int, dict] = {}  # game id -> the finished game's record, less its moves (summary)
        self.notes: list[str] = []  # things worth telling the user (a truncated last line dropped)
        if self.folder is not None:
            self.records, self.notes = dict(self.folder.finished), self.folder.notes

    @property
    def settings(self) -> dict:
        s = self.schedule
        return {
            "format": FORMAT,
            "schedule": SCHEDULE,
            "agents": list(s.agents),
            "players": s.players,
            "rules": s.rules.to_dict(),
            "seed": s.seed,
            "games": s.requested,
            "move_limit": self.move_limit,
        }

    @property
    def pending(self) -> Iterator[ScheduledGame]:
        """Scheduled games not finished yet, in game-id order, each made as it is asked for."""
        return self.schedule.games(done=self.records)

    def close(self) -> None:
        """Free the output directory's lock (the end of the process frees it too)."""
        if self.folder is not None:
            self.folder.close()

    def __enter__(self) -> Tournament:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(
        self,
        backend: Backend | None = None,
        progress: bool = True,
        on_outcome: Callable[[Outcome], None] | None = None,
    ) -> Results:
        """Play the pending games on ``backend`` (:mod:`training.backends`; made once by the caller, from its
        command line or config) and return the results. By default this machine's: a process a game on every core
        at most, or this process for one game and for a tournament of player objects.

        Each finished game is appended to ``games.jsonl`` at once, forfeits included (each reported in a line);
        a game that cannot be played at all (a player its worker cannot make, a worker lost every time) stops the
        run with a one-line TournamentError. Ctrl-C stops at once, keeping what is done.
        """
        pending = self.pending
        if backend is None:
            games = 1 if self.objects else self.schedule.total - len(self.records)  # objects are in this process only
            backend = choose_backend("local", max(1, min(games, os.cpu_count() or 1)))
        if self.objects and not backend.here:
            names = ", ".join(self.objects)
            raise TournamentError(
                f"player objects ({names}) play in this process only: run them on the default backend (or InProcess), "
                "or name the player by a MODULE:ATTR spec to play it in worker processes or on Ray"
            )
        outcomes = play_games(
            backend, pending, self.schedule.rules, self.trace, self.objects, self.move_limit, self.made_from
        )
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
        seeds = f"agents {list(game.agents)}, deal seed {game.deal_seed}, play seed {game.play_seed}"
        if outcome.record is None:
            where = f" (traceback in {self._log_error(game, outcome.error, outcome.trace)})" if self.folder else ""
            raise TournamentError(
                f"game {game.game_id} cannot be played: {outcome.error} - {seeds}{where}; the finished games are saved"
            )
        self.records[game.game_id] = summary(outcome.record)
        if self.folder is not None:
            self.folder.add(outcome.record)
        for forfeit in outcome.forfeits:
            self.forfeits.append((game, forfeit))
            where = ""
            if self.folder is not None and forfeit.trace:
                where = f" (traceback in {self._log_error(game, forfeit.error, forfeit.trace)})"
            if len(self.forfeits) <= SHOWN_FORFEITS:
                more = " (the next are counted, not shown)" if len(self.forfeits) == SHOWN_FORFEITS else ""
                bar.print(
                    f"game {game.game_id}: {game.agents[forfeit.seat]} (seat {forfeit.seat}) forfeits at move "
                    f"{forfeit.move}, {forfeit.reason}: {forfeit.error} - {seeds}{where}{more}",
                    style="red",
                )
        bar.advance()

    def _log_error(self, game: ScheduledGame, error: str | None, trace: str | None) -> Path:
        """Append what went wrong in ``game`` to errors.jsonl, with the seeds to play it again; returns that file."""
        assert self.folder is not None
        entry = {"game_id": game.game_id, "agents": list(game.agents), "deal_seed": game.deal_seed,
                 "play_seed": game.play_seed, "error": error, "traceback": trace}  # fmt: skip
        return self.folder.add_error(entry)

    def play(self, backend: Backend | None = None, progress: bool = False) -> Results:
        """Play (or resume) the tournament, as :meth:`run`, and free its folder; with a folder, write the reports
        there too. The one call that a notebook or a test wants."""
        try:
            results = self.run(backend, progress)
            if self.folder is not None:
                self.write_reports(results)
            return results
        finally:
            self.close()

    def write_reports(self, results: Results) -> list[Path]:
        """Write results.json, results.md and ratings.png to the output directory; returns their paths."""
        from training.arena.report import write_reports

        if self.folder is None:
            raise TournamentError("this tournament has no output directory to write reports to")
        return write_reports(self.folder.path, results, self.settings, self.schedule.describe())


def check_move_limit(seconds: float | None) -> float | None:
    """A move limit in seconds (None: none), or a one-line TournamentError for one that is not a positive, finite
    number of at most a day."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds <= DAY:
        raise TournamentError(f"the move limit must be a number of seconds above 0 and at most {DAY}, not {seconds!r}")
    return float(seconds)
