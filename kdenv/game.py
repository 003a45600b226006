"""The rules of a whole game: set-up, the draft of kings over the lines, placing, scoring.

A :class:`Game` is a pure state machine over integer actions (see ``kdenv.actions``). It
knows the true order of the undrawn dominoes; nothing that plays should read it, so
search players work on :meth:`Game.determinize` copies, in which it is reshuffled.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Collection, Sequence
from typing import NamedTuple

from kdenv.actions import decode, discard_action, shown
from kdenv.checks import seed_value
from kdenv.errors import IllegalMoveError, KingdominoError
from kdenv.kingdom import Kingdom, Property, placement_actions
from kdenv.rules import HARMONY_BONUS, MIDDLE_KINGDOM_BONUS, Rules
from kdenv.tiles import NUM_DOMINOES

PICK, PLACE, OVER = "pick", "place", "over"
__all__ = [
    "HARMONY_BONUS",
    "MIDDLE_KINGDOM_BONUS",
    "OVER",
    "PICK",
    "PLACE",
    "Game",
    "ScoreBreakdown",
    "random_game",
    "shuffled_deal",
]


class ScoreBreakdown(NamedTuple):
    """Where a kingdom's score comes from."""

    properties: list[Property]
    middle_kingdom: int
    harmony: int

    @property
    def total(self) -> int:
        return sum(p.squares * p.crowns for p in self.properties) + self.middle_kingdom + self.harmony


class Game:
    """One game of Kingdomino for 2-4 players. ``Game(4, seed=1)`` always deals the same game."""

    __slots__ = (
        "num_players", "rules", "seed", "kingdoms", "king_order", "deck", "drawn", "removed",
        "line", "claims", "queue", "held", "king", "phase", "round", "moves", "_masks", "_discard",
    )  # fmt: skip

    def __init__(self, num_players: int = 4, rules: Rules | None = None, seed: int | None = None) -> None:
        rules = rules or Rules()
        seed = seed_value(seed)  # a plain int, as records name the deal by it
        dominoes, king_order = shuffled_deal(num_players, rules, seed)
        in_play = rules.setup(num_players)[1]
        self._start(num_players, rules, dominoes[:in_play], king_order, dominoes[in_play:], seed)

    @classmethod
    def from_deck(
        cls,
        num_players: int,
        rules: Rules,
        deck: list[int],
        king_order: list[int],
        seed: int | None = None,
        removed: list[int] | None = None,
    ) -> Game:
        """A game dealt from a given draw order and king order (as in a game record); ``removed``, the dominoes
        out of the game in the order ``Game(seed=...)`` leaves them (default: by number)."""
        kings_each, in_play = rules.setup(num_players)
        if len(deck) != in_play or len(set(deck)) != in_play or not all(1 <= d <= NUM_DOMINOES for d in deck):
            raise KingdominoError(f"deck must hold {in_play} distinct domino numbers 1..{NUM_DOMINOES}")
        if sorted(king_order) != sorted(p for p in range(num_players) for _ in range(kings_each)):
            raise KingdominoError(f"king_order must name each of the {num_players} players {kings_each} time(s)")
        game: Game = cls.__new__(cls)
        if removed is None:
            removed = sorted(set(range(1, NUM_DOMINOES + 1)) - set(deck))
        game._start(num_players, rules, list(deck), list(king_order), list(removed), seed)
        return game

    def _start(self, n: int, rules: Rules, deck: list[int], king_order: list[int], removed: list[int], seed) -> None:
        self.num_players = n
        self.rules = rules
        self.seed = seed
        self.kingdoms = [Kingdom(rules.kingdom_size) for _ in range(n)]
        self.king_order = king_order
        self.deck = deck  # undrawn dominoes in draw order: hidden information
        self.removed = removed  # dominoes out of the game (2-3 players): hidden information
        self.drawn: list[int] = []  # every domino drawn so far, in draw order
        self.moves: list[tuple[int, int, int]] = []  # (player, action, domino) in play order
        self._discard = discard_action(rules.kingdom_size)
        # The set-up is a round in which the kings, in drawing order, pick and hold nothing.
        self.queue = list(king_order)  # owner of each king acting this round, in order
        self.held = [0] * len(king_order)  # domino under each of those kings (0: none yet)
        self.king = 0  # index into queue of the king acting now
        self.round = 0
        self.phase = PICK
        self.line: list[int] = []
        self.claims: list[int] = []
        self._draw_line()
        self._masks: tuple[int, int, int, int] | None = None

    # ----- whose turn and what may be done ----------------------------------------------------
    @property
    def current_player(self) -> int:
        """The player whose king acts now (-1 once the game is over)."""
        return self.queue[self.king] if self.phase != OVER else -1

    @property
    def held_domino(self) -> int:
        """The domino the acting king must place now (0 when picking or over)."""
        return self.held[self.king] if self.phase == PLACE else 0

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def line_size(self) -> int:
        return len(self.king_order)

    def placement_masks(self) -> tuple[int, int, int, int]:
        """Bitboards of half-A cells per direction for the domino to place now (cached)."""
        if self._masks is None:
            self._masks = self.kingdoms[self.queue[self.king]].placement_masks(self.held[self.king])
        return self._masks

    def legal_actions(self) -> list[int]:
        """Every legal action now, as integers of the action codec."""
        if self.phase == PLACE:
            actions = placement_actions(self._masks or self.placement_masks())
            if not actions or self.rules.voluntary_discard:
                actions.append(self._discard)
            return actions
        if self.phase == PICK:
            first = self._discard + 1
            return [first + i for i, owner in enumerate(self.claims) if owner < 0]
        return []

    def must_discard(self) -> bool:
        """True when the domino to place has no legal placement."""
        return self.phase == PLACE and not any(self.placement_masks())

    # ----- playing -----------------------------------------------------------------------------
    def step(self, action: int, player: int | None = None) -> None:
        """Play ``action`` for the acting king; raises IllegalMoveError (state unchanged) if illegal.

        ``player``, when given, must be the player whose turn it is. Any integer type is accepted.
        """
        if type(action) is not int:
            action = _as_action(action)
        if self.phase == OVER:
            raise IllegalMoveError(f"action {action}: the game is over")
        p = self.queue[self.king]
        if player is not None and player != p:
            raise IllegalMoveError(f"action {action} by player {player}: it is player {p}'s turn to {self.phase}")
        if self.phase == PLACE:
            self._place(action, p)
            if self.line:  # the king picks next
                self.phase = PICK
                self._masks = None
                return
        else:
            self._pick(action, p)
        self._next_king()

    def _place(self, action: int, p: int) -> None:
        """Place (or discard) player ``p``'s held domino; IllegalMoveError (state unchanged) if illegal."""
        number = self.held[self.king]
        masks = self._masks or self.placement_masks()
        if 0 <= action < self._discard:
            if not (masks[action & 3] >> (action >> 2)) & 1:
                self._illegal(action, self.kingdoms[p].why_not(number, action))
            self.kingdoms[p].place(number, action)
        elif action == self._discard:
            if not self.rules.voluntary_discard and any(masks):
                self._illegal(action, "domino can be placed, so it must be (voluntary_discard is off)")
            self.kingdoms[p].discards += 1
        else:
            self._illegal(action, f"it is time to place domino #{number}, not to pick")
        self.moves.append((p, action, number))

    def _pick(self, action: int, p: int) -> None:
        """Claim a slot of the next line for player ``p``; IllegalMoveError (state unchanged) if illegal."""
        slot = action - self._discard - 1
        if not 0 <= slot < len(self.claims):
            self._illegal(action, "it is time to pick a domino of the next line")
        if self.claims[slot] >= 0:
            self._illegal(action, f"domino #{self.line[slot]} is already claimed by player {self.claims[slot]}")
        self.claims[slot] = p
        self.moves.append((p, action, self.line[slot]))

    def playout(self, rng: random.Random) -> Game:
        """Finish the game with uniformly random legal moves and return it.

        A decision draws ``u = rng.random()`` and plays ``legal_actions()[int(u * len)]``; only the picks of a
        round played from its first placement draw slot ``int(u * line_size)``, again while it is claimed. Both
        are uniform: that is how playouts have always drawn, kept so that a seed gives the games it always gave.
        """
        under_way = self.round if self.king or self.phase == PICK else -1  # the round whose picks use the list
        while self.phase != OVER:
            if self.phase == PICK and self.round != under_way:
                slot = int(rng.random() * self.line_size)
                while self.claims[slot] >= 0:
                    slot = int(rng.random() * self.line_size)
                self.step(self._discard + 1 + slot)
            else:
                actions = self.legal_actions()
                self.step(actions[int(rng.random() * len(actions))])
        return self

    def _illegal(self, action, reason: str) -> None:
        try:
            move = str(decode(action, self.rules.kingdom_size))
        except ValueError as err:
            raise IllegalMoveError(f"illegal action {shown(action)} by player {self.current_player}: {err}") from None
        held = f" with domino #{self.held_domino}" if self.phase == PLACE else ""
        raise IllegalMoveError(f"illegal move {move}{held} by player {self.current_player}: {reason}")

    def _next_king(self) -> None:
        self._masks = None
        self.king += 1
        if self.king < len(self.queue):
            self.phase = PLACE if self.held[self.king] else PICK
            return
        if not self.line:
            self.phase = OVER
            return
        self.queue, self.held = self.claims, self.line
        self._draw_line()
        self.king = 0
        self.round += 1
        self.phase = PLACE

    def _draw_line(self) -> None:
        n = len(self.king_order)
        if self.deck:
            chunk = self.deck[:n]
            del self.deck[:n]
            self.drawn += chunk
            self.line = sorted(chunk)
            self.claims = [-1] * n
        else:
            self.line, self.claims = [], []

    # ----- copies for search -------------------------------------------------------------------
    def clone(self) -> Game:
        """An independent copy (cheap: a few list copies)."""
        g: Game = Game.__new__(Game)
        g.num_players, g.rules, g.seed = self.num_players, self.rules, self.seed
        g.kingdoms = [k.copy() for k in self.kingdoms]
        g.king_order = self.king_order
        g.deck, g.drawn, g.removed = self.deck[:], self.drawn[:], self.removed[:]
        g.line, g.claims, g.queue, g.held = self.line[:], self.claims[:], self.queue[:], self.held[:]
        g.king, g.phase, g.round, g.moves = self.king, self.phase, self.round, self.moves[:]
        g._masks, g._discard = self._masks, self._discard
        return g

    def determinize(self, rng: random.Random) -> Game:
        """A copy in which the unseen dominoes (undrawn and removed) are reshuffled by ``rng``."""
        g = self.clone()
        pool = sorted(g.deck + g.removed)  # sorted first: the copy must not depend on the hidden order
        rng.shuffle(pool)
        g.deck, g.removed = pool[: len(g.deck)], pool[len(g.deck) :]
        return g

    def unseen(self) -> list[int]:
        """Dominoes no player has seen (undrawn or removed), in number order: public information."""
        return sorted(self.deck + self.removed)

    # ----- scores and winners ------------------------------------------------------------------
    def bonuses(self, player: int) -> tuple[int, int]:
        """(Middle Kingdom, Harmony) bonus the player's kingdom earns now under these rules."""
        kingdom = self.kingdoms[player]
        return self.rules.bonuses(kingdom.occupied, kingdom.discards)

    def breakdown(self, player: int) -> ScoreBreakdown:
        """The player's score, property by property, and the bonuses."""
        return ScoreBreakdown(self.kingdoms[player].properties(), *self.bonuses(player))

    def score(self, player: int) -> int:
        """The player's score now, variant bonuses included."""
        middle, harmony = self.bonuses(player)
        return self.kingdoms[player].property_score() + middle + harmony

    def scores(self) -> list[int]:
        return [self.score(p) for p in range(self.num_players)]

    def standing(self, player: int) -> tuple[int, int, int]:
        """What decides the winner, in order: score, largest property, total crowns."""
        kingdom = self.kingdoms[player]
        return self.score(player), kingdom.largest_property(), kingdom.total_crowns()

    def winners(self) -> list[int]:
        """The players who win (more than one on a full tie: a shared victory)."""
        return winners_of([self.standing(p) for p in range(self.num_players)])

    def placings(self, forfeited: Collection[int] = ()) -> list[float]:
        """Each player's place, 0 for first; tied players share the mean of their places. The ``forfeited`` seats
        (a tournament's player that broke the game) come last, behind every standing, sharing their places."""
        keys = [(-1, 0, 0, 0) if p in forfeited else (0, *self.standing(p)) for p in range(self.num_players)]
        return [sum(k > key for k in keys) + (sum(k == key for k in keys) - 1) / 2 for key in keys]

    def __repr__(self) -> str:
        return (
            f"Game({self.num_players} players, round {self.round}, {self.phase} by player {self.current_player}, "
            f"line {self.line}, claims {self.claims})"
        )


def winners_of(standings: Sequence[Sequence[int]]) -> list[int]:
    """The players with the best standing (score, largest property, crowns): the winners of a finished game."""
    best = max(standings, key=tuple)
    return [p for p, standing in enumerate(standings) if standing == best]


def _as_action(action) -> int:
    try:
        return operator.index(action)
    except TypeError:
        raise IllegalMoveError(f"action {shown(action)} is not an integer") from None


def shuffled_deal(num_players: int, rules: Rules, seed: int | None) -> tuple[list[int], list[int]]:
    """The deal of ``Game(num_players, rules, seed)``: all 48 dominoes shuffled (those in play first, in draw
    order) and the owner of each king in drawing order; the one place a seed becomes a deal, and so where a negative
    one (which ``random.Random`` takes as the positive) is refused."""
    rng = random.Random(seed_value(seed))
    dominoes = list(range(1, NUM_DOMINOES + 1))
    rng.shuffle(dominoes)
    king_order = [p for p in range(num_players) for _ in range(rules.setup(num_players)[0])]
    rng.shuffle(king_order)
    return dominoes, king_order


def random_game(num_players: int = 4, rules: Rules | None = None, seed: int | None = None) -> Game:
    """Play a whole game with uniformly random legal moves (seeded) and return it."""
    game = Game(num_players, rules, seed)
    return game.playout(random.Random(game.seed))
