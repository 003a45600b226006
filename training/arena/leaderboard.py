"""The leaderboard: every shipped player through every protocol, one evaluation folder each (resumable), and a
page with its picture, written as each cell finishes (``OUT/LEADERBOARD.md`` unless told otherwise). Regenerate the
shipped one with ``kdenv evaluate --leaderboard --out benchmarks/leaderboard --page benchmarks/LEADERBOARD.md``: its
cells' ``evaluation.json`` files are committed there (their games are not), and resume it anywhere."""

from __future__ import annotations

import platform
from dataclasses import dataclass
from pathlib import Path

from kdenv.errors import KingdominoError
from kdenv.files import make_folder, read_json, write_atomically
from training.arena.evaluation import FILE, default_out, evaluate, read
from training.arena.protocols import PROTOCOLS, Protocol
from training.arena.report import subplots, write_png
from training.arena.tournament import check_agents
from training.backends.base import Backend

COMMAND = "kdenv evaluate --leaderboard"
PAGE = "LEADERBOARD.md"  # the page's name in the leaderboard's folder, unless another page is given
TO_COME = "…"  # a cell not evaluated yet: the page is written as each cell finishes
TO_COME_NOTE = f"{TO_COME} : not evaluated yet (the page is written again as each cell finishes)."
SEARCH_GAMES = 200  # az's games per protocol at its cheap setting: about 2 s a game on one core at 16 simulations
STRONG_GAMES = 400  # the searches' games per protocol at the budgets where they are strong: hours on 2 cores


@dataclass(frozen=True)
class Entry:
    """A shipped player at a fixed budget (a count, so the figures do not depend on the machine's speed)."""

    spec: str
    what: str
    games: int | None = None  # None: the protocol's default


ENTRIES = (
    Entry("random", "a uniformly random legal move"),
    Entry("gprd", "greedy placement, random draft"),
    Entry("fg", "Full Greedy, the opponents: its row is the mirror match"),
    Entry("fgt", "Full Greedy with tie-breaks"),
    Entry("mce:playouts=50", "flat Monte Carlo, 50 playouts a decision: the cheap setting"),
    Entry("mce:playouts=500", "flat Monte Carlo, 500 playouts a decision", STRONG_GAMES),
    Entry(
        "az:default,simulations=16",
        "Gumbel search on the table's network, 16 simulations: the cheap setting, weaker than the network alone",
        SEARCH_GAMES,
    ),
    Entry("az:default,simulations=200", "Gumbel search on the table's network, 200 simulations", STRONG_GAMES),
    Entry("ppo:default", "the table's shipped network"),
    Entry("ppo:v1", "the first 4-player network"),
    Entry("ppo:tower4p", "ppo:default's policy with a value tower for az: the same moves"),
    Entry("ppo:exit4p", "4-player network trained by expert iteration"),
)


def sits(spec: str, protocol: str) -> bool:
    """Whether ``spec`` can sit at the protocol's table (a network of another table cannot)."""
    p = PROTOCOLS[protocol]
    try:
        check_agents([spec], p.players, p.rules, {})
    except KingdominoError:
        return False
    return True


Cells = dict[tuple[str, str], dict | None]  # (spec, protocol) -> its evaluation.json; None: it cannot sit there


def run_leaderboard(
    games: int | None, seed: int, out: Path, backend: Backend | None, progress: bool, page: Path
) -> Cells:
    """Evaluate every entry at every protocol on ``backend`` into ``out/PROTOCOL-vN/SPEC``, writing ``page`` and its
    picture before the first game (a page that cannot be written is told at once) and again as each cell finishes;
    ``games`` overrides every entry's. A finished cell is read back, not played again: from its games, or from its
    ``evaluation.json`` alone (:func:`finished`), so that the evaluations of a leaderboard, copied to another
    machine, resume it there."""
    todo = [(e, name) for e in ENTRIES for name in PROTOCOLS]
    todo.sort(key=lambda cell: cell[0].games == STRONG_GAMES)  # the searches' hours last: the page fills first
    cells: Cells = {(e.spec, name): None for e, name in todo if not sits(e.spec, name)}
    make_folder(out)
    _first_page(cells, page, seed, games)
    for i, (entry, name) in enumerate(todo, 1):
        if (entry.spec, name) in cells:
            continue
        print(f"[{i}/{len(todo)}] {entry.spec} on {PROTOCOLS[name].title}", flush=True)
        folder = out / default_out(PROTOCOLS[name], entry.spec).relative_to(Path("runs") / "evaluate")
        n = games if games is not None else entry.games
        done = finished(folder, PROTOCOLS[name], entry.spec, seed, n)
        cells[entry.spec, name] = done or evaluate(entry.spec, name, n, seed, folder, backend, progress).to_dict()
        write_page(cells, page, seed, games)
    return cells


def finished(folder: Path, protocol: Protocol, spec: str, seed: int, games: int | None) -> dict | None:
    """The cell's ``evaluation.json`` where it stands alone in ``folder`` (its games not there: copied from another
    machine) and is the one asked for: this version of the protocol, the spec, the seed, at least the games; else
    None (the cell is played, or resumed from its games). A file that is not an evaluation is a one-line error."""
    if (folder / "tournament.json").exists() or not (folder / FILE).exists():
        return None
    file = read(folder)
    asked = (protocol.name, protocol.version, spec, seed)
    if (file.protocol, file.protocol_version, file.spec, file.seed) != asked or file.games < (games or protocol.games):
        return None
    return dict(read_json(folder / FILE))


def _first_page(cells: Cells, page: Path, seed: int, games: int | None) -> None:
    """The page before any game: its folder made, the page written (every cell to come); a one-line error, before
    the hours of games, where it cannot be."""
    if page.is_dir():
        raise KingdominoError(f"--page {page} is a folder; give the page's file name, e.g. {page / PAGE}")
    make_folder(page.parent, "--page's folder")
    try:
        write_page(cells, page, seed, games)
    except OSError as err:
        raise KingdominoError(f"--page {page} cannot be written ({err.strerror}); give a writable file") from None


def write_page(cells: Cells, page: Path, seed: int, games: int | None) -> None:
    """The leaderboard as markdown at ``page`` (and ``page`` .png): normalized score and win rate with their 95%
    CIs, margin, games; a cell not in ``cells`` is still to come."""
    from training.arena.evaluation import kdenv_version

    names = list(PROTOCOLS)
    head = "| player | " + " | ".join(PROTOCOLS[n].title for n in names) + " |"
    lines = [
        "# Leaderboard",
        "",
        f"Every shipped player through every protocol of `kdenv evaluate --list`, seed {seed}; made by `{COMMAND}`"
        + (f" --games {games}" if games is not None else "")
        + f" (kdenv {kdenv_version()}, Python {platform.python_version()}).",
        "",
        "Each cell: the player's normalized score (its mean margin over the best opponent between the protocol's",
        "`random`, 0, and `fg`, 1: above 1 beats `fg`) with its 95% CI; its win rate (a shared win split) with its",
        "95% CI, clustered by deal; its mean margin; and the games. — : the player cannot sit at that table (a",
        "network of another).",
        *([TO_COME_NOTE] if any((e.spec, n) not in cells for e in ENTRIES for n in names) else []),
        "Chance: 25% at 4 players, 33% at 3, 50% at 2. Search budgets are counts, so the figures do not depend on",
        "the machine.",
        "",
        head,
        "|" + "---|" * (len(names) + 1),
    ]
    for entry in ENTRIES:
        row = [_cell(cells[entry.spec, n]) if (entry.spec, n) in cells else TO_COME for n in names]
        lines.append(f"| `{entry.spec}` ({entry.what}) | " + " | ".join(row) + " |")
    lines += ["", "Protocols:", ""]
    lines += [
        f"- **{p.title}**: {p.players} players, {p.rules_name}, against {len(p.opponents)} `{p.opponent}`; "
        f"{p.description}."
        for p in PROTOCOLS.values()
    ]
    lines += ["", f"![win rates]({page.with_suffix('.png').name})", ""]
    write_atomically(page, "\n".join(lines))
    _plot(cells, page.with_suffix(".png"))


def _cell(d: dict | None) -> str:
    if d is None:
        return "—"
    low, high = d["win_rate_ci"]
    n_low, n_high = d["normalized_ci"]
    normalized = f"**{round(d['normalized'], 2) + 0.0:.2f}** [{n_low:.2f}, {n_high:.2f}]"  # + 0.0: no "-0.00"
    return f"{normalized}, {d['win_rate']:.1%} [{low:.1%}, {high:.1%}], {d['margin']:+.1f}, {d['games']} g"


def _plot(cells: Cells, png: Path) -> None:
    """Win rates with their CIs, one panel a protocol, the chance level dashed."""
    fig, axes = subplots((4 * len(PROTOCOLS), 4.5), 1, len(PROTOCOLS), sharey=True)
    specs = [entry.spec for entry in ENTRIES]
    for ax, (name, p) in zip(axes, PROTOCOLS.items(), strict=True):
        for y, spec in enumerate(specs):
            d = cells.get((spec, name))
            if d is None:
                continue
            low, high = d["win_rate_ci"]
            ax.errorbar(
                d["win_rate"],
                y,
                xerr=[[max(0.0, d["win_rate"] - low)], [max(0.0, high - d["win_rate"])]],
                fmt="o",
                capsize=3,
            )
        ax.axvline(1 / p.players, linestyle="--", color="grey")
        ax.set_xlim(0, 1)
        ax.set_title(p.title)
        ax.set_xlabel("win rate (95% CI)")
    axes[0].set_yticks(range(len(specs)), specs)
    axes[0].invert_yaxis()
    write_png(fig, png, dpi=100)
