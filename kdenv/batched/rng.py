"""Random draws in compiled code from generators the caller owns: one uint64 state per game (SplitMix64).

numba's ``np.random`` inside compiled code is one generator per process and thread, so two envs stepped in
turn would share its stream, and anything else in the process that draws (or seeds it) would change their
games. Here, as pgx passes a key, every caller keeps its own states (a uint64 array, one per game, seeded
from its own numpy Generator by :func:`draw_states`) and passes them in; a draw for game ``i`` reads and
advances ``states[i]`` alone. SplitMix64 (Steele, Lea and Flood 2014, the seeder of xoshiro) is a counter
(a Weyl sequence) through a 64-bit mix: one addition and three multiply-xorshifts a draw, period 2^64,
and it passes BigCrush. Any uint64 is a valid state, a seed included.
"""

from __future__ import annotations

import numpy as np

from kdenv.batched.jit import jit

GAMMA = np.uint64(0x9E3779B97F4A7C15)  # the Weyl step: 2^64 / the golden ratio, odd
MIX_1, MIX_2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
LOW_32 = np.uint64(0xFFFFFFFF)


def draw_states(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` fresh generator states drawn from ``rng`` (a caller's own numpy Generator)."""
    return rng.integers(0, 2**64, size=count, dtype=np.uint64)


@jit(inline=True)
def bits(states, i):
    """The next 64 random bits (a uint64) of generator ``states[i]``, which advances by one step."""
    z = states[i] + GAMMA
    states[i] = z
    z = (z ^ (z >> np.uint64(30))) * MIX_1
    z = (z ^ (z >> np.uint64(27))) * MIX_2
    return z ^ (z >> np.uint64(31))


@jit(inline=True)
def below(states, i, n):
    """A uniform integer in [0, n) for 0 < n < 2^32 from ``states[i]``: Lemire's multiply-and-shift on 32
    random bits, redrawn in the rare case that would favour some values, so no value is favoured."""
    bound = np.uint64(n)
    favoured = (np.uint64(1 << 32) - bound) % bound  # 2^32 mod n: products whose low half is below it are redrawn
    while True:
        product = (bits(states, i) >> np.uint64(32)) * bound
        if (product & LOW_32) >= favoured:
            return np.int64(product >> np.uint64(32))


@jit(inline=True)
def between(states, i, low, high):
    """A uniform integer in [low, high) from ``states[i]`` (as ``np.random.randint(low, high)``)."""
    return low + below(states, i, high - low)


@jit(inline=True)
def uniform(states, i):
    """A uniform float in [0, 1) from ``states[i]``: the top 53 random bits, as numpy's own doubles."""
    return np.float64(bits(states, i) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
