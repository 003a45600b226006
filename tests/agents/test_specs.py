"""``agents.specs`` answers every question about a spec in one way: compiled or not, which checkpoint, batched or
not, and its folder name; the callers that used rules of their own ask it."""

from __future__ import annotations

import pytest

from agents.az_search import ROLLOUTS
from agents.batched.policy import Policy
from agents.ppo_player import PPOOptions
from agents.registry import PlayerSpecError
from agents.specs import COMPILED, checkpoint_of, compiled_policy_of, plays_batched, slug_of

SHIPPED = "agents/checkpoints/default-2p.zip"

# spec -> (compiled code, checkpoint read, plays batched)
SPECS = {
    "fg": (Policy.FG, None, True),
    " FG ": (Policy.FG, None, True),
    "Random": (Policy.RANDOM, None, True),
    "gprd": (Policy.GPRD, None, True),
    "fgt": (Policy.FGT, None, True),
    "fg:x": (None, None, False),  # a compiled player takes no path: no compiled code for it
    "mce:playouts=50": (None, None, False),
    "az:default,simulations=16": (None, None, False),
    "mybots.greedy:Cautious": (None, None, False),
    "ppo:default": (None, PPOOptions("default"), True),
    " PPO:v1 ": (None, PPOOptions("v1"), True),
    f"ppo:{SHIPPED},sample=true": (None, PPOOptions(SHIPPED, sample=True), True),
    "ppo:x.zip,sample=no": (None, PPOOptions("x.zip"), True),
}


@pytest.mark.parametrize("spec", SPECS)
def test_every_spec_form_is_classified_one_way(spec: str) -> None:
    compiled, checkpoint, batched = SPECS[spec]
    assert compiled_policy_of(spec) == compiled
    assert checkpoint_of(spec) == checkpoint
    assert plays_batched(spec) is batched


def test_the_compiled_names_are_the_policy_codes_in_order_and_the_searches_rollouts() -> None:
    assert [compiled_policy_of(name) for name in COMPILED] == [Policy.RANDOM, Policy.GPRD, Policy.FG, Policy.FGT]
    assert ROLLOUTS == {"random": 0, "gprd": 1, "fg": 2, "fgt": 3}


@pytest.mark.parametrize("spec", ["ppo:x.zip,depth=2", "ppo:x.zip,sample=perhaps"])
def test_a_checkpoint_spec_with_an_option_the_player_does_not_take_is_refused_in_one_line(spec: str) -> None:
    with pytest.raises(PlayerSpecError, match="player spec") as caught:
        plays_batched(spec)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "folder"),
    [
        ("fg", "fg"),
        ("mce:playouts=50", "mce_playouts-50"),
        ("az:default,simulations=16", "az_default_simulations-16"),
        ("ppo:runs/x/step 1.zip,sample=true", "ppo_runs_x_step_1.zip_sample-true"),
        ("mybots.greedy:Cautious", "mybots.greedy_Cautious"),
    ],
)
def test_a_spec_has_one_folder_name(spec: str, folder: str) -> None:
    assert slug_of(spec) == folder
