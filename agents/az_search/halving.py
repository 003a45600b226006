"""Gumbel sequential halving at the root (Danihelka et al. 2022, mctx's ``seq_halving``): the top actions by
(Gumbel noise +) logits share the simulations in phases, the better half by their Gumbel score kept after each."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from agents.az_search.batching import Steps
from agents.az_search.clock import Clock
from agents.az_search.qtransforms import completed_q, sigma
from agents.az_search.tree import Node
from agents.search_settings import Settings

Spend = Callable[[int, Callable[[], bool] | None, Callable[[], int | None], int], Steps[int]]
"""Runs simulations from the root (the search's): (count, until, the root action of each, least) -> the number run;
with a clock ``until``, batches until it is spent and at least ``least`` are done."""


class Halved(NamedTuple):
    """What sequential halving did: the simulations run, and the root action chosen (its best survivor)."""

    simulations: int
    chosen: int  # index into root.actions


def sequential_halving(root: Node, simulations: int, until: Callable[[], bool] | None, settings: Settings,
                       rng: np.random.Generator, spend: Spend) -> Steps[Halved]:  # fmt: skip
    """Sequential halving over the root's top actions by (Gumbel noise +) logits, ``simulations`` of them or, with
    ``until``, until it is spent."""
    size = root.actions.size
    gumbel = rng.gumbel(size=size) if settings.sample else np.zeros(size)
    m = min(settings.considered, size, simulations) if until is None else min(settings.considered, size)
    alive = list(np.argsort(-(gumbel + root.logits), kind="stable")[: max(m, 1)])
    phases = max(1, math.ceil(math.log2(len(alive))))
    done = 0
    if until is None:  # mctx's schedule: each phase gives every action alive an equal share, at least one
        while done < simulations:
            each = max(1, simulations // (phases * len(alive)))
            order = (alive * each)[: simulations - done]
            done += yield from spend(len(order), None, iter(order).__next__, 0)
            if done < simulations:
                alive = _best(alive, _score(root, gumbel, settings), keep=max(min(2, len(alive)), len(alive) // 2))
    else:  # the phases share the clock equally
        for phase in range(phases):
            cycle = _cycle(alive)
            done += yield from spend(0, _phase_clock(until, phases, phase), cycle.__next__, len(alive))
            keep = max(1, len(alive) // 2) if phase < phases - 1 else len(alive)
            alive = _best(alive, _score(root, gumbel, settings), keep)
    score = _score(root, gumbel, settings)
    return Halved(done, int(max(alive, key=lambda a: score[a])))


def _score(root: Node, gumbel: np.ndarray, settings: Settings) -> np.ndarray:
    """The Gumbel score of the root's actions: noise + logits + sigma(completed Q)."""
    return gumbel + root.logits + sigma(root, completed_q(root), settings)


def _best(alive: list, score: np.ndarray, keep: int) -> list:
    """The ``keep`` best of the root actions ``alive`` by ``score``, best first."""
    return sorted(alive, key=lambda a: -score[a])[:keep]


def _phase_clock(until: Callable[[], bool], phases: int, phase: int) -> Callable[[], bool]:
    """The clock of one phase of sequential halving: the phases share a :class:`Clock` equally."""
    return until.share((phase + 1) / phases) if isinstance(until, Clock) else until


def _cycle(items: list) -> Iterator:
    """An endless round-robin over ``items``."""
    while True:
        yield from items
