"""A tournament's results as a terminal table, results.md, results.json and ratings.png."""

from __future__ import annotations

import io
import json
import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kdenv.files import write_atomically
from training.arena.stats import AgentResult, Results

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MIN_DEALS = 5  # fewer deals than this: the head-to-head shares are shown without an interval, which says nothing yet
COLUMNS = ("Agent", "Games", "Win rate [95% CI]", "Score ± CI", "Margin ± CI", "Place", "Rating μ ± σ", "Ordinal",
           "Forfeits")  # fmt: skip


def agent_row(a: AgentResult) -> tuple[str, ...]:
    """One agent's cells, in the order of COLUMNS (the same text in the terminal and in results.md)."""
    return (
        a.agent,
        str(a.games),
        f"{a.win_rate:.1%} [{a.win_low:.1%}, {a.win_high:.1%}]",
        f"{a.score:.1f} ± {_ci(a.score_ci)}",
        f"{a.margin:+.1f} ± {_ci(a.margin_ci)}",
        f"{a.placing:.2f}",
        f"{a.mu:.2f} ± {a.sigma:.2f}",
        f"{a.ordinal:.2f}",
        forfeits_text(a),
    )


def forfeits_text(a: AgentResult) -> str:
    """The games ``a`` forfeited, by reason: "0", or "37 (raised 35, move limit 2)"."""
    if not a.forfeits:
        return "0"
    return f"{a.forfeited} ({', '.join(f'{reason} {n}' for reason, n in a.forfeits.items())})"


def _ci(half_width: float, digits: int = 1) -> str:
    return "n/a" if math.isnan(half_width) else f"{half_width:.{digits}f}"


def win_summary(a: AgentResult, chance: float | None = None) -> str:
    """One agent's figures in a line: win rate with its CI (and the rate by chance), mean margin and score."""
    by_chance = "" if chance is None else f" (chance: {chance:.0%})"
    return (
        f"win rate {a.win_rate:.1%} [95% CI {a.win_low:.1%}, {a.win_high:.1%}]{by_chance}, "
        f"mean margin vs best opponent {a.margin:+.1f} ± {_ci(a.margin_ci)}, mean score {a.score:.1f}"
    )


def head_to_head_rows(results: Results) -> list[tuple[str, ...]]:
    """Rows of the head-to-head table: the share of meetings the row agent placed ahead of the column agent, with
    its 95% CI (clustered by deal) kept within [0, 100] %, or the share alone below :data:`MIN_DEALS` deals."""
    order = [a.agent for a in results.agents]
    rows = []
    for a in order:
        shares, cis = results.head_to_head[a], results.head_to_head_ci[a]
        cells = [_share_cell(shares[b], cis[b], results.deals) if b in shares else "-" for b in order]
        rows.append((a, *cells))
    return rows


def _share_cell(share: float, half_width: float, deals: int) -> str:
    if deals < MIN_DEALS or math.isnan(half_width):
        return f"{share:.0%}"
    return f"{share:.0%} [{max(0.0, share - half_width):.0%}, {min(1.0, share + half_width):.0%}]"


def head_to_head_note(results: Results) -> str:
    """How to read the head-to-head table, saying so when it has too few deals for intervals."""
    note = "Head to head: share of the games at one table in which the row agent placed ahead (ties 1/2)"
    if results.deals < MIN_DEALS:
        return note + f"; {results.deals} deal(s) are too few for a 95% CI (at least {MIN_DEALS})"
    return note + ", with its 95% CI"


def print_results(results: Results, title: str = "Tournament results") -> None:
    """Print the results table and the head-to-head table with rich."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:  # a log file or a pipe: do not cut the table to 80 columns
        console = Console(width=200)
    table = Table(title=f"{title} ({results.games} games, {results.deals} deals)", title_justify="left")
    for i, name in enumerate(COLUMNS):
        table.add_column(name, justify="left" if i == 0 else "right", no_wrap=True)
    for a in results.agents:
        table.add_row(*agent_row(a))
    console.print(table)
    if len(results.agents) > 1:
        console.print(head_to_head_note(results))
        h2h = Table()
        h2h.add_column("")
        for a in results.agents:
            h2h.add_column(a.agent, justify="right")
        for row in head_to_head_rows(results):
            h2h.add_row(*row)
        console.print(h2h)


def to_markdown(results: Results, settings: dict, scheme: str) -> str:
    """results.md: the settings, the results table, the head-to-head table and how to read them."""
    rules = ", ".join(k for k, v in settings["rules"].items() if v is True) or "base game"
    lines = [
        "# Tournament results",
        "",
        f"Agents: {', '.join(f'`{a}`' for a in settings['agents'])}; {settings['players']} players; "
        f"rules: {rules} (kingdom {settings['rules']['kingdom_size']}x{settings['rules']['kingdom_size']}); "
        f"seed {settings['seed']}.",
        f"Schedule: {scheme}. {results.games} games finished over {results.deals} deals.",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join([":---"] + ["---:"] * (len(COLUMNS) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(agent_row(a)) + " |" for a in results.agents]
    lines += [
        "",
        "Win rate: shared victories split between the winners. Score and margin (own score minus the best",
        "opponent's) are means with 95% CIs; all intervals count a deal, not a game, as the independent unit.",
        "Place: 1 = first. Rating: OpenSkill Plackett-Luce (one player per team, ranked by final placing);",
        "ordinal = μ - 3σ. Forfeits: games in which the agent raised, exited, passed the move limit"
        f" ({settings.get('move_limit') or 'none'} s) or chose an illegal move; each is its loss, last place with a"
        " score of 0 (a stand-in played its seat to the end).",
    ]
    if len(results.agents) > 1:
        order = [a.agent for a in results.agents]
        lines += [
            "",
            "## Head to head",
            "",
            head_to_head_note(results) + ".",
            "",
            "| | " + " | ".join(order) + " |",
            "|:---|" + "---:|" * len(order),
        ]
        lines += ["| " + " | ".join(row) + " |" for row in head_to_head_rows(results)]
    lines += meta_game_section(results)
    return "\n".join(lines) + "\n"


def meta_game_section(results: Results) -> list[str]:
    """results.md's rankings from the whole head-to-head matrix beside OpenSkill's, and what each assumes (where a
    pair never met, a line that says why there are none)."""
    head = ["", "## Rankings from the whole matrix", ""]
    if not results.nash_average:
        if len(results.agents) < 2:
            return []
        return [*head, "None: they need every pair of agents to have met, and some pair never did."]
    lines = [
        *head,
        "OpenSkill assumes that strength is one number, so a cycle (A beats B, B beats C, C beats A) is averaged",
        "away, and who was invited moves it. Nash averaging (Balduzzi et al. 2018) assumes only the head-to-head",
        "matrix: an agent's payoff against the maximum-entropy Nash mixture of the agents (its share ahead minus",
        "1/2; 0 for the mixture's own agents), unchanged by copies of an agent. alpha-Rank (Omidshafiei et al. 2019)",
        "assumes evolutionary dynamics: the share of time a population spends playing each agent when better",
        "agents invade (OpenSpiel's defaults: alpha = 100, a population of 50); copies of an agent draw more mass.",
        "Both read the shares as measured, without confidence intervals: with few meetings a pair, they move with",
        "the noise.",
        "",
        "| Agent | Ordinal | Nash average | Nash weight | alpha-Rank mass |",
        "|:---|---:|---:|---:|---:|",
    ]
    for a in results.agents:
        n, w, m = results.nash_average[a.agent], results.nash_mixture[a.agent], results.alpha_rank[a.agent]
        lines.append(f"| {a.agent} | {a.ordinal:.2f} | {n:+.3f} | {w:.2f} | {m:.2f} |")
    return lines


def plot(results: Results, path: str | os.PathLike, subtitle: str = "") -> None:
    """ratings.png: ratings with error bars (μ ± 2σ) beside the head-to-head matrix (written atomically)."""
    import matplotlib

    agents = results.agents
    n = len(agents)
    names = [a.agent for a in agents]
    labels = [_wrapped(name) for name in names]
    lines = max(label.count("\n") + 1 for label in labels)
    size = (7 + 1.2 * n, 3 + 0.55 * n + 0.2 * n * (lines - 1))
    fig, (left, right) = subplots(size, 1, 2)
    y = list(range(n))[::-1]  # best at the top
    left.errorbar(
        [a.mu for a in agents], y, xerr=[2 * a.sigma for a in agents], fmt="o", color="tab:blue", capsize=4, lw=1.5
    )
    left.scatter(
        [a.ordinal for a in agents], y, marker="|", s=120, color="tab:gray", label="ordinal (μ - 3σ)", zorder=3
    )
    left.set_yticks(y, labels)
    left.set_ylim(-0.7, n - 0.3)
    left.set_xlabel("OpenSkill rating μ (bars: ± 2σ)")
    left.grid(axis="x", alpha=0.3)
    left.legend(loc="lower right", fontsize="small", frameon=False)
    left.set_title("Ratings", loc="left")
    for a, yy in zip(agents, y, strict=True):
        label = f"win {a.win_rate:.0%} [{a.win_low:.0%}, {a.win_high:.0%}]"
        left.annotate(label, (a.mu, yy), xytext=(0, 7), textcoords="offset points", ha="center", fontsize="x-small")

    matrix = [[results.head_to_head[a].get(b, math.nan) for b in names] for a in names]
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="0.92")  # grey: an agent and itself, or never met
    image = right.imshow(matrix, cmap=cmap, vmin=0, vmax=1)
    right.set_xticks(range(n), labels, rotation=30, ha="right")
    right.set_yticks(range(n), labels)
    for i in range(n):
        for j in range(n):
            value = matrix[i][j]
            if not math.isnan(value):
                right.text(j, i, f"{value:.0%}", ha="center", va="center", fontsize="small",
                           color="white" if abs(value - 0.5) > 0.3 else "black")  # fmt: skip
    right.set_title("Head to head: row ahead of column", loc="left")
    right.set_xlabel("opponent")
    fig.colorbar(image, ax=right, fraction=0.046, pad=0.04, label="share of meetings")
    fig.suptitle(f"Tournament: {results.games} games, {results.deals} deals" + (f" · {subtitle}" if subtitle else ""))
    write_png(fig, path, dpi=120)


def subplots(
    size: tuple[float, float], *grid: int, layout: Literal["constrained", "tight"] = "constrained", **options: Any
) -> tuple[Figure, Any]:
    """A figure of ``size`` inches and its axes, as pyplot's ``subplots`` gives them but without pyplot: the
    caller's backend (e.g. a notebook's) is left alone."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout=layout)
    return fig, fig.subplots(*grid, **options)


def write_png(fig: Any, path: str | os.PathLike, dpi: int) -> None:
    """A matplotlib figure as a PNG at ``path``, written atomically (through :func:`kdenv.files.write_atomically`:
    no link followed, nothing half-written on a full disk)."""
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=dpi)
    write_atomically(path, png.getvalue())


def _wrapped(spec: str, width: int = 22) -> str:
    """A player spec broken after its commas and slashes into lines of about ``width`` characters: long specs (a
    search's options, a checkpoint's path) would otherwise squeeze the plot's axes to nothing."""
    lines = [""]
    for part in re.findall(r"[^,/]+[,/]?|[,/]", spec):
        if lines[-1] and len(lines[-1]) + len(part) > width + 1:
            lines.append(part)
        else:
            lines[-1] += part
    return "\n".join(lines)


def write_reports(out: str | os.PathLike, results: Results, settings: dict, scheme: str) -> list[Path]:
    """Write results.json, results.md and ratings.png into ``out`` (each atomically); returns the paths."""
    out = Path(out)
    payload = {"settings": settings, "schedule": scheme, **results.to_dict()}
    paths = [out / "results.json", out / "results.md", out / "ratings.png"]
    write_atomically(paths[0], json.dumps(no_nan(payload), indent=1) + "\n")
    write_atomically(paths[1], to_markdown(results, settings, scheme))
    rules = ", ".join(k for k, v in settings["rules"].items() if v is True) or "base game"
    plot(results, paths[2], f"{settings['players']} players, {rules}")
    return paths


def no_nan(value):
    """JSON has no NaN: an undefined interval is written as null."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: no_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [no_nan(v) for v in value]
    return value
