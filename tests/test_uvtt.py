"""Universal VTT maps (issue #35, "Universal VTT maps"; docs/uvtt.md): walls between cells, diagonal
walls, doors, objects as cover, an offset origin and a non-square map, read from the small hand-made
files in tests/uvtt/ and from crypt.dd2vtt, a few rooms written the way Dungeondraft writes them."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rules.errors import ScenarioError
from rules.ruleset import get_ruleset
from rules.scenario import build_state, load_scenario, new_battle, parse_scenario, resolve_scenario
from rules.uvtt import load_uvtt_map

HERE = Path(__file__).parent / "uvtt"


def grid_of(name: str, **map_opts):
    doc = {"name": "t", "ruleset": "cortex", "map": {"uvtt": str(HERE / name), **map_opts},
           "teams": [{"name": "a", "combatants": [{"id": "x", "template": "gunslinger", "at": [0, 0]}]},
                     {"name": "b", "combatants": [{"id": "y", "template": "gunslinger", "at": [0, 1]}]}]}
    return build_state(parse_scenario(doc, "<test>")).grid


def steps(g, x, y):
    return {g.xy(j) for j, _ in g.neighbours(g.index(x, y))}


def test_an_edge_wall_blocks_the_step_across_not_the_cells_beside_it():
    g = grid_of("edges.uvtt")     # the line x = 3 from y 0 to 3; row 3 open
    assert all(g.passable)        # cells beside the wall stay standable
    assert (3, 1) not in steps(g, 2, 1)                    # across
    assert {(2, 0), (2, 2)} <= steps(g, 2, 1)              # along
    assert (3, 0) not in steps(g, 2, 1) and (3, 2) not in steps(g, 2, 1)   # no squeezing past it
    assert (3, 3) in steps(g, 2, 3)                        # below its end
    assert (3, 3) not in steps(g, 2, 2)                    # not diagonally round its end
    assert not g.adjacent(g.index(2, 1), g.index(3, 1)) and g.adjacent(g.index(2, 3), g.index(3, 3))
    assert not g.los(g.index(0, 1), g.index(5, 1)) and g.los(g.index(0, 3), g.index(5, 3))
    # the way round through row 3: 2 steps down, across, 2 up (orthogonal steps cost 2 units)
    assert g.free_costs(g.index(2, 1))[g.index(3, 1)] > 2


def test_a_diagonal_wall_separates_its_two_sides_by_a_staircase_of_edges():
    g = grid_of("diagonal.uvtt")   # the line from (0, 5) to (5, 0)
    assert all(g.passable)
    reach = g.reachable(g.index(0, 0), 200)
    assert g.index(5, 5) not in reach and g.index(4, 0) in reach and g.index(0, 4) in reach
    assert g.index(1, 4) not in reach                # its centre lies beyond the line
    assert not g.los(g.index(0, 0), g.index(5, 5))
    assert g.edges.count() == 10


def test_a_closed_door_blocks_sight_and_steps_an_open_one_lets_them_through():
    g = grid_of("doors.uvtt")      # x = 3: closed door at y 1..2, open at y 3..4
    assert not g.los(g.index(1, 1), g.index(5, 1)) and (3, 1) not in steps(g, 2, 1)
    assert g.los(g.index(1, 3), g.index(5, 3)) and (3, 3) in steps(g, 2, 3)


def test_every_ruleset_says_doors_stay_as_drawn():
    for name in ("cortex", "cortex_hu", "metalface", "cybergeneration"):
        doors = [a for a in get_ruleset(name).data["assumptions"] if a["key"] == "doors"]
        assert doors and "no action opens or closes" in doors[0]["value"], name
        assert "door" not in " ".join(get_ruleset(name).supported_actions), name


def test_an_offset_origin_and_a_non_square_map():
    g = grid_of("offset.uvtt")     # map_origin (10, 5), 7x3; the wall x = 13 is east of column 2
    assert (g.width, g.height) == (7, 3)
    assert (3, 0) not in steps(g, 2, 0) and (3, 1) not in steps(g, 2, 1) and (3, 2) in steps(g, 2, 2)


def _duel_on_objects(objects=None, object_cover=None):
    m = {"uvtt": str(HERE / "objects.uvtt")}
    if objects is not None:
        m["objects"] = objects
    if object_cover is not None:
        m["object_cover"] = object_cover
    doc = {"name": "t", "ruleset": "cortex", "initiative": "fixed", "map": m,
           "teams": [{"name": "a", "combatants": [{"id": "shooter", "template": "gunslinger", "at": [6, 1]}]},
                     {"name": "b", "combatants": [{"id": "target", "template": "gunslinger", "at": [1, 1]}]}]}
    b = new_battle(parse_scenario(doc, "<test>"), 0)
    b.start()
    s = b.state
    shot = next(a for a in b.legal_actions() if a.kind == "attack" and a.target == "target" and not a.option)
    return s.grid.cover(s.by_id["target"].pos, s.by_id["shooter"].pos), b.ruleset.attack_odds(s, s.actor, shot)["p_hit"]


def test_an_object_gives_the_cover_the_gm_sets_in_the_odds_of_an_attack():
    # the crate (object 0) stands on (2, 1), between the target on (1, 1) and the shooter on (6, 1)
    assert _duel_on_objects(object_cover=0)[0] == 0
    default, p_default = _duel_on_objects()
    heavy, p_heavy = _duel_on_objects({"crate": {"index": 0, "cover": 3}})
    light, p_light = _duel_on_objects({0: 1})
    _, p_none = _duel_on_objects(object_cover=0)
    assert (default, heavy, light) == (2, 3, 1)
    assert p_heavy < p_default < p_light < p_none


def test_the_realistic_file_rooms_doors_objects_lights_and_picture():
    spec, src = load_scenario(HERE / "crypt.yaml")      # map: {uvtt: crypt.dd2vtt}, relative to the encounter
    g = build_state(spec, src).grid
    assert (g.width, g.height) == (12, 8) and g.passable[g.index(1, 1)]   # a corner cell inside two walls
    assert g.terrain[g.index(3, 3)].cover == 3 and g.terrain[g.index(8, 1)].cover == 2   # pillar set, table default
    reach = g.reachable(g.index(2, 2), 400)
    assert g.index(10, 3) in reach                  # through the open door into the north-east room
    assert g.index(9, 6) not in reach               # the south-east room is behind a closed door
    b = g.backdrop
    assert b.mime == "image/png" and (b.width_px, b.height_px) == (192, 128) and b.pixels_per_grid == 16
    imp = load_uvtt_map(str(HERE / "crypt.dd2vtt"), None)
    said = [line for line in imp.report() if "light" in line]
    assert said == ["lights: 1 ignored (no ruleset has light rules)"]


def test_import_map_writes_a_block_that_makes_the_same_map(tmp_path):
    from tactica.cli import app

    out = tmp_path / "crypt_map.yaml"
    r = CliRunner().invoke(app, ["import-map", str(HERE / "crypt.dd2vtt"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "doors: 2 (1 closed, 1 open" in r.output and "lights: 1 ignored" in r.output
    import yaml

    block = yaml.safe_load(out.read_text())["map"]
    doc, _ = resolve_scenario(HERE / "crypt.yaml")
    direct = build_state(parse_scenario(doc, str(HERE / "crypt.yaml"))).grid
    ascii_doc = dict(doc, map={**block, "legend": {}})
    ascii_doc["map"]["rows"] = [r.replace("m", "h") if i == 3 else r for i, r in enumerate(block["rows"])]  # the pillar
    g = build_state(parse_scenario(ascii_doc, "<test>")).grid
    assert g.rows == direct.rows and g.edges.key == direct.edges.key


def test_validate_and_a_save_accept_the_encounter(tmp_path):
    from rules.serialize import battle_from_dict, battle_to_dict
    from tactica.cli import app

    r = CliRunner().invoke(app, ["validate", str(HERE / "crypt.yaml")])
    assert r.exit_code == 0 and "12x8 map" in r.output
    doc, src = resolve_scenario(HERE / "crypt.yaml")     # the map file's path made absolute
    b = new_battle(parse_scenario(doc, src), 3)
    b.start()
    save = json.loads(json.dumps(battle_to_dict(b, doc)))
    again = battle_from_dict(save, str(tmp_path / "elsewhere.json"))
    assert again.state.grid.edges.key == b.state.grid.edges.key


def _bad(tmp_path, text: str) -> str:
    p = tmp_path / "bad.dd2vtt"
    p.write_text(text)
    with pytest.raises(ScenarioError) as e:
        load_uvtt_map(str(p), None)
    line = e.value.line()
    assert "\n" not in line and str(p) in line
    return line


def test_bad_files_are_one_line_errors(tmp_path):
    good = json.loads((HERE / "edges.uvtt").read_text())
    assert "not valid JSON" in _bad(tmp_path, '{"format": 0.3,')
    assert "resolution" in _bad(tmp_path, json.dumps({k: v for k, v in good.items() if k != "resolution"}))
    wall = dict(good, line_of_sight=[[{"x": 3, "y": 0}, {"x": 9, "y": 0}]])
    assert "line_of_sight[0][1]" in _bad(tmp_path, json.dumps(wall)) and "outside the map" in _bad(tmp_path, json.dumps(wall))
    huge = dict(good, resolution=dict(good["resolution"], map_size={"x": 5000, "y": 40}))
    assert "5000x40" in _bad(tmp_path, json.dumps(huge))
    assert "image" in _bad(tmp_path, json.dumps(dict(good, image="%%% not base64")))
    assert "not a PNG" in _bad(tmp_path, json.dumps(dict(good, image=base64.b64encode(b"GIF89a....").decode())))
    assert "image" in _bad(tmp_path, json.dumps(dict(good, image=42)))


def test_a_bad_map_file_at_the_command_line_is_exit_status_2(tmp_path):
    from tactica.cli import app

    enc = tmp_path / "enc.yaml"
    (tmp_path / "m.uvtt").write_text("not json")
    enc.write_text((HERE / "crypt.yaml").read_text().replace("crypt.dd2vtt", "m.uvtt"))
    for args in (["validate", str(enc)], ["import-map", str(tmp_path / "m.uvtt")]):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 2 and "m.uvtt" in r.output and "Traceback" not in r.output, r.output


def test_the_server_takes_an_inline_map_refuses_a_path_and_serves_the_picture():
    from fastapi.testclient import TestClient

    from tactica.server import create_app

    doc, _ = resolve_scenario(HERE / "crypt.yaml")
    c = TestClient(create_app())
    r = c.post("/fights", json={"scenario": doc, "seed": 1})   # the path names a file on the server's disk
    assert r.status_code == 422 and "map.uvtt" in r.json()["error"]
    inline = dict(doc, map={**doc["map"], "uvtt": json.loads((HERE / "crypt.dd2vtt").read_text())})
    r = c.post("/fights", json={"scenario": inline, "seed": 1})
    assert r.status_code == 201, r.text
    fid = r.json()["id"]
    m = c.get(f"/fights/{fid}/view").json()["map"]
    assert m["image"]["url"] == f"/fights/{fid}/map-image" and [6, 4, 11, 4] in m["walls"]
    img = c.get(m["image"]["url"])
    assert img.status_code == 200 and img.headers["content-type"] == "image/png" and img.content[:4] == b"\x89PNG"
    plain = c.post("/fights", json={"scenario": "cortex/duel", "seed": 1}).json()["id"]
    assert c.get(f"/fights/{plain}/map-image").status_code == 404
