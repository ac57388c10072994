"""METALFACE scenario entries beyond the bestiary: inline gear, starting conditions and state.

A combatant spec may define weapons, armour and items inline (a mapping where a name is
accepted: `{name: zapper, kind: beam, damage: 8, capacity: 2, cells: 1, skill: beam}`,
`armour: {name: plate, points: 4}`, `items: [{name: toolkit, kind: kit, treats: metalface}]`),
start in conditions (`conditions: [prone, suffering]`) and give the starting values of what
the rules track (`state: {damage: 9, ammo: {pistol: 2}, shield: on, moved: running}`), so a
rules case needs no setup moves. Every field is checked; an error names the field path and
what was expected.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from rules.errors import ScenarioError
from rules.names import check_keys, check_known
from rules.state import Combatant
from rules.systems.metalface.geometry import NAMES
from rules.systems.metalface.model import WEAPON_KINDS, Value, Weapon

WEAPON_FIELDS = {"name", "kind", "damage", "skill", "reach_m", "magazine", "capacity", "clips", "rounds", "cells",
                 "packed"}
ITEM_KINDS = {"kit": {"name", "kind", "treats"}, "device": {"name", "kind", "uses"}}
STATE_KEYS = ("damage", "facing", "posture", "ammo", "spare", "jammed", "packed", "charging", "shield", "uses",
              "moved", "repair_progress")
SHIELD_STATES = ("off", "pending", "on")
MOVED = ("stationary", "walking", "running", "flying")
#: conditions a figure may start in: prone (lying down) and the Status levels (from damage)
LEVEL_CONDITIONS = ("weakening", "suffering", "critical", "non_responsive", "incapacitated")


def _err(msg: str, source: str | None, field: str, expected: str) -> ScenarioError:
    return ScenarioError(msg, source=source, field=field, expected=expected)


def _whole(v: Any, lo: int, source: str | None, field: str, what: str, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        rng = f"{lo} .. {hi}" if hi is not None else f">= {lo}"
        raise _err(f"{v!r}", source, field, f"{what} (a whole number {rng})")
    return v


def _name(spec: Mapping[str, Any], source: str | None, field: str) -> str:
    n = spec.get("name")
    if not isinstance(n, str) or not n:
        raise _err(f"name {n!r}", source, f"{field}.name", "a name (a string)")
    return n


def inline_weapon(spec: Mapping[str, Any], skills: list[str], source: str | None, field: str) -> Weapon:
    """A weapon written out in the scenario (the fields of data.yaml `weapons`)."""
    check_keys(spec, sorted(WEAPON_FIELDS), source, field, "weapon field")
    name = _name(spec, source, field)
    kind = spec.get("kind")
    if kind not in WEAPON_KINDS:
        raise _err(f"kind {kind!r}", source, f"{field}.kind", "one of " + ", ".join(WEAPON_KINDS))
    dmg = _whole(spec.get("damage"), 0, source, f"{field}.damage", "the damage value")
    skill = spec.get("skill", "melee" if kind == "melee" else ("beam" if kind == "beam" else "firearms"))
    check_known(skill, skills, source, f"{field}.skill", "skill")
    reach = spec.get("reach_m", 1.0)
    if isinstance(reach, bool) or not isinstance(reach, (int, float)) or not reach > 0:
        raise _err(f"reach_m {reach!r}", source, f"{field}.reach_m", "metres (a number > 0)")
    cap = spare = 0
    if kind != "melee":
        ck = "magazine" if "magazine" in spec else "capacity"
        cap = _whole(spec.get(ck), 1, source, f"{field}.{ck}", "rounds or shots held")
        sk = next((k for k in ("clips", "rounds", "cells") if k in spec), "clips")
        spare = _whole(spec.get(sk, 0), 0, source, f"{field}.{sk}", "spare clips, rounds or power cells")
    packed = spec.get("packed", False)
    if not isinstance(packed, bool):
        raise _err(f"packed {packed!r}", source, f"{field}.packed", "true or false")
    return Weapon(name=name, kind=kind, damage=Value(dmg), skill=skill, reach_m=float(reach), capacity=cap,
                  spare=spare, packed=packed)


def inline_armour(spec: Mapping[str, Any], source: str | None, field: str) -> tuple[str, int]:
    """(name, points added to END against damage) of armour written out in the scenario."""
    check_keys(spec, ("name", "points"), source, field, "armour field")
    return _name(spec, source, field), _whole(spec.get("points"), 0, source, f"{field}.points", "armour points")


def inline_item(spec: Mapping[str, Any], source: str | None, field: str) -> tuple[str, dict[str, Any]]:
    """(name, definition) of an item written out: a kit (`treats: metalface|human`) or a
    charged device (`uses`: activations; the only device the rules know is a shield)."""
    kind = spec.get("kind")
    check_known(kind, ITEM_KINDS, source, f"{field}.kind", "item kind", "kit or device")
    check_keys(spec, sorted(ITEM_KINDS[kind]), source, field, "item field")
    name = _name(spec, source, field)
    if kind == "kit":
        treats = spec.get("treats")
        if treats not in ("metalface", "human"):
            raise _err(f"treats {treats!r}", source, f"{field}.treats", "metalface or human")
        return name, {"kind": "kit", "treats": treats}
    return name, {"kind": "device", "uses": _whole(spec.get("uses"), 0, source, f"{field}.uses", "uses")}


def least_damage_for(level_upto: float | None, mx: int) -> int:
    """The least damage that puts a figure of max Status `mx` at a level reached at `upto`
    of max Status left (None: Non-Responsive, all of it)."""
    if level_upto is None:
        return mx
    return max(0, mx - math.floor(level_upto * mx + 1e-6))


def apply_start(rs: Any, c: Combatant, spec: Mapping[str, Any], source: str | None, field: str) -> None:
    """Apply a spec's `conditions` and `state` to a freshly built combatant."""
    r = c.res
    mx = c.stats["status"]
    st = spec.get("state")
    if st is not None and not isinstance(st, Mapping):
        raise _err("state must be a mapping", source, f"{field}.state", "keys " + ", ".join(STATE_KEYS))
    st = dict(st or {})
    check_keys(st, STATE_KEYS, source, f"{field}.state", "state key", "keys " + ", ".join(STATE_KEYS))
    conds = spec.get("conditions")
    if conds is not None and not isinstance(conds, list):
        raise _err(f"{conds!r}", source, f"{field}.conditions", "a list of condition names")
    allowed = ("prone",) + LEVEL_CONDITIONS
    level_from_cond: str | None = None
    for i, cd in enumerate(conds or []):
        f = f"{field}.conditions[{i}]"
        if isinstance(cd, Mapping):
            check_keys(cd, ("name", "rounds"), source, f, "condition field")
            if "rounds" in cd:
                raise _err("rounds", source, f"{f}.rounds", "no duration: metalface conditions last until changed")
            cd = cd.get("name")
        check_known(cd, allowed, source, f, "condition")
        if cd == "prone":
            st.setdefault("posture", "lie")
            if st["posture"] != "lie":
                raise _err("prone but not lying", source, f"{field}.state.posture", "lie (prone is lying down)")
        else:
            level_from_cond = cd
    _weapon_state(rs, c, st, source, field)
    if "facing" in st:
        if st["facing"] not in NAMES:
            raise _err(f"facing {st['facing']!r}", source, f"{field}.state.facing", "one of " + ", ".join(NAMES))
        r["facing"] = NAMES.index(st["facing"])
        r["auto_facing"] = False
    if "posture" in st:
        if st["posture"] not in rs.postures:
            raise _err(f"posture {st['posture']!r}", source, f"{field}.state.posture",
                       "one of " + ", ".join(rs.postures))
        r["posture"] = st["posture"]
        if r["posture"] == "lie":
            c.conditions.add("prone")
        else:
            c.conditions.discard("prone")
    if "shield" in st:
        if st["shield"] not in SHIELD_STATES:
            raise _err(f"shield {st['shield']!r}", source, f"{field}.state.shield", "off, pending or on")
        r["shield"] = st["shield"]
    if "moved" in st:
        if st["moved"] not in MOVED:
            raise _err(f"moved {st['moved']!r}", source, f"{field}.state.moved", "one of " + ", ".join(MOVED))
        r["moved"] = st["moved"]
    if "uses" in st:
        uses = st["uses"]
        if not isinstance(uses, Mapping):
            raise _err(f"{uses!r}", source, f"{field}.state.uses", "device: uses left")
        for k, v in uses.items():
            if k not in r["uses"]:
                raise _err(f"{k!r} is not a device of this figure", source, f"{field}.state.uses.{k}",
                           "one of " + (", ".join(r["uses"]) or "(no devices)"))
            r["uses"][k] = _whole(v, 0, source, f"{field}.state.uses.{k}", "uses left")
    if "repair_progress" in st:
        r["repair_acc"] = _whole(st["repair_progress"], 0, source, f"{field}.state.repair_progress",
                                 "point-seconds per hour of repair carried over", 3599)
    if "damage" in st:
        r["damage"] = _whole(st["damage"], 0, source, f"{field}.state.damage", "damage taken", mx)
    if level_from_cond is not None:
        want = "non_responsive" if level_from_cond == "incapacitated" else level_from_cond
        if "damage" not in st and not spec.get("damage"):
            upto = next((lv["upto"] for lv in rs.levels if lv["name"] == want), None)
            r["damage"] = least_damage_for(upto, mx)
        if rs.level_for(c) != want:
            raise _err(f"condition {level_from_cond} but damage {r['damage']} of {mx} gives {rs.level_for(c)}",
                       source, f"{field}.conditions", "a Status level that matches the damage (or no damage given)")


def _weapon_state(rs: Any, c: Combatant, st: Mapping[str, Any], source: str | None, field: str) -> None:
    r = c.res
    ranged = {n: w for n, w in c.weapons.items() if w.ranged}
    for key in ("ammo", "spare"):
        if key in st:
            m = st[key]
            if not isinstance(m, Mapping):
                raise _err(f"{m!r}", source, f"{field}.state.{key}", "weapon: count")
            for n, v in m.items():
                f = f"{field}.state.{key}.{n}"
                if n not in ranged:
                    raise _err(f"{n!r} is not a ranged weapon of this figure", source, f,
                               "one of " + (", ".join(ranged) or "(no ranged weapons)"))
                hi = ranged[n].capacity if key == "ammo" else None
                r[key][n] = _whole(v, 0, source, f, "rounds or shots loaded" if key == "ammo" else "spares", hi)
    for key in ("jammed", "packed", "charging"):
        if key in st:
            lst = st[key]
            if not isinstance(lst, list):
                raise _err(f"{lst!r}", source, f"{field}.state.{key}", "a list of weapon names")
            for i, n in enumerate(lst):
                ok = ranged if key != "charging" else {k: w for k, w in ranged.items() if w.kind == "beam"}
                if n not in ok:
                    raise _err(f"{n!r}", source, f"{field}.state.{key}[{i}]",
                               "one of " + (", ".join(ok) or "(none)"))
            r[key] = set(lst)


__all__ = ["inline_weapon", "inline_armour", "inline_item", "apply_start", "STATE_KEYS"]
