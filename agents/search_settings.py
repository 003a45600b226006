"""The settings of the ``az`` search, declared once: their names, types, ranges and defaults.

The ``az:`` spec's options (:class:`agents.az.AZOptions`) are these fields (two under the spec's shorter names, by
:class:`~agents.options.Key`) and the player's own; expert iteration's ``selfplay`` keys
(``training.az.config.SelfPlayConfig``) take the same names, in the same ranges, defaulting to :data:`SELFPLAY`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Annotated, Literal

from agents.options import CONSTANT, COUNT, Bound, Key

Rollout = Literal["none", "random", "gprd", "fg", "fgt", "network"]  # none, a compiled rollout policy (fgt: the
# searcher's seat, Full Greedy the others), or the network for the searcher's seat with Full Greedy for the others
Evaluation = Literal["rank", "r"]  # a finished game's value: the rank reward, or the score's share (the study's R)
Root = Literal["gumbel", "puct"]
Others = Literal["search", "random", "gprd", "fg", "fgt"]  # the other seats' moves in the tree: max^n, or a policy's


@dataclass(frozen=True)
class Settings:
    """The search's constants; their defaults are the ``az`` player's."""

    root: Root = "gumbel"
    c_puct: Annotated[float, CONSTANT, Key("c")] = 1.25  # PUCT's exploration constant
    considered: Annotated[int, Bound(1, least=True, high=1024)] = 16  # Gumbel: root actions sampled without
    # replacement
    c_visit: Annotated[float, CONSTANT] = 50.0  # sigma(q) = (c_visit + max visits) * c_scale * q: mctx's
    c_scale: Annotated[float, CONSTANT] = 1.0  # maxvisit_init and value_scale
    batch: Annotated[int, Bound(1, least=True, high=4096)] = 16  # leaves evaluated together
    sample: bool = False  # Gumbel noise at the root (else its top actions by prior); puct: play by visits
    rollout: Rollout = "fg"  # also play each leaf out with that policy (compiled)
    mix: Annotated[float, Bound(least=True, high=1)] = 1.0  # a leaf's value: (1 - mix) * the network's + mix * the
    # rollout's (AlphaGo's lambda)
    lines: Annotated[int, Bound(least=True, high=COUNT.high)] = 0  # the lines drawn a chance node keeps (0: every
    # line drawn its own child)
    others: Others = "search"  # the other seats in the tree: searched (max^n), or moved by that compiled policy
    evaluation: Annotated[Evaluation | None, Key("eval")] = None  # how a finished game (in the tree or a rollout's
    # end) values each seat; None: see outcome

    @property
    def rolled_only(self) -> bool:
        """The rollouts alone value a leaf: the network's values go unused, and its prior alone is read."""
        return self.rollout != "none" and self.mix == 1

    @property
    def outcome(self) -> Evaluation:
        """``evaluation``, else r where the rollouts alone value a leaf (as many wins against three fg as rank, a
        wider margin; measured: benchmarks/RESULTS.md, section "A finished game's worth as the study's R"), else
        rank, the scale the network's values were trained on."""
        return self.evaluation or ("r" if self.rolled_only else "rank")


SELFPLAY = Settings(
    root="gumbel",  # sequential halving's improved policy: the target the network learns
    sample=True,  # Gumbel noise at the root: self-play explores
    c_scale=0.1,  # mctx's value_scale: sigma trusts the prior more
    rollout="none",  # the network's values value the leaves: the value head self-play trains is used (az_4p.yaml
    # turns fg rollouts on)
    evaluation="rank",  # the rank reward: the scale of the values learned and of selfplay.target_temperature
)
"""Expert iteration's self-play search: the defaults of the ``selfplay`` keys."""


def settings_of(source: object) -> Settings:
    """The search settings that ``source`` (the ``az`` options, a ``selfplay`` config) holds under their names."""
    return Settings(**{f.name: getattr(source, f.name) for f in fields(Settings)})
