"""`tactica evaluate`: round robins of policies, with Wilson intervals, Elo ratings, a report, and a fights'
log that lets a stopped run go on (evaluation/tournament.py, evaluation/fight_log.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from rules.errors import TacticaError
from rules.limits import MAX_EPISODES, MAX_GENERATED, MAX_SEED, cap_workers
from tactica.textsafe import safe


def _fights(n: int) -> str:
    return f"{n} fight" if n == 1 else f"{n} fights"


def register(app: typer.Typer, friendly, out, err, default_scenario: str, workers_help: str) -> None:
    """Add `evaluate` to `app` (tactica/cli.py's console, error wrapper, default scenario and --workers help)."""
    @app.command()
    @friendly
    def evaluate(
        policies: str = typer.Option(..., "--policies", help="Comma-separated policies; every pair plays, both sides."),
        against: Optional[str] = typer.Option(None, "--against", help="Play each policy only against this one (a "
                                              "table of players against one reference, on the same fights)."),
        scenarios: Optional[str] = typer.Option(None, "--scenarios", help="Comma-separated bundled scenario names or files "
                                                f"(default {default_scenario} unless --generated is given)."),
        ruleset: Optional[str] = typer.Option(None, "--ruleset", help="Ruleset of the generated maps."),
        generated: int = typer.Option(0, "--generated", min=0, max=MAX_GENERATED, help="Held-out mirrored generated maps to add (seeds from 1,000,000)."),
        episodes: int = typer.Option(40, "--episodes", "-n", min=1, max=MAX_EPISODES, help="Fights per pair per scenario, half on each side."),
        seed: list[int] = typer.Option([], "--seed", min=0, max=MAX_SEED,
                                                 help="Seed: fight k of a side on the s-th scenario is seeded from (seed, "
                                                 "s x fights a side + k). Repeat it "
                                                 "(--seed 0 --seed 1 ...) to play everything once per seed: rates "
                                                 "pooled over the seeds, with each seed's rate and their spread. [default: 0]"),
        dice_streams: str = typer.Option("shared", "--dice-streams",
                                         help="shared: one dice stream a fight; seat: one per team; figure: one per "
                                         "figure (the swapped fight gives each seat the same luck even where the "
                                         "players' decisions differ)."),
        fight_seeds: str = typer.Option("scenario", "--fight-seeds", help="scenario: every scenario its own dice; "
                                        "index: fight k of every scenario on the same dice, seeded from (seed, k) "
                                        "(how evaluations before 2026-12-03 were seeded)."),
        workers: int = typer.Option(1, "--workers", "-w", min=1, help=workers_help),
        backend: str = typer.Option("local", "--backend", help="local (processes) or ray (Ray tasks)."),
        address: Optional[str] = typer.Option(None, "--address", help="Ray cluster address (default: start a local Ray)."),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object (pairs: a, b, scenario, n, a_win_rate, ci_low, ci_high, draws, per_seed, spread ...; elo)."),
        report: Optional[Path] = typer.Option(None, "--report", help="Write a Markdown report, a win-rate heatmap PNG and "
                                              "the JSON into this folder."),
        fights_log: Optional[Path] = typer.Option(None, "--fights-log", help="Write each fight's result to this file "
                                                  "as it ends (JSON lines). Run the same command again after a stop and "
                                                  "the fights the file holds are not played again; the result is the "
                                                  "same as an uninterrupted run's."),
        reuse_log: list[Path] = typer.Option([], "--reuse-log", help="Another run's fights' log (repeatable): "
                                             "the fights it holds that this run plays too (same scenario, "
                                             "policies, seed and dice) are taken from it, not played again; "
                                             "e.g. a 100-map run's in a 400-map run. Needs --fights-log."),
    ) -> None:
        """Round robin of policies: win rates with Wilson 95% intervals, per scenario and overall,
        and Elo ratings with bootstrap intervals.

        Policies are registry names (see `tactica scenarios`/README) or exported .npz files.
        Progress goes to stderr: a bar on a terminal, and where stderr is a file (a long run in
        the background) a line every 30 s with the fights done and the time left."""
        import time

        from agents.base import check_policy
        from evaluation.fight_log import fights_held
        from evaluation.tournament import round_robin
        from rules.ruleset import get_ruleset
        from rules.scenario import load_scenario
        from tactica.encounters import progress_bar

        names = [p.strip() for p in policies.split(",") if p.strip()]
        for p in names:
            check_policy(p, "--policies")
        if against is not None:
            check_policy(against, "--against")
        if len(set(names) | {against} - {None}) < 2:
            raise TacticaError(f"{policies!r}", field="--policies", expected="at least two different policies, comma-separated")
        if generated and not ruleset:
            raise TacticaError("--generated needs a ruleset", field="--ruleset", expected="the ruleset of the generated maps")
        if ruleset and not generated:
            raise TacticaError("--ruleset is for generated maps", field="--generated", expected="a number of maps >= 1")
        wanted = [s.strip() for s in scenarios.split(",") if s.strip()] if scenarios else []
        if not wanted and not generated:
            wanted = [default_scenario]
        specs = [load_scenario(s) for s in wanted]
        if generated:
            from envs.generators import heldout_scenarios

            get_ruleset(ruleset)
            specs += [(load_scenario(d)[0], d["name"]) for d in heldout_scenarios(ruleset, generated)]
        seeds = list(dict.fromkeys(seed)) if seed else [0]
        t0 = time.perf_counter()
        tty = sys.stderr.isatty()
        held = fights_held(fights_log) if fights_log is not None else 0
        if held:   # a resumed run: the bar counts the fights left
            err.print(f"fights' log {safe(str(fights_log))}: about {_fights(held)} in it; the progress counts "
                      "the fights left to play", highlight=False, soft_wrap=True)
        with progress_bar(err, "evaluating", tty, log=not tty) as update:
            result = round_robin(specs, names, episodes, seeds, workers=workers, backend=backend, address=address,
                                 progress=update, dice_streams=dice_streams, against=against, fight_seeds=fight_seeds,
                                 log=fights_log, reuse=reuse_log)
        seconds = time.perf_counter() - t0
        if fights_log is not None:
            got = result["log"]
            taken = f", {_fights(got['reused'])} taken from --reuse-log" if reuse_log else ""
            err.print(f"fights' log {safe(str(fights_log))}: {_fights(got['read'])} read from it{taken}, "
                      f"{got['played']} played and written to it", highlight=False, soft_wrap=True)
        written = None
        if report is not None:
            from evaluation.report import shell_command, write_report

            argv = ["tactica", "evaluate", "--policies", policies] + (["--against", against] if against else [])
            argv += ["--scenarios", scenarios] if scenarios else []
            argv += ["--ruleset", ruleset, "--generated", str(generated)] if generated else []
            argv += ["--episodes", str(episodes)] + [x for k in seeds for x in ("--seed", str(k))] + ["--workers", str(workers)]
            argv += ["--dice-streams", dice_streams] if dice_streams != "shared" else []
            argv += ["--fight-seeds", fight_seeds] if fight_seeds != "scenario" else []
            written = write_report(result, report, shell_command(argv), seconds)
        if as_json:
            print(json.dumps(result, indent=2))
            if written is not None:
                err.print(f"report: {safe(written)}", highlight=False)
            return
        from rich import box

        several = len(result["scenarios"]) > 1
        several_seeds = len(seeds) > 1
        out.print(f"round robin: {len(result['scenarios'])} scenario(s), {episodes} fights per pair per scenario "
                  f"(half on each side), seed{'s' if several_seeds else ''} {', '.join(map(str, seeds))}"
                  + (" (rates pooled over the seeds)" if several_seeds else "")
                  + (f", dice streams per {dice_streams}" if dice_streams != "shared" else "")
                  + (", every scenario's fight k on the same dice" if fight_seeds == "index" else ""), highlight=False)
        width = max(len(n) for n in result["scenarios"] + ["all"])
        for a, b in {(p["a"], p["b"]): None for p in result["pairs"]}:
            t = Table(title=f"{safe(a)} (a) vs {safe(b)} (b)", box=box.SIMPLE_HEAD, title_justify="left")
            t.add_column("scenario", no_wrap=True, min_width=width)
            for col in ("fights", "a wins", "draws", "a win rate", "95% interval"):
                t.add_column(col, justify="right", no_wrap=col == "95% interval")
            for p in result["pairs"]:
                if (p["a"], p["b"]) != (a, b) or (p["scenario"] == "all" and not several):
                    continue
                t.add_row(safe(p["scenario"]), str(p["n"]), str(p["a_wins"]), str(p["draws"]), f"{p['a_win_rate']:.1%}",
                          f"{p['ci_low']:.1%}-{p['ci_high']:.1%}", style="bold" if p["scenario"] == "all" else None)
            out.print(t)
            if several_seeds:
                whole = next(p for p in result["pairs"] if (p["a"], p["b"], p["scenario"]) == (a, b, "all"))
                sp = whole["spread"]
                out.print("  a's rate per seed: " + ", ".join(f"{r['seed']}: {r['a_win_rate']:.1%}" for r in whole["per_seed"])
                          + f"; spread {sp['min']:.1%}-{sp['max']:.1%}, sd {100 * sp['sd']:.1f} points", highlight=False)
        t = Table(title="Elo (Bradley-Terry over every fight, 95% bootstrap interval)", box=box.SIMPLE_HEAD,
                  title_justify="left")
        for col in ("policy", "Elo", "95% interval", "fights"):
            t.add_column(col, justify="left" if col == "policy" else "right")
        for e in result["elo"]:
            t.add_row(safe(e["policy"]), f"{e['rating']:.0f}", f"{e['ci_low']:.0f} to {e['ci_high']:.0f}", str(e["games"]))
        out.print(t)
        total = sum(p["n"] for p in result["pairs"] if p["scenario"] == "all")
        out.print(f"{total} fights in {seconds:.1f} s on {cap_workers(workers, total)} worker(s)", highlight=False)
        if written is not None:
            out.print(f"report: {safe(written)}", highlight=False)
