"""A trainer's run directory and what it holds: ``runs/<name>-<time>/`` with its config, checkpoints and logs.

``config.yaml`` (the config used), ``tb/`` (TensorBoard), ``last.zip`` (written every ``checkpoint_every``
steps, with the league and counters inside, so that ``--resume`` continues where it stopped), ``best.zip``
(best mean margin against the first evaluation opponent), ``bc.zip`` (after the warm start),
``snapshots/`` (the league's pool) and ``eval.jsonl`` (one line per evaluation). Every file is written
to a temporary file and moved into place (:mod:`kdenv.files`). While a run trains, its directory is locked
(``.lock``, :class:`kdenv.files.FolderLock`): a second ``kdenv train --resume`` of it is a one-line error.
"""

from __future__ import annotations

import dataclasses
import shutil
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

import yaml

from agents.checkpoint import CheckpointSettings, NetworkSettings
from kdenv.files import LOCK_FILE, FolderLock, append_jsonl, read_jsonl, write_atomically, write_jsonl
from kdenv.rules import Rules
from training.runs.config import ConfigError, EnvConfig, NetworkConfig

CONFIG_FILE = "config.yaml"
LAST, BEST, BC = "last.zip", "best.zip", "bc.zip"


class RunConfig(Protocol):
    """What a run directory and its checkpoints' settings read of a run's config, of any backend (sb3, rllib, az)."""

    name: str
    runs_dir: str
    env: EnvConfig
    network: NetworkConfig

    def rules(self) -> Rules: ...

    def to_dict(self) -> dict[str, Any]: ...


def checkpoint_settings(config: RunConfig) -> CheckpointSettings:
    """What a player needs to rebuild the network and its observations (``kdenv.json`` in the zip)."""
    return table_settings(config, config.env.reward, NetworkSettings(**dataclasses.asdict(config.network)))


def table_settings(config: RunConfig, reward: str, network: NetworkSettings) -> CheckpointSettings:
    """A checkpoint's settings for a run ``config`` of any backend (its ``env`` and ``rules()``): the table,
    the observations, the ``reward`` trained on and the ``network``."""
    rules = config.rules()
    return CheckpointSettings(config.env.num_players, rules.kingdom_size, rules, reward, network, config.env.gains)


class RunDirectory:
    """Paths of one run. ``create`` makes a fresh one and :meth:`lock` holds one for this process (one process
    writes a run at a time), until the end of a ``with`` block; ``open`` checks an existing one (to resume)."""

    def __init__(self, path: Path, fresh: bool = False) -> None:
        self.path = path
        self.tensorboard = path / "tb"
        self.snapshots = path / "snapshots"
        self.eval_log = path / "eval.jsonl"
        self._lock: FolderLock | None = None
        self._fresh = fresh  # made by create: removed if the run fails before writing more than its config

    @classmethod
    def create(cls, config: RunConfig) -> RunDirectory:
        """A new run directory ``runs_dir/<name>-<time>``, locked, with its config.yaml."""
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        path, suffix = Path(config.runs_dir) / f"{config.name}-{stamp}", 1
        while True:
            try:
                path.mkdir(parents=True)
                break
            except FileExistsError:  # another run of this name in the same second
                suffix += 1
                path = Path(config.runs_dir) / f"{config.name}-{stamp}-{suffix}"
        run = cls(path, fresh=True).lock()
        run.snapshots.mkdir()
        write_atomically(path / CONFIG_FILE, yaml.safe_dump(config.to_dict(), sort_keys=False))
        return run

    @classmethod
    def open(cls, path: str | Path) -> RunDirectory:
        path = Path(path)
        if not (path / LAST).is_file() or not (path / CONFIG_FILE).is_file():
            raise ConfigError(f"cannot resume {str(path)!r}: it holds no {CONFIG_FILE} and {LAST} of a run")
        return cls(path)

    def lock(self) -> RunDirectory:
        """Hold the directory for this process; a run that another process holds is a one-line error."""
        self._lock = FolderLock(self.path, "run directory")
        return self

    def __enter__(self) -> RunDirectory:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        """Free the lock; a fresh run that failed before writing anything but its config is removed."""
        if kind is not None and self._fresh and self._untouched():
            shutil.rmtree(self.path, ignore_errors=True)
        if self._lock is not None:
            self._lock.release()

    def _untouched(self) -> bool:
        return all(p.name in (CONFIG_FILE, LOCK_FILE) for p in self.path.rglob("*") if not p.is_dir())

    def forget_evaluations_after(self, step: int) -> None:
        """Drop the eval.jsonl lines past ``step`` (written after the checkpoint a resumed run starts from)."""
        records = list(read_jsonl(self.eval_log))
        kept = [record for record in records if record["step"] <= step]
        if len(kept) != len(records):
            write_jsonl(self.eval_log, kept)

    def log_eval(self, record: dict) -> None:
        append_jsonl(self.eval_log, record)
