"""What a file read back holds, checked before use by pydantic, the system that checks configs and spec options: a
reader declares a model (:data:`READ_BACK`: no NaN or infinity, no string or bool where a number goes, no float where an
int goes, every key it reads there) and :func:`checked` says the first complaint in one line naming the file (and
line) and the field."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from agents.options import dotted, shown
from kdenv.errors import KingdominoError

READ_BACK = ConfigDict(strict=True, allow_inf_nan=False, frozen=True)  # keys it does not read are let be
M = TypeVar("M", bound=BaseModel)


class ContentError(KingdominoError):
    """A file read back that does not hold what its reader takes: names the file (and line) and the field."""


def checked(model: type[M], value: Any, where: str) -> M:
    """``value`` (read from ``where``: a file, or ``file:line``) as a ``model``, else a one-line ContentError."""
    try:
        return model.model_validate(value)
    except ValidationError as err:
        first = err.errors()[0]
        field = f"{dotted(tuple(first['loc']))!r} " if first["loc"] else ""
        said = first["msg"][:1].lower() + first["msg"][1:]
        got = "" if first["type"] == "missing" else f", got {shown(first['input'])}"
        raise ContentError(f"{where}: {field}{said}{got}") from None
