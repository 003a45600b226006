"""Random play to start tests from: a game some random decisions in, random legal actions for a batch."""

import random

import numpy as np

from kdenv.game import Game
from kdenv.rules import Rules


def game_after(players: int, rules: Rules, seed: int, decisions: int) -> Game:
    """A game after (at most) ``decisions`` random decisions."""
    game = Game(players, rules, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        game.step(rng.choice(game.legal_actions()))
    return game


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a mask."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask], np.int64)
