"""The server lets go of maps no fight uses (issue #34: 1.3-3.3 GB stayed after every fight was
deleted). The rules cache each distinct map with its tables; after the server creates or
deletes a fight, the maps none of its fights stands on leave the cache but the newest few
(`KEEP_UNUSED_CELLS` cells), and nothing else keeps them alive. Checked on the cache, not on
RSS (noisy): see the report of issue #34 for RSS before and after."""

from __future__ import annotations

import copy
import gc
import weakref

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from rules.scenario import resolve_scenario  # noqa: E402
from tactica.server import create_app  # noqa: E402
from tactica.server.maps import KEEP_UNUSED_CELLS, cached_maps  # noqa: E402

SIDE = 40


def duel_on(k: int, side: int = SIDE) -> dict:
    """cortex/duel on a side x side map of its own (a wall whose place depends on k)."""
    doc, _ = resolve_scenario("cortex/duel")
    doc = copy.deepcopy(dict(doc))
    rows = ["." * side for _ in range(side)]
    rows[side // 2] = "." * k + "#" * 5 + "." * (side - 5 - k)
    doc["map"] = {"rows": rows, "cell_m": 1.5}
    doc["teams"][0]["combatants"][0]["at"] = [1, side - 2]
    doc["teams"][1]["combatants"][0]["at"] = [side - 2, 1]
    return doc


def grid_of(app, fid: str):
    return app.state.store.fights[fid].battle.state.grid


def unused_cells(app) -> int:
    used = {id(f.battle.state.grid) for f in app.state.store.fights.values()}
    return sum(g.n for g in cached_maps() if id(g) not in used)


def test_maps_of_deleted_fights_leave_the_cache_and_memory():
    app = create_app()
    c = TestClient(app)
    ids, refs = [], []
    for k in range(8):
        r = c.post("/fights", json={"scenario": duel_on(k), "seed": k})
        assert r.status_code == 201, r.text
        fid = r.json()["id"]
        assert c.get(f"/fights/{fid}/legal").status_code == 200
        assert c.get(f"/fights/{fid}/overlays").status_code == 200   # fills line of sight and reach tables
        ids.append(fid)
        refs.append(weakref.ref(grid_of(app, fid)))
    held = {id(g) for g in cached_maps()}
    assert all(id(ref()) in held for ref in refs)             # every held fight's map stays cached
    assert unused_cells(app) <= KEEP_UNUSED_CELLS
    for fid in ids[:5]:
        assert c.delete(f"/fights/{fid}").status_code == 200
        assert unused_cells(app) <= KEEP_UNUSED_CELLS         # the bound holds after every delete
    assert all(id(ref()) in {id(g) for g in cached_maps()} for ref in refs[5:])   # the live fights keep theirs
    for fid in ids[5:]:
        c.delete(f"/fights/{fid}")
    gc.collect()
    alive = [r for r in refs if r() is not None]
    assert sum(r().n for r in alive) <= KEEP_UNUSED_CELLS    # the rest is freed, not only uncached
    assert len(alive) < len(refs)
    # the fights still play after the cache was pruned under them
    fid = c.post("/fights", json={"scenario": duel_on(3), "seed": 3}).json()["id"]
    assert c.get(f"/fights/{fid}/legal").status_code == 200


def test_a_refused_fight_leaves_no_map_behind():
    app = create_app()
    c = TestClient(app)
    before = {id(g) for g in cached_maps()}
    for k in range(6):
        doc = duel_on(k, SIDE + 1)                                  # maps no other test builds
        doc["teams"][1]["combatants"][0]["at"] = [k, (SIDE + 1) // 2]   # on the wall: refused after the map is built
        r = c.post("/fights", json={"scenario": doc})
        assert r.status_code == 422, r.text
    new = [g for g in cached_maps() if id(g) not in before]
    assert sum(g.n for g in new) <= KEEP_UNUSED_CELLS
