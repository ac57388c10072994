"""`BattleState.clone` (issue 30: built field by field for speed) copies every field, and a
copy's changeable parts are its own."""

from __future__ import annotations

import dataclasses

from rules.scenario import build_state, load_scenario
from rules.state import BattleState, Combatant


def _state() -> BattleState:
    spec, src = load_scenario("cortex/warehouse")
    s = build_state(spec, src)
    s.objects[3] = ["knife"]
    s.economy = {"actions": 1, "shots": {"pistol": 1}}
    return s


def test_clone_has_every_field_equal() -> None:
    s = _state()
    c = s.clone()
    for f in dataclasses.fields(BattleState):
        if f.name not in ("combatants", "by_id"):
            assert getattr(c, f.name) == getattr(s, f.name), f.name
    for a, b in zip(s.combatants, c.combatants):
        for f in dataclasses.fields(Combatant):
            assert getattr(a, f.name) == getattr(b, f.name), f.name
    assert [x.id for x in c.combatants] == list(c.by_id)
    assert all(c.by_id[x.id] is x for x in c.combatants)


def test_a_copy_changes_alone() -> None:
    s = _state()
    c = s.clone()
    f, g = s.combatants[0], c.combatants[0]
    g.pos += 1
    g.conditions.add("prone")
    g.res["ammo"]["x"] = 1
    g.res["stun"] = 5
    c.economy["shots"]["pistol"] = 2
    c.objects[3].append("rock")
    c.order.append("z")
    assert f.pos != g.pos and "prone" not in f.conditions and "x" not in f.res["ammo"]
    assert f.res["stun"] == 0 and s.economy["shots"]["pistol"] == 1 and s.objects[3] == ["knife"]
    assert "z" not in s.order
    assert g.stats is f.stats and c.grid is s.grid  # static parts are shared
