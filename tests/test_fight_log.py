"""`tactica evaluate --fights-log`: a stopped evaluation resumes where it was (evaluation/fight_log.py).

- a run stopped part way (its log cut after some fights, the last line cut mid-write) and run again
  gives the same result as one uninterrupted run, number for number, and plays only the fights the
  log does not hold;
- a log of another run (other fights a pair, players, seeds, policy file) is refused with the field
  that differs, and the log is left as it was;
- a line in the middle that is not JSON, or not a fight of this plan, is an error naming the file;
- from the command line: the message says how many fights were read and played, and a bad log is
  one line of error, not a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluation.tournament import load_scenarios, round_robin
from rules.errors import TacticaError
from tactica.cli import app

from tests.fight_log_setup import PLAYERS, SEEDS, count_plays
from tests.fight_log_setup import without_log as _without_log


@pytest.fixture(scope="module")
def scen():
    return load_scenarios(["cortex/duel", "cortex/warehouse"])


@pytest.fixture(scope="module")
def full(scen, tmp_path_factory) -> tuple[dict, Path]:
    path = tmp_path_factory.mktemp("log") / "fights.jsonl"
    out = round_robin(scen, PLAYERS, 4, SEEDS, log=path)
    return out, path


def test_the_log_holds_every_fight_and_changes_no_result(scen, full) -> None:
    out, path = full
    plain = round_robin(scen, PLAYERS, 4, SEEDS)
    assert _without_log(out) == plain
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    assert head["fights"] == 16 and head["episodes"] == 4 and head["seeds"] == SEEDS
    rows = [json.loads(x) for x in lines[1:]]
    assert sorted(r["i"] for r in rows) == list(range(16))
    assert out["log"] == {"path": str(path), "read": 0, "reused": 0, "played": 16}
    # the rows say the winners the result counts: a's wins from the log equal the pooled record
    teams = {0: scen[0][0].teams[0].name, 1: scen[1][0].teams[0].name}
    a_wins = sum(1 for r in rows if r["winner"] is not None and (r["winner"] == teams[r["scenario"]]) != r["swapped"])
    assert a_wins == next(p for p in out["pairs"] if p["scenario"] == "all")["a_wins"]


def test_a_stopped_run_resumes_and_plays_only_the_fights_it_lacks(scen, full, tmp_path, monkeypatch) -> None:
    out, path = full
    lines = path.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    # six fights written, the seventh cut short mid-write (the process killed)
    cut.write_text("".join(lines[:7]) + lines[7][:25])
    played = count_plays(monkeypatch)
    again = round_robin(scen, PLAYERS, 4, SEEDS, log=cut)
    assert _without_log(again) == _without_log(out)
    done_before = {json.loads(x)["i"] for x in lines[1:7]}
    assert sorted(played) == sorted(set(range(16)) - done_before)
    assert again["log"] == {"path": str(cut), "read": 6, "reused": 0, "played": 10}
    # the log is whole now: one more run plays nothing
    played.clear()
    third = round_robin(scen, PLAYERS, 4, SEEDS, log=cut)
    assert played == [] and third["log"]["read"] == 16
    assert _without_log(third) == _without_log(out)
    assert all(json.loads(x) for x in cut.read_text().splitlines())


@pytest.mark.parametrize("change, field", [
    (dict(episodes=2), "episodes"),
    (dict(seed=[1, 3]), "seeds"),
    (dict(policies=["aggressive", "tactical"]), "policies"),
    (dict(dice_streams="seat"), "dice_streams"),
])
def test_a_log_of_another_run_is_refused_with_the_field_that_differs(scen, full, tmp_path, change, field) -> None:
    _, path = full
    copy = tmp_path / "other.jsonl"
    copy.write_bytes(path.read_bytes())
    kw = dict(policies=PLAYERS, episodes=4, seed=SEEDS) | change
    with pytest.raises(TacticaError) as e:
        round_robin(scen, kw.pop("policies"), kw.pop("episodes"), kw.pop("seed"), log=copy, **kw)
    assert e.value.field == field and e.value.source == str(copy)
    assert copy.read_bytes() == path.read_bytes()


def test_a_changed_policy_file_is_another_run(scen, tmp_path) -> None:
    from agents.learned import shipped_policy_path

    npz = tmp_path / "net.npz"
    npz.write_bytes(shipped_policy_path("cortex").read_bytes())
    log = tmp_path / "net.jsonl"
    duel = scen[:1]
    round_robin(duel, [str(npz), "aggressive"], 2, 1, log=log)
    npz.write_bytes(npz.read_bytes() + b"\0")   # another file under the same name
    with pytest.raises(TacticaError) as e:
        round_robin(duel, [str(npz), "aggressive"], 2, 1, log=log)
    assert e.value.field == "policy_files"


def test_a_changed_scenario_under_the_same_name_is_another_run(scen, full, tmp_path) -> None:
    _, path = full
    copy = tmp_path / "scen.jsonl"
    copy.write_bytes(path.read_bytes())
    (spec, src), rest = scen[0], scen[1:]
    moved = [(spec.model_copy(update={"round_limit": spec.round_limit + 1}), src), *rest]
    with pytest.raises(TacticaError) as e:
        round_robin(moved, PLAYERS, 4, SEEDS, log=copy)
    assert e.value.field == "scenario_specs"


def test_a_broken_line_is_an_error_naming_the_file_and_the_line(scen, full, tmp_path) -> None:
    _, path = full
    lines = path.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines[:3]) + "not json\n" + "".join(lines[3:5]))
    with pytest.raises(TacticaError, match="line 4 is not JSON") as e:
        round_robin(scen, PLAYERS, 4, SEEDS, log=bad)
    assert e.value.source == str(bad)
    row = json.loads(lines[2])
    row["k"] += 1   # a fight that is not the plan's fight at that index
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text(lines[0] + json.dumps(row) + "\n")
    with pytest.raises(TacticaError, match="line 2 is not a fight of this run"):
        round_robin(scen, PLAYERS, 4, SEEDS, log=wrong)
    not_ours = tmp_path / "events.jsonl"
    not_ours.write_text('{"event": "attack"}\n')
    with pytest.raises(TacticaError) as e:
        round_robin(scen, PLAYERS, 4, SEEDS, log=not_ours)
    assert e.value.field == "tactica_fight_log"


def test_the_command_line_says_what_it_read_and_names_a_bad_log(tmp_path) -> None:
    log = tmp_path / "f.jsonl"
    args = ["evaluate", "--policies", "aggressive,cautious", "--scenarios", "cortex/duel", "-n", "2", "--json",
            "--fights-log", str(log)]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "0 fights read from it, 2 played" in first.stderr
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and "2 fights read from it, 0 played" in again.stderr
    # resumed half way: the progress counts the fights left to play, so its time left is this run's
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:2]))
    seen: list[tuple[int, int]] = []
    round_robin(load_scenarios(["cortex/duel"]), ["aggressive", "cautious"], 2, 0, log=log,
                progress=lambda k, n: seen.append((k, n)))
    assert seen == [(1, 1)]
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:2]))
    half = CliRunner().invoke(app, args)
    said = " ".join(half.stderr.split())
    assert f"{log}: about 1 fight in it" in said and "1 fight read from it, 1 played" in said
    assert json.loads(half.stdout)["pairs"] == json.loads(first.stdout)["pairs"]
    assert json.loads(again.stdout)["pairs"] == json.loads(first.stdout)["pairs"]
    other = CliRunner().invoke(app, args[:6] + ["4"] + args[7:])
    assert other.exit_code != 0 and "Traceback" not in other.output
    assert f"{log}: episodes: the log is of another run" in " ".join(other.stderr.split())
