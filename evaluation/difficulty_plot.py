"""A PNG of a difficulty report's outcome distributions (matplotlib, Agg backend: no display)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from evaluation.difficulty import figure_labels
from rules.errors import TacticaError

WIN, LOSS, DRAW = "#2a9d8f", "#e76f51", "#8d99ae"


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise TacticaError("matplotlib is not installed", field="--plot",
                           expected="pip install 'tactica[report]'") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt


def _locator():
    from matplotlib.ticker import MaxNLocator
    return MaxNLocator


def plot_difficulty(report: Mapping[str, Any], fights: Sequence[Any], path: str | Path) -> Path:
    """Write four panels: outcomes, fight length by outcome, down/death rates, damage per PC."""
    plt = _pyplot()
    MaxNLocator = _locator()
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise TacticaError(f"{path}: not a .png file", field="--plot", expected="a file name ending in .png")
    pc = report["pc_team"]
    n = max(1, report["episodes"])
    fig, axes = plt.subplots(2, 2, figsize=(11, 8), dpi=110)
    fig.suptitle(f"{report['scenario']}: PC team {pc!r} wins {report['pc_win_rate']:.1%} "
                 f"[{report['ci_low']:.1%}, {report['ci_high']:.1%}] - {report['label'].upper()} "
                 f"({report['episodes']} fights, seed {report['seed']})", fontsize=11)

    # outcomes, with the Wilson interval on the PC win rate
    ax = axes[0][0]
    rates = [report["pc_win_rate"], report["pc_losses"] / n, report["draw_rate"],
             report["p_pc_down"], report["p_pc_death"]]
    names = ["PC win", "PC loss", "draw", "a PC down", "a PC dies"]
    lo_hi = [(report["ci_low"], report["ci_high"]), None, None, tuple(report["p_pc_down_ci"]),
             tuple(report["p_pc_death_ci"])]
    colours = [WIN, LOSS, DRAW, "#f4a261", "#9b2226"]
    bars = ax.bar(names, rates, color=colours)
    for i, ci in enumerate(lo_hi):
        if ci is not None:
            ax.errorbar(i, rates[i], yerr=[[max(0.0, rates[i] - ci[0])], [max(0.0, ci[1] - rates[i])]],
                        color="black", capsize=4)
    for b, r, ci in zip(bars, rates, lo_hi):
        top = ci[1] if ci is not None else r
        ax.text(b.get_x() + b.get_width() / 2, min(top + 0.02, 0.98), f"{r:.0%}", ha="center", fontsize=9)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("share of fights (95% interval)")
    ax.set_title("outcomes")

    # fight length, stacked by outcome
    ax = axes[0][1]
    top = max([f.rounds for f in fights] + [1])
    xs = list(range(1, top + 1))
    counts = {k: [0] * top for k in ("win", "loss", "draw")}
    for f in fights:
        k = "win" if f.winner == pc else ("draw" if f.winner is None else "loss")
        counts[k][f.rounds - 1] += 1
    bottom = [0] * top
    for k, col in (("win", WIN), ("loss", LOSS), ("draw", DRAW)):
        ax.bar(xs, counts[k], bottom=bottom, color=col, label=f"PC {k}" if k != "draw" else "draw")
        bottom = [a + b for a, b in zip(bottom, counts[k])]
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("rounds")
    ax.set_ylabel("fights")
    ax.set_title(f"fight length (mean {report['rounds_mean']:.1f}, 90% within {report['rounds_p90']:g})")
    ax.legend(fontsize=8)

    # per-figure down and death rates
    ax = axes[1][0]
    figs = sorted(report["per_figure"].items(), key=lambda kv: (not kv[1]["pc"], kv[1]["team"]))
    ids = [k for k, _ in figs]
    names = figure_labels(report["per_figure"])
    width = 0.4
    ax.bar([i - width / 2 for i in range(len(ids))], [v["p_down"] for _, v in figs], width,
           color="#f4a261", label="went down")
    ax.bar([i + width / 2 for i in range(len(ids))], [v["p_dead"] for _, v in figs], width,
           color="#9b2226", label="died")
    ax.set_xticks(range(len(ids)))
    ax.set_xticklabels([f"{names[k]}\n({v['team']})" for k, v in figs], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("share of fights")
    ax.set_title("per figure")
    ax.legend(fontsize=8)

    # damage taken per PC, as a share of its health, over the fights
    ax = axes[1][1]
    pcs = [k for k, v in figs if v["pc"]]
    bands = (("unhurt", "#e9f5db"), ("lost < half", "#b5e48c"), ("lost half or more", "#f4a261"),
             ("lost all", "#9b2226"))
    shares = {k: [0.0] * len(bands) for k in pcs}
    for k in pcs:
        mx = report["per_figure"][k]["max_health"] or 1.0
        for f in fights:
            frac = dict(f.damage).get(k, 0.0) / mx
            band = 0 if frac <= 0 else 1 if frac < 0.5 else 2 if frac < 1 else 3
            shares[k][band] += 1 / n
    left = [0.0] * len(pcs)
    for bi, (name, col) in enumerate(bands):
        vals = [shares[k][bi] for k in pcs]
        ax.barh(range(len(pcs)), vals, left=left, color=col, label=name)
        left = [a + b for a, b in zip(left, vals)]
    ax.set_yticks(range(len(pcs)))
    ax.set_yticklabels([f"{names[k]}\nmean {report['per_figure'][k]['damage_mean']:.1f}"
                        f" of {report['per_figure'][k]['max_health']:g}" for k in pcs], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_title("damage taken per PC (share of fights)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.06), ncol=4, frameon=False)

    fig.tight_layout()
    import io

    from rules.atomic import atomic_write

    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, buf.getvalue(), mode=0o644, field="--plot")   # whole or not at all
    return path
