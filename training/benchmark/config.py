"""The config of ``kdenv benchmark CONFIG``: a grid of (algorithm x task x seed) at a step budget, and the entries
it names (``configs/benchmark/``). Unknown keys and bad values are one-line errors naming the dotted key.

An algorithm entry trains either with ``kdenv train`` (``config``: a training config, ``budget``: the key its step
budget goes in, ``steps_per_unit`` when that key counts iterations) or with a command of one's own (``command``,
run once per evaluation point with ``{steps}``, ``{seed}``, ``{players}``, ``{rules}`` and ``{work}``, a folder of
the run's own, filled in, the rest left to the shell (``${HOME}``); it trains up to ``{steps}`` learner steps, going
on from what it left in ``{work}``). ``player`` is the spec that plays what it trained (``{run}``: the ``kdenv
train`` run folder; ``{work}``): a command's entry gives it. Names become folders: plain file names only.
"""

from __future__ import annotations

import re
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal

from annotated_types import Len
from pydantic.dataclasses import dataclass

from agents.options import Bound
from training.arena.protocols import Protocol, get_protocol
from training.arena.schedule import GAMES, SEED
from training.runs.config import POSITIVE, SECTION, ConfigError, Count, FileName, read_yaml, validate
from training.trainers import check

TRAINING = "training"  # the grid folder's folder of the trainers' runs: no entry's name
COMMAND_FIELDS = ("steps", "seed", "players", "rules", "work")  # what a command's {name}s are filled with
PLAYER_FIELDS = {"config": ("run", "work"), "command": ("work",)}  # and a player's, by how the entry trains
PLACEHOLDER = re.compile(r"(?<!\$)\{(\w+)\}")  # {name}, not the shell's ${name}
PER_UNIT = Bound(high=10**9, says="must be a whole number from 1 to 1,000,000,000")
IMITATION = Bound(least=True, high=10**6, says="must be a whole number from 0 to 1,000,000")
STEPS = Bound(high=10**10, says="must be from 1 to 10,000,000,000")  # a run's learner steps: years of training
POINTS = Bound(high=1000, says="must be from 1 to 1,000")  # evaluations of a run
SEEDS = Len(1, 1000)  # runs of an algorithm on a task


def fill(text: str, values: dict[str, object]) -> str:
    """``text`` with each ``{name}`` of ``values`` replaced by its value; the rest (``${HOME}``, ``{}``) as it is."""
    return PLACEHOLDER.sub(lambda found: str(values.get(found[1], found[0])), text)


@dataclass(config=SECTION)
class Entry:
    name: FileName  # its row in the tables, and its folders
    what: str = ""  # one line saying what it is
    config: str | None = None  # a kdenv train config (YAML)
    set: list[str] = field(default_factory=list)  # key=value overrides of that config
    budget: str = "ppo.total_timesteps"  # the config key the step budget goes in
    steps_per_unit: Annotated[Count, PER_UNIT] = 1  # learner steps per unit of `budget` (an RLlib iteration: 4000)
    # or: a unit of `budget` is this many games, their learner steps the learner's decisions at the task's table
    # (an expert-iteration iteration plays selfplay.games games; `seats`: the learner's decisions in one seat of
    # each, or in every seat)
    games_per_unit: Annotated[Count, PER_UNIT] | None = None
    seats: Literal["one", "all"] = "one"
    opponents: str | None = None  # the config key that takes the task's opponents, one a seat (rllib.opponents)
    # imitation of fg before the budget's training (bc-ppo, exit from scratch): games, set in `imitation_key`; each
    # counts the decisions it imitates (every seat's) as learner steps, taken from the budget before the rest
    imitation_games: Annotated[Count, IMITATION] = 0
    imitation_key: str = "bc.games"
    command: str | None = None  # or a command of one's own (see the module docstring)
    player: str = "ppo:{run}/last.zip"  # the spec that plays the result

    def steps_per(self, players: int, in_play: int) -> int:
        """Learner steps per unit of ``budget`` at a table of ``players`` with ``in_play`` dominoes: a pick and a
        placement per domino, in one seat or in all."""
        if self.games_per_unit is None:
            return self.steps_per_unit
        return self.games_per_unit * 2 * in_play // (1 if self.seats == "all" else players)

    def imitation_steps(self, in_play: int) -> int:
        """The learner steps of its imitation at a table with ``in_play`` dominoes: every seat's decisions (a pick
        and a placement per domino) of each game imitated, once, whatever the epochs over them."""
        return self.imitation_games * 2 * in_play


@dataclass(config=SECTION)
class Grid:
    name: FileName = "benchmark"
    algorithms: list[str] = field(default_factory=list)  # entry files (configs/benchmark/*.yaml)
    tasks: list[str] = field(default_factory=lambda: ["vs-fg-2p"])  # kdenv evaluate protocols
    seeds: Annotated[list[Annotated[Count, SEED]], SEEDS] = field(default_factory=lambda: [0, 1, 2, 3, 4])
    steps: Annotated[Count, STEPS] = 200_000  # each run's learner steps
    points: Annotated[Count, POINTS] = 8  # evaluations, evenly spaced, the last at `steps`
    games: Annotated[Count, GAMES] = 200  # evaluation games a point (whole deals, the protocol's seed 0)
    workers: Annotated[Count, POSITIVE] = 2  # evaluation processes

    def at(self) -> list[int]:
        """The step counts evaluated."""
        return [round(self.steps * k / self.points) for k in range(1, self.points + 1)]


def load_grid(path: str | Path, overrides: list[str] | None = None) -> tuple[Grid, list[Entry]]:
    """The grid of ``path`` and its entries, checked: known protocols, entries that say how they train, a step
    budget that every evaluation point can split, and each entry's training config as its last point of each task
    sets it (:func:`training_overrides`), so that a bad key is told before any run."""
    grid = validate(read_yaml(path), overrides, Grid)
    protocols = [get_protocol(task) for task in grid.tasks]
    if not grid.algorithms:
        raise ConfigError(f"config key 'algorithms' of {path} is empty; list entry files (configs/benchmark/)")
    entries = [load_entry(item) for item in grid.algorithms]
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise ConfigError(f"config key 'algorithms': two entries are named alike ({', '.join(names)})")
    if TRAINING in names:
        raise ConfigError(f"config key 'algorithms': an entry is named {TRAINING!r}, the folder of the trainers' runs")
    if grid.steps < grid.points:
        raise ConfigError(f"config key 'steps': {grid.steps} steps cannot be split into {grid.points} points")
    for item, entry in zip(grid.algorithms, entries, strict=True):
        for protocol in protocols:
            imitated = entry.imitation_steps(protocol.rules.setup(protocol.players)[1])
            if imitated >= grid.at()[0]:
                raise ConfigError(
                    f"{item} on {protocol.name}: its imitation ({entry.imitation_games} games, {imitated:,} learner "
                    f"steps) takes the first point's budget ({grid.at()[0]:,} steps); imitate fewer games or raise "
                    "steps"
                )
            if entry.config is not None:
                try:
                    check(read_yaml(entry.config), training_overrides(entry, protocol, grid.steps))
                except ConfigError as err:
                    raise ConfigError(f"{item} on {protocol.name}: {err}") from None
    return grid, entries


def load_entry(path: str) -> Entry:
    """The entry of ``path``, checked: it trains one way and its ``{name}``s are known (its config is checked with
    each task's table by :func:`load_grid`). Errors name ``path``."""
    data: Any = read_yaml(path)
    try:
        entry = validate(data, None, Entry)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None
    if (entry.config is None) == (entry.command is None):
        raise ConfigError(f"{path}: give either config (a kdenv train config) or command (one of your own)")
    how = "config" if entry.command is None else "command"
    if how == "command" and "player" not in data:
        raise ConfigError(
            f"{path}: a command's entry gives player: the spec that plays what the command trained, e.g. "
            "'ppo:{work}/model.zip'"
        )
    _check_placeholders(path, "command", entry.command or "", COMMAND_FIELDS)
    _check_placeholders(path, "player", entry.player, PLAYER_FIELDS[how])
    return entry


def _check_placeholders(path: str, key: str, text: str, known: tuple[str, ...]) -> None:
    """Every ``{name}`` of ``text`` (config key ``key`` of ``path``) is one of ``known``."""
    for name in PLACEHOLDER.findall(text):
        if name not in known:
            raise ConfigError(
                f"{path}: config key {key!r}: unknown placeholder {{{name}}}; known here: "
                f"{', '.join('{' + k + '}' for k in known)}"
                + (f" (the shell's own: ${{{name}}})" if key == "command" else "")
            )


def budget(entry: Entry, protocol: Protocol, step: int) -> str:
    """``KEY=UNITS``: the step budget of ``entry``'s run on ``protocol``'s table trained to ``step`` learner steps,
    its imitation's steps taken first."""
    in_play = protocol.rules.setup(protocol.players)[1]
    units = max(1, (step - entry.imitation_steps(in_play)) // entry.steps_per(protocol.players, in_play))
    return f"{entry.budget}={units}"


def training_overrides(entry: Entry, protocol: Protocol, step: int) -> list[str]:
    """What ``entry``'s ``kdenv train`` run on ``protocol``'s table, trained to ``step`` learner steps, sets over its
    config: the entry's own keys, the table, the task's opponents (one a seat) and the step budget."""
    table = [f"env.num_players={protocol.players}", f'env.rules="{protocol.rule_names}"']
    if entry.opponents is not None:
        table.append(f"{entry.opponents}=[{', '.join(protocol.opponents)}]")
    imitation = [f"{entry.imitation_key}={entry.imitation_games}"] if entry.imitation_games else []
    return [*entry.set, *table, *imitation, budget(entry, protocol, step)]
