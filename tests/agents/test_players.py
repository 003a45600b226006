"""Every player: only legal moves in every set-up, spec strings and their errors."""

from __future__ import annotations

import time

import pytest

from agents import PlayerSpecError, make_player
from agents.base import Player
from kdenv.game import OVER, Game
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView
from tests.strategies import SET_UP_IDS, SET_UPS

SPECS = [
    "random",
    "gprd",
    "fg",
    "fgt",
    "mce:playouts=4,policy=random",
    "mce:playouts=4,policy=eg,eval=wdl,select=even",
    "uct:playouts=6,policy=random,eval=p",
    "uct:playouts=3,policy=pg",
]


class Checked(Player):
    """Wraps a player and checks each of its actions against the game's legal actions."""

    def __init__(self, inner: Player) -> None:
        super().__init__()
        self.inner = inner

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.inner.reset(seat, seed)

    def act(self, view: PublicView) -> int:
        action = self.inner.act(view)
        assert action in view.legal_actions(), (self.inner.spec, action)
        return action


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(("num_players", "rules"), SET_UPS, ids=SET_UP_IDS)
def test_players_only_play_legal_moves(spec, num_players, rules):
    if spec.startswith(("mce", "uct")) and rules.kingdom_size == 7:
        spec = spec.replace("playouts=6", "playouts=2").replace("playouts=4", "playouts=2")
    game = Game(num_players, rules, seed=11)
    players = [Checked(make_player(spec))] + [Checked(make_player("fg")) for _ in range(num_players - 1)]
    for seat, player in enumerate(players):
        player.reset(seat, seed=seat)
    view = PublicView(game)
    while game.phase != OVER:
        p = game.current_player
        game.step(players[p].act(view), p)
    assert len(game.scores()) == num_players


@pytest.mark.parametrize("spec", ["gprd", "fg", "mce:playouts=4,policy=random", "uct:playouts=4,policy=random"])
def test_players_handle_forced_discards(spec):
    # many random games end with a domino that fits nowhere; play until one such decision is met
    player = make_player(spec)
    for seed in range(40):
        game = Game(4, STUDY_RULES, seed=seed)
        player.reset(0, seed)
        view = PublicView(game)
        while game.phase != OVER:
            if game.must_discard() and game.current_player == 0:
                game.step(player.act(view))
                assert game.kingdoms[0].discards
                return
            actions = game.legal_actions()
            game.step(actions[(game.round * 7 + game.king) % len(actions)])
    pytest.skip("no forced discard met")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mce:policy=best", "policy='best' is not one of random, fg, eg, pg"),
        ("mce:eval=score", "eval='score' is not one of wdl, p, r"),
        ("mce:seconds=0", "seconds='0' must be greater than 0"),
        ("mce:seconds=fast", "seconds='fast' is not a number"),
        ("uct:playouts=2.5", "playouts='2.5' is not an integer"),
        ("uct:seconds=1,playouts=10", "give seconds= or playouts=, not both"),
        ("uct:c=wide", "c='wide' is not a number"),
        ("mce:select=ucb", "select='ucb' is not one of halving, even"),
        ("mce:width=-2", "width='-2' must be at least 0"),
        ("uct:c=-1", "c='-1' must be at least 0"),
        ("uct:clock=gpu", "clock='gpu' is not one of wall, cpu"),
        ("mce:speed=9", "unknown option 'speed'; mce takes "),
        ("fg:depth=2", "unknown option 'depth'; fg takes no options"),
        ("gprd:x=1", "unknown option 'x'; gprd takes no options"),
        ("az:default,sims=3", "unknown option 'sims'; az takes batch, c, "),
        ("mcts", "known players: random, gprd, fg, fgt, mce, uct"),
    ],
)
def test_bad_specs_give_one_line_errors(spec, message):
    with pytest.raises(PlayerSpecError) as info:
        make_player(spec)
    text = str(info.value)
    assert message in text and "\n" not in text


def test_spec_options_reach_the_player():
    mce = make_player("mce:policy=pg,eval=wdl,playouts=50,select=even,width=0,prune=0")
    assert (mce.policy, mce.evaluation, mce.budget.count, mce.select, mce.width, mce.prune) == (
        "pg", "wdl", 50, "even", 0, False,
    )  # fmt: skip
    uct = make_player("uct:seconds=0.5,c=1.2")
    assert (uct.policy, uct.evaluation, uct.budget.seconds, uct.c) == ("fg", "r", 0.5, 1.2)
    assert make_player("mce").budget.seconds == 1.0
    assert make_player("mce:seconds=2,clock=cpu").budget.now is time.process_time
    assert make_player("uct:seconds=1").spec == "uct:seconds=1"
