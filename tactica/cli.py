"""The `tactica` command line: a thin layer over rules/, agents/ and evaluation/."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Callable, Optional

import typer
from rich.console import Console
from rich.table import Table

from rules.errors import TacticaError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Tactica: tabletop-RPG combat rules as simulations, RL environments and NPC brains.")
out = Console(soft_wrap=True)
err = Console(stderr=True)

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
            fail(escape(f"{getattr(e, 'filename', '') or ''}: {e.strerror or e}"))
    return wrapper


def escape(text: str) -> str:
    from rich.markup import escape as esc
    return esc(text)


def parse_policies(items: list[str]) -> dict[str, str]:
    from agents.base import available_policies

    pols: dict[str, str] = {}
    for item in items:
        team, sep, name = item.partition("=")
        if not sep or not team or not name:
            raise TacticaError(f"{item!r}", field="--policy", expected="TEAM=POLICY (or *=POLICY for every team)")
        if name not in available_policies():
            raise TacticaError(f"unknown policy {name!r}", field="--policy",
                               expected="one of " + ", ".join(available_policies()))
        pols[team] = name
    return pols


@app.command()
@friendly
def simulate(
    scenario: str = typer.Argument(DEFAULT_SCENARIO, help="A bundled scenario name or a scenario file."),
    policy: list[str] = typer.Option([], "--policy", "-p", help="TEAM=POLICY (repeatable; *=POLICY for all)."),
    episodes: int = typer.Option(200, "--episodes", "-n", min=1, help="Number of fights."),
    seed: int = typer.Option(0, "--seed", help="Seed: the same seed gives the same fights."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    log: Optional[Path] = typer.Option(None, "--log", help="Write every event of every fight as JSON lines."),
) -> None:
    """Play N fights and report each team's wins, win rate, draws and mean rounds."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from evaluation.simulate import check_policies, simulate as run
    from rules.scenario import load_scenario

    spec, src = load_scenario(scenario)
    pols = check_policies(spec, parse_policies(policy))
    fh = open(log, "w", encoding="utf-8") if log else None
    try:
        show = not as_json and sys.stderr.isatty()
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=err, disable=not show, transient=True) as prog:
            task = prog.add_task(f"simulating {spec.name}", total=episodes)
            summary, _ = run(spec, pols, episodes, seed, src, log=fh,
                             progress=lambda k: prog.update(task, completed=k))
    finally:
        if fh:
            fh.close()
    summary["policies"] = pols
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    t = Table(title=f"{spec.name} ({spec.ruleset}) - {episodes} fights, seed {seed}")
    for col in ("team", "policy", "wins", "win rate", "95% interval"):
        t.add_column(col, justify="right" if col != "team" else "left")
    for name, v in summary["teams"].items():
        t.add_row(name, pols[name], str(v["wins"]), f"{v['win_rate']:.1%}",
                  f"{v['ci_low']:.1%} - {v['ci_high']:.1%}")
    out.print(t)
    out.print(f"draws: {summary['draws']}   mean rounds: {summary['mean_rounds']:.2f}")
    if log:
        out.print(f"event log written to {log}")


@app.command()
@friendly
def replay(
    file: Path = typer.Argument(..., help="A replay file: a scenario plus steps (actor, action, dice)."),
    as_json: bool = typer.Option(False, "--json", help="Print the events and the final state as JSON."),
) -> None:
    """Play a scripted fight and print it as narration (or JSON events and final state)."""
    from rules.events import narrate
    from rules.replay import run_replay, state_summary

    battle = run_replay(file)
    if as_json:
        print(json.dumps({"events": battle.events, "final_state": state_summary(battle.state)}, indent=1))
        return
    for e in battle.events:
        if e["type"] == "roll" and e.get("purpose") == "initiative":
            continue
        out.print(escape(narrate(e)), highlight=False)
    s = battle.state
    rs = battle.ruleset
    out.print()
    for c in s.combatants:
        out.print(escape(f"{rs.describe(c)} at {list(s.grid.xy(c.pos))}"), highlight=False)


@app.command()
@friendly
def validate(file: Path = typer.Argument(..., help="A scenario or replay file.")) -> None:
    """Check a scenario (or replay) file and say what is wrong, or that it is fine."""
    from rules.replay import run_replay
    from rules.scenario import build_state, parse_scenario, read_document

    doc = read_document(file)
    if isinstance(doc, dict) and "steps" in doc:
        b = run_replay(file)
        out.print(f"ok: {file} is a valid replay of {b.state.scenario} ({len(doc['steps'])} steps)")
        return
    spec = parse_scenario(doc, str(file))
    st = build_state(spec, str(file))
    out.print(f"ok: {file} is a valid {spec.ruleset} scenario: {len(spec.teams)} teams, "
              f"{len(st.combatants)} figures, {st.grid.width}x{st.grid.height} map")


@app.command()
@friendly
def rulesets(as_json: bool = typer.Option(False, "--json")) -> None:
    """List the rule systems: name, version and supported actions."""
    from rules.ruleset import available_rulesets, get_ruleset

    infos = [get_ruleset(n).info() for n in available_rulesets()]
    if as_json:
        print(json.dumps(infos, indent=2))
        return
    t = Table(title="rule systems")
    for col in ("name", "version", "actions", "description"):
        t.add_column(col)
    for i in infos:
        acts = ", ".join(k + (f" ({'/'.join(v)})" if v else "") for k, v in i["actions"].items())
        t.add_row(i["name"], str(i["version"]), acts, i["description"])
    out.print(t)


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
    for col in ("name", "ruleset", "teams", "map"):
        t.add_column(col)
    for r in rows:
        t.add_row(r["name"], r["ruleset"], "; ".join(f"{k}: {len(v)}" for k, v in r["teams"].items()),
                  f"{r['map'][0]}x{r['map'][1]}")
    out.print(t)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
