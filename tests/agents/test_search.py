"""Search players: they plan on determinized copies only, and share their playouts as promised."""

from __future__ import annotations

import random

import pytest

from agents import make_player
from agents.mce import MCEOptions, MonteCarloPlayer
from kdenv.game import Game
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView

SEARCHERS = [
    "mce:playouts=12,policy=random",
    pytest.param("mce:playouts=2,policy=fg,eval=p,width=2", marks=pytest.mark.slow),
    "uct:playouts=16,policy=random,eval=wdl",
    "uct:playouts=4,policy=eg",
    "az:default,simulations=8,sample=true",  # its deals of the unseen come from the public view alone
]


class CanonicalView(PublicView):
    """A public view whose determinizations depend only on public information and the rng: the unseen
    dominoes are put in number order before the shuffle (the engine shuffles them in true order)."""

    __slots__ = ()

    def determinize(self, rng: random.Random) -> Game:
        game = self._game.clone()
        pool = sorted(game.deck + game.removed)
        rng.shuffle(pool)
        game.deck, game.removed = pool[: len(game.deck)], pool[len(game.deck) :]
        return game


def twin_games() -> tuple[Game, Game]:
    """Two deals with the same first two lines and king order but different undrawn orders."""
    rng = random.Random(5)
    deck = list(range(1, 49))
    rng.shuffle(deck)
    other = deck[:8] + deck[8:][::-1]
    return Game.from_deck(4, STUDY_RULES, deck, [2, 0, 3, 1]), Game.from_deck(4, STUDY_RULES, other, [2, 0, 3, 1])


@pytest.mark.parametrize("spec", SEARCHERS)
def test_decisions_do_not_depend_on_the_hidden_deck_order(spec):
    first, second = twin_games()
    player = make_player(spec)
    decisions = 0
    # the set-up picks and the whole first round are played before the third line is drawn
    while first.round <= 1 and first.line == second.line:
        seat = first.current_player
        player.reset(seat, seed=decisions)
        a = player.act(CanonicalView(first))
        player.reset(seat, seed=decisions)
        b = player.act(CanonicalView(second))
        assert a == b
        first.step(a)
        second.step(b)
        decisions += 1
    assert decisions >= 10


def test_determinized_copies_are_all_the_player_plans_on():
    """The view handed to uct is only ever asked for public state and determinize() (mce's playouts start
    from the kernel's snapshot of the public state, which reshuffles the unseen: see test_snapshot)."""
    game = Game(4, STUDY_RULES, seed=3)
    calls = []

    class Recording(PublicView):
        __slots__ = ()

        def determinize(self, rng):
            calls.append(1)
            return super().determinize(rng)

    view = Recording(game)
    assert not hasattr(view, "deck") and not hasattr(view, "removed")
    player = make_player("uct:playouts=8,policy=pg")
    player.reset(game.current_player, seed=0)
    game.step(player.act(view))
    assert calls


def test_successive_halving_finds_the_best_candidate_within_the_budget():
    player = MonteCarloPlayer(MCEOptions(playouts=64, policy="random"))
    player.reset(0, seed=1)
    runs = []

    def playout(i: int) -> float:
        runs.append(i)
        return i / 10 + random.Random(len(runs)).random() * 0.01

    assert player._share_out(8, playout) == 7
    assert 48 <= len(runs) <= 72
    assert runs.count(7) > runs.count(0)  # the dropped half stops getting playouts


def test_even_spread_gives_every_candidate_the_same_playouts():
    player = MonteCarloPlayer(MCEOptions(playouts=40, policy="random", select="even"))
    player.reset(0, seed=1)
    runs: list[int] = []
    best = player._share_out(5, lambda i: runs.append(i) or (1.0 if i == 2 else 0.0))
    assert best == 2 and [runs.count(i) for i in range(5)] == [8] * 5
