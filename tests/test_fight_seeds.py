"""How `tactica evaluate` seeds its fights (issue 31, (c): a measurement that separates players
a few points apart).

Fight k of a side on the s-th scenario is seeded from (seed, s x the first side's fights + k)
(`--fight-seeds scenario`, the default): every map rolls its own dice. Before 2026-12-03 fight
k of every scenario was seeded from (seed, k) (`--fight-seeds index`): with one fight a side
on 400 maps, all 800 fights of a seed rolled the same dice, so the maps' outcomes moved
together with the seed. Checked here:

- the plan's seed indices in both modes (the swapped fight keeps its side's index: the pair
  is still played on the same dice);
- one scenario listed twice: with `index` both copies play the same fights, with `scenario`
  they do not, and the first scenario's fights are the same in both modes (a one-scenario
  run is unchanged);
- the CLI option, its JSON field, and a clear error for a bad value.
"""

from __future__ import annotations

import json

from typer.testing import CliRunner

from evaluation.tournament import _play, load_scenarios, plan_fights
from tactica.cli import app


def test_plan_gives_every_scenario_its_own_seed_indices():
    fights = plan_fights(2, ["x", "y"], 3)
    assert [(f.scenario, f.swapped, f.k, f.dice) for f in fights] == [
        (0, False, 0, 0), (0, False, 1, 1), (0, True, 0, 0),
        (1, False, 0, 2), (1, False, 1, 3), (1, True, 0, 2)]
    old = plan_fights(2, ["x", "y"], 3, fight_seeds="index")
    assert [f.dice for f in old] == [f.k for f in old] == [0, 1, 0, 0, 1, 0]


def _winners(mode: str, episodes: int = 12) -> tuple[list, list]:
    scen = load_scenarios(["cortex/duel", "cortex/duel"])      # the same map twice
    fights = plan_fights(2, ["random", "aggressive"], episodes, fight_seeds=mode)
    won = [_play((scen, fights, "shared"), i) for i in range(len(fights))]
    return won[:episodes], won[episodes:]


def test_the_same_map_twice_plays_other_fights_unless_seeded_by_index():
    first_old, second_old = _winners("index")
    assert first_old == second_old                 # every scenario's fight k on the same dice
    first, second = _winners("scenario")
    assert first == first_old                      # the first scenario is seeded as before
    assert second != first                         # the second rolls its own dice


def test_cli_option_and_json_field():
    args = ["evaluate", "--policies", "random", "--against", "aggressive", "--scenarios", "cortex/duel",
            "--episodes", "2", "--json"]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["fight_seeds"] == "scenario"
    r = CliRunner().invoke(app, [*args, "--fight-seeds", "index"])
    assert r.exit_code == 0 and json.loads(r.stdout)["fight_seeds"] == "index"
    r = CliRunner().invoke(app, [*args, "--fight-seeds", "map"])
    assert r.exit_code != 0 and r.exception is None or isinstance(r.exception, SystemExit)
    assert "--fight-seeds" in r.output and "scenario or index" in r.output and "Traceback" not in r.output
