"""``ppo:PATH`` players: safe loading, one-line errors for unusable files, legal play."""

from __future__ import annotations

import json
import random
import sys
import zipfile

import pytest

from agents.game_loop import play_game
from agents.learned import LearnedPlayer, choose
from agents.ppo_player import DEFAULT_CHECKPOINT, CheckpointError, PPOOptions, PPOPlayer
from agents.registry import PlayerSpecError, make_player
from kdenv.game import Game
from kdenv.rules import STUDY_RULES
from kdenv.view import PublicView
from tests.helpers.checkpoints import SETTINGS, write_checkpoint


def _one_line(err: Exception) -> bool:
    return "\n" not in str(err)


def test_spec_loads_a_checkpoint_and_plays_legal_games(tiny_checkpoint):
    learner = make_player(f"ppo:{tiny_checkpoint}")
    sampler = make_player(f"ppo:{tiny_checkpoint},sample=true")
    for seed in range(3):
        game = play_game([learner, make_player("random"), sampler, make_player("fg")], Game(4, STUDY_RULES, seed))
        assert game.is_over  # Game.step raises on any illegal move


def test_deterministic_player_repeats_itself(tiny_checkpoint):
    def moves(seed):
        players = [make_player(f"ppo:{tiny_checkpoint}") for _ in range(4)]
        return play_game(players, Game(4, STUDY_RULES, seed), seed=seed).moves

    assert moves(5) == moves(5)


def test_missing_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match="not found") as info:
        PPOPlayer(PPOOptions(str(tmp_path / "nothing.zip")))
    assert _one_line(info.value)
    with pytest.raises(PlayerSpecError):
        make_player("ppo:default,sample=perhaps")


NO_TORCH = r'needs PyTorch: pip install torch==2\.13\.0 && pip install -e "\.\[train\]"$'


def test_without_pytorch_a_learned_player_is_a_one_line_error_and_the_quick_tournament_leaves_it_out(monkeypatch):
    from training.tournament_cli import _default_agents

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` now fails, as in the base install
    for spec in ("ppo:default", "az:default"):
        with pytest.raises(CheckpointError, match=NO_TORCH) as info:
            make_player(spec)
        assert _one_line(info.value)
    assert _default_agents() == ["random", "gprd", "fg"]


def test_not_a_zip(tmp_path):
    path = tmp_path / "junk.zip"
    path.write_bytes(b"not a zip at all")
    with pytest.raises(CheckpointError, match="cannot be read: .*; give a .zip written by `kdenv train`") as info:
        PPOPlayer(PPOOptions(str(path)))
    assert _one_line(info.value)


def test_zip_without_settings(tmp_path):
    path = tmp_path / "sb3.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("policy.pth", b"")
    with pytest.raises(CheckpointError, match="kdenv.json"):
        PPOPlayer(PPOOptions(str(path)))


def test_weights_that_do_not_fit_the_settings(tmp_path):
    path = tmp_path / "mismatch.zip"
    write_checkpoint(path, {**SETTINGS, "network": {"channels": 16, "blocks": 1, "hidden": 16}})
    with zipfile.ZipFile(path) as archive:
        weights = archive.read("policy.pth")
    with zipfile.ZipFile(path, "w") as archive:  # the weights of a wider network under the tiny settings
        archive.writestr("kdenv.json", json.dumps(SETTINGS))
        archive.writestr("policy.pth", weights)
    with pytest.raises(CheckpointError, match="does not match") as info:
        PPOPlayer(PPOOptions(str(path)))
    assert _one_line(info.value)


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_wrong_format_and_pickled_code_are_refused(tmp_path):
    path = tmp_path / "old.zip"
    write_checkpoint(path, SETTINGS)
    with zipfile.ZipFile(path) as archive:
        weights = archive.read("policy.pth")
    with zipfile.ZipFile(path, "w") as archive:  # the typed settings write the one format: another, by hand
        archive.writestr("kdenv.json", json.dumps({**SETTINGS, "format": "something-else"}))
        archive.writestr("policy.pth", weights)
    with pytest.raises(CheckpointError, match="format"):
        PPOPlayer(PPOOptions(str(path)))

    class Evil:
        def __reduce__(self):
            return (print, ("pwned",))

    import pickle

    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("kdenv.json", json.dumps(SETTINGS))
        archive.writestr("policy.pth", pickle.dumps(Evil()))
    with pytest.raises(CheckpointError, match="cannot be read"):
        PPOPlayer(PPOOptions(str(evil)))


def test_default_checkpoint_plays_legal_games():
    assert DEFAULT_CHECKPOINT.is_file()
    settings = json.loads(DEFAULT_CHECKPOINT.with_suffix(".json").read_text())
    assert settings["num_players"] == 4
    player = make_player("ppo:default")
    for seed in range(2):
        others = [make_player("fg") for _ in range(3)]
        game = play_game([*others[:seed], player, *others[seed:]], Game(4, STUDY_RULES, seed), seed=seed)
        assert game.is_over


def test_a_checkpoint_at_another_table_is_refused_before_any_game(tiny_checkpoint):
    from kdenv.rules import Rules
    from training.arena.tournament import Tournament

    with pytest.raises(CheckpointError, match="trained for 4 players at kingdom size 5 and cannot play 2 players"):
        make_player(f"ppo:{tiny_checkpoint}", 2, Rules())
    with pytest.raises(CheckpointError, match="cannot play 2 players at kingdom size 7"):
        Tournament([f"ppo:{tiny_checkpoint}", "random"], players=2, games=2, rules=Rules(kingdom_size=7))
    assert make_player(f"ppo:{tiny_checkpoint}", 4, STUDY_RULES).where.endswith(f"{str(tiny_checkpoint)!r}")


def test_the_default_takes_the_shipped_checkpoint_of_its_table_or_says_there_is_none():
    from agents.ppo_player import DEFAULT_CHECKPOINTS
    from kdenv.rules import Rules

    for (players, size), path in DEFAULT_CHECKPOINTS.items():
        rules = Rules(kingdom_size=size)
        if path.is_file():
            player = make_player("ppo:default", players, rules)
            assert (player.settings.num_players, player.settings.kingdom_size) == (players, size)
            assert play_game([player] + [make_player("random") for _ in range(players - 1)], Game(players, rules, 1))
        else:
            with pytest.raises(CheckpointError, match="no shipped checkpoint"):
                make_player("ppo:default", players, rules)


def test_the_gymnasium_view_refuses_a_wrong_table_checkpoint_when_made(tiny_checkpoint):
    from kdenv.rules import Rules
    from training.envs.single_agent import KingdominoSingleAgentEnv

    with pytest.raises(CheckpointError, match="cannot play 3 players"):
        KingdominoSingleAgentEnv(3, Rules(), [f"ppo:{tiny_checkpoint}", "random"])


def test_a_checkpoint_reads_the_observations_it_was_trained_on(tmp_path, tiny_checkpoint):
    """A gains checkpoint plays legal games in the engine and batched in a gains vector env; a vector env of the
    other observation refuses either kind in one line."""
    import numpy as np

    from training.envs.one_learner import OneLearnerVectorEnv

    gains = tmp_path / "gains.zip"
    write_checkpoint(gains, {**SETTINGS, "gains": True})
    player = make_player(f"ppo:{gains}")
    assert player.gains
    game = play_game([player] + [make_player("fg") for _ in range(3)], Game(4, STUDY_RULES, 3))
    assert game.is_over
    venv = OneLearnerVectorEnv(2, 4, opponents=[f"ppo:{gains}"] * 3, rules=STUDY_RULES, gains=True)
    venv.reset(seed=0)
    for _ in range(60):
        venv.step(np.array([np.flatnonzero(row)[0] for row in venv.action_masks()]))
    with pytest.raises(CheckpointError, match="trained on observations with gains .* gains=True"):
        OneLearnerVectorEnv(2, 4, opponents=[f"ppo:{gains}"] * 3, rules=STUDY_RULES)
    with pytest.raises(CheckpointError, match="without gains .* gains=False"):
        OneLearnerVectorEnv(2, 4, opponents=[f"ppo:{tiny_checkpoint}"] * 3, rules=STUDY_RULES, gains=True)


def test_a_shipped_checkpoint_plays_by_name_and_a_path_stays_a_path(tmp_path):
    """``ppo:v1`` is the first 4-player default (without gains), kept loadable under its name."""
    player = make_player("ppo:v1", 4, STUDY_RULES)
    assert player.where.endswith("v1.zip'") and not player.encoder.gains
    game = play_game([player] + [make_player("random") for _ in range(3)], Game(4, STUDY_RULES, 2))
    assert game.is_over
    with pytest.raises(CheckpointError, match="no_such_name"):
        make_player("ppo:no_such_name")
    assert make_player("ppo:default-2p", 2, STUDY_RULES).where.endswith("default-2p.zip'")
    with pytest.raises(CheckpointError, match="trained for 2 players"):
        make_player("ppo:default-2p", 4, STUDY_RULES)


def test_a_ppo_player_is_a_learned_player_whose_choice_and_trace_are_the_base_s(tiny_checkpoint):
    """``ppo:`` (and ``rllib:``, ``sb3:``) players are learned players: their act is the base's choice of their
    logits, and their trace gives the probabilities and the value of that choice."""
    player = make_player(f"ppo:{tiny_checkpoint},sample=true", 4, STUDY_RULES)
    assert isinstance(player, LearnedPlayer)
    game = Game(4, STUDY_RULES, 3)
    view = PublicView(game)
    player.reset(game.current_player, seed=5)
    action = player.act(view)
    assert action == choose(player.logits(view, game.current_player), random.Random(5), sample=True)
    trace = player.trace()
    assert trace["kind"] == "policy" and isinstance(trace["value"], float)
    assert [c["action"] for c in trace["candidates"] if c.get("chosen")] == [action]
