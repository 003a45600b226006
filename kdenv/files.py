"""Files that a kill cannot leave half-written, for every layer: game records, tournaments, training runs.

:func:`write_atomically` writes next to the file and moves the copy into place (:func:`write_jsonl` does so
for JSON Lines); :func:`append_jsonl` appends one JSON value as a line and flushes it to disk;
:func:`read_jsonl` reads the values back, one per line, and can drop a last line that a kill cut short;
:func:`read_json` and :func:`stream_jsonl` read files that a hand may have made, within limits: a file or a line
past its limit is refused having read only that much. An unreadable file or bad JSON is a one-line
:class:`JsonFileError` that names the file and the line.
:class:`FolderLock` lets one process at a time write a folder (a run directory, a tournament).

No write follows a symbolic link at the end of its path (``O_NOFOLLOW``; temporary files ``O_EXCL`` too): a link
planted in a folder (``DIR/.lock`` -> a file elsewhere) is a one-line :class:`FolderError`, and the file it points
to is left alone. A write that fails (a full disk) removes its temporary file and raises an ``OSError`` naming the
file it was writing.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from kdenv.errors import KingdominoError


class JsonFileError(KingdominoError):
    """A file that cannot be read as JSON (or JSON Lines); ``where`` is the file, or ``file:line``."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}{reason}")
        self.where = where


class FolderLockedError(KingdominoError):
    """A folder that another process (``holder``, its PID as the lock file says) holds a :class:`FolderLock` on."""

    def __init__(self, message: str, holder: str) -> None:
        super().__init__(message)
        self.holder = holder


class FolderError(KingdominoError):
    """A folder that cannot be written as asked: it is a file, or a file in it is a symbolic link."""


def make_folder(path: str | os.PathLike, what: str = "--out") -> Path:
    """``path`` as a folder, made with its parents where missing; a one-line :class:`FolderError` where it is a
    file or cannot be made (``what`` names it: the option that gave it)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise FolderError(f"{what} {path} is a file, not a folder; give a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise FolderError(f"{what} {path} cannot be made a folder ({err.strerror}); give a writable folder") from None
    return path


def open_unlinked(path: str | os.PathLike, flags: int) -> int:
    """A descriptor of ``path`` opened with ``flags`` (and ``0o666`` less the umask where it is created), never
    through a symbolic link: a link there is a one-line :class:`FolderError` naming it."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    except OSError as err:
        if err.errno != errno.ELOOP:
            raise
        raise FolderError(
            f"{path} is a symbolic link; kdenv writes no file through a link (it could overwrite a file elsewhere): "
            "remove the link, or use another folder"
        ) from None


LOCK_FILE = ".lock"  # in a locked folder: the lock, and the PID of the process that holds it


class FolderLock:
    """An OS file lock on a folder (``flock`` on ``DIR/.lock``, which holds the holder's PID): one process at a
    time writes a run directory or a tournament. The OS frees it when that process ends, even by ``kill -9``;
    :meth:`release` (or the end of a ``with`` block) frees it sooner. Another process gets a one-line
    :class:`FolderLockedError` naming the PID that holds it."""

    def __init__(self, folder: str | os.PathLike, what: str = "folder") -> None:
        self.path = Path(folder) / LOCK_FILE
        # held open as the lock (closed by release, or by the garbage collector); not truncated: the holder's
        # PID stays readable until the lock is taken
        handle = os.fdopen(open_unlinked(self.path, os.O_RDWR | os.O_CREAT), "r+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip()
            handle.close()
            holder = holder or "(starting)"
            raise FolderLockedError(
                f"{what} {str(folder)!r} is in use by process {holder}; wait for it to end or stop it, or use "
                "another folder",
                holder,
            ) from None
        self._handle: Any = handle
        self.name_holder(os.getpid())

    def fileno(self) -> int:
        """The lock's descriptor: a child process given it (``subprocess.Popen(pass_fds=...)``) holds the lock
        too, until the last process holding it ends."""
        return int(self._handle.fileno())

    def name_holder(self, pid: int) -> None:
        """Write ``pid`` as the process that holds the lock (one that another process is refused with)."""
        self._handle.seek(0)
        self._handle.truncate()
        self._handle.write(f"{pid}\n")
        self._handle.flush()

    def release(self) -> None:
        """Free the lock (the lock file stays, for the next holder)."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def write_atomically(path: str | os.PathLike, data: bytes | str) -> None:
    """Write ``data`` to a temporary file next to ``path``, flush it to disk, then move it into place (a link at
    ``path`` is replaced, not followed). A stale temporary file (a kill's) is removed first; a failed write removes
    its own and raises the ``OSError`` naming ``path``."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    with _naming(path):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # the link itself, where it is one
        fd = open_unlinked(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            try:
                view = memoryview(data.encode() if isinstance(data, str) else data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


@contextlib.contextmanager
def _naming(path: Path | str | os.PathLike) -> Iterator[None]:
    """An ``OSError`` of the block raised again naming ``path`` (a failed ``write`` names no file)."""
    try:
        yield
    except OSError as err:
        raise OSError(err.errno, err.strerror, str(path)) from None


def _line(value: Any) -> str:
    return json.dumps(value, separators=(",", ":")) + "\n"


def append_jsonl(path: str | os.PathLike, value: Any) -> None:
    """Append ``value`` as one compact line of JSON and flush it to disk (never through a symbolic link)."""
    with _naming(path), os.fdopen(open_unlinked(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "a") as stream:
        stream.write(_line(value))
        stream.flush()
        os.fsync(stream.fileno())


def write_jsonl(path: str | os.PathLike, values: Iterable[Any]) -> None:
    """Replace a JSON Lines file by ``values``, one line each, atomically."""
    write_atomically(path, "".join(_line(value) for value in values))


FILE_LIMIT = 10**6  # characters of a settings or figures file read whole (kdenv writes about a thousand)
LINE_LIMIT = 10**7  # characters of a line of JSON Lines (a game record with what its players thought: about 10^5)


def read_text(path: str | os.PathLike, limit: int | None = None) -> str:
    """The UTF-8 text of a file; a one-line JsonFileError if it cannot be read, is not text or (with ``limit``)
    holds more than ``limit`` characters, refused having read only those."""
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read(-1 if limit is None else limit + 1)
    except OSError as err:
        raise JsonFileError(f"{path}", f": cannot be read ({err.strerror})") from None
    except UnicodeDecodeError:
        raise JsonFileError(f"{path}", " is not a UTF-8 text file") from None
    if limit is not None and len(text) > limit:
        raise JsonFileError(f"{path}", f" holds more than {limit:,} characters: not a file kdenv wrote")
    return text


def parse_json(text: str, where: str) -> Any:
    """One JSON value; a one-line JsonFileError for bad JSON, JSON nested too deeply to read or a number too long
    to read."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise JsonFileError(where, f": not valid JSON ({err.msg} at line {err.lineno})") from None
    except RecursionError:
        raise JsonFileError(where, ": JSON nested too deeply to read") from None
    except ValueError as err:  # an integer of more digits than Python reads (sys.get_int_max_str_digits)
        raise JsonFileError(where, f": not valid JSON ({str(err).partition(':')[0]})") from None


def read_json(path: str | os.PathLike, limit: int = FILE_LIMIT) -> Any:
    """The JSON value of a file of at most ``limit`` characters; a one-line JsonFileError otherwise."""
    return parse_json(read_text(path, limit), f"{path}")


def parse_jsonl(text: str, where: str) -> Iterator[Any]:
    """The values of the lines of ``text`` that are not blank (errors name ``where:line``)."""
    for _, value in _parse_lines(text.split("\n"), where):
        yield value


def _parse_lines(lines: Iterable[str], where: str) -> Iterator[tuple[str, Any]]:
    """(``where:line``, value) of each of ``lines`` that is not blank."""
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield f"{where}:{number}", parse_json(line, f"{where}:{number}")


def stream_jsonl(path: str | os.PathLike, limit: int = LINE_LIMIT) -> Iterator[tuple[str, Any]]:
    """(``file:line``, value) of each line of a JSON Lines file that is not blank, read a line at a time (a file
    of any length in little memory); a one-line JsonFileError for a line of more than ``limit`` characters,
    refused having read only those, and for a file that cannot be read."""
    try:
        with open(path, encoding="utf-8") as stream:
            yield from _parse_lines(_bounded_lines(stream, limit, f"{path}"), f"{path}")
    except OSError as err:
        raise JsonFileError(f"{path}", f": cannot be read ({err.strerror})") from None
    except UnicodeDecodeError:
        raise JsonFileError(f"{path}", " is not a UTF-8 text file") from None


def _bounded_lines(stream: TextIO, limit: int, where: str) -> Iterator[str]:
    """The lines of ``stream``; a JsonFileError for one longer than ``limit`` characters."""
    for number, line in enumerate(iter(functools.partial(stream.readline, limit + 1), ""), start=1):
        if len(line.rstrip("\n")) > limit:
            raise JsonFileError(f"{where}:{number}", f": a line of more than {limit:,} characters: not kdenv's")
        yield line


def read_jsonl(path: str | os.PathLike, on_cut_tail: Callable[[Path], None] | None = None) -> Iterator[Any]:
    """The values of a JSON Lines file, one per line that is not blank (none if the file does not exist).

    With ``on_cut_tail``, a last line that does not end with a newline (a write cut short by a kill) is cut from
    the file, and ``on_cut_tail(path)`` told, instead of being read.
    """
    path = Path(path)
    if not path.exists():
        return
    text = read_text(path)
    head, newline, tail = text.rpartition("\n")
    if on_cut_tail is not None and tail.strip():
        fd = open_unlinked(path, os.O_WRONLY)
        try:
            os.ftruncate(fd, len((head + newline).encode()))
        finally:
            os.close(fd)
        on_cut_tail(path)
        text = head + newline
    yield from parse_jsonl(text, str(path))
