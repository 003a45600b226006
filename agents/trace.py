"""What a player thought at its last decision, as the optional ``trace`` of a record's move (``--trace``).

A trace is a small JSON object: ``{"kind": "search", "candidates": [...]}`` for ``mce`` and ``uct`` (each
candidate with its ``action``, a readable ``move``, its mean playout ``value`` and ``visits``) or
``{"kind": "policy", "value": v, "candidates": [...]}`` for ``ppo:`` and ``rllib:`` (each with its
``probability``). Only the best ``TOP`` candidates are kept (search: by playouts, then value; policy: by
probability), so records stay small; the one played is marked ``"chosen": true``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from kdenv.actions import decode
from kdenv.view import PublicView

TOP = 5  # candidates kept per decision
DIGITS = 4  # decimals kept of values and probabilities


def move_text(view: PublicView, action: int, slot: int = -1) -> str:
    """A move as a person reads it: ``place #23 at (0,1)+(0,2)``, ``discard #23``, ``pick #41``; with a ``slot``
    (a search's whole turn) the pick that follows the placement too."""
    move = decode(action, view.rules.kingdom_size)
    if move.kind == "pick":
        text = f"pick #{view.line[move.slot]}"
    elif move.kind == "discard":
        text = f"discard #{view.held_domino}"
    else:
        assert move.cells is not None  # a placement has its cells
        (ra, ca), (rb, cb) = move.cells
        text = f"place #{view.held_domino} at ({ra},{ca})+({rb},{cb})"
    return text + (f", pick #{view.line[slot]}" if slot >= 0 else "")


def top(candidates: Iterable[dict], *keys: str) -> list[dict]:
    """The ``TOP`` candidates highest by ``keys`` (the one marked ``chosen`` always kept), values rounded."""
    ranked = sorted(candidates, key=lambda c: tuple(-(c[key] or 0.0) for key in keys))
    kept = ranked[:TOP]
    played = next((c for c in ranked if c.get("chosen")), None)
    if played is not None and played not in kept:
        kept[-1] = played
    return [{k: round(v, DIGITS) if isinstance(v, float) else v for k, v in c.items()} for c in kept]


def policy_trace(view: PublicView, logits: np.ndarray, chosen: int, value: float) -> dict:
    """A policy's trace from its masked ``logits`` (illegal actions at -inf or the lowest float): its top action
    probabilities, the one ``chosen`` marked, and its value estimate."""
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    candidates = [
        {"action": int(a), "move": move_text(view, int(a)), "probability": float(probs[a])}
        | ({"chosen": True} if a == chosen else {})
        for a in np.flatnonzero(probs > 0)
    ]
    return {"kind": "policy", "value": round(value, DIGITS), "candidates": top(candidates, "probability")}
