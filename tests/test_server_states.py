"""Saved states are untrusted input at the API too (issue #34): real states, taken from fights
played a few steps through the API, mutated (positions, tracks, the turn order, the dice
buffer, types, NaN, lone surrogates, huge numbers, deleted keys) and posted as new fights
(`POST /fights {"state": ...}`) never get a 500; and when one is accepted, every read of that
fight (state, legal, view, overlays, suggest) is never a 500 either."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from tactica.server import create_app  # noqa: E402

SCENARIOS = [("cortex/duel", 1), ("cortex/warehouse", 2), ("cybergeneration/alley_brawl", 3),
             ("metalface/foundry", 4), ("cortex_hu/les", 5)]

#: what a hostile editor puts in a field
HOSTILE = [None, True, -1, 0, 10 ** 30, -(10 ** 30), 2 ** 63, 1e308, math.nan, math.inf, -math.inf, -0.0, 0.5,
           "", "x", "\ud800", "\x1b[2J", "mal", "wall", [], [0], [-1, -1], [10 ** 9, 0], [1, 2, 3], {}, {"a": 1},
           [[1, 2]], "d12", 7]


@pytest.fixture(scope="module")
def api():
    c = TestClient(create_app(), raise_server_exceptions=False)
    states = []
    for name, seed in SCENARIOS:
        fid = c.post("/fights", json={"scenario": name, "seed": seed}).json()["id"]
        for _ in range(4):
            plan = c.post(f"/fights/{fid}/suggest", json={"seed": seed}).json()
            if "action" not in plan or c.post(f"/fights/{fid}/actions", json={"action": plan["action"]}).status_code != 200:
                break
        states.append(c.get(f"/fights/{fid}").json()["state"])
        c.delete(f"/fights/{fid}")
    return c, states


def _children(v: Any) -> list[Any]:
    if isinstance(v, dict):
        return list(v)
    if isinstance(v, list):
        return list(range(len(v)))
    return []


@st.composite
def mutated(draw, states: list[dict[str, Any]]) -> dict[str, Any]:
    """A real state with one or two fields changed, deleted, reordered or grown."""
    doc = copy.deepcopy(draw(st.sampled_from(states)))
    for _ in range(draw(st.integers(1, 2))):
        parent, key = None, None
        node: Any = doc
        # prefer the fields that matter to the rules: positions, tracks, order, dice, economy
        first = draw(st.sampled_from(["combatants", "order", "dice", "economy", "round", "turn_index", "map_rows",
                                      "objects", "session", "pending", "over", "winner", "*"]))
        if first != "*" and first in doc:
            parent, key, node = doc, first, doc[first]
        for _ in range(draw(st.integers(0, 5))):
            kids = _children(node)
            if not kids:
                break
            parent, key = node, draw(st.sampled_from(kids))
            node = node[key]
        if parent is None:
            continue
        op = draw(st.sampled_from(["set", "set", "nudge", "nudge", "nudge", "delete", "shuffle", "grow"]))
        if op == "nudge" and isinstance(node, int) and not isinstance(node, bool):
            parent[key] = node + draw(st.integers(-3, 3))                       # a plausible edit
        elif op == "nudge" and isinstance(node, list) and len(node) == 2 and all(type(v) is int for v in node):
            parent[key] = [draw(st.integers(-1, 24)), draw(st.integers(-1, 16))]  # a cell, maybe a wall
        elif op == "delete" and isinstance(parent, dict):
            del parent[key]
        elif op == "shuffle" and isinstance(node, list) and len(node) > 1:
            parent[key] = draw(st.permutations(node))
        elif op == "grow" and isinstance(node, list):
            parent[key] = node + node[:1] * draw(st.integers(1, 3))
        else:
            parent[key] = copy.deepcopy(draw(st.sampled_from(HOSTILE)))
    return doc


def _not_500(r) -> None:
    assert r.status_code < 500, f"{r.request.method} {r.request.url.path}: {r.status_code} {r.text[:300]}"


def test_mutated_states_never_give_a_500(api):
    c, states = api
    seen: dict[int, int] = {}

    # derandomized: the same 60 states every run (a random draw met fewer than 5 accepted states
    # in 5 of 78 seeds, failing the check below by chance)
    @settings(max_examples=60, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(doc=mutated(states))
    def check(doc):
        r = c.post("/fights", content=json.dumps({"state": doc}), headers={"content-type": "application/json"})
        _not_500(r)     # NaN and infinities go as JSON's NaN/Infinity, which the server's reader takes
        seen[r.status_code] = seen.get(r.status_code, 0) + 1
        if r.status_code != 201:
            assert r.status_code == 422 and r.json()["error"] and "\n" not in r.json()["error"], r.text
            return
        fid = r.json()["id"]
        try:
            for path in ("", "/legal", "/view", "/overlays", "/events"):
                _not_500(c.get(f"/fights/{fid}{path}"))
            _not_500(c.post(f"/fights/{fid}/suggest", json={}))
        finally:
            c.delete(f"/fights/{fid}")

    check()
    print(f"states: {dict(sorted(seen.items()))}")
    assert seen.get(422, 0) >= 5 and seen.get(201, 0) >= 5, seen   # both refused and accepted states were met
