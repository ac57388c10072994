"""The `tactica` command line: a thin layer over rules/, agents/ and evaluation/."""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import sys
from pathlib import Path
from typing import Callable, Optional

import typer
from rich.table import Table

from rules.errors import TacticaError
from rules.limits import MAX_EPISODES, MAX_SEED
from tactica.textsafe import SafeConsole, safe

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Tactica: tabletop-RPG combat rules as simulations, RL environments and NPC brains.")
out = SafeConsole(soft_wrap=True)
err = SafeConsole(stderr=True)

DEFAULT_SCENARIO = "cortex/warehouse"


def fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True)
    raise typer.Exit(2)


def friendly(fn: Callable) -> Callable:
    """Turn every Tactica error (and bad files) into one line on stderr and exit status 2."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TacticaError as e:
            fail(escape(e.line()))
        except OSError as e:
            fail(escape(os_error_line(e)))
    return wrapper


def os_error_line(e: OSError) -> str:
    """One line for an OSError: the file it names (standard output: `_NamedStream`) and what failed."""
    what = e.strerror or e.__class__.__name__
    return f"{e.filename}: {what}" if e.filename else what


class _NamedStream:
    """sys.stdout whose failed writes (a full disk under `> file`) name it: an OSError with the
    filename 'standard output', after which the rest goes nowhere (no second error at exit)."""

    def __init__(self, stream, name: str) -> None:
        self._stream, self._name = stream, name

    def _failed(self, e: OSError) -> OSError:
        import os

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass
        return OSError(e.errno, f"cannot write: {e.strerror or e}", self._name)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise self._failed(e) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise self._failed(e) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def escape(text: str) -> str:
    """User-given text shown literally inside a markup string (tactica/textsafe.py)."""
    return safe(text)


def parse_policies(items: list[str]) -> dict[str, str]:
    from agents.base import check_policy

    pols: dict[str, str] = {}
    for item in items:
        team, sep, name = item.partition("=")
        if not sep or not team or not name:
            raise TacticaError(f"{item!r}", field="--policy", expected="TEAM=POLICY (or *=POLICY for every team)")
        check_policy(name, "--policy")
        pols[team] = name
    return pols


@app.command()
@friendly
def simulate(
    scenario: str = typer.Argument(DEFAULT_SCENARIO, help="A bundled scenario name or a scenario file."),
    policy: list[str] = typer.Option([], "--policy", "-p", help="TEAM=POLICY (repeatable; *=POLICY for all; a name or a .npz file; default: tactical)."),
    episodes: int = typer.Option(200, "--episodes", "-n", min=1, max=MAX_EPISODES, help="Number of fights."),
    seed: int = typer.Option(0, "--seed", min=0, max=MAX_SEED, help="Seed: the same seed gives the same fights."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    log: Optional[Path] = typer.Option(None, "--log", help="Write every event of every fight as JSON lines."),
) -> None:
    """Play N fights and report each team's wins, win rate, draws and mean rounds."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from evaluation.simulate import check_policies, simulate as run
    from rules.atomic import atomic_open
    from rules.scenario import load_scenario

    spec, src = load_scenario(scenario)
    pols = check_policies(spec, parse_policies(policy))
    # the log is written whole or not at all; a full disk is one line naming it (rules/atomic.py)
    with atomic_open(log, mode=0o644, field="--log") if log else contextlib.nullcontext() as fh:
        show = not as_json and sys.stderr.isatty()
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=err, disable=not show, transient=True) as prog:
            task = prog.add_task(f"simulating {safe(spec.name)}", total=episodes)
            summary, _ = run(spec, pols, episodes, seed, src, log=fh,
                             progress=lambda k: prog.update(task, completed=k))
    summary["policies"] = pols
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    t = Table(title=f"{safe(spec.name)} ({spec.ruleset}) - {episodes} fights, seed {seed}")
    for col in ("team", "policy", "wins", "win rate", "95% interval"):
        t.add_column(col, justify="right" if col != "team" else "left")
    for name, v in summary["teams"].items():
        t.add_row(safe(name), safe(pols[name]), str(v["wins"]), f"{v['win_rate']:.1%}",
                  f"{v['ci_low']:.1%} - {v['ci_high']:.1%}")
    out.print(t)
    out.print(f"draws: {summary['draws']}   mean rounds: {summary['mean_rounds']:.2f}")
    if log:
        out.print(f"event log written to {safe(log)}", highlight=False)


@app.command()
@friendly
def replay(
    file: Path = typer.Argument(..., help="A replay file: a scenario plus steps (actor, action, dice)."),
    as_json: bool = typer.Option(False, "--json", help="Print the events and the final state as JSON "
                                 "(after an error: those so far, and the error)."),
) -> None:
    """Play a scripted fight and print it as narration (or JSON events and final state).

    On an error the events so far are still shown (narrated, or in the JSON with an `error`
    object: message, file, field, expected), the error is one line on stderr, and the exit
    status is 2."""
    from rules.events import narrate
    from rules.replay import play_replay

    result = play_replay(file)
    battle = result.battle
    if as_json:
        print(json.dumps(result.to_json(), indent=1))
    elif battle is not None:
        told = battle.before_question() if result.error is None else []
        for i, e in enumerate(battle.events):
            if e["type"] == "roll" and e.get("purpose") == "initiative":
                continue
            if told and i == len(battle.events) - 1 and e["type"] == "question":
                # the replay stops at an open question: what its action did so far comes first
                for t in told:
                    out.print(escape(narrate(t)), highlight=False)
            out.print(escape(narrate(e)), highlight=False)
        if result.error is None:
            s = battle.state
            rs = battle.ruleset
            out.print()
            for c in s.combatants:
                out.print(escape(f"{rs.describe(c)} at {list(s.grid.xy(c.pos))}"), highlight=False)
    if result.error is not None:
        raise result.error


@app.command()
@friendly
def validate(file: Path = typer.Argument(..., help="A scenario or replay file.")) -> None:
    """Check a scenario (or replay) file and say what is wrong, or that it is fine."""
    from rules.replay import run_replay
    from rules.scenario import build_state, parse_scenario, read_document

    doc = read_document(file)
    if isinstance(doc, dict) and "steps" in doc:
        b = run_replay(file)
        out.print(f"ok: {safe(file)} is a valid replay of {safe(b.state.scenario)} ({len(doc['steps'])} step{'' if len(doc['steps']) == 1 else 's'})",
                  highlight=False)
        return
    spec = parse_scenario(doc, str(file))
    st = build_state(spec, str(file))
    knobs = ""
    if spec.tuning:  # checked here, not first by `tune`
        from evaluation.tuning import parse_knobs
        knobs = f", {len(parse_knobs(doc, spec, str(file)))} tuning knob(s)"
    out.print(f"ok: {safe(file)} is a valid {spec.ruleset} scenario: {len(spec.teams)} teams, "
              f"{len(st.combatants)} figures, {st.grid.width}x{st.grid.height} map{knobs}", highlight=False)


@app.command()
@friendly
def scenarios(as_json: bool = typer.Option(False, "--json")) -> None:
    """List the bundled scenarios: name, ruleset, teams and map size."""
    from rules.scenario import bundled_scenarios, load_scenario

    rows = []
    for name in bundled_scenarios():
        spec, _ = load_scenario(name)
        rows.append({"name": name, "ruleset": spec.ruleset,
                     "teams": {t.name: [c.get("id") for c in t.combatants] for t in spec.teams},
                     "map": [len(spec.map.rows[0]), len(spec.map.rows)], "description": spec.description})
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    t = Table(title="bundled scenarios")
    # the name is what a GM types next: never cut short (the teams wrap instead)
    t.add_column("name", no_wrap=True, min_width=max((len(r["name"]) for r in rows), default=4))
    t.add_column("ruleset", no_wrap=True)
    t.add_column("teams", min_width=12)
    t.add_column("map", no_wrap=True)
    for r in rows:
        t.add_row(r["name"], r["ruleset"], "; ".join(f"{k}: {len(v)}" for k, v in r["teams"].items()),
                  f"{r['map'][0]}x{r['map'][1]}")
    out.print(t)


_PC_HELP = "The PC team (default: the team marked pc: true, else the first; needed where several are marked)."
_POLICY_HELP = "TEAM=POLICY (repeatable; *=POLICY for all; default tactical)."
_WORKERS_HELP = "Worker processes (or Ray CPUs), capped at the cores and the fights; results do not depend on it."
_ADDRESS_HELP = "Ray cluster address (default: start a local Ray)."


def _shown_progress(as_json: bool) -> dict[str, bool]:
    """How `difficulty` and `tune` show progress on stderr: a live bar on a terminal, plain
    lines now and then in a log, nothing with --json (its stdout is the same either way)."""
    tty = sys.stderr.isatty()
    return {"live": tty and not as_json, "log": not tty and not as_json}


@app.command()
@friendly
def difficulty(
    scenario: str = typer.Argument(DEFAULT_SCENARIO, help="A bundled scenario name or a scenario file."),
    pc: Optional[str] = typer.Option(None, "--pc", help=_PC_HELP),
    policy: list[str] = typer.Option([], "--policy", "-p", help=_POLICY_HELP),
    episodes: Optional[int] = typer.Option(None, "--episodes", "-n", min=1, max=MAX_EPISODES, help="Number of fights (default 1000)."),
    precision: Optional[float] = typer.Option(
        None, "--precision", help="Play until the 95% interval of the PC win rate is at most +-P."),
    max_episodes: int = typer.Option(20_000, "--max-episodes", min=1, max=MAX_EPISODES, help="Cap on fights for --precision."),
    seed: int = typer.Option(0, "--seed", min=0, max=MAX_SEED, help="Seed: fight i is seeded from (seed, i)."),
    workers: int = typer.Option(1, "--workers", "-w", min=1, help=_WORKERS_HELP),
    backend: str = typer.Option("local", "--backend", help="local (processes) or ray (Ray tasks)."),
    address: Optional[str] = typer.Option(None, "--address", help=_ADDRESS_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the whole report as one JSON object."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write a PNG of the outcome distributions."),
) -> None:
    """How likely the PC team is to win an encounter, how bloody it is, and a difficulty label."""
    import time

    from evaluation.difficulty import assess, public
    from rules.scenario import load_scenario
    from tactica.encounters import estimate_bar, render_difficulty

    spec, src = load_scenario(scenario)
    if plot is not None and plot.suffix.lower() != ".png":
        raise TacticaError(f"{plot}: not a .png file", field="--plot", expected="a file name ending in .png")
    t0 = time.perf_counter()
    with estimate_bar(err, f"fights of {spec.name}", **_shown_progress(as_json)) as update:
        report = assess(spec, pc=pc, policies=parse_policies(policy), episodes=episodes, precision=precision,
                        max_episodes=max_episodes, seed=seed, source=src, workers=workers, backend=backend,
                        address=address, progress=update, keep_fights=plot is not None)
    seconds = time.perf_counter() - t0
    if plot is not None:
        from evaluation.difficulty_plot import plot_difficulty
        plot_difficulty(report, report["_fights"], plot)
    if as_json:
        print(json.dumps(public(report), indent=2))
        return
    render_difficulty(out, report, workers=workers, backend=backend, seconds=seconds)
    if plot is not None:
        out.print(f"plot written to {escape(str(plot))}", highlight=False)


@app.command()
@friendly
def tune(
    scenario: str = typer.Argument(..., help="A bundled scenario name or a scenario file (with a tuning block)."),
    target_win: float = typer.Option(..., "--target-win", help="Target PC win probability (0-1)."),
    tolerance: float = typer.Option(0.05, "--tolerance", help="Accepted distance from the target."),
    out_file: Optional[Path] = typer.Option(
        None, "--out", "-o", help="Tuned scenario file (default NAME.tuned.yaml)."),
    pc: Optional[str] = typer.Option(None, "--pc", help=_PC_HELP),
    policy: list[str] = typer.Option([], "--policy", "-p", help=_POLICY_HELP),
    episodes: int = typer.Option(
        400, "--episodes", "-n", min=1, max=MAX_EPISODES, help="Fights per candidate (the same seeds for every candidate)."),
    check_episodes: int = typer.Option(1000, "--check-episodes", min=1, max=MAX_EPISODES, help="Fights of the fresh check of the result."),
    seed: int = typer.Option(0, "--seed", min=0, max=MAX_SEED, help="Seed of the search; the fresh check uses seed + 1."),
    refine: int = typer.Option(
        2, "--refine", help="Further search rounds (new seeds, twice the fights) if the check misses."),
    workers: int = typer.Option(1, "--workers", "-w", min=1, help=_WORKERS_HELP),
    backend: str = typer.Option("local", "--backend", help="local (processes) or ray (Ray tasks)."),
    address: Optional[str] = typer.Option(None, "--address", help=_ADDRESS_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the result (search path, check) as JSON."),
) -> None:
    """Turn an encounter's declared knobs until the PC win probability is near a target."""
    from evaluation.tuning import default_out, tune as run_tune, write_tuned
    from tactica.encounters import estimate_bar, note_line, render_tuning

    shown = _shown_progress(as_json)
    say = (lambda n: err.print(escape(note_line(n)), highlight=False, soft_wrap=True)) if not as_json else None
    with estimate_bar(err, "tuning", **shown, log_ends=False) as update:
        result = run_tune(scenario, target_win, tolerance=tolerance, pc=pc, policies=parse_policies(policy),
                          episodes=episodes, check_episodes=check_episodes, seed=seed, refine=refine,
                          workers=workers, backend=backend, address=address,
                          progress=lambda text, est: update(est, text), on_note=say)
    path = write_tuned(result, out_file or default_out(scenario))
    if as_json:
        print(json.dumps({**{k: v for k, v in result.items() if k != "document"}, "out": str(path)}, indent=2))
        return
    render_tuning(out, result, str(path))


# `evaluate`: round robins of policies (tactica/evaluate_cli.py)
from tactica.evaluate_cli import register as _register_evaluate  # noqa: E402

_register_evaluate(app, friendly, out, err, DEFAULT_SCENARIO, _WORKERS_HELP)


# GM tools: autopilot, suggest, serve (tactica/gm.py)
from tactica.gm import register as _register_gm  # noqa: E402

_register_gm(app, friendly, out, err)

from tactica.newfile import register as _register_new  # noqa: E402

_register_new(app, friendly, out)

from tactica.train_cli import register as _register_train  # noqa: E402
from tactica.import_map import register as _register_import_map  # noqa: E402

_register_import_map(app, friendly, out, err)

_register_train(app, friendly, out)

# `rulesets [NAME]`: the rule systems, or one ruleset's reference (tactica/reference_cli.py)
from tactica.reference_cli import register as _register_reference  # noqa: E402

_register_reference(app, friendly, out)


def _unwrapped(doc: str) -> str:
    """A docstring as one line a paragraph: the help's boxes wrap it to the terminal's width (a
    docstring's own line breaks showed as breaks mid-sentence: 'in the JSON with an `error`' / 'object')."""
    paras = [" ".join(line.strip() for line in p.splitlines()) for p in inspect.cleandoc(doc).split("\n\n")]
    return "\n\n".join(p for p in paras if p)


for _info in app.registered_commands:
    if _info.help is None and _info.callback is not None and _info.callback.__doc__:
        _info.help = _unwrapped(_info.callback.__doc__)


def main() -> None:
    """The console script: a usage error (an unknown option, `--seed -1`) is one line on
    stderr and exit status 2, as every other bad input."""
    try:  # typer >= 0.20 carries its own copy of click
        from typer._click import exceptions as cx
    except ImportError:  # pragma: no cover - older typer on click
        import click.exceptions as cx

    sys.stdout = _NamedStream(sys.stdout, "standard output")
    try:
        code = app(standalone_mode=False)
    except cx.UsageError as e:
        if type(e).__name__ == "NoArgsIsHelpError":  # `tactica` alone: the help
            e.show()
            sys.exit(e.exit_code)
        where = f" (see {e.ctx.command_path} --help)" if e.ctx is not None else ""
        err.print(f"[bold red]error:[/] {escape(' '.join(e.format_message().split()))}{escape(where)}",
                  highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Abort:
        err.print("aborted", highlight=False)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
