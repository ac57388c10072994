"""Impossible states and documents through the front ends (issue #33: "A state with a figure
off the map, or any other impossible state, is refused with a 422 that names the field (today
`POST /fights` accepts it and `/legal` returns 500; a save edited so, and `suggest`, end in a
traceback)"; issue #34: "A lone surrogate or NaN in an inline scenario gives 201, then 500 on
every read").

The API's TestClient gets raw JSON bodies (httpx itself refuses NaN and lone surrogates, a
client in another language need not); the CLI's `suggest` and `autopilot --resume` print one
line and exit 2.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from rules.errors import ScenarioError
from rules.scenario import load_scenario, parse_scenario, parse_text, resolve_scenario
from tactica.cli import app

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from tactica.server import create_app  # noqa: E402
from tactica.table import Session  # noqa: E402

TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def post_raw(client: TestClient, body: dict):
    """POST /fights with the body written by Python's json (NaN as `NaN`, "\\ud800" escaped)."""
    return client.post("/fights", content=json.dumps(body), headers={**AUTH, "Content-Type": "application/json"})


def duel() -> dict:
    return resolve_scenario("cortex/duel")[0]


@pytest.fixture()
def client():
    return TestClient(create_app(token=TOKEN), headers=AUTH)


@pytest.fixture()
def save(tmp_path):
    """An autopilot save of the duel, two actions in."""
    s = Session.new("cortex/duel", seed=1, save_path=tmp_path / "s.json")
    s.begin()
    s.resolve(s.plan().action)
    return tmp_path / "s.json"


# -- the scenario loader ------------------------------------------------------------------------
def test_scenario_loader_refuses_a_lone_surrogate_and_nan_with_the_field():
    doc = duel()
    doc["teams"][0]["combatants"][0]["name"] = "M\ud800l"
    with pytest.raises(ScenarioError) as ei:
        load_scenario(doc)
    assert ei.value.field == "teams[0].combatants[0].name" and "lone surrogate" in ei.value.detail
    doc = duel()
    doc["map"]["cell_m"] = float("nan")
    with pytest.raises(ScenarioError) as ei:
        parse_scenario(doc, "enc.json")
    assert ei.value.field == "map.cell_m" and ei.value.source == "enc.json"
    doc = duel()
    doc["teams"][1]["combatants"][0]["attributes"] = {"agility": float("inf")}
    with pytest.raises(ScenarioError) as ei:
        load_scenario(doc)
    assert ei.value.field == "teams[1].combatants[0].attributes.agility"
    # a YAML upload's .nan is the same float
    with pytest.raises(ScenarioError) as ei:
        parse_scenario(parse_text("name: x\nruleset: cortex\nround_limit: .nan\n", "up.yaml"), "up.yaml")
    assert ei.value.field == "round_limit"


# -- the API ----------------------------------------------------------------------------------
def test_api_refuses_a_lone_surrogate_in_an_inline_scenario_and_creates_nothing(client):
    doc = duel()
    doc["teams"][0]["combatants"][0]["name"] = "\ud800"
    r = post_raw(client, {"scenario": doc})
    assert r.status_code == 422, r.text
    assert "teams[0].combatants[0].name" in r.text and "lone surrogate" in r.text
    assert client.get("/fights").json()["fights"] == []


def test_api_refuses_nan_in_an_inline_scenario(client):
    doc = duel()
    doc["settings"] = {"plot_points": float("nan")}
    r = post_raw(client, {"scenario": doc})
    assert r.status_code == 422, r.text
    assert "settings.plot_points" in r.text
    assert client.get("/fights").json()["fights"] == []


def test_api_refuses_an_impossible_state_naming_the_field(client, save):
    """'today `POST /fights` accepts it and `/legal` returns 500'."""
    d = json.loads(save.read_text())
    d["combatants"]["mal"]["pos"] = [16, 0]   # x = width: wrapped to the next row before
    r = post_raw(client, {"state": d})
    assert r.status_code == 422, r.text
    assert "combatants.mal.pos" in r.text and "off the 16x12 map" in r.text
    d = json.loads(save.read_text())
    d["dice"]["buf"] = [float("nan")]   # a buffer as saves before 2026-12-07 held one
    r = post_raw(client, {"state": d})
    assert r.status_code == 422 and "dice.buf[0]" in r.text, r.text
    d = json.loads(save.read_text())
    d["combatants"]["jubal"]["res"]["stun"] = 109
    r = post_raw(client, {"state": d})
    assert r.status_code == 422 and "combatants.jubal.res.stun" in r.text, r.text
    assert client.get("/fights").json()["fights"] == []
    # the unedited save is taken, and its /legal answers
    r = post_raw(client, {"state": json.loads(save.read_text())})
    assert r.status_code == 201, r.text
    assert client.get(f"/fights/{r.json()['id']}/legal").status_code == 200


def test_api_refuses_a_state_uploaded_as_text(client, save):
    d = json.loads(save.read_text())
    d["round"] = 99
    r = post_raw(client, {"text": json.dumps(d)})
    assert r.status_code == 422 and r.json()["field"] == "round", r.text


# -- the CLI ----------------------------------------------------------------------------------
def _edit(save, fn) -> str:
    d = json.loads(save.read_text())
    fn(d)
    save.write_text(json.dumps(d))
    return str(save)


@pytest.mark.parametrize("edit,words", [
    (lambda d: d["combatants"]["mal"].__setitem__("pos", [3, 40]), "combatants.mal.pos"),
    (lambda d: d["combatants"]["mal"]["res"].__setitem__("wound", 109), "combatants.mal.res.wound"),
    (lambda d: d.__setitem__("order", ["mal", "nobody"]), "order[1]"),
    (lambda d: d["dice"].__setitem__("buf", [1.0]), "dice.buf[0]"),
])
@pytest.mark.parametrize("cmd", [["suggest"], ["autopilot", "--resume"]])
def test_cli_suggest_and_resume_print_one_line(save, edit, words, cmd):
    """'a save edited so, and `suggest`, end in a traceback'."""
    path = _edit(save, edit)
    before = save.read_text()
    r = CliRunner().invoke(app, cmd + [path])
    assert r.exit_code == 2, r.output
    assert words in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert save.read_text() == before  # the damaged save is left as it was
