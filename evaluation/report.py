"""`tactica evaluate --report DIR`: a Markdown report and a win-rate heatmap of a round robin.

The folder gets `report.md` (the command, the Elo table, the overall pair table and the
per-scenario tables), `heatmap.png` (row policy's win rate against the column policy,
over all scenarios; matplotlib with the Agg backend) and `results.json` (the same data
as `--json`). Files are written whole (a temporary file, then a rename).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from rules.errors import TacticaError
from rules.atomic import atomic_write


def _write(path: Path, data: bytes) -> None:
    atomic_write(path, data, mode=0o644)  # a report is for reading


def win_matrix(result: dict[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(policies, rate[i, j] = i's win rate against j over all scenarios (nan on the diagonal),
    fights[i, j])."""
    pols = list(result["policies"])
    idx = {p: i for i, p in enumerate(pols)}
    n = len(pols)
    rate = np.full((n, n), np.nan)
    cnt = np.zeros((n, n), dtype=int)
    for p in result["pairs"]:
        if p["scenario"] != "all":
            continue
        i, j = idx[p["a"]], idx[p["b"]]
        rate[i, j] = p["a_wins"] / p["n"] if p["n"] else np.nan
        rate[j, i] = p["b_wins"] / p["n"] if p["n"] else np.nan
        cnt[i, j] = cnt[j, i] = p["n"]
    return pols, rate, cnt


def heatmap_png(result: dict[str, Any], path: Path, title: str | None = None) -> Path:
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - the report extra is missing
        raise TacticaError("matplotlib is not installed", field="--report",
                           expected="pip install 'tactica[report]'") from None
    matplotlib.use("Agg", force=True)
    import io

    import matplotlib.pyplot as plt

    pols, rate, cnt = win_matrix(result)
    n = len(pols)
    fig, ax = plt.subplots(figsize=(1.3 * n + 2.2, 1.1 * n + 1.6), dpi=110)
    im = ax.imshow(np.ma.masked_invalid(rate), cmap="RdYlGn", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(n), pols, rotation=30, ha="right")
    ax.set_yticks(range(n), pols)
    ax.set_xlabel("opponent")
    ax.set_ylabel("policy")
    for i in range(n):
        for j in range(n):
            if i != j and not np.isnan(rate[i, j]):
                ax.text(j, i, f"{rate[i, j]:.0%}", ha="center", va="center", fontsize=9,
                        color="black")
    fights = int(cnt.max()) if cnt.size else 0
    ax.set_title(title or f"win rate of row against column ({fights} fights a pair)", fontsize=10)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    _write(path, buf.getvalue())
    return path


def _pct(x: float) -> str:
    return f"{x:.1%}"


def markdown(result: dict[str, Any], command: str | None = None, seconds: float | None = None) -> str:
    lines = ["# Round robin report", ""]
    if command:
        lines += ["Command:", "", "```bash", command, "```", ""]
    n_sc = len(result["scenarios"])
    seeds = result.get("seeds") or [result["seed"]]
    several = len(seeds) > 1
    lines.append(f"{len(result['policies'])} policies, {n_sc} scenario(s), {result['episodes']} fights a pair a "
                 f"scenario (half with each side), seed{'s' if several else ''} {', '.join(map(str, seeds))}"
                 + (" (rates pooled over the seeds)" if several else "")
                 + (f"; {seconds:.0f} s." if seconds is not None else "."))
    lines += ["", "Scenarios: " + ", ".join(f"`{s}`" for s in result["scenarios"]), ""]
    if result.get("elo"):
        lines += ["## Elo ratings", "",
                  "Bradley-Terry fit over every fight (draws count half), centred on 1500; 95% bootstrap "
                  "intervals (fights resampled within each pair).", "",
                  "| policy | Elo | 95% interval | fights |", "|---|---:|---|---:|"]
        for e in result["elo"]:
            lines.append(f"| {e['policy']} | {e['rating']:.0f} | {e['ci_low']:.0f} to {e['ci_high']:.0f} | "
                         f"{e['games']} |")
        lines.append("")
    lines += ["## Every pair, all scenarios", "", "![win rates](heatmap.png)", "",
              "| a vs b | fights | a wins | b wins | draws | a win rate | Wilson 95% |"
              + (" per seed | sd (points) |" if several else ""),
              "|---|---:|---:|---:|---:|---:|---|" + ("---|---:|" if several else "")]
    for p in result["pairs"]:
        if p["scenario"] == "all" or n_sc == 1:
            row = (f"| {p['a']} vs {p['b']} | {p['n']} | {p['a_wins']} | {p['b_wins']} | {p['draws']} | "
                   f"{_pct(p['a_win_rate'])} | {_pct(p['ci_low'])}-{_pct(p['ci_high'])} |")
            if several:
                row += (" " + " ".join(_pct(r["a_win_rate"]) for r in p["per_seed"])
                        + f" | {100 * p['spread']['sd']:.1f} |")
            lines.append(row)
    if n_sc > 1:
        lines += ["", "## Per scenario", "", "| a vs b | scenario | fights | a win rate | Wilson 95% |",
                  "|---|---|---:|---:|---|"]
        for p in result["pairs"]:
            if p["scenario"] != "all":
                lines.append(f"| {p['a']} vs {p['b']} | {p['scenario']} | {p['n']} | {_pct(p['a_win_rate'])} | "
                             f"{_pct(p['ci_low'])}-{_pct(p['ci_high'])} |")
    return "\n".join(lines) + "\n"


def write_report(result: dict[str, Any], folder: str | Path, command: str | None = None,
                 seconds: float | None = None) -> Path:
    """Write report.md, heatmap.png and results.json into `folder` (created if needed)."""
    d = Path(folder)
    if d.exists() and not d.is_dir():
        raise TacticaError("exists and is not a folder", source=str(d), field="--report",
                           expected="a folder (created if missing)")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise TacticaError(f"cannot create it ({e.strerror})", source=str(d), field="--report",
                           expected="a writable folder") from None
    heatmap_png(result, d / "heatmap.png")
    _write(d / "results.json", (json.dumps(result, indent=2) + "\n").encode())
    _write(d / "report.md", markdown(result, command, seconds).encode())
    return d / "report.md"


def shell_command(argv: Sequence[str]) -> str:
    import shlex
    return " ".join(shlex.quote(a) for a in argv)
