"""A player module of one's own, as a user writes it: the tests copy it outside the package (``mybots``) or name
it where it is (``tests.helpers.own_bots``, which Ray's workers import too)."""

from dataclasses import dataclass

from agents import Player


class Cautious(Player):
    """Plays the first legal action (the last one with last=true)."""

    @dataclass(frozen=True)
    class Options:
        last: bool = False

    def __init__(self, options=Options()):
        super().__init__()
        self.last = options.last

    def act(self, view):
        actions = view.legal_actions()
        return actions[-1] if self.last else actions[0]


def make(depth: int = 1) -> Player:
    return Cautious(Cautious.Options(last=depth > 1))


def not_a_player():
    return 42


class Plain:
    pass
