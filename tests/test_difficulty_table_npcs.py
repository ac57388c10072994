"""`tactica difficulty` and `tactica tune` say when their NPCs are not the table's: the autopilot and the API play
an NPC team with `best` where it decides fast enough (agents.base.default_policy), the encounter tools with
`tactical` unless told otherwise, and the two can be far apart (metalface/foundry below: 17 points)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from agents.best import BEST, BestEntry
from evaluation.difficulty import assess, table_npcs
from rules.scenario import load_scenario
from tactica.cli import app

runner = CliRunner()


def test_the_report_names_the_npc_teams_played_otherwise_than_at_the_table():
    spec, src = load_scenario("cortex/duel")
    r = assess(spec, episodes=2, seed=1, source=src)
    assert r["table_npcs"] == {"policy": "best", "player": BEST["cortex"].policy, "teams": ["outlaws"]}
    assert assess(spec, policies={"outlaws": "best"}, episodes=2, seed=1, source=src)["table_npcs"] is None
    # the PC team is not an NPC team, whoever plays it
    assert table_npcs("cortex", "crew", {"crew": "aggressive", "outlaws": "best"}) is None
    assert table_npcs("cortex", "outlaws", {"crew": "tactical", "outlaws": "best"})["teams"] == ["crew"]


def test_where_best_is_too_slow_for_the_table_tactical_is_the_table_and_nothing_is_said(monkeypatch):
    slow = BestEntry(BEST["cortex"].policy, "too slow", 9.0, 9.0)
    monkeypatch.setitem(BEST, "cortex", slow)
    assert table_npcs("cortex", "crew", {"crew": "tactical", "outlaws": "tactical"}) is None
    assert table_npcs("cortex", "crew", {"crew": "tactical", "outlaws": "aggressive"}) == {
        "policy": "tactical", "player": "tactical", "teams": ["outlaws"]}


def test_the_cli_says_so_with_the_flags_that_fix_it():
    res = runner.invoke(app, ["difficulty", "cortex/duel", "-n", "4", "--seed", "1"])
    assert res.exit_code == 0, res.output
    assert "note: the autopilot and the API play outlaws with `best` (planner-net)" in " ".join(res.stdout.split())
    assert "-p outlaws=best" in res.stdout
    quiet = runner.invoke(app, ["difficulty", "cortex/duel", "-n", "2", "--seed", "1", "-p", "outlaws=best"])
    assert quiet.exit_code == 0 and "note:" not in quiet.stdout
    js = runner.invoke(app, ["difficulty", "cortex/duel", "-n", "2", "--seed", "1", "--json"])
    assert json.loads(js.stdout)["table_npcs"]["teams"] == ["outlaws"]


def test_the_tables_npcs_make_a_real_difference():
    """metalface's network alone (`best` there until 2026-12-07, fast; `best` now searches over its candidates and
    is stronger still, at about 6 CPU s a fight here, too slow for the suite) against the same PCs on the same dice:
    the PCs' odds fall far below what `tactical` NPCs give (measured 61.0% against 43.5% over 200 fights, seed 1;
    67.5% against 37.5% over these 40, and 72.5/35.0, 62.5/40.0 with seeds 2 and 3)."""
    spec, src = load_scenario("metalface/foundry")
    npc = table_npcs("metalface", "cell", {"cell": "tactical", "security": "tactical"})["teams"]
    assert npc == ["security"]
    plain = assess(spec, episodes=40, seed=1, source=src)
    table = assess(spec, policies={"security": "ppo"}, episodes=40, seed=1, source=src)
    assert table["pc_win_rate"] < plain["pc_win_rate"] - 0.1, (plain["pc_win_rate"], table["pc_win_rate"])


def test_in_a_fight_too_large_for_best_s_search_the_table_plays_tactical(monkeypatch):
    """`best` plays `tactical` in a fight of more figures than its entry's `max_figures` (agents/best.py): there the
    encounter tools' `tactical` NPCs are the table's, and nothing is said; a smaller fight still gets the note."""
    monkeypatch.setitem(BEST, "cortex", BEST["cortex"]._replace(max_figures=2))
    assert table_npcs("cortex", "crew", {"crew": "tactical", "outlaws": "tactical"}, figures=3) is None
    assert table_npcs("cortex", "crew", {"crew": "tactical", "outlaws": "aggressive"}, figures=3) == {
        "policy": "best", "player": "tactical", "teams": ["outlaws"]}
    assert table_npcs("cortex", "crew", {"crew": "tactical", "outlaws": "tactical"}, figures=2)["teams"] == ["outlaws"]
    spec, src = load_scenario("cortex/warehouse")   # 6 figures
    assert assess(spec, episodes=2, seed=1, source=src)["table_npcs"] is None
    monkeypatch.setitem(BEST, "cortex", BEST["cortex"]._replace(max_figures=6))
    assert assess(spec, episodes=2, seed=1, source=src)["table_npcs"]["teams"] == ["syndicate"]
