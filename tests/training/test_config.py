"""Training configs: defaults, overrides with type checks, and one-line errors naming the bad key."""

from __future__ import annotations

import pytest

from training.config import ConfigError, Stage, TrainConfig, config_from_dict, load_config


def test_shipped_configs_load():
    for name in ("smoke", "ppo_vs_fg", "selfplay"):
        config = load_config(f"configs/{name}.yaml")
        assert config.env.num_players == 4
        assert config.rules().middle_kingdom and config.rules().harmony


def test_set_overrides_with_types():
    overrides = ["ppo.n_steps=128", "ppo.learning_rate=1e-4", "eval.opponents=[fg]", "bc.max_minutes=2"]
    config = config_from_dict({}, overrides)
    assert config.ppo.n_steps == 128
    assert config.ppo.learning_rate == pytest.approx(1e-4)
    assert config.eval.opponents == ["fg"]
    assert config.bc.max_minutes == 2.0


def test_int_accepted_for_float_but_not_the_reverse():
    assert config_from_dict({"ppo": {"learning_rate": 1}}).ppo.learning_rate == 1.0
    with pytest.raises(ConfigError, match="'ppo.n_steps'"):
        config_from_dict({"ppo": {"n_steps": 12.5}})


@pytest.mark.parametrize(
    ("data", "overrides", "key"),
    [
        ({"ppo": {"n_stepz": 3}}, [], "ppo.n_stepz"),
        ({"colour": "red"}, [], "colour"),
        ({}, ["ppo.batch_size=many"], "ppo.batch_size"),
        ({}, ["network.channels=0"], "network.channels"),
        ({}, ["league.prioritise=maybe"], "league.prioritise"),
        ({}, ["env.reward=win"], "env.reward"),
        ({}, ["env.num_players=5"], "env"),
        ({}, ["eval.opponents=[nobody]"], "eval.opponents"),
        ({"curriculum": [{"opponents": {"fg": -1}}]}, [], "curriculum[0].opponents"),
        ({"curriculum": [{"opponents": {"fg": 1}, "untill": 5}]}, [], "curriculum[0].untill"),
        ({"ppo": 3}, [], "ppo"),
    ],
)
def test_bad_keys_and_values_name_the_key(data, overrides, key):
    with pytest.raises(ConfigError) as info:
        config_from_dict(data, overrides)
    message = str(info.value)
    assert f"'{key}'" in message
    assert "\n" not in message


def test_bad_set_syntax():
    with pytest.raises(ConfigError, match="key=value"):
        config_from_dict({}, ["ppo.n_steps"])


def test_missing_file_and_bad_yaml(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)


def test_curriculum_stage_by_step():
    config = TrainConfig(curriculum=[Stage({"random": 1.0}, 100), Stage({"fg": 1.0}, None)])
    assert config.stage(0).opponents == {"random": 1.0}
    assert config.stage(99).opponents == {"random": 1.0}
    assert config.stage(100).opponents == {"fg": 1.0}
    assert config.stage(10**9).opponents == {"fg": 1.0}
