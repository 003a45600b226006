"""Pictures of a training run from its eval.jsonl: the learning curve against each evaluation opponent and the
league's ratings."""

from __future__ import annotations

from pathlib import Path

from kdenv.files import read_jsonl
from training.arena.report import subplots, write_png


def read_evaluations(path: str | Path) -> list[dict]:
    """The records of a run's eval.jsonl."""
    return list(read_jsonl(path))


def _steps(value: float, _position: int) -> str:
    """A step count as a tick reads it: 200k, 1.5M."""
    return f"{value / 1e6:g}M" if abs(value) >= 1e6 else f"{value / 1e3:g}k" if abs(value) >= 1e3 else f"{value:g}"


def plot_learning_curve(runs: list[str | Path], out: str | Path, title: str = "", players: int = 4,
                        xlabel: str = "learner steps (PPO)") -> None:  # fmt: skip
    """Win rate (with 95% CI) and mean margin against each evaluation opponent, by learner step (what
    ``xlabel`` names: an expert-iteration run counts iterations), as a PNG.

    ``runs`` are run directories (or eval.jsonl files) in training order: a run started from another's
    checkpoint (``init``) continues its curve, its steps offset by the steps already trained.
    """
    series: dict[str, list[tuple[int, float, float, float, float]]] = {}
    offset = 0
    for run in runs:
        path = Path(run)
        records = read_evaluations(path / "eval.jsonl" if path.is_dir() else path)
        for record in records:
            for name, r in record["results"].items():
                low, high = r["ci95"]
                point = (offset + record["step"], r["win_rate"], low, high, r["mean_margin"])
                series.setdefault(name, []).append(point)
        offset += max((r["step"] for r in records), default=0)
    fig, (wins, margin) = subplots((11, 4), 1, 2, layout="tight")
    for name, points in series.items():
        steps, rate, low, high, mean_margin = (list(column) for column in zip(*points, strict=True))
        wins.plot(steps, rate, marker="o", label=f"vs {players - 1} x {name}")
        wins.fill_between(steps, low, high, alpha=0.2)
        margin.plot(steps, mean_margin, marker="o", label=f"vs {players - 1} x {name}")
    wins.axhline(1 / players, color="grey", linestyle="--", linewidth=1, label=f"parity ({1 / players:.0%})")
    wins.set(xlabel=xlabel, ylabel="win rate (95% CI)", ylim=(0, 1))
    margin.axhline(0, color="grey", linestyle="--", linewidth=1)
    margin.set(xlabel=xlabel, ylabel="mean margin (own - best other)")
    for axes in (wins, margin):
        axes.xaxis.set_major_formatter(_steps)
        axes.legend()
    fig.suptitle(title or f"evaluation during training ({players} players)")
    write_png(fig, out, dpi=110)


def plot_league(run: str | Path, out: str | Path, title: str = "") -> None:
    """The league's OpenSkill ratings (ordinal, mu - 3 sigma) at each evaluation of a run, as a PNG: the
    learner, the scripted players, and each snapshot of the learner from when it joined the pool. Ratings
    are drawn relative to ``fg``'s when it plays in the league (every rating drifts up as its sigma shrinks)."""
    path = Path(run)
    records = [r for r in read_evaluations(path / "eval.jsonl" if path.is_dir() else path) if r.get("league")]
    names = sorted({name for r in records for name in r["league"]}, key=lambda n: (n.startswith("step-"), n))
    fig, axis = subplots((8, 4.5), layout="tight")
    anchor = "fg" if "fg" in names else None
    for name in names:
        if name == anchor:
            continue
        raw = [(r["step"], r["league"][name], r["league"].get(anchor, 0.0) if anchor else 0.0)
               for r in records if name in r["league"]]  # fmt: skip
        if name.startswith("step-"):  # a snapshot's rating stops changing once it has left the pool
            last = max(k for k in range(len(raw)) if k == 0 or raw[k][1] != raw[k - 1][1])
            raw = raw[: last + 1]
        points = [(step, value - base) for step, value, base in raw]
        steps, ordinals = zip(*points, strict=True)
        snapshot = name.startswith("step-")
        axis.plot(
            steps,
            ordinals,
            color="grey" if snapshot else None,
            alpha=0.5 if snapshot else 1.0,
            linewidth=1 if snapshot else 2,
            label=None if snapshot else name,
            marker=None if snapshot else "o",
        )
    axis.plot([], [], color="grey", alpha=0.5, label="snapshots of the learner")
    if anchor:
        axis.axhline(0, color="black", linestyle="--", linewidth=1, label="fg")
    axis.set(xlabel="learner steps (PPO)", ylabel="OpenSkill ordinal (mu - 3 sigma)" + (" - fg's" if anchor else ""))
    axis.legend()
    axis.set_title(title or "league ratings from the league's own games")
    write_png(fig, out, dpi=110)
