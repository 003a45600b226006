"""Build games at a chosen decision, with kingdoms drawn as ASCII."""

from __future__ import annotations

from kdenv.game import Game
from kdenv.kingdom import Kingdom
from kdenv.rules import Rules


def game_placing(number: int, picture: str | None = None, rules: Rules | None = None, players: int = 2) -> Game:
    """A game in which player 0 must now place domino ``number`` in the kingdom ``picture``."""
    rules = rules or Rules()
    others = [n for n in range(1, 49) if n != number]
    in_play = rules.setup(players)[1]
    # Domino ``number`` is in the first line and player 0, drawn first, takes it; it is then the
    # lowest domino of the line only if the others are higher, so put the low numbers later.
    deck = [number, *sorted(others, reverse=True)[: in_play - 1]]
    kings = rules.setup(players)[0]
    king_order = [p for p in range(players) for _ in range(kings)]
    game = Game.from_deck(players, rules, deck, king_order)
    line = game.line
    game.step(game.legal_actions()[line.index(number)], player=0)
    while game.phase == "pick":
        game.step(game.legal_actions()[0])
    assert game.current_player == 0 and game.held_domino == number
    if picture is not None:
        game.kingdoms[0] = Kingdom.from_ascii(picture, rules.kingdom_size)
    return game
