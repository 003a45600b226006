"""Players for the tournament tests: a clearly stronger one and one that crashes."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

from agents.base import Player
from agents.game_loop import SEAT_STRIDE
from kdenv.view import PublicView


class OnePlyGreedy(Player):
    """Picks the highest-numbered free domino (more crowns), places it where its score gains most: far above random."""

    def act(self, view: PublicView) -> int:
        actions = view.legal_actions()
        if view.phase == "pick":
            return actions[-1]
        game = view.determinize(self.rng)
        gains = []
        for action in actions:
            after = game.clone()
            after.step(action)
            gains.append(after.score(self.seat))
        best = max(gains)
        return self.rng.choice([a for a, gain in zip(actions, gains, strict=True) if gain == best])


class CrashPlayer(Player):
    """Raises on its move in games whose seed is even (``reset`` gets the seat's seed, agents.game_loop.seat_seed),
    plays randomly otherwise."""

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.crash = seed is not None and (seed // SEAT_STRIDE) % 2 == 0

    def act(self, view: PublicView) -> int:
        if self.crash and view.round > 2:
            raise RuntimeError("boom")
        actions = view.legal_actions()
        return actions[self.rng.randrange(len(actions))]


@dataclass(frozen=True)
class DiesOptions:
    """``dies:PATH``: the file whose absence makes it die once."""

    path: str | None = None


class DiesOnce(Player):
    """Kills its own process (SIGKILL) at its first move: with ``path``, once (while that file does not exist,
    creating it first), a worker lost once whose game must be played again; without, in every game with an even
    seed (as CrashPlayer raises), a worker lost at every try. Plays randomly otherwise."""

    Options = DiesOptions

    def __init__(self, options: DiesOptions = DiesOptions()) -> None:
        super().__init__()
        self.path = options.path

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.doomed = seed is not None and (seed // SEAT_STRIDE) % 2 == 0

    def act(self, view: PublicView) -> int:
        if self.path is not None and not os.path.exists(self.path):
            open(self.path, "w").close()
            _crash()
        if self.path is None and self.doomed:
            _crash()
        actions = view.legal_actions()
        return actions[self.rng.randrange(len(actions))]


def _crash() -> None:
    """End this process as a crash of the interpreter would (``os._exit`` in a player is its forfeit instead)."""
    os.kill(os.getpid(), signal.SIGKILL)


FAKES = {
    "greedy1": "tests.helpers.fakes:OnePlyGreedy",
    "crash": "tests.helpers.fakes:CrashPlayer",
    "dies": "tests.helpers.fakes:DiesOnce",
}
