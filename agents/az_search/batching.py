"""How searches hand their leaves to the network: a search yields a :class:`Batch` and is sent its :data:`Reply`;
:func:`drive` runs several side by side, their leaves evaluated together in one call per round."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, NamedTuple, Protocol, TypeVar

import numpy as np

T = TypeVar("T")
Reply = tuple[np.ndarray, np.ndarray]  # (logits (L, A), values (L, P)) of a batch's L leaves


class Batch(NamedTuple):
    """Leaves waiting for the network: ``views`` observation rows each (the mover's first), and their movers."""

    board: np.ndarray  # (rows, C, F, F)
    features: np.ndarray  # (rows, V)
    mask: np.ndarray  # (rows, A)
    movers: np.ndarray  # (leaves,)


Steps = Generator[Batch, Reply, T]  # a search, or a part of one: yields batches, is sent replies, returns a T


class Evaluate(Protocol):
    """What evaluates leaves: an :class:`agents.evaluator.Evaluator`, or anything with its call and ``views``."""

    views: int  # observation rows per leaf

    def __call__(self, board: np.ndarray, features: np.ndarray, mask: np.ndarray, movers: np.ndarray) -> Reply:
        """(logits (L, A), values (L, P)) of L leaves: see :class:`agents.evaluator.Evaluator`."""


def drive(searches: list[Steps[Any]], evaluate: Callable[..., Reply]) -> list:
    """Run searches (:meth:`~agents.az_search.search.Search.steps`) side by side, their leaves evaluated together in
    one call per round (``evaluate``: an :class:`Evaluate`'s call, its views are not read here); their results, in
    order."""
    results: list = [None] * len(searches)
    batches = {k: next(search) for k, search in enumerate(searches)}
    while batches:
        keys = list(batches)
        parts = [batches[k] for k in keys]
        logits, values = evaluate(*(np.concatenate([getattr(b, f) for b in parts]) for f in Batch._fields))
        start = 0
        for k, part in zip(keys, parts, strict=True):
            leaves = part.movers.shape[0]
            reply = logits[start : start + leaves], values[start : start + leaves]
            start += leaves
            try:
                batches[k] = searches[k].send(reply)
            except StopIteration as stop:
                results[k] = stop.value
                del batches[k]
    return results
