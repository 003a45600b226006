"""The one error of tournaments, raised by their folder, their backends and the tournament itself."""

from __future__ import annotations

from kdenv.errors import KingdominoError


class TournamentError(KingdominoError):
    """A tournament that cannot start or go on: bad output directory, other settings there, a dead worker."""
