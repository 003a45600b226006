"""A spec plays the same wherever it is seated: a compiled player in any case in both learner views, a ``ppo:``
spec with its options as a vector-env opponent (sampling, read once), a training curriculum and the league as
:mod:`agents.specs` reads them, and one folder name for evaluations."""

from __future__ import annotations

import numpy as np
import pytest

from agents.specs import slug_of
from tests.helpers.games import random_actions
from training.arena.evaluation import default_out
from training.arena.protocols import get_protocol
from training.envs import one_learner
from training.envs.one_learner import OneLearnerVectorEnv
from training.envs.single_agent import KingdominoSingleAgentEnv
from training.ppo.config import config_from_dict
from training.ppo.league import OpponentSampler
from training.ppo.train import engine_only

OWN = "tests.helpers.own_bots:Cautious"


def _vector_games(opponents: list, seed: int, picker=None) -> list[tuple[list[str], list]]:
    """(agents, moves) of the games that 3 rows of a 4-player vector env finish in 60 random learner steps."""
    venv = OneLearnerVectorEnv(3, 4, opponents=opponents, opponent_picker=picker)
    venv.reset(seed=seed)
    rng = np.random.default_rng(0)
    for _ in range(60):
        venv.step(random_actions(venv.action_masks(), rng))
    venv.close()
    return [(record["agents"], record["moves"]) for record in venv.records()]


def _episode(opponents: list[str], seed: int) -> list:
    """The moves of one single-agent episode of random learner moves."""
    env = KingdominoSingleAgentEnv(3, seat=0, opponents=opponents)
    env.reset(seed=seed)
    rng, done = np.random.default_rng(seed), False
    while not done:
        done = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))[2]
    return env.record()["moves"]


def test_a_compiled_spec_in_any_case_plays_compiled_in_both_learner_views():
    assert _vector_games([" FG ", "Gprd", "RANDOM"], 4) == _vector_games(["fg", "gprd", "random"], 4)
    for seed in (1, 2):  # through the engine, FG would draw its ties from other generators: other games
        assert _episode(["FG", " Gprd "], seed) == _episode(["fg", "gprd"], seed)


def test_a_sampling_checkpoint_spec_plays_as_a_vector_env_opponent_seeded_by_the_env(tiny_checkpoint):
    sampled = f"ppo:{tiny_checkpoint},sample=true"
    games = _vector_games([sampled, "fg", sampled], 3)
    assert games and all(agents.count(sampled) == 2 for agents, _ in games)  # named by its spec, as in a tournament
    assert games == _vector_games([sampled, "fg", sampled], 3)
    argmax = _vector_games([f"ppo:{tiny_checkpoint}", "fg", f"ppo:{tiny_checkpoint}"], 3)
    assert [moves for _, moves in games] != [moves for _, moves in argmax]


def test_a_checkpoint_spec_a_picker_names_at_every_deal_is_read_once(tiny_checkpoint, monkeypatch):
    reads = []
    read = one_learner.batched_policy
    monkeypatch.setattr(one_learner, "batched_policy", lambda *args: reads.append(args) or read(*args))
    games = _vector_games(["random"] * 3, 0, picker=lambda row: [f"ppo:{tiny_checkpoint}", "fg", "random"])
    assert len(games) >= 3 and len(reads) == 1


def test_a_curriculum_and_the_league_read_specs_as_the_envs_do():
    mix = {" FG ": 1.0, "ppo:default,sample=true": 1.0, OWN: 1.0}
    assert engine_only(config_from_dict({"env": {"num_players": 4}, "curriculum": [{"opponents": mix}]})) == [OWN]
    sampler = OpponentSampler(3, {"ppo:runs/elsewhere.zip": 1.0}, settings=None)
    assert sampler.pick() == ["ppo:runs/elsewhere.zip"] * 3  # a spec, not a snapshot of the pool


@pytest.mark.parametrize("spec", ["fg", "mce:playouts=50", "az:default,simulations=16", "mybots:Cautious,depth=2"])
def test_an_evaluation_folder_is_the_specs_one_folder_name(spec: str):
    assert default_out(get_protocol("vs-fg-2p"), spec).name == slug_of(spec)
