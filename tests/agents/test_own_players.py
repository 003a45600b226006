"""Players of one's own: ``MODULE:ATTR`` specs, the ``kdenv.players`` entry points, Player objects in tournaments,
any policy as a player (``from_policy``), and the web game that offers none of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import Player, PlayerSpecError, from_policy, make_player
from agents.play.web.offer import NotOffered, Offer
from agents.registry import installed_players, known_names
from kdenv.errors import IllegalMoveError
from kdenv.flat import flatten
from kdenv.game import OVER, Game
from kdenv.rules import Rules
from kdenv.view import PublicView
from tests.helpers import own_bots
from training.arena.errors import TournamentError
from training.arena.tournament import Tournament
from training.backends.local import Processes

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def bots(tmp_path, monkeypatch):
    """A module ``mybots`` outside the package, importable from here (its folder on sys.path)."""
    (tmp_path / "mybots.py").write_text(Path(own_bots.__file__).read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("mybots", None)


def play_out(player: Player, num_players: int = 2) -> list[int]:
    """A game of ``player`` in seat 0 against first-legal players; the actions ``player`` chose."""
    game, view, chosen = Game(num_players, Rules(), seed=3), None, []
    view = PublicView(game)
    player.reset(0, seed=0)
    while game.phase != OVER:
        seat = game.current_player
        action = player.act(view) if seat == 0 else game.legal_actions()[0]
        if seat == 0:
            chosen.append(action)
        game.step(action, seat)
    return chosen


def test_a_module_spec_makes_its_class_with_options_read_as_the_built_ins(bots):
    first, last = make_player("mybots:Cautious", 2), make_player("mybots:Cautious,last=yes", 2)
    assert type(first).__name__ == "Cautious" and first.spec == "mybots:Cautious"
    assert (first.last, last.last) == (False, True)
    assert play_out(first) != play_out(last)


def test_a_module_spec_may_name_a_factory_whose_annotations_read_the_options(bots):
    assert make_player("mybots:make,depth=2").last and not make_player("mybots:make").last
    with pytest.raises(PlayerSpecError, match=r"depth='two' is not an integer"):
        make_player("mybots:make,depth=two")
    with pytest.raises(PlayerSpecError, match=r"unknown option 'width'; make takes depth"):
        make_player("mybots:make,width=2")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nobots:Cautious", r"no module named 'nobots'; install it, or run where it lies"),
        ("mybots:Careless", r"mybots has no 'Careless'"),
        ("mybots:Plain", r"Plain is not an agents.Player subclass"),
        ("mybots:not_a_player", r"the factory returned int, not an agents.Player"),
        ("mybots:Cautious,depth=2", r"unknown option 'depth'; mybots:Cautious takes last"),
        ("mybots", r"unknown player 'mybots' in spec 'mybots'; known players: random, .*or MODULE:ATTR"),
    ],
)
def test_bad_module_specs_give_one_line_errors(bots, spec, message):
    with pytest.raises(PlayerSpecError, match=message) as err:
        make_player(spec)
    assert "\n" not in str(err.value)


def test_a_module_that_fails_to_import_is_told_in_one_line(tmp_path, monkeypatch):
    (tmp_path / "brokenbots.py").write_text("raise RuntimeError('no luck')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PlayerSpecError, match=r"importing brokenbots failed: RuntimeError: no luck"):
        make_player("brokenbots:Anything")


@pytest.fixture
def installed(bots):
    """``mybots`` installed as a distribution that registers ``cautious`` under the entry points kdenv.players."""
    info = bots / "mybots-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mybots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[kdenv.players]\ncautious = mybots:Cautious\nfg = mybots:make\n")
    installed_players.cache_clear()
    yield bots
    installed_players.cache_clear()


def test_installed_packages_name_their_players_through_entry_points(installed):
    assert installed_players()["cautious"] == "mybots:Cautious"
    assert make_player("cautious:last=true", 2).last
    assert type(make_player("fg")).__name__ == "FullGreedyPlayer"  # a built-in name cannot be taken
    assert "installed: cautious;" in known_names()
    with pytest.raises(PlayerSpecError, match=r"known players: .*installed: cautious"):
        make_player("carefree")


def test_installed_players_show_in_the_tournament_s_help(installed):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed), str(ROOT)])}
    shown = subprocess.run(
        [sys.executable, "-m", "training.cli", "tournament", "--help"], env=env, capture_output=True, text=True
    )
    assert "installed: cautious" in " ".join(shown.stdout.split())


def test_a_player_module_outside_the_package_plays_a_tournament_in_worker_processes(bots):
    """From the command line, in the module's folder (found there as `python -m` would), with two workers."""
    command = ["-m", "training.cli", "tournament", "--agents", "mybots:Cautious", "mybots:make,depth=2", "fg"]
    command += ["--players", "2", "--games", "6", "--workers", "2", "--no-progress", "--out", "t"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, *command], cwd=bots, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    table = " ".join(done.stdout.split())
    assert "│ mybots:Cautious │ 4 │" in table and "│ mybots:make,depth=2 │ 4 │" in table


class FirstLegal(Player):
    def __init__(self) -> None:
        super().__init__()
        self.games = 0

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.games += 1

    def act(self, view: PublicView) -> int:
        return view.legal_actions()[0]


def test_player_objects_play_a_tournament_in_this_process(tmp_path):
    mine = FirstLegal()
    mine.spec = "first-legal"
    results = Tournament([mine, "random", "fg"], players=2, games=6, out=tmp_path).play()
    assert results.agent("first-legal").games == 4 and mine.games == 4
    unnamed = FirstLegal()
    assert Tournament([unnamed, "random"], players=2, games=2).run(progress=False).agent("FirstLegal").games == 2


def test_player_objects_are_refused_where_they_cannot_be(tmp_path):
    mine = FirstLegal()
    says = r"play in this process only: run them on the default backend \(or InProcess\), or name the player"
    with pytest.raises(TournamentError, match=says):
        Tournament([mine, "random"], players=2, games=2).run(Processes(2), progress=False)
    with pytest.raises(TournamentError, match=r"is listed twice; give each seat its own object"):
        Tournament([mine, mine, "random"], players=2, games=2)
    mine.spec = "random"
    with pytest.raises(TournamentError, match=r"two agents are named 'random'"):
        Tournament([mine, "random"], players=2, games=2)


def first_legal(observation, mask: np.ndarray) -> np.int64:
    return np.flatnonzero(mask)[0]


def test_a_policy_is_a_player_that_sees_the_envs_observation():
    seen = []

    def policy(observation, mask):
        seen.append(observation)
        return first_legal(observation, mask)

    assert play_out(from_policy(policy)) == play_out(from_policy(policy, "flat"))
    half = len(seen) // 2
    assert set(seen[0]) == {"board", "features"} and seen[half].ndim == 1
    np.testing.assert_array_equal(flatten(seen[0]), seen[half])
    assert from_policy(policy, name="mine").spec == "mine" and from_policy(policy).spec == "policy"


@pytest.mark.parametrize(
    ("returned", "why"), [(0.0, "not an integer"), (np.array([2, 3]), "not an integer"), (10_000, "not a legal")]
)
def test_a_policy_that_returns_no_legal_action_is_told_in_one_line(returned, why):
    player = from_policy(lambda observation, mask: returned, name="bad")
    with pytest.raises(IllegalMoveError, match=rf"policy 'bad' in seat 0 returned .*: {why}"):
        play_out(player)


@pytest.mark.parametrize("spec", ["mybots:Cautious", "sb3:model.zip"])
def test_the_web_game_offers_no_code(bots, spec):
    with pytest.raises(NotOffered, match=r"the web game offers no .*: it runs code of its own"):
        Offer([spec])
