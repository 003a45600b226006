"""The named, versioned evaluation protocols of ``kdenv evaluate``: one agent against copies of one opponent at a
fixed table, so that a figure cited as ``study-4p v1`` means the same games for everyone.

Every protocol but the Mighty Duel plays the study's rules (Middle Kingdom and Harmony), those the shipped
``ppo:default`` networks were trained under at 2, 3 and 4 players, so that each of them can sit at its table.

A protocol's version changes whenever what it plays changes (table, rules, opponent, seeding, a move limit that a
player within the old one would pass): figures of two versions are not comparable. Every game counts: a player that
breaks one forfeits it (:mod:`agents.referee`). The move limit, 60 s by default, came in at version 1: no shipped
player comes near it (the slowest, ``az:default,seconds=0.25``, takes under a second a move), so it changed no game
that those figures count.
"""

from __future__ import annotations

from dataclasses import dataclass

from agents.referee import MOVE_LIMIT
from kdenv.errors import KingdominoError
from kdenv.rules import STUDY_RULES, Rules

DEFAULT_GAMES = 1000


@dataclass(frozen=True)
class Anchors:
    """A protocol's normalized score's 0 and 1, as the Arcade Learning Environment normalizes between a random player
    and a human: the mean margin (own score minus the best opponent's) of ``random`` and of ``fg`` in the agent's
    seat, measured once on the protocol's fixed deals (seed 0, 1,000 games: ``kdenv bench anchors``, whose figures
    are in benchmarks/RESULTS.md). The margin, not the score, because it tracks winning better there and does not
    move with how high a table scores."""

    random: float
    fg: float

    def normalize(self, margin: float) -> float:
        """``margin`` on the scale where ``random`` is 0 and ``fg`` is 1 (above 1 beats fg)."""
        return (margin - self.random) / (self.fg - self.random)


class ProtocolError(KingdominoError):
    """A protocol name that is not one of :data:`PROTOCOLS`."""


@dataclass(frozen=True)
class Protocol:
    """One agent against ``players - 1`` copies of ``opponent`` at ``players`` players under ``rules``."""

    name: str
    version: int
    players: int
    rules: Rules
    opponent: str
    description: str
    anchors: Anchors
    games: int = DEFAULT_GAMES  # games of a run unless --games says otherwise
    move_limit: float = MOVE_LIMIT  # seconds a move may take before its player forfeits, unless --move-limit says

    @property
    def opponents(self) -> list[str]:
        return [self.opponent] * (self.players - 1)

    def agents(self, spec: str) -> list[str]:
        """The tournament's agents: ``spec`` first, then the opponents."""
        return [spec, *self.opponents]

    @property
    def rules_name(self) -> str:
        """The rules in words: "standard", "Middle Kingdom + Harmony", "Mighty Duel (7x7)"."""
        r = self.rules
        flags = (r.mighty_duel, r.middle_kingdom, r.harmony, r.voluntary_discard)
        names = ("Mighty Duel (7x7)", "Middle Kingdom", "Harmony", "voluntary discard")
        return " + ".join(name for name, on in zip(names, flags, strict=True) if on) or "standard"

    @property
    def rule_names(self) -> str:
        """The rules as a config's ``env.rules`` names them: ``"middle_kingdom,harmony"``, ``"mighty_duel"``."""
        r = self.rules
        flags = (r.kingdom_size == 7, r.middle_kingdom, r.harmony, r.voluntary_discard)
        names = ("mighty_duel", "middle_kingdom", "harmony", "voluntary_discard")
        return ",".join(name for name, on in zip(names, flags, strict=True) if on)

    @property
    def title(self) -> str:
        """``name vN``, as figures of the protocol are cited."""
        return f"{self.name} v{self.version}"


PROTOCOLS: dict[str, Protocol] = {
    p.name: p
    for p in (
        Protocol(
            "study-4p",
            1,
            4,
            STUDY_RULES,
            "fg",
            "the reference study's table (Gedda et al. 2018)",
            Anchors(random=-46.489, fg=-10.276),
        ),
        Protocol(
            "vs-fg-2p",
            1,
            2,
            STUDY_RULES,
            "fg",
            "the study's rules at 2 players, 24 of the 48 dominoes",
            Anchors(random=-27.49, fg=0.0),
        ),
        Protocol(
            "vs-fg-3p",
            1,
            3,
            STUDY_RULES,
            "fg",
            "the study's rules at 3 players, 36 of the 48 dominoes",
            Anchors(random=-37.344, fg=-5.972),
        ),
        Protocol(
            "mighty-duel",
            1,
            2,
            Rules(kingdom_size=7),
            "fg",
            "the 2-player variant: 7x7 kingdoms, all 48 dominoes",
            Anchors(random=-66.557, fg=0.0),
        ),
    )
}


def get_protocol(name: str) -> Protocol:
    """The protocol called ``name``; a one-line error naming the others."""
    if name not in PROTOCOLS:
        raise ProtocolError(f"unknown protocol {name!r}; choose from {', '.join(PROTOCOLS)} (kdenv evaluate --list)")
    return PROTOCOLS[name]


def listing() -> str:
    """The protocols as a table of text, one a line: name, version, table, rules, opponents, default games, the
    anchors of the normalized score and what the table is."""
    rows = [("protocol", "version", "table", "rules", "opponents", "games", "margins of random / fg", "")]
    for p in PROTOCOLS.values():
        table, anchors = f"{p.players} players", f"{p.anchors.random:+.2f} / {p.anchors.fg:+.2f}"
        rows.append(
            (p.name, f"v{p.version}", table, p.rules_name, " ".join(p.opponents), str(p.games), anchors, p.description)
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)
