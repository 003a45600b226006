"""Rule options (the official variants and one house rule) and the set-up they imply."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from kdenv.checks import flag, is_int
from kdenv.errors import KingdominoError
from kdenv.frame import frame

MIDDLE_KINGDOM_BONUS = 10
HARMONY_BONUS = 5


@dataclass(frozen=True)
class Rules:
    """Combinable rule flags; ``kingdom_size=7`` is Mighty Duel (2 players, all 48 dominoes)."""

    kingdom_size: int = 5
    middle_kingdom: bool = False  # +10 if every square is within S//2 of the castle
    harmony: bool = False  # +5 for a complete kingdom with no discard
    voluntary_discard: bool = False  # house rule: a placeable domino may be discarded anyway

    def __post_init__(self) -> None:
        """Each field checked and kept as a plain int or bool (numpy's pass): ``harmony="no"`` would be Harmony on,
        and a record of it one that no reader takes."""
        size = self.kingdom_size
        if not is_int(size) or size not in (5, 7):
            raise KingdominoError(f"kingdom_size must be 5 or 7 (Mighty Duel), not {size!r}")
        object.__setattr__(self, "kingdom_size", int(size))  # frozen: set once, here
        for name in ("middle_kingdom", "harmony", "voluntary_discard"):
            object.__setattr__(self, name, flag(name, getattr(self, name)))

    @property
    def mighty_duel(self) -> bool:
        return self.kingdom_size == 7

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Rules:
        """Rules from a record's ``rules`` object; an unknown key or a value of the wrong type (a flag that is not
        true or false) is an error naming the rule."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise KingdominoError(f"unknown rule {unknown[0]!r}; known rules: {', '.join(sorted(known))}")
        for field in fields(cls):
            value = data.get(field.name, field.default)
            if type(value) is not type(field.default):  # "yes" is no flag, and true no kingdom size
                wanted = "true or false" if isinstance(field.default, bool) else "an integer"
                raise KingdominoError(f"rule {field.name!r} must be {wanted}, not {value!r}")
        return cls(**data)

    @classmethod
    def from_names(cls, names: str | list[str] | None) -> Rules:
        """Rules from names such as ``"middle_kingdom,harmony"`` or ``"mighty_duel"`` (CLI use)."""
        if isinstance(names, str):
            names = [n for n in names.replace(" ", "").split(",") if n]
        flags: dict = {}
        valid = ("middle_kingdom", "harmony", "voluntary_discard", "mighty_duel")
        for name in names or []:
            if name == "mighty_duel":
                flags["kingdom_size"] = 7
            elif name in valid:
                flags[name] = True
            else:
                raise KingdominoError(f"unknown rule {name!r}; choose from {', '.join(valid)}")
        return cls(**flags)

    def bonuses(self, occupied: int, discards: int) -> tuple[int, int]:
        """(Middle Kingdom, Harmony) bonus of a kingdom whose squares (castle included) are the frame
        bitboard ``occupied``, after ``discards`` discarded dominoes; 0 for a variant that is off."""
        centred = not occupied & ~frame(self.kingdom_size).middle
        return self.middle_bonus(centred), self.harmony_bonus(occupied.bit_count(), discards)

    def middle_bonus(self, centred: bool) -> int:
        """The Middle Kingdom bonus of a kingdom that is (or is not) ``centred`` on its castle."""
        return MIDDLE_KINGDOM_BONUS if self.middle_kingdom and centred else 0

    def harmony_bonus(self, squares: int, discards: int) -> int:
        """The Harmony bonus of a kingdom of ``squares`` squares (castle included) after ``discards`` discards."""
        return HARMONY_BONUS if self.harmony and not discards and squares == self.kingdom_size**2 else 0

    def setup(self, num_players: int) -> tuple[int, int]:
        """(kings per player, dominoes in play) for ``num_players``; raises for impossible tables."""
        num_players = player_count(num_players)
        if num_players not in (2, 3, 4):
            raise KingdominoError(f"Kingdomino is for 2, 3 or 4 players, not {num_players}")
        if self.mighty_duel and num_players != 2:
            raise KingdominoError("Mighty Duel (kingdom_size=7) is for 2 players only")
        if num_players == 2:
            return 2, 48 if self.mighty_duel else 24
        return 1, 12 * num_players


def player_count(num_players: object) -> int:
    """``num_players`` as an int, or a KingdominoError for anything but an integer (``"4"``, ``4.0``, True),
    which would otherwise fail later in Python's or Gymnasium's words."""
    if not is_int(num_players):
        raise KingdominoError(f"num_players must be an integer 2, 3 or 4, not {num_players!r}")
    return int(num_players)


STUDY_RULES = Rules(middle_kingdom=True, harmony=True)
"""The rules of the reference study (Gedda et al. 2018): 4 players, Middle Kingdom and Harmony."""
