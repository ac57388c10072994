"""Encounter difficulty and tuning: honest intervals, worker- and backend-independent numbers,
a tuner that lands where it says, and clear errors (issue 10).

Fast policies (`aggressive`) on `cortex/duel` keep this quick: its true PC win rate is near
one half, where an interval has the most room to miss. Nothing is cached between runs.
"""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from evaluation.difficulty import LABELS, assess, label_for, public, run_fights
from evaluation.parallel import FightPool
from evaluation.tuning import apply_knobs, baseline, parse_knobs, tune, write_tuned
from rules.errors import TacticaError
from rules.scenario import build_state, bundled_scenarios, load_scenario, parse_scenario, resolve_scenario
from tactica.cli import app

AGGR = {"*": "aggressive"}
runner = CliRunner()


def duel():
    return load_scenario("cortex/duel")


def coverage(truth_fights: int, runs: int, per_run: int) -> tuple[float, float]:
    """(truth, share of `runs` 95% intervals of `per_run` fights that cover it)."""
    spec, src = duel()
    with FightPool(2) as pool:
        truth = assess(spec, policies=AGGR, episodes=truth_fights, seed=0, source=src, pool=pool)["pc_win_rate"]
        covered = 0
        for k in range(runs):
            r = assess(spec, policies=AGGR, episodes=per_run, seed=1000 + k, source=src, pool=pool)
            covered += r["ci_low"] <= truth <= r["ci_high"]
    return truth, covered / runs


def test_intervals_cover_the_truth_about_95_percent_of_the_time():
    """Truth from 4,000 fights; 100 runs of 40 fights: coverage within sampling error of 0.95.

    With 100 intervals the share covering has a standard error of about 0.022, so 0.88-0.99
    is roughly +-3 standard errors around 0.95."""
    truth, cov = coverage(4000, 100, 40)
    assert 0.35 < truth < 0.65
    assert 0.88 <= cov <= 0.99, cov


@pytest.mark.slow
def test_intervals_cover_the_truth_long_run():
    """Truth from 20,000 fights; 400 runs of 40: coverage within +-2.5 standard errors of 0.95."""
    truth, cov = coverage(20_000, 400, 40)
    assert 0.92 <= cov <= 0.98, (truth, cov)


def test_report_keys_and_consistency():
    spec, src = duel()
    r = public(assess(spec, policies=AGGR, episodes=300, seed=5, source=src))
    for key in ("pc_win_rate", "ci_low", "ci_high", "label", "draws", "p_pc_down", "p_pc_death",
                "damage_taken", "rounds_histogram", "per_figure"):
        assert key in r
    assert r["pc_team"] == "crew" and r["episodes"] == 300
    assert r["ci_low"] <= r["pc_win_rate"] <= r["ci_high"]
    assert sum(r["rounds_histogram"].values()) == 300
    assert r["pc_wins"] + r["draws"] + r["pc_losses"] == 300
    assert set(r["damage_taken"]) == {"mal"}
    assert 0 <= r["damage_taken"]["mal"] <= r["per_figure"]["mal"]["max_health"]
    # the lone PC goes down in every fight it loses (a one-on-one is won by the last standing)
    assert r["p_pc_down"] >= r["pc_losses"] / 300
    assert r["per_figure"]["mal"]["p_down"] == r["p_pc_down"]
    assert r["label"] == label_for(r["pc_win_rate"], r["p_pc_death"])
    json.dumps(r)


def test_labels_follow_the_documented_thresholds():
    assert [lab for lab, _, _ in LABELS] == ["trivial", "easy", "medium", "hard"]
    assert label_for(0.99, 0.0) == "trivial"
    assert label_for(0.99, 0.05) == "easy"           # deaths cap the label even when wins are sure
    assert label_for(0.70, 0.10) == "medium"
    assert label_for(0.50, 0.40) == "hard"
    assert label_for(0.30, 0.0) == "deadly"
    assert label_for(0.90, 0.60) == "deadly"


def test_pc_team_and_policies_are_chosen_as_asked():
    spec, src = duel()
    r = assess(spec, pc="outlaws", policies={"crew": "random", "outlaws": "aggressive"}, episodes=50, seed=1,
               source=src)
    assert r["pc_team"] == "outlaws" and set(r["damage_taken"]) == {"jubal"}
    assert r["policies"] == {"crew": "random", "outlaws": "aggressive"}
    default = assess(spec, episodes=2, seed=1, source=src)
    assert set(default["policies"].values()) == {"tactical"}


def test_same_json_for_one_and_two_workers():
    spec, src = duel()
    one = public(assess(spec, policies=AGGR, episodes=300, seed=11, source=src, workers=1))
    two = public(assess(spec, policies=AGGR, episodes=300, seed=11, source=src, workers=2))
    assert json.dumps(one) == json.dumps(two)


def test_precision_mode_stops_at_the_precision_and_ignores_workers():
    spec, src = duel()
    with FightPool(2) as pool:
        a = public(assess(spec, policies=AGGR, precision=0.05, seed=2, source=src, pool=pool))
    b = public(assess(spec, policies=AGGR, precision=0.05, seed=2, source=src, workers=1))
    assert json.dumps(a) == json.dumps(b)
    assert a["half_width"] <= 0.05 and a["stopped"] == "precision reached"
    assert a["episodes"] % 200 == 0
    capped = assess(spec, policies=AGGR, precision=0.01, max_episodes=300, seed=2, source=src)
    assert capped["episodes"] == 300 and capped["stopped"] == "episode cap reached"


def test_ray_backend_gives_the_same_json_as_local():
    pytest.importorskip("ray")
    import ray

    spec, src = duel()
    local = public(assess(spec, policies=AGGR, episodes=200, seed=4, source=src, workers=2))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = public(assess(spec, policies=AGGR, episodes=200, seed=4, source=src, workers=2, backend="ray"))
    finally:
        ray.shutdown()
    assert json.dumps(local) == json.dumps(remote)


def test_cli_json_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "d.png"
    res = runner.invoke(app, ["difficulty", "cortex/duel", "-p", "*=aggressive", "-n", "100", "--seed", "3",
                              "--json", "--plot", str(png)])
    assert res.exit_code == 0, res.output
    r = json.loads(res.stdout)
    assert r["episodes"] == 100 and r["label"] in ("trivial", "easy", "medium", "hard", "deadly")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    spec, src = duel()
    assert r == json.loads(json.dumps(public(assess(spec, policies=AGGR, episodes=100, seed=3, source=src))))
    text = runner.invoke(app, ["difficulty", "cortex/duel", "-p", "*=aggressive", "-n", "50"])
    assert text.exit_code == 0 and "PC team wins" in text.stdout and "per figure" in text.stdout


@pytest.mark.parametrize("args, field", [
    (["-n", "10", "--precision", "0.05"], "--episodes/--precision"),
    (["--precision", "0.7"], "--precision"),
    (["--pc", "nobody"], "--pc"),
    (["-p", "crew=nosuch"], "--policy"),
    (["-p", "ghosts=random"], "--policy"),
    (["--backend", "spark"], "--backend"),
    (["--workers", "0"], "--workers"),
    (["--address", "auto"], "--address"),
    (["--plot", "out.txt"], "--plot"),
])
def test_difficulty_bad_input_is_one_line_and_exit_2(args, field):
    res = runner.invoke(app, ["difficulty", "cortex/duel", "-p", "*=aggressive", *args])
    assert res.exit_code == 2, res.output
    assert field in res.output and "Traceback" not in res.output


def test_two_teams_marked_pc_need_pc_named(tmp_path):
    """Whose chance to win is reported is never a guess: with two teams marked `pc: true` difficulty and tune ask for
    --pc (the first was taken silently before), and with --pc they report that team."""
    doc, _ = resolve_scenario("cortex/duel")
    for t in doc["teams"]:
        t["pc"] = True
    f = tmp_path / "both.yaml"
    f.write_text(yaml.safe_dump(doc, sort_keys=False))
    for cmd in (["difficulty", str(f), "-n", "2"], ["tune", str(f), "--target-win", "0.5", "-n", "2"]):
        res = runner.invoke(app, cmd)
        assert res.exit_code == 2 and "--pc" in res.output and "crew, outlaws" in res.output, res.output
    res = runner.invoke(app, ["difficulty", str(f), "-n", "2", "--pc", "outlaws", "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["pc_team"] == "outlaws", res.output


def test_difficulty_of_a_missing_scenario_is_an_error():
    res = runner.invoke(app, ["difficulty", "no/such"])
    assert res.exit_code == 2 and "no/such" in res.output


# -- tuning ---------------------------------------------------------------------------------

def test_tuner_reaches_a_reachable_target_on_a_fresh_evaluation(tmp_path):
    """Derived knobs on the duel (about 50% as written); target 70% +- 5%."""
    r = tune("cortex/duel", 0.70, tolerance=0.05, policies=AGGR, episodes=200, check_episodes=800, seed=0)
    assert r["within_tolerance"], r["checks"]
    assert r["changed"] and abs(r["pc_win_rate"] - 0.70) <= 0.05
    assert r["check"]["seeds"][0] == 1          # the check is on other seeds than the search (seed 0)
    # and it holds on an evaluation the tuner never saw
    out = write_tuned(r, tmp_path / "duel.tuned.yaml")
    spec, src = load_scenario(out)
    again = assess(spec, policies=AGGR, episodes=1000, seed=777, source=src)
    assert abs(again["pc_win_rate"] - 0.70) <= 0.05 + 0.03, again["pc_win_rate"]


def test_tuner_compares_candidates_on_common_random_numbers():
    """Every candidate of a round plays fights (seed, 0..n-1): the start is exactly `assess`."""
    r = tune("cortex/duel", 0.9, tolerance=0.05, policies=AGGR, episodes=120, check_episodes=100, seed=9,
             refine=0, max_steps=1)
    spec, src = duel()
    start = assess(spec, policies=AGGR, episodes=120, seed=9, source=src)
    assert r["path"][0]["win_rate"] == start["pc_win_rate"]
    assert [p["step"] for p in r["path"]] == list(range(len(r["path"])))


def test_tune_cli_writes_a_valid_tuned_file_from_declared_knobs(tmp_path):
    doc, _ = resolve_scenario("cortex/duel")
    doc["tuning"] = {"knobs": [{"kind": "trait_step", "figure": "jubal", "attribute": "agility", "min": -3, "max": 1},
                               {"kind": "distance", "team": "outlaws", "min": -2, "max": 2}]}
    src = tmp_path / "duel.yaml"
    src.write_text(yaml.safe_dump(doc), encoding="utf-8")
    out = tmp_path / "tuned.yaml"
    res = runner.invoke(app, ["tune", str(src), "--target-win", "0.65", "--tolerance", "0.08", "-p", "*=aggressive",
                              "-n", "150", "--check-episodes", "400", "-o", str(out), "--json"])
    assert res.exit_code == 0, res.output
    r = json.loads(res.stdout)
    assert r["knobs_declared"] and r["out"] == str(out)
    assert {p["change"] for p in r["path"]} >= {"as written"}
    tuned = yaml.safe_load(out.read_text())
    assert out.read_text().startswith("# Tuned by `tactica tune`")
    build_state(parse_scenario(tuned, str(out)), str(out))
    assert tuned["tuning"] == doc["tuning"]          # the knobs stay, so it can be tuned again


def test_knobs_change_what_they_say():
    doc, src = resolve_scenario("cortex/warehouse")
    spec = parse_scenario(doc, src)
    knobs = parse_knobs(doc, spec, src)
    kinds = [k.kind for k in knobs]
    assert kinds == ["count", "weapon", "trait_step", "cover", "distance"]
    bases = [baseline(doc, k, spec, src) for k in knobs]
    assert bases == [1, 1, 0, 4, 0]
    assert apply_knobs(doc, knobs, bases, bases, src) == doc      # as written: nothing moves
    d = apply_knobs(doc, knobs, [3, 2, 1, 0, 0], bases, src)
    syn = next(t for t in d["teams"] if t["name"] == "syndicate")["combatants"]
    assert [c["template"] for c in syn].count("mercenary") == 3
    assert [c["at"] for c in syn if c["id"].startswith("mercenary")] == [[16, 12], [13, 12]]
    gun = next(c for c in syn if c["id"] == "gunman1")
    assert gun["weapons"] == ["assault_rifle", "knife"]
    heavy = next(c for c in syn if c["id"] == "heavy")
    assert heavy["attributes"] == {"agility": "d10", "strength": "d12"}       # grappler d8 / d10, one step up
    assert all(d["map"]["rows"][y][x] == "." for x, y in ([8, 4], [11, 4], [8, 9], [11, 9]))
    build_state(parse_scenario(d, src), src)
    near = apply_knobs(doc, knobs, [1, 1, 0, 4, -3], bases, src)
    dist = lambda dd: sum(abs(c["at"][0] - 3) + abs(c["at"][1] - 2) for t in dd["teams"] if t["name"] == "syndicate"
                          for c in t["combatants"])
    assert dist(near) < dist(doc)


def test_bundled_tuning_blocks_leave_the_fight_alone():
    """A `tuning:` block is metadata: the same seed gives the same fight with or without it."""
    for name in ("cortex/warehouse", "cortex/ambush"):
        doc, src = resolve_scenario(name)
        assert doc.get("tuning", {}).get("knobs")
        bare = dict(doc)
        bare.pop("tuning")
        pols = {t["name"]: "aggressive" for t in doc["teams"]}
        with FightPool(1) as pool:
            a = run_fights(parse_scenario(doc, src), pols, 3, range(5), pool, src)
            b = run_fights(parse_scenario(bare, src), pols, 3, range(5), pool, src)
        assert a == b


@pytest.mark.parametrize("tuning, field", [
    ({"knobs": [{"kind": "spin", "min": 0, "max": 1}]}, "tuning.knobs[0]"),
    ({"knobs": [{"kind": "count", "team": "ghosts", "template": "gunslinger", "min": 1, "max": 2}]},
     "tuning.knobs[0].team"),
    ({"knobs": [{"kind": "trait_step", "figure": "nobody", "attribute": "agility", "min": -1, "max": 1}]},
     "tuning.knobs[0].figure"),
    ({"knobs": [{"kind": "trait_step", "figure": "jubal", "attribute": "charm", "min": -1, "max": 1}]},
     "tuning.knobs[0].attribute"),
    ({"knobs": [{"kind": "count", "team": "outlaws", "template": "gunslinger", "min": 2, "max": 3}]},
     "tuning.knobs[0].min"),
    ({"knobs": [{"kind": "count", "team": "outlaws", "template": "gunslinger", "min": 0, "max": 2}]},
     "tuning.knobs[0].min"),
    ({"knobs": [{"kind": "weapon", "figure": "jubal", "choices": ["pistol", "rifle"]}]},
     "tuning.knobs[0].choices"),
    ({"knobs": [{"kind": "cover", "cells": [[99, 0]], "terrain": "m"}]}, "tuning.knobs[0].cells[0]"),
    ({"knobs": []}, "tuning.knobs"),
])
def test_bad_tuning_blocks_name_the_field(tmp_path, tuning, field):
    doc, _ = resolve_scenario("cortex/duel")
    doc["tuning"] = tuning
    src = tmp_path / "bad.yaml"
    src.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(TacticaError) as e:
        tune(str(src), 0.6, policies=AGGR, episodes=10, check_episodes=10)
    assert field in e.value.line() and str(src) in e.value.line()
    res = runner.invoke(app, ["tune", str(src), "--target-win", "0.6", "-o", str(tmp_path / "o.yaml")])
    assert res.exit_code == 2 and field in res.output


@pytest.mark.parametrize("args, field", [
    (["--target-win", "1.5"], "--target-win"),
    (["--target-win", "0.5", "--tolerance", "0"], "--tolerance"),
    (["--target-win", "0.5", "-n", "0"], "--episodes"),
])
def test_tune_bad_options(args, field, tmp_path):
    res = runner.invoke(app, ["tune", "cortex/duel", *args, "-o", str(tmp_path / "o.yaml")])
    assert res.exit_code == 2 and field in res.output
    assert not (tmp_path / "o.yaml").exists()


def test_default_knobs_for_a_scenario_without_a_tuning_block():
    doc, src = resolve_scenario("cortex/saloon")
    spec = parse_scenario(doc, src)
    knobs = parse_knobs(doc, spec, src)
    assert knobs[0].kind == "count" and knobs[0].team == "locals" and knobs[0].template == "bar_thug"
    assert [k.attribute for k in knobs[1:]] == ["agility", "strength", "vitality"]
    assert all(k.team == "locals" for k in knobs[1:])


def test_metalface_steps_the_traits_it_fires_strikes_and_resists_with(tmp_path):
    """metalface's derived step knobs are PER ('Targeting rolls are PER rolls'), STR (body attacks and
    their damage) and END (the damage taken is reduced by it); AGL was one of them, but AGL orders the
    turns and walks, and one step of it up or down both made a duel easier for the PCs. A foe's PER is a
    toughness a GM can tune: two steps up lose the PCs fights that two steps down win (the same dice)."""
    res = runner.invoke(app, ["new", str(tmp_path / "duel.yaml"), "--ruleset", "metalface"])
    assert res.exit_code == 0, res.output
    doc, src = resolve_scenario(str(tmp_path / "duel.yaml"))
    spec = parse_scenario(doc, src)
    knobs = parse_knobs(doc, spec, src)
    assert [k.attribute for k in knobs[1:]] == ["per", "str", "end"]
    bases = [baseline(doc, k, spec, src) for k in knobs]
    rate = {}
    for dv in (-2, 2):
        vals = list(bases)
        vals[1] += dv
        sp = parse_scenario(apply_knobs(doc, knobs, tuple(vals), bases, src), src)
        assert all(c.stats["values"]["per"] == max(1, base.stats["values"]["per"] + dv)   # never below 1
                   for c, base in zip(build_state(sp, src).combatants, build_state(spec, src).combatants)
                   if c.team == "foes")
        rate[dv] = assess(sp, policies={"*": "tactical"}, episodes=60, seed=0, source=src)["pc_win_rate"]
    assert rate[-2] - rate[2] >= 0.3, rate     # measured: 82% and 26% of 100 fights


def test_tuned_files_round_trip(tmp_path):
    r = {"document": resolve_scenario("cortex/saloon")[0], "source": "cortex/saloon", "target_win": 0.5,
         "tolerance": 0.05, "policies": {}, "check": {"pc_win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6,
                                                      "episodes": 10, "seeds": [1]}}
    for name in ("t.yaml", "t.json"):
        p = write_tuned(r, tmp_path / name)
        loaded, _ = load_scenario(p)
        assert loaded == parse_scenario(r["document"])


def test_fight_records_are_small_and_ordered():
    spec, src = duel()
    with FightPool(2) as pool:
        fights = run_fights(spec, {"crew": "aggressive", "outlaws": "aggressive"}, 0, range(7, 40), pool, src)
    assert [f.index for f in fights] == list(range(7, 40))


@pytest.mark.parametrize("name", bundled_scenarios())
def test_every_bundled_scenario_has_valid_knobs(name):
    """Declared or derived, for every rule system: counts everywhere, trait steps where stat
    blocks take overrides."""
    doc, src = resolve_scenario(name)
    spec = parse_scenario(doc, src)
    knobs = parse_knobs(doc, spec, src)
    assert knobs and knobs[0].kind == "count"
    assert any(k.kind == "trait_step" for k in knobs)


def test_tuning_works_on_another_rule_system():
    r = tune("cybergeneration/alley_brawl", 0.5, policies=AGGR, episodes=30, check_episodes=30, max_steps=1,
             refine=0)
    assert r["path"][0]["change"] == "as written" and r["check"]["episodes"] == 30
    spec = parse_scenario(r["document"], r["source"])
    build_state(spec, r["source"])


def test_local_workers_use_one_blas_thread_unless_the_user_sets_it(monkeypatch) -> None:
    """Spawned workers start with one BLAS thread (a learnt policy's small products ran 5x
    slower in `tactica evaluate` with the default threads on 2 cores); a user's own setting
    is kept, and the parent's environment is left as it was."""
    import os
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with FightPool(2) as pool:
        assert pool.map(os.getenv, "OPENBLAS_NUM_THREADS", [0, 1]) == ["1", "1"]
    assert "OPENBLAS_NUM_THREADS" not in os.environ
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    with FightPool(2) as pool:
        assert pool.map(os.getenv, "OPENBLAS_NUM_THREADS", [0]) == ["3"]
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"


def test_the_figures_are_told_by_their_names() -> None:
    """The per-figure table named figures by id ("rico (PC)"): a GM knows them by name ("Rico (PC)"); two
    figures of one name keep apart by their ids."""
    from evaluation.difficulty import figure_labels

    per = {"rico": {"name": "Rico"}, "goon1": {"name": "Goon"}, "goon2": {"name": "Goon"}, "x": {}}
    assert figure_labels(per) == {"rico": "Rico", "goon1": "Goon (goon1)", "goon2": "Goon (goon2)", "x": "x"}
