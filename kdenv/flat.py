"""The flat observation (table keyword ``observation="flat"``): the board and the features as one float32 vector,
the one ``Box`` that PettingZoo's classic games give and that outside code built on them expects (the SB3 recipes'
MLP policies, Tianshou's PettingZoo tutorials).

It holds the same numbers as the ``"dict"`` observation, in this order: the board's C x F x F values in C order
(plane, row, column), then the V features. So ``flat[(c * F + r) * F + col] == board[c, r, col]`` and
``flat[C * F * F + i] == features[i]``; :mod:`kdenv.encoding` documents what each plane and feature means.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

import numpy as np
from gymnasium import spaces

Observation = Literal["dict", "flat"]
"""The observation formats of every env: ``{"board", "features"}`` (default) or one flat vector."""
OBSERVATIONS: tuple[Observation, ...] = get_args(Observation)


def flat_space(space: spaces.Dict) -> spaces.Box:
    """The flat Box of a ``{"board", "features"}`` observation space, its bounds those of the parts in order."""
    board, features = space["board"], space["features"]
    assert isinstance(board, spaces.Box) and isinstance(features, spaces.Box)
    low = np.concatenate([board.low.ravel(), features.low.ravel()])
    high = np.concatenate([board.high.ravel(), features.high.ravel()])
    return spaces.Box(low, high, dtype=np.float32)


def flatten(observation: Mapping[str, np.ndarray]) -> np.ndarray:
    """``{"board", "features"}`` as one float32 vector (see the module docstring for the order); a batch of them
    (leading dimensions on both) as one vector per row."""
    board, features = observation["board"], observation["features"]
    lead = features.shape[:-1]
    return np.concatenate([board.reshape(*lead, -1), features], axis=-1, dtype=np.float32)
