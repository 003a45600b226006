"""A summary of learning runs (:mod:`training.benchmark.aggregate`) as pictures and as ``ALGORITHMS.md``."""

from __future__ import annotations

from pathlib import Path

from training.arena.report import subplots, write_png

FIGURES = ("aggregates", "curves", "profiles", "improvement")
NAMES = {"normalized": "normalized score", "win_rate": "win rate"}  # a metric in words
FORMS = {"normalized": ".2f", "win_rate": ".1%"}  # and its figures


def named(metric: str) -> str:
    """``metric`` in words, with its scale: "normalized score (random 0, fg 1)", "win rate"."""
    return NAMES[metric] + (" (random 0, fg 1)" if metric == "normalized" else "")


def plot(summary: dict, folder: Path) -> list[str]:
    """Four PNGs in ``folder`` (over all tasks): IQM and mean with CIs, IQM against steps with CI bands, the
    performance profiles, the probability of improvement of each pair; their file names."""
    data, algorithms = summary["by_task"]["all tasks"], summary["algorithms"]
    names, metric = [f"{name}.png" for name in FIGURES], NAMES[summary["metric"]]
    span = (summary["thresholds"][0], summary["thresholds"][-1])
    fig, axes = subplots((9, 0.6 * len(algorithms) + 1.5), 1, 2, sharey=True)
    for ax, key in zip(axes, ("iqm", "mean"), strict=True):
        for y, a in enumerate(algorithms):
            e = data[key][a]
            ax.errorbar(e["value"], y, xerr=[[e["value"] - e["ci"][0]], [e["ci"][1] - e["value"]]], fmt="o", capsize=3)
        ax.set_title(f"{key.upper() if key == 'iqm' else 'mean'} {metric} (95% CI)")
        ax.set_xlim(*span)
    axes[0].set_yticks(range(len(algorithms)), algorithms)
    write_png(fig, folder / names[0], dpi=100)
    fig, ax = subplots((6, 4))
    for a in algorithms:
        steps = sorted(data["curve"][a], key=int)
        x = [int(s) for s in steps]
        ax.plot(x, [data["curve"][a][s]["value"] for s in steps], marker="o", label=a)
        low, high = ([data["curve"][a][s]["ci"][k] for s in steps] for k in (0, 1))
        ax.fill_between(x, low, high, alpha=0.2)
    ax.set_xlabel("learner steps")
    ax.set_ylabel(f"IQM {named(summary['metric'])}")
    if summary["metric"] == "normalized":  # the anchors: random's level and fg's
        for level in (0, 1):
            ax.axhline(level, linestyle=":", color="grey")
    ax.legend()
    write_png(fig, folder / names[1], dpi=100)
    fig, ax = subplots((6, 4))
    for a in algorithms:
        ax.plot(summary["thresholds"], data["profile"][a], label=a)
    ax.set_xlabel(f"{metric} τ")
    ax.set_ylabel(f"share of runs with {metric} > τ")
    ax.legend()
    write_png(fig, folder / names[2], dpi=100)
    pairs = list(data["probability_of_improvement"])
    fig, ax = subplots((6, 0.5 * len(pairs) + 1.5))
    for y, pair in enumerate(pairs):
        e = data["probability_of_improvement"][pair]
        ax.errorbar(e["value"], y, xerr=[[e["value"] - e["ci"][0]], [e["ci"][1] - e["value"]]], fmt="o", capsize=3)
    ax.axvline(0.5, linestyle="--", color="grey")
    ax.set_yticks(range(len(pairs)), pairs)
    ax.set_xlim(0, 1)
    ax.set_xlabel("P(X > Y), 95% CI")
    write_png(fig, folder / names[3], dpi=100)
    return names


def to_markdown(summary: dict, figures: list[str]) -> str:
    """The summary as tables: IQM and mean with CIs per task and over all, and the probabilities of improvement."""
    metric, beside = summary["metric"], summary["beside"]
    lines = ["# Learning algorithms", "", f"At step {summary['step']:,} (the last every algorithm reached), by "
             f"{named(metric)}, {NAMES[beside]} beside it; 95% stratified bootstrap CIs ({summary['reps']:,} "
             "resamples, rliable). Forfeits: evaluation games the runs forfeited at that step (each its loss).",
             ""]  # fmt: skip
    if summary["missing"]:
        lines += ["Left out, or cut at that step (the folder lacks them):", ""]
        lines += [f"- missing: {gap}" for gap in summary["missing"]] + [""]
    for task, data in summary["by_task"].items():
        head = f"| algorithm | runs | IQM {NAMES[metric]} | mean {NAMES[metric]} | IQM {NAMES[beside]} | forfeits |"
        lines += [f"## {task}", "", head, "|---|---|---|---|---|---|"]
        for a in summary["algorithms"]:
            cells = [_text(data["iqm"][a], FORMS[metric]), _text(data["mean"][a], FORMS[metric])]
            cells += [_text(data[beside]["iqm"][a], FORMS[beside]), str(data["forfeits"][a])]
            lines.append(f"| {a} | {data['runs'][a]} | " + " | ".join(cells) + " |")
        if data["probability_of_improvement"]:
            lines += ["", "| X > Y | P(X > Y) |", "|---|---|"]
            lines += [f"| {pair} | {_text(e, '.2f')} |" for pair, e in data["probability_of_improvement"].items()]
        lines.append("")
    lines += [f"![{name}]({name})" for name in figures]
    return "\n".join(lines) + "\n"


def headline(summary: dict, algorithm: str) -> str:
    """``algorithm``'s line over all tasks: its IQM by the summary's metric and by the one beside it, with CIs, and
    its forfeits."""
    data = summary["by_task"]["all tasks"]
    metric, beside = summary["metric"], summary["beside"]
    return (
        f"{algorithm}: IQM {NAMES[metric]} {_text(data['iqm'][algorithm], FORMS[metric])}, "
        f"IQM {NAMES[beside]} {_text(data[beside]['iqm'][algorithm], FORMS[beside])}, "
        f"{data['forfeits'][algorithm]} forfeits (95% CIs)"
    )


def _text(estimate: dict, form: str) -> str:
    low, high = estimate["ci"]
    return f"{estimate['value']:{form}} [{low:{form}}, {high:{form}}]"
