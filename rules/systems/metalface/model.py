"""METALFACE data: weapons, stat blocks, the d6 keep-the-highest roll and its odds.

RULES-NOTES metalface (the metalface.net reading): a roll is as many d6 as the value used;
the highest die is kept and skill levels and bonuses are added. A value pushed below one
die by modifiers rolls one die and subtracts the shortfall (data.yaml assumption
`pool_floor`), so a roll never gets better when its value drops.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import yaml

from rules.calls import RollCall
from rules.dice import Dice
from rules.errors import ScenarioError, UnknownNameError
from rules.names import check_keys, check_known, one_of

KINDS = ("human", "metalface")
WEAPON_KINDS = ("melee", "clip", "projectile", "beam")


class Value(int):
    """A whole number that also answers `.mean` (generic policies weigh weapons by it)."""

    @property
    def mean(self) -> float:
        return float(self)


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str
    kind: str            # melee | clip | projectile | beam
    damage: Value        # melee: added to STR; ranged: the attack's damage value
    skill: str
    reach_m: float = 1.0  # body attacks
    capacity: int = 0     # rounds in the magazine / loaded rounds / charged shots
    spare: int = 0        # spare clips / rounds / power cells carried
    packed: bool = False  # must be unpacked/installed (Ready Weapon) before use

    @property
    def ranged(self) -> bool:
        return self.kind != "melee"


def load_data(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def build_weapons(table: Mapping[str, Mapping[str, Any]]) -> dict[str, Weapon]:
    out = {}
    for name, w in table.items():
        kind = w["kind"]
        if kind not in WEAPON_KINDS:
            raise ValueError(f"weapon {name}: kind {kind!r}")
        cap = int(w.get("magazine", w.get("capacity", 0)))
        spare = int(w.get("clips", w.get("rounds", w.get("cells", 0))))
        out[name] = Weapon(name=name, kind=kind, damage=Value(int(w["damage"])), skill=str(w["skill"]),
                           reach_m=float(w.get("reach_m", 1.0)), capacity=cap, spare=spare,
                           packed=bool(w.get("packed", False)))
    return out


STAT_FIELDS = {"template", "name", "kind", "values", "skills", "weapons", "armour", "items", "status",
               "flies", "packed", "jammed", "empty", "facing", "posture", "damage", "conditions", "state"}


def _whole(v: Any, lo: int, source: str | None, field: str, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ScenarioError(f"{v!r}", source=source, field=field, expected=f"{what} (a whole number >= {lo})")
    return v


def _names(v: Any, source: str | None, field: str, what: str) -> list[str]:
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ScenarioError(f"{v!r}", source=source, field=field, expected=f"a list of {what}")
    return list(v)


def build_stat_block(spec: Mapping[str, Any], data: Mapping[str, Any], weapons: Mapping[str, Weapon],
                     source: str | None, field: str) -> dict[str, Any]:
    """Merge a bestiary template with overrides (or read a full stat block), checking every name."""
    from rules.systems.metalface.start import inline_armour, inline_item, inline_weapon  # (start.py imports us)
    check_keys(spec, sorted(STAT_FIELDS | {"id", "at", "team"}), source, field, "field")
    bestiary = data["bestiary"]
    tname = spec.get("template")
    base: dict[str, Any] = {}
    if tname is not None:
        check_known(tname, sorted(bestiary), source, f"{field}.template", "template")
        base = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in bestiary[tname].items()}
    merged = dict(base)
    for k, v in spec.items():
        if k in ("values", "skills") and isinstance(v, Mapping) and isinstance(base.get(k), Mapping):
            merged[k] = {**base[k], **v}
        elif k not in ("template", "id", "at", "team"):
            merged[k] = v
    kind = merged.get("kind", "human")
    if kind not in KINDS:
        raise ScenarioError(f"kind {kind!r}", source=source, field=f"{field}.kind", expected="human or metalface")
    names = tuple(data["values"])
    vin = merged.get("values")
    if not isinstance(vin, Mapping):
        raise ScenarioError("no values", source=source, field=f"{field}.values",
                            expected="a template or the values " + ", ".join(names))
    check_keys(vin, names, source, f"{field}.values", "value")
    values = {}
    for v in names:
        if v not in vin:
            raise ScenarioError(f"value {v} is missing", source=source, field=f"{field}.values.{v}",
                                expected="a number of dice, 1 or more")
        values[v] = _whole(vin[v], 1, source, f"{field}.values.{v}", "a number of dice")
    sin = merged.get("skills") or {}
    if not isinstance(sin, Mapping):
        raise ScenarioError("skills must be a mapping", source=source, field=f"{field}.skills",
                            expected="skill: level")
    check_keys(sin, data["skills"], source, f"{field}.skills", "skill")
    skills = {k: _whole(lv, 0, source, f"{field}.skills.{k}", "a skill level") for k, lv in sin.items()}
    wnames = merged.get("weapons") or []
    if not isinstance(wnames, list):
        raise ScenarioError("weapons must be a list", source=source, field=f"{field}.weapons",
                            expected="a list of weapon names")
    ws: dict[str, Weapon] = {}
    for i, wn in enumerate(wnames):
        if isinstance(wn, Mapping):        # written out inline (start.py)
            w = inline_weapon(wn, list(data["skills"]), source, f"{field}.weapons[{i}]")
            ws[w.name] = w
            continue
        check_known(wn, weapons, source, f"{field}.weapons[{i}]", "weapon", one_of(sorted(weapons)) + ", or a weapon mapping")
        ws[wn] = weapons[wn]
    ws.setdefault("unarmed", weapons["unarmed"])
    arm = merged.get("armour", "none")
    if arm is None:
        arm = "none"
    if isinstance(arm, Mapping):
        arm, arm_points = inline_armour(arm, source, f"{field}.armour")
    else:
        check_known(arm, data["armour"], source, f"{field}.armour", "armour",
                    one_of(sorted(data["armour"])) + ", or {name, points}")
        arm_points = int(data["armour"][arm])
    items_in = merged.get("items") or []
    if not isinstance(items_in, list):
        raise ScenarioError(f"{items_in!r}", source=source, field=f"{field}.items",
                            expected="a list of item names or item mappings")
    items: list[str] = []
    item_defs: dict[str, dict[str, Any]] = {}
    for i, it in enumerate(items_in):
        if isinstance(it, Mapping):
            n, d = inline_item(it, source, f"{field}.items[{i}]")
        else:
            check_known(it, data["items"], source, f"{field}.items[{i}]", "item",
                        one_of(sorted(data["items"])) + ", or an item mapping")
            n, d = it, dict(data["items"][it])
        items.append(n)
        item_defs[n] = d
    st = merged.get("status")
    if st is None:
        st = int(data["status"]["base"]) + int(data["status"]["per_end"]) * values["end"]
    else:
        st = _whole(st, 1, source, f"{field}.status", "max Status")
    flies = merged.get("flies", False)
    if not isinstance(flies, bool):
        raise ScenarioError(f"flies {flies!r}", source=source, field=f"{field}.flies", expected="true or false")
    states = {}
    for key in ("packed", "jammed", "empty"):
        lst = _names(merged.get(key), source, f"{field}.{key}", "weapon names")
        for i, wn in enumerate(lst):
            if wn not in ws or not ws[wn].ranged:
                raise UnknownNameError(f"{wn!r} is not a ranged weapon of this figure", source=source,
                                       field=f"{field}.{key}[{i}]",
                                       expected="one of " + ", ".join(n for n, w in ws.items() if w.ranged))
        states[key] = lst
    facing = merged.get("facing")
    if facing is not None and facing not in data["facings"]:
        raise ScenarioError(f"facing {facing!r}", source=source, field=f"{field}.facing",
                            expected="one of " + ", ".join(data["facings"]))
    posture = merged.get("posture", "stand")
    if posture not in data["postures"]:
        raise ScenarioError(f"posture {posture!r}", source=source, field=f"{field}.posture",
                            expected="one of " + ", ".join(data["postures"]))
    dmg = _whole(merged.get("damage", 0), 0, source, f"{field}.damage", "starting damage")
    if dmg > st:
        raise ScenarioError(f"damage {dmg} exceeds max Status {st}", source=source, field=f"{field}.damage",
                            expected=f"0 .. {st}")
    name = merged.get("name") or tname or "figure"
    if not isinstance(name, str):
        raise ScenarioError(f"name {name!r}", source=source, field=f"{field}.name", expected="a string")
    return {"name": name, "template": tname or "custom", "kind": kind, "values": values, "skills": skills,
            "weapons": ws, "armour_name": arm, "armour": arm_points, "items": tuple(items), "item_defs": item_defs,
            "status": int(st), "flies": flies, "packed": tuple(states["packed"]),
            "jammed": tuple(states["jammed"]), "empty": tuple(states["empty"]), "facing": facing,
            "posture": posture, "damage": dmg}


# ---------------------------------------------------------------------------------------
# the roll

def pool(value: int) -> tuple[int, int]:
    """(dice rolled, shortfall subtracted) for a value after modifiers."""
    return max(1, value), max(0, 1 - value)


def roll_value(dice: Dice, value: int, mod: int, label: str, call: RollCall | None = None
               ) -> tuple[list[int], int, int]:
    """Roll a value: (faces, kept die, total = kept + mod - shortfall); `call`, when given,
    is announced first (rules/calls.py)."""
    n, short = pool(value)
    if call is not None:
        dice.announce(call)
    faces = [dice.roll(6, label) for _ in range(n)]
    kept = max(faces)
    return faces, kept, kept + mod - short


@lru_cache(maxsize=4096)
def total_pmf(value: int, mod: int) -> tuple[tuple[int, float], ...]:
    """((total, probability), ...) of a roll of `value` with `mod` added."""
    n, short = pool(value)
    out = []
    for m in range(1, 7):
        p = (m / 6) ** n - ((m - 1) / 6) ** n
        out.append((m + mod - short, p))
    return tuple(out)


@lru_cache(maxsize=4096)
def p_at_least(value: int, mod: int, need: int) -> float:
    """P(total >= need)."""
    return sum(p for t, p in total_pmf(value, mod) if t >= need)


@lru_cache(maxsize=4096)
def mean_total(value: int, mod: int) -> float:
    return sum(t * p for t, p in total_pmf(value, mod))


@lru_cache(maxsize=16384)
def p_beats(a_value: int, a_mod: int, d_value: int, d_mod: int) -> float:
    """P(attacker total > defender total): an opposed roll the attacker must win outright."""
    dd = total_pmf(d_value, d_mod)
    return sum(pa * pd for ta, pa in total_pmf(a_value, a_mod) for td, pd in dd if ta > td)


__all__ = ["Value", "Weapon", "load_data", "build_weapons", "build_stat_block", "pool", "roll_value",
           "total_pmf", "p_at_least", "mean_total", "p_beats", "KINDS"]
