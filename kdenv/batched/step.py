"""The typed values a batch's kernels pass around: a step's accounting (:class:`Step`) and the buffers games are
observed into (:class:`Buffers`). NamedTuples of arrays, which numba passes into compiled code as one argument
each, where the kernels once took their arrays one by one."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Step(NamedTuple):
    """The games a step plays and how it pays them: ``rows`` (k,) the games stepped, ``reward`` the reward kind
    (:mod:`kdenv.batched.machine`'s RANK, MARGIN, SCORE, or SHARE for a search's values), ``paid`` (n, P) each
    player's score already paid by SCORE, ``rewards`` (n, P) the step's rewards summed over its moves, ``ended``
    (n,) whether each game ended in it."""

    rows: np.ndarray
    reward: int
    paid: np.ndarray
    rewards: np.ndarray
    ended: np.ndarray


class Buffers(NamedTuple):
    """Where games are observed, row i for game i: ``board`` (n, C, cells) (shape (n, 0, 0): the masks alone),
    ``features`` (n, V), ``mask`` (n, A) the legal actions, and ``work``, the observer's scratch."""

    board: np.ndarray
    features: np.ndarray
    mask: np.ndarray
    work: np.ndarray
