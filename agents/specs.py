"""What a player spec is, answered in one place, so that a spec plays the same wherever it is seated.

A spec is read here as :func:`agents.registry.make_player` reads it (:func:`~agents.registry.parse_spec`: the name in
any case, spaces ignored, options apart): the compiled players (:data:`COMPILED`) play inside the compiled core
(:mod:`agents.batched.policy`) and a ``ppo:`` spec from its checkpoint in batches, both in the learner's vector
view (``training.envs.one_learner``) as in a tournament; every other spec plays through the engine. The kernel and
the PPO player are imported only where a spec asks for them, so that reading a spec stays cheap::

    compiled_policy_of(" FG ")                  # Policy.FG
    checkpoint_of("ppo:x.zip,sample=true")      # PPOOptions(path='x.zip', sample=True)
    slug_of("az:default,simulations=16")        # 'az_default_simulations-16'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.options import read_options
from agents.registry import PlayerSpecError, parse_spec

if TYPE_CHECKING:
    from agents.batched.policy import Policy
    from agents.ppo_player import PPOOptions

COMPILED = ("random", "gprd", "fg", "fgt")  # the players compiled in agents.batched, in Policy code order


def compiled_policy(name: str) -> Policy:
    """The seat code of the compiled player ``name`` (one of :data:`COMPILED`): its Policy member bears its name."""
    from agents.batched.policy import Policy

    return Policy[name.upper()]


def compiled_policy_of(spec: str) -> Policy | None:
    """The seat code of a compiled player's spec (``fg``, ``" FG "``: no options), or None where it names another."""
    name, options = parse_spec(spec)
    return compiled_policy(name) if name in COMPILED and not options else None


def checkpoint_of(spec: str) -> PPOOptions | None:
    """The checkpoint of a ``ppo:`` spec and whether it samples (``ppo:PATH,sample=true``), read as the PPO player
    reads its options (a one-line PlayerSpecError on one it does not take); None for any other spec."""
    name, options = parse_spec(spec)
    if name != "ppo":
        return None
    from agents.ppo_player import PPOOptions

    try:
        return read_options(PPOOptions, options)
    except ValueError as err:
        raise PlayerSpecError(f"player spec {spec!r}: {err}") from None


def plays_batched(spec: str) -> bool:
    """Whether a spec plays in the vector env's batches (compiled, or a ``ppo:`` checkpoint): no engine, no worker."""
    return compiled_policy_of(spec) is not None or checkpoint_of(spec) is not None


def slug_of(text: str) -> str:
    """A spec (or a start's name) as one folder name: ``=`` becomes ``-`` and every character other than a letter,
    a digit or ``-_.`` becomes ``_`` (``mce:playouts=50`` -> ``mce_playouts-50``)."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text.strip().replace("=", "-"))
