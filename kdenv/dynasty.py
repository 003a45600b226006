"""The Dynasty variant: a match of three games between the same players; the highest total wins."""

from __future__ import annotations

import random

from kdenv.errors import KingdominoError
from kdenv.game import Game
from kdenv.rules import Rules

GAMES_IN_A_DYNASTY = 3


class Dynasty:
    """Three games in a row, each dealt from its own seed drawn from the match's seed."""

    def __init__(self, num_players: int = 4, rules: Rules | None = None, seed: int | None = None) -> None:
        self.num_players = num_players
        self.rules = rules or Rules()
        self.rules.setup(num_players)  # refuse impossible tables before any game
        rng = random.Random(seed)
        self.seeds = [rng.getrandbits(32) for _ in range(GAMES_IN_A_DYNASTY)]
        self.games: list[Game] = []

    def new_game(self) -> Game:
        """Deal the next game of the match (the previous one must be finished)."""
        if self.games and not self.games[-1].is_over:
            raise KingdominoError("finish the current game of the dynasty before dealing the next")
        if len(self.games) == GAMES_IN_A_DYNASTY:
            raise KingdominoError(f"a dynasty is {GAMES_IN_A_DYNASTY} games; this one is over")
        game = Game(self.num_players, self.rules, self.seeds[len(self.games)])
        self.games.append(game)
        return game

    @property
    def is_over(self) -> bool:
        return len(self.games) == GAMES_IN_A_DYNASTY and self.games[-1].is_over

    def totals(self) -> list[int]:
        """Each player's total over the finished games."""
        finished = [g.scores() for g in self.games if g.is_over]
        return [sum(scores[p] for scores in finished) for p in range(self.num_players)]

    def winners(self) -> list[int]:
        """The players with the highest total (several: a shared victory)."""
        totals = self.totals()
        return [p for p, total in enumerate(totals) if total == max(totals)]
