"""The package's exceptions (one type for illegal moves, one for bad game records) and its one warning."""


class KingdominoError(Exception):
    """Base class of every error this package raises on purpose."""


class IllegalMoveError(KingdominoError, ValueError):
    """An action that the rules do not allow now; the game state is left unchanged."""


class RecordError(KingdominoError, ValueError):
    """A game record that is malformed or does not re-play to what it claims."""


class IllegalMoveWarning(UserWarning):
    """An illegal move that ``env()`` took as the classic games do (the game ends, the offender loses): said once
    a move, naming the action and the seat (``warnings.simplefilter("error", IllegalMoveWarning)`` makes it raise)."""
