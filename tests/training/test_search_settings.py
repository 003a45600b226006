"""The az search's settings, declared once (agents.search_settings): the ``az:`` spec and expert iteration's
``selfplay`` section take every one of them, in the same ranges, and self-play searches with the SELFPLAY profile
where its config says nothing else."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from agents.az import AZOptions
from agents.options import bounds, fields
from agents.registry import PlayerSpecError, make_player
from agents.search_settings import SELFPLAY, Settings, settings_of
from training.az.config import SelfPlayConfig, az_config
from training.az.start import starting_network
from training.az.workers import make_selfplay
from training.runs.config import ConfigError, read_yaml

SEARCH = [f.name for f in dataclasses.fields(Settings)]
RENAMED = {"c_puct": "c", "evaluation": "eval"}  # the spec's shorter names (agents.options.Key)


def smoke(tmp_path, *overrides: str):
    return az_config(read_yaml("configs/az_smoke.yaml"), [f"runs_dir={tmp_path}", "warmup.games=0", *overrides])


def test_the_spec_and_the_selfplay_section_take_every_search_setting():
    spec = {name: key for key, (name, _, _) in fields(AZOptions).items()}
    assert {name: spec[name] for name in SEARCH} == {name: RENAMED.get(name, name) for name in SEARCH}
    assert set(SEARCH) <= {f.name for f in dataclasses.fields(SelfPlayConfig)}
    assert bounds(SelfPlayConfig).items() >= bounds(Settings).items()  # each in the range the spec's Bound says


def test_each_entry_keeps_its_defaults():
    """The az player's are the declaration's; self-play's are its profile's."""
    assert settings_of(AZOptions()) == Settings()
    assert settings_of(SelfPlayConfig()) == SELFPLAY
    player, selfplay = Settings(), SELFPLAY
    assert (player.c_scale, player.rollout, player.sample, player.outcome) == (1.0, "fg", False, "r")
    assert (selfplay.root, selfplay.c_scale, selfplay.rollout, selfplay.sample, selfplay.outcome) == (
        "gumbel", 0.1, "none", True, "rank",
    )  # fmt: skip


def test_self_play_searches_with_the_profile_and_its_config_s_changes(tmp_path):
    config = smoke(tmp_path, "selfplay.c_puct=2", "selfplay.lines=3", "selfplay.others=fg")
    settings, policy = starting_network(config)
    threads = torch.get_num_threads()
    play = make_selfplay(settings, policy.state_dict(), config.selfplay, seed=3)  # as a worker makes it
    torch.set_num_threads(threads)
    changed = {"considered": 4, "batch": 4, "c_puct": 2.0, "lines": 3, "others": "fg"}  # az_smoke.yaml's and these
    assert play.searches[0].settings == dataclasses.replace(SELFPLAY, **changed)


@pytest.mark.parametrize(("key", "value", "words"), [("considered", "2000", "must be at most 1024"),
                                                     ("mix", "1.5", "must be at most 1"),
                                                     ("c_scale", "-1", "must be at least 0")])  # fmt: skip
def test_the_spec_and_the_config_refuse_the_same_values(tmp_path, key, value, words):
    with pytest.raises(PlayerSpecError, match=words):
        make_player(f"az:default,{key}={value}")
    with pytest.raises(ConfigError, match=f"selfplay.{key}.*{words}"):
        smoke(tmp_path, f"selfplay.{key}={value}")
