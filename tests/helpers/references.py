"""Plain-Python references that the compiled code is tested against: the end-of-game rewards from the engine's
game, and every move the Python Full Greedy rates best."""

from __future__ import annotations

from kdenv.actions import discard_action, pick_action
from kdenv.encoding import SCORE_SCALE
from kdenv.game import PICK, Game


def terminal_rewards(game: Game, reward: str) -> list[float]:
    """Each player's end-of-game reward under ``reward`` ("score" has none at the end)."""
    n = game.num_players
    if reward == "rank":
        return [1.0 - 2.0 * place / (n - 1) for place in game.placings()]
    if reward == "margin":
        scores = game.scores()
        return [(s - max(scores[:p] + scores[p + 1 :])) / SCORE_SCALE for p, s in enumerate(scores)]
    return [0.0] * n


def fg_choices(fg, game: Game) -> list[int]:
    """Every action the Python Full Greedy rates best now (it plays one of them at random): the reference
    the compiled teacher's targets are tested against."""
    size = game.rules.kingdom_size
    if game.phase == PICK:
        return [pick_action(slot, size) for _, slot in fg.choices(game)]
    if game.must_discard():
        return [discard_action(size)]
    return sorted({action for action, _ in fg.choices(game)})
