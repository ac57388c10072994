"""How `tactica difficulty` and `tactica tune` show their results to a GM (rich text)."""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any, Iterator, Mapping

from rich.console import Console
from tactica.textsafe import safe as escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from evaluation.tune_search import in_band
from training.progress import duration as _duration


@contextmanager
def progress_bar(console: Console, description: str, enabled: bool, *, log: bool = False) -> Iterator[Any]:
    """A progress bar on `console`; yields `update(done, total, description=None)`.

    `enabled`: a live Rich bar (a terminal). `log` (used when not `enabled`): a plain line at
    most every `LOG_EVERY_S` seconds instead, with the fights done, the time so far and an
    estimate of the time left (a stderr that goes to a log file, as in a long evaluation run
    in the background)."""
    start = time.monotonic()
    clock = [start]
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=console, disable=not enabled,
                  transient=True) as prog:
        task = prog.add_task(escape(description), total=None)

        def update(done: int, total: int, text: str | None = None) -> None:
            kw = {"description": escape(text)} if text else {}
            prog.update(task, completed=done, total=total, **kw)
            if log and not enabled and done < total and _log_due(clock):
                console.print(f"{escape(text or description)}: {log_progress(done, total, clock[0] - start)}",
                              highlight=False, soft_wrap=True)

        yield update


def log_progress(done: int, total: int, seconds: float) -> str:
    """`120/3200 fights, 4m 10s so far, about 1h 46m left` (the left part once a fight is done)."""
    text = f"{done}/{total} fights, {_duration(seconds)} so far"
    if 0 < done < total:
        text += f", about {_duration(seconds * (total - done) / done)} left"
    return text


#: on a stderr that is not a terminal (a log), a progress line at most this often (seconds)
LOG_EVERY_S = 30.0


def _log_due(clock: list[float], now_anyway: bool = False) -> bool:
    """Whether a log line is due: `LOG_EVERY_S` since the last one (`clock[0]`, then set to
    now) or `now_anyway`."""
    now = time.monotonic()
    if now_anyway or now - clock[0] >= LOG_EVERY_S:
        clock[0] = now
        return True
    return False


def estimate_text(est: Any) -> str:
    """`PC win 61.6% (58.5% - 64.6%)` for an `evaluation.difficulty.Estimate`."""
    return f"PC win {_pct(est.rate)} ({_pct(est.ci_low)} - {_pct(est.ci_high)})" if est.done else "PC win -"


@contextmanager
def estimate_bar(console: Console, description: str, *, live: bool, log: bool = False,
                 log_ends: bool = True) -> Iterator[Any]:
    """Progress of fights with the estimate so far on `console`; yields `update(estimate, description=None)`.

    `live`: a Rich bar with the PC win rate so far and its 95% interval (a terminal).
    `log` (used when not `live`): no bar, but a plain line at most every `LOG_EVERY_S`
    seconds and, with `log_ends`, when a stage's fights are all in (a stderr that goes to a
    log file)."""
    clock = [time.monotonic()]
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[estimate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                  console=console, disable=not live, transient=True) as prog:
        task = prog.add_task(escape(description), total=None, estimate="")

        def update(est: Any, text: str | None = None) -> None:
            kw = {"description": escape(text)} if text else {}
            prog.update(task, completed=est.done, total=est.total, estimate=estimate_text(est), **kw)
            if log and not live and _log_due(clock, log_ends and est.done >= est.total):
                console.print(f"{escape(text or description)}: {est.done}/{est.total} fights, {estimate_text(est)}",
                              highlight=False, soft_wrap=True)

        yield update


def note_line(n: Any) -> str:
    """One line of `tune`'s step report for an `evaluation.tune_search.Note` (plain text)."""
    if n.kind == "stop":
        return f"round {n.round}, stop: {n.reason}"
    what = {"start": n.change if n.change == "as written" else f"from where round {n.round - 1} ended",
            "try": f"step {n.step}, try {n.change}", "keep": f"step {n.step}, chose {n.change}",
            "check": n.change}[n.kind]
    return (f"round {n.round}, {what}: PC win {_pct(n.win_rate)} ({_pct(n.ci_low)} - {_pct(n.ci_high)}) "
            f"over {n.episodes} fights: {n.reason}")


def _pct(x: float) -> str:
    return f"{x:.1%}"


def render_difficulty(console: Console, r: Mapping[str, Any], *, workers: int, backend: str,
                      seconds: float) -> None:
    """The difficulty report as a GM reads it."""
    n = r["episodes"]
    console.print(f"[bold]{escape(r['scenario'])}[/] ({r['ruleset']}): {n} fights, seed {r['seed']}, "
                  f"policies " + escape(", ".join(f"{t}={p}" for t, p in r["policies"].items())), highlight=False)
    label = r["label"].upper()
    lo_lab, hi_lab = r["label_range"]
    rng = "" if lo_lab == hi_lab == r["label"] else f"  (between {lo_lab} and {hi_lab} within the intervals)"
    console.print(f"difficulty for {escape(r['pc_team'])}: [bold]{label}[/]{rng}", highlight=False)
    _table_note(console, r)
    t = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    t.add_column("")
    t.add_column("rate", justify="right")
    t.add_column("95% interval", justify="right")
    t.add_row("PC team wins", _pct(r["pc_win_rate"]), f"{_pct(r['ci_low'])} - {_pct(r['ci_high'])}")
    t.add_row("draw (round limit)", _pct(r["draw_rate"]), "")
    t.add_row("a PC goes down", _pct(r["p_pc_down"]),
              f"{_pct(r['p_pc_down_ci'][0])} - {_pct(r['p_pc_down_ci'][1])}")
    t.add_row("a PC dies", _pct(r["p_pc_death"]),
              f"{_pct(r['p_pc_death_ci'][0])} - {_pct(r['p_pc_death_ci'][1])}")
    console.print(t)
    f = Table(title="per figure", header_style="bold")
    for col in ("figure", "team", "health", "damage taken (mean / p90)", "down", "dies"):
        f.add_column(col, justify="left" if col in ("figure", "team") else "right")
    from evaluation.difficulty import figure_labels
    names = figure_labels(r["per_figure"])
    for cid, v in sorted(r["per_figure"].items(), key=lambda kv: (not kv[1]["pc"], kv[1]["team"])):
        f.add_row(escape(names[cid]) + (" (PC)" if v["pc"] else ""), escape(v["team"]), f"{v['max_health']:g}",
                  f"{v['damage_mean']:.1f} / {v['damage_p90']:g}", _pct(v["p_down"]), _pct(v["p_dead"]))
    console.print(f)
    hist = r["rounds_histogram"]
    top = max(hist.values()) if hist else 1
    console.print(f"fight length: mean {r['rounds_mean']:.1f} rounds, median {r['rounds_median']:g}, "
                  f"90% end by round {r['rounds_p90']:g} (limit {r['round_limit']})", highlight=False)
    for k, v in hist.items():
        console.print(f"  {int(k):>3} | {'#' * max(1, round(30 * v / top)):<30} {v}", highlight=False)
    extra = f"; {r['stopped']} (+-{r['precision']:.3f})" if r.get("precision") else ""
    console.print(f"[dim]{n} fights in {seconds:.1f} s on {workers} worker(s), {backend} backend{extra}[/]",
                  highlight=False)


def _table_note(console: Console, r: Mapping[str, Any]) -> None:
    """Where the NPC teams were played by another policy than the table's default NPC (`table_npcs`): say so,
    with the flags that play them as the autopilot and the API would."""
    t_npc = r.get("table_npcs")
    if not t_npc:
        return
    teams = ", ".join(t_npc["teams"])
    flags = " ".join(f"-p {t}={t_npc['policy']}" for t in t_npc["teams"])
    used = ", ".join(sorted({r["policies"][t] for t in t_npc["teams"]}))
    console.print(f"[yellow]note:[/] the autopilot and the API play {escape(teams)} with `{escape(t_npc['policy'])}` "
                  f"({escape(t_npc['player'])}) unless told otherwise, not with {escape(used)}; for the odds "
                  f"against that table add {escape(flags)} (slower)", highlight=False)


def why_missed(r: Mapping[str, Any]) -> str:
    """Why a tuning missed its band, and what a GM can do about it."""
    a = r.get("across")
    last = r["path"][-1]["win_rate"] if r.get("path") else None
    if last is not None and in_band(last, r["target_win"], r["tolerance"]):
        return (f"why: on the search's dice these settings won {_pct(last)}, inside the band; the fresh checks "
                f"on other dice give {_pct(r['pc_win_rate'])}: the difference is the dice. More fights per "
                "candidate (-n) or more rounds (--refine) narrow it.")
    if a:
        return (f"why: the target {_pct(r['target_win'])} lies between these settings ({_pct(a['at'])} on the "
                f"last round's dice) and one step away, {a['change']} ({_pct(a['win_rate'])}): that knob's step "
                "is too coarse here. Declare a finer knob in a `tuning:` block (a count of a weaker template, "
                "a distance, cover cells; `tactica new` writes an example), or take the nearer of the two.")
    side = "lower" if r["pc_win_rate"] > r["target_win"] else "higher"
    return (f"why: no setting one step from these put the PC win {side}, nearer the target: the knobs are "
            "at the end of their ranges or move it the wrong way. Widen their min/max or declare other knobs "
            "in a `tuning:` block (`tactica new` writes an example).")


def render_tuning(console: Console, r: Mapping[str, Any], out: str) -> None:
    """The tuning search: knobs, the path it took and the fresh measurement(s)."""
    src = "declared in the scenario" if r["knobs_declared"] else "derived (the scenario declares none)"
    console.print(f"[bold]{escape(r['scenario'])}[/]: target PC win {_pct(r['target_win'])} "
                  f"+- {_pct(r['tolerance'])}; knobs {src}: "
                  + escape(", ".join(k["label"] for k in r["knobs"])), highlight=False)
    t = Table(title="search path (every candidate of a round is played on the same dice)", header_style="bold")
    for col in ("round", "step", "change", "fights", "PC win", "95% interval"):
        t.add_column(col, justify="left" if col == "change" else "right")
    for p in r["path"]:
        t.add_row(str(p["round"]), str(p["step"]), escape(p["change"]), str(p["episodes"]), _pct(p["win_rate"]),
                  f"{_pct(p['ci_low'])} - {_pct(p['ci_high'])}")
    console.print(t)
    for c in r["checks"]:
        console.print(f"round {c['round']} fresh check (seed {c['seed']}, {c['episodes']} fights): PC win "
                      f"{_pct(c['pc_win_rate'])} ({_pct(c['ci_low'])} - {_pct(c['ci_high'])}), {c['label']}",
                      highlight=False)
    c = r["check"]
    if len(c["rounds"]) > 1:
        console.print(f"the final settings, all their fresh checks pooled ({c['episodes']} fights): PC win "
                      f"{_pct(c['pc_win_rate'])} ({_pct(c['ci_low'])} - {_pct(c['ci_high'])}), {c['label']}",
                      highlight=False)
    _table_note(console, r)
    verdict = "[green]within tolerance[/]" if r["within_tolerance"] else "[bold red]NOT within tolerance[/]"
    console.print(f"result: {verdict}", highlight=False)
    console.print("settings: " + escape(", ".join(f"{k} = {v}" for k, v in r["values"].items())), highlight=False)
    if not r["within_tolerance"]:
        console.print(escape(why_missed(r)), highlight=False)
    console.print(f"tuned scenario written to {escape(out)}", highlight=False)
