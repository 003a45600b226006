"""A search player seated at a table has run its compiled kernels there, so that no counted move of it compiles
(a minute or more on a fresh install: past the referee's move limit), and the warm-up changes none of its moves."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from agents import make_player
from agents.game_loop import play_game
from agents.mce import MonteCarloPlayer
from agents.searcher import _warm
from kdenv.game import Game
from kdenv.rules import Rules

# In a fresh process: the overloads that numba dispatchers of the project hold after the searcher is seated, and
# after it has played a game of the table against fg at its own budget.
COUNT_COMPILED = textwrap.dedent(
    """
    import sys
    from numba.core.dispatcher import Dispatcher
    from agents import make_player
    from agents.game_loop import play_game
    from kdenv.game import Game
    from kdenv.rules import Rules

    def compiled():
        return sum(
            len(value.overloads)
            for name, module in list(sys.modules.items())
            if name.split(".")[0] in ("agents", "kdenv")
            for value in list(vars(module).values())
            if isinstance(value, Dispatcher)
        )

    spec, players, rules = sys.argv[1], int(sys.argv[2]), Rules.from_names(sys.argv[3])
    searcher = make_player(spec, players, rules)
    seated = compiled()
    play_game([searcher, *[make_player("fg", players, rules) for _ in range(players - 1)]], Game(players, rules, 3), 3)
    print(seated, compiled())
    """
)


@pytest.mark.parametrize(
    ("spec", "players", "rules"),
    [
        ("mce:playouts=40", 4, "middle_kingdom,harmony"),
        ("uct:playouts=40,policy=random", 2, "mighty_duel"),
        ("az:default,simulations=24", 3, "middle_kingdom,harmony"),
    ],
)
def test_a_seated_searcher_compiles_nothing_in_its_games(spec: str, players: int, rules: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", COUNT_COMPILED, spec, str(players), rules], capture_output=True, text=True, check=True
    )
    seated, played = map(int, done.stdout.split())
    assert seated > 0
    assert played == seated


def test_the_warm_up_changes_no_move() -> None:
    """The same seeded game, played by a searcher warmed at its table and by one made before any warm-up there."""
    rules = Rules.from_names("mighty_duel")
    games = []
    for warmed in (False, True):
        _warm.discard((MonteCarloPlayer, 2, rules))
        searcher = make_player("mce:playouts=30", 2, rules) if warmed else make_player("mce:playouts=30")
        games.append(play_game([searcher, make_player("fg")], Game(2, rules, 11), 5).moves)
    assert games[0] == games[1]
