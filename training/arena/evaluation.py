"""``kdenv evaluate``'s runs: one agent through a named protocol (:mod:`training.arena.protocols`), played as a
duplicate-dealt tournament into ``DIR/games.jsonl``, its figures in ``DIR/evaluation.json``.

The figures depend only on the protocol, the spec, the seed and the number of games: the games are scheduled by
id and summarized in id order, so one worker, many or Ray give the same file (for players whose budget is a
count: a budget in seconds makes a search's moves depend on the machine's speed).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, Field

from agents.options import Bound, shown
from agents.specs import slug_of
from kdenv.errors import KingdominoError
from kdenv.files import JsonFileError, read_json, write_atomically
from training.arena.contents import READ_BACK, ContentError, checked
from training.arena.paired import SCORES, by_deal, difference
from training.arena.protocols import Protocol, get_protocol
from training.arena.schedule import GAMES, SEED
from training.arena.stats import AgentResult
from training.arena.tournament import Tournament
from training.backends.base import Backend

Format = Literal["kdenv-evaluation/1"]
FORMAT: str = get_args(Format)[0]
FILE = "evaluation.json"
MIN_DEALS = 2  # common deals a paired comparison needs: its interval has deals - 1 degrees of freedom


class EvaluationError(KingdominoError):
    """An ``evaluation.json`` that cannot be read or compared."""


def kdenv_version() -> str:
    """The installed kdenv's version ("unknown" when it runs from a checkout that was never installed)."""
    try:
        return version("kdenv")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Evaluation:
    """What an ``evaluation.json`` holds: the protocol and the agent, then the agent's figures with 95% CIs."""

    protocol: Protocol
    spec: str
    seed: int
    result: AgentResult
    games: int
    deals: int
    move_limit: float | None

    def to_dict(self) -> dict:
        a, p = self.result, self.protocol
        return {
            "format": FORMAT,
            "protocol": p.name,
            "protocol_version": p.version,
            "spec": self.spec,
            "seed": self.seed,
            "players": p.players,
            "rules": p.rules.to_dict(),
            "opponents": p.opponents,
            "games": self.games,
            "deals": self.deals,
            "chance": 1 / p.players,
            "win_rate": a.win_rate,
            "win_rate_ci": [a.win_low, a.win_high],
            "margin": a.margin,
            "margin_ci": [a.margin - a.margin_ci, a.margin + a.margin_ci],
            "normalized": p.anchors.normalize(a.margin),
            "normalized_ci": [p.anchors.normalize(a.margin - a.margin_ci), p.anchors.normalize(a.margin + a.margin_ci)],
            "anchors": {"random": p.anchors.random, "fg": p.anchors.fg},
            "score": a.score,
            "score_ci": [a.score - a.score_ci, a.score + a.score_ci],
            "placing": a.placing,
            "forfeits": {"games": a.forfeited, **a.forfeits},
            "move_limit": self.move_limit,
            "kdenv_version": kdenv_version(),
        }

    def line(self) -> str:
        """The one line to cite."""
        d = self.to_dict()
        low, high = d["win_rate_ci"]
        n_low, n_high = d["normalized_ci"]
        half = (d["margin_ci"][1] - d["margin_ci"][0]) / 2
        return (
            f"{self.spec} on {self.protocol.title} (seed {self.seed}, {self.games} games, {self.deals} deals): "
            f"normalized score {d['normalized']:.2f} [95% CI {n_low:.2f}, {n_high:.2f}] (random 0, fg 1), "
            f"win rate {d['win_rate']:.1%} [95% CI {low:.1%}, {high:.1%}] (chance {d['chance']:.0%}), "
            f"margin {d['margin']:+.2f} ± {half:.2f}, {d['forfeits']['games']} forfeits; kdenv {d['kdenv_version']}"
        )


class Forfeits(BaseModel):
    """An ``evaluation.json``'s count of the games its agent forfeited (and, by reason, how)."""

    model_config = READ_BACK
    games: Annotated[int, Bound(least=True, high=GAMES.high)] = 0


class EvaluationFile(BaseModel):
    """What :func:`read` takes of an ``evaluation.json``: the keys that a comparison and a summary read."""

    model_config = READ_BACK
    format: Format
    protocol: str
    protocol_version: Annotated[int, Bound(1, least=True)]
    spec: str = Field(min_length=1)
    seed: Annotated[int, SEED]
    games: Annotated[int, GAMES]
    deals: Annotated[int, GAMES]
    win_rate: Annotated[float, Bound(least=True, high=1, says="must be in [0, 1]")]
    margin: Annotated[float, Bound(-SCORES, least=True, high=SCORES)]  # a mean: within a score's bounds
    forfeits: Forfeits = Forfeits()  # an evaluation from before forfeits counted none


def default_out(protocol: Protocol, spec: str) -> Path:
    """``runs/evaluate/PROTOCOL-vN/SPEC`` (the spec made a folder name, :func:`agents.specs.slug_of`)."""
    return Path("runs") / "evaluate" / f"{protocol.name}-v{protocol.version}" / slug_of(spec)


def evaluation_tournament(
    protocol: Protocol,
    spec: str,
    games: int | None,
    seed: int,
    out: Path,
    move_limit: float | None,
    made_from: str | None = None,
) -> Tournament:
    """The protocol's tournament for ``spec`` in ``out`` (resumed from it if it is there), each move within
    ``move_limit`` seconds (None: no limit), the player made from ``made_from`` where given (a copy of ``spec``'s
    files)."""
    count = protocol.games if games is None else games
    copy = {} if made_from is None else {spec: made_from}
    return Tournament(
        protocol.agents(spec), protocol.players, count, protocol.rules, seed, out, move_limit=move_limit, made_from=copy
    )


def finish(tournament: Tournament, protocol: Protocol, spec: str, out: Path) -> Evaluation:
    """The evaluation of a played tournament; writes ``out/evaluation.json`` and the tournament's reports."""
    results = tournament.results()
    tournament.write_reports(results)
    evaluation = Evaluation(
        protocol, spec, tournament.schedule.seed, results.agent(spec), results.games, results.deals,
        tournament.move_limit,
    )  # fmt: skip
    write_atomically(out / FILE, json.dumps(evaluation.to_dict(), indent=2) + "\n")
    return evaluation


def located(path: str | os.PathLike) -> Path:
    """The ``evaluation.json`` that ``path`` names: the file, or the one in the folder."""
    path = Path(path)
    return path / FILE if path.is_dir() else path


def read(path: str | os.PathLike) -> EvaluationFile:
    """An ``evaluation.json`` (or the folder that holds one), checked; a one-line error for anything else."""
    file = located(path)
    if not file.exists():
        raise EvaluationError(f"{file} does not exist; give an evaluation.json that kdenv evaluate wrote")
    try:
        return checked(EvaluationFile, read_json(file), str(file))
    except (JsonFileError, ContentError) as err:
        raise EvaluationError(f"{err}; give an evaluation.json that kdenv evaluate wrote") from None


def check_comparable(theirs: str | os.PathLike, protocol: Protocol, seed: int) -> None:
    """Refuse, before any game is played, an evaluation to compare with that is not of ``protocol`` (its version
    too) and ``seed``, or whose ``games.jsonl`` holds no game of its spec."""
    other = read(theirs)
    _same_deals(other, located(theirs), protocol.name, protocol.version, seed)
    _deals(theirs, other)


def compare(ours: str | os.PathLike, theirs: str | os.PathLike) -> dict:
    """The paired difference (ours - theirs) in win rate and margin over the deals both evaluations played, from
    their ``games.jsonl``; a one-line error when they are not of the same protocol, version and seed, or share fewer
    than :data:`MIN_DEALS` deals."""
    a, b = read(ours), read(theirs)
    _same_deals(b, located(theirs), a.protocol, a.protocol_version, a.seed)
    paired = difference(_deals(ours, a), _deals(theirs, b))
    if paired["deals"] < MIN_DEALS:
        raise EvaluationError(
            f"cannot compare: {located(ours).parent} and {located(theirs).parent} share {paired['deals']} deal(s) "
            f"of their games; a paired comparison needs at least {MIN_DEALS} (play more --games)"
        )
    return {"protocol": a.protocol, "ours": a.spec, "theirs": b.spec, **paired}


def _same_deals(theirs: EvaluationFile, file: Path, protocol: str, version: int, seed: int) -> None:
    """A one-line error unless ``theirs`` (read from ``file``) played the deals of ``protocol``, ``version`` and
    ``seed``."""
    for key, here in (("protocol", protocol), ("protocol_version", version), ("seed", seed)):
        there = getattr(theirs, key)
        if there != here:
            raise EvaluationError(
                f"cannot compare: {file} has {key} {shown(there)} where this run has {here!r}; "
                "a paired comparison needs the same protocol, version and seed (the same deals)"
            )


def _deals(path: str | os.PathLike, evaluation: EvaluationFile) -> dict[int, tuple[float, float]]:
    """The evaluated spec's figures by deal (:func:`~training.arena.paired.by_deal`) from the ``games.jsonl`` beside
    the evaluation at ``path``; a one-line error where it holds no game of that spec."""
    games = located(path).parent / "games.jsonl"
    per_deal = by_deal(games, evaluation.spec)
    if not per_deal:
        raise EvaluationError(f"{games} holds no game of {shown(evaluation.spec)}: nothing to compare")
    return per_deal


def comparison_line(c: dict) -> str:
    """The comparison in one line."""
    low, high = c["win_rate_diff_ci"]
    m_low, m_high = c["margin_diff_ci"]
    return (
        f"{c['ours']} - {c['theirs']} on the same {c['deals']} deals: win rate {c['win_rate_diff']:+.1%} "
        f"[95% CI {low:+.1%}, {high:+.1%}], margin {c['margin_diff']:+.2f} [95% CI {m_low:+.2f}, {m_high:+.2f}]"
    )


def evaluate(
    spec: str,
    protocol: str = "study-4p",
    games: int | None = None,
    seed: int = 0,
    out: str | os.PathLike | None = None,
    backend: Backend | None = None,
    progress: bool = False,
    move_limit: float | Literal["protocol"] | None = "protocol",
    made_from: str | None = None,
) -> Evaluation:
    """Play (or resume) ``spec``'s evaluation on ``protocol`` on ``backend`` (by default this machine's, as
    :meth:`Tournament.run`'s) and write ``evaluation.json``; returns it. Each move within ``move_limit`` seconds
    (None: no limit; by default the protocol's). With ``made_from`` the player is made from that spec, which names
    a copy of ``spec``'s files, and the files name it ``spec``."""
    chosen = get_protocol(protocol)
    folder = Path(out) if out is not None else default_out(chosen, spec)
    limit = chosen.move_limit if move_limit == "protocol" else move_limit
    with evaluation_tournament(chosen, spec, games, seed, folder, limit, made_from) as tournament:
        tournament.run(backend, progress)
        return finish(tournament, chosen, spec, folder)
