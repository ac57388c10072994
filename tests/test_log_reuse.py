"""`tactica evaluate --reuse-log OLD`: another run's fights taken instead of played again
(evaluation/log_reuse.py).

- a run on more scenarios takes the fights a run on the first of them played, plays only the rest,
  and gives the result it gives without the old log, number for number;
- a table that adds a player takes the other players' fights;
- a scenario at another place in the list is another fight (its dice differ): nothing is taken;
- what would make a taken fight unsure (other dice streams, a scenario this run does not play, other
  maps under the same name, no log to write to) is an error naming the file and the field;
- from the command line: how many fights were taken.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import evaluation.tournament as T
from evaluation.tournament import load_scenarios, round_robin
from rules.errors import TacticaError
from tactica.cli import app

from tests.fight_log_setup import PLAYERS, SEEDS, count_plays
from tests.fight_log_setup import without_log as _without_log


@pytest.fixture(scope="module")
def scen():
    return load_scenarios(["cortex/duel", "cortex/saloon"])


@pytest.fixture(scope="module")
def pilot(scen, tmp_path_factory) -> Path:
    """A first look: the first scenario only (8 fights)."""
    path = tmp_path_factory.mktemp("pilot") / "pilot.jsonl"
    round_robin(scen[:1], PLAYERS, 4, SEEDS, log=path)
    return path


@pytest.fixture
def played(monkeypatch) -> list[int]:
    return count_plays(monkeypatch)


def test_a_bigger_run_takes_the_pilots_fights_and_gives_the_same_result(scen, pilot, played, tmp_path) -> None:
    plain = round_robin(scen, PLAYERS, 4, SEEDS)
    played.clear()
    log = tmp_path / "all.jsonl"
    out = round_robin(scen, PLAYERS, 4, SEEDS, log=log, reuse=[pilot])
    assert _without_log(out) == plain
    assert out["log"] == {"path": str(log), "read": 0, "reused": 8, "played": 8}
    # only the second scenario's fights were played: fights 0-3 (seed 1) and 8-11 (seed 2) are the duel's
    fights = T.plan_fights(2, PLAYERS, 4, SEEDS)
    assert sorted(played) == [i for i, f in enumerate(fights) if f.scenario == 1]
    # the taken fights are in the new log: a resumed run plays nothing
    played.clear()
    again = round_robin(scen, PLAYERS, 4, SEEDS, log=log, reuse=[pilot])
    assert played == [] and again["log"]["read"] == 16 and again["log"]["reused"] == 0
    assert _without_log(again) == plain


def test_a_table_that_adds_a_player_takes_the_others_fights(scen, pilot, played, tmp_path) -> None:
    plain = round_robin(scen[:1], ["aggressive", "random"], 4, SEEDS, against="cautious")
    played.clear()
    out = round_robin(scen[:1], ["aggressive", "random"], 4, SEEDS, against="cautious",
                      log=tmp_path / "table.jsonl", reuse=[pilot])
    assert _without_log(out) == plain
    assert out["log"]["reused"] == 8 and len(played) == 8
    fights = T.plan_fights(1, ["aggressive", "random", "cautious"], 4, SEEDS, "cautious")
    assert {fights[i].a for i in played} == {"random"}


def test_a_scenario_elsewhere_in_the_list_is_another_fight(scen, played, tmp_path) -> None:
    """The s-th scenario's dice are seeded from (seed, s x fights a side + k): the saloon played first
    is not the saloon played second."""
    alone = tmp_path / "saloon.jsonl"
    round_robin(scen[1:], PLAYERS, 4, SEEDS, log=alone)
    played.clear()
    out = round_robin(scen, PLAYERS, 4, SEEDS, log=tmp_path / "both.jsonl", reuse=[alone])
    assert out["log"]["reused"] == 0 and len(played) == 16
    assert _without_log(out) == round_robin(scen, PLAYERS, 4, SEEDS)


def test_what_makes_a_fight_unsure_is_an_error_naming_the_file_and_field(scen, pilot, tmp_path) -> None:
    def refused(field: str, **kw) -> None:
        log = kw.pop("log", tmp_path / f"{field}.jsonl")
        with pytest.raises(TacticaError) as e:
            round_robin(kw.pop("scen", scen), PLAYERS, 4, SEEDS, log=log, **kw)
        assert e.value.field == field, e.value
        if field != "--reuse-log" or log is not None:
            assert e.value.source == str(kw.get("reuse", [pilot])[0])

    refused("dice_streams", reuse=[pilot], dice_streams="seat")
    refused("scenarios", reuse=[pilot], scen=scen[1:])  # the pilot's duel is not in this run
    (spec, src), rest = scen[0], scen[1:]
    moved = [(spec.model_copy(update={"round_limit": spec.round_limit + 1}), src), *rest]
    refused("scenario_specs", reuse=[pilot], scen=moved)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(pilot.read_text().splitlines(keepends=True)[0] + "{not json}\n")
    with pytest.raises(TacticaError, match="line 2 is not JSON") as e:
        round_robin(scen, PLAYERS, 4, SEEDS, log=tmp_path / "x.jsonl", reuse=[bad])
    assert e.value.source == str(bad)
    with pytest.raises(TacticaError) as e:
        round_robin(scen, PLAYERS, 4, SEEDS, reuse=[pilot])
    assert e.value.field == "--reuse-log" and "--fights-log" in e.value.expected


def test_the_command_line_says_how_many_fights_it_took(pilot, tmp_path) -> None:
    log = tmp_path / "cli.jsonl"
    args = ["evaluate", "--policies", ",".join(PLAYERS), "--scenarios", "cortex/duel,cortex/saloon", "-n", "4",
            "--seed", "1", "--seed", "2", "--json", "--fights-log", str(log), "--reuse-log", str(pilot)]
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    said = " ".join(r.stderr.split())
    assert "0 fights read from it, 8 fights taken from --reuse-log, 8 played" in said
    assert json.loads(r.stdout)["log"]["reused"] == 8
    missing = CliRunner().invoke(app, args[:-2] + ["--reuse-log", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code != 0 and "Traceback" not in missing.output
    assert "nope.jsonl" in missing.stderr


def test_a_gzipped_log_kept_with_the_results_is_read_too(scen, pilot, tmp_path) -> None:
    import gzip

    packed = tmp_path / "pilot.jsonl.gz"
    packed.write_bytes(gzip.compress(pilot.read_bytes()))
    out = round_robin(scen, PLAYERS, 4, SEEDS, log=tmp_path / "from-gz.jsonl", reuse=[packed])
    assert out["log"]["reused"] == 8 and _without_log(out) == round_robin(scen, PLAYERS, 4, SEEDS)
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress(pilot.read_bytes())[:40])
    with pytest.raises(TacticaError) as e:
        round_robin(scen, PLAYERS, 4, SEEDS, log=tmp_path / "y.jsonl", reuse=[broken])
    assert e.value.source == str(broken) and e.value.field == "--reuse-log"


def test_a_file_of_several_runs_gives_the_fights_of_each(scen, pilot, played, tmp_path) -> None:
    """Logs kept one after the other in one file (`cat a.jsonl b.jsonl`, as docs/results.md's margins
    log keeps two runs) give each run's fights; it had to be split by hand (only its first run's header
    was read, and the second header line was 'not a fight of its run')."""
    other = tmp_path / "other.jsonl"     # a second run: a third player against `cautious` on the duel
    round_robin(scen[:1], ["random"], 4, SEEDS, against="cautious", log=other)
    both = tmp_path / "both.jsonl"
    both.write_bytes(pilot.read_bytes() + other.read_bytes())
    plain = round_robin(scen[:1], ["aggressive", "random"], 4, SEEDS, against="cautious")
    played.clear()
    out = round_robin(scen[:1], ["aggressive", "random"], 4, SEEDS, against="cautious",
                      log=tmp_path / "t.jsonl", reuse=[both])
    assert _without_log(out) == plain
    assert out["log"]["reused"] == 16 and played == []        # 8 of the pilot's, 8 of the other run's
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(pilot.read_bytes() + b'{"tactica_fight_log": 99}\n')
    with pytest.raises(TacticaError) as e:
        round_robin(scen[:1], ["aggressive", "random"], 4, SEEDS, against="cautious", log=tmp_path / "u.jsonl",
                    reuse=[bad])
    assert e.value.source == str(bad) and e.value.field == "tactica_fight_log" and "line 10" in str(e.value)
