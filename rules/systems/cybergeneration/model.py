"""Cybergeneration data: weapons, armour, the damage-class table and stat blocks, from `data.yaml`.

seed 004 (Cybergeneration house rules, Interlock family): d10 + stat + skill against
difficulty numbers; damage is a d10 read on the weapon's damage-class (DC) row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Mapping

import yaml

from rules.errors import ScenarioError, UnknownNameError
from rules.names import check_keys, check_known

STATS = ("int", "ref", "tech", "cool", "attr", "luck", "ma", "body", "emp")
REQUIRED_STATS = ("int", "ref", "tech", "cool", "ma", "body")
TYPES = ("solo", "tribal", "scanner", "bolter", "tinman", "borg", "evolved")
KINDS = ("kid", "adult")
STAT_FIELDS = {"template", "name", "kind", "types", "stats", "skills", "weapons", "armour", "items", "drawn",
               "stun_fail", "damage", "stun_modifier", "prone", "conditions", "state", "rest_days"}


@dataclass(frozen=True, slots=True)
class DamageClass:
    """A weapon's damage class with the mean Wounds of one plain hit (policies read `.mean`)."""

    dc: int
    mean: float

    def __str__(self) -> str:
        return f"DC{self.dc}"


@dataclass(frozen=True, slots=True)
class Weapon:
    """One row of the weapon table (see data.yaml for the meaning of each field)."""

    name: str
    kind: str                    # melee | ranged | grenade | genius | special
    skill: str
    dc: int
    damage: DamageClass
    accuracy: int = 0
    range: str | None = None     # a range class of data.yaml
    rof: int = 1
    magazine: int = 0
    reload: str = "none"         # clip | loose | none
    access: str = "holster"      # holster | sheath | slung | concealed | implant
    ap: bool = False
    blunt: bool = False
    stun: bool = False
    emp: bool = False
    small: bool = False
    body_bonus: bool = False
    cyber: bool = False
    full_auto: bool = False
    point_blank: bool = False
    blanket: bool = False
    bow: bool = False
    crossbow: bool = False
    throwable: str | None = None  # small | large
    grapple_only: bool = False
    no_roll: bool = False
    special: str | None = None
    suppress_penalty: int = 0
    blast_m: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ranged(self) -> bool:
        return self.kind in ("ranged", "genius")

    @property
    def melee(self) -> bool:
        return self.kind == "melee"

    @property
    def implant(self) -> bool:
        return self.access == "implant"

    def x(self, key: str, default: Any = None) -> Any:
        return self.extra.get(key, default)


@dataclass(frozen=True, slots=True)
class Armour:
    name: str
    sp: int
    ev: int = 0
    obvious: bool = True
    covers: str = "body"         # body | head


_BOOL = ("ap", "blunt", "stun", "emp", "small", "body_bonus", "cyber", "full_auto", "point_blank", "blanket",
         "bow", "crossbow", "grapple_only", "no_roll")
_KNOWN = {"kind", "skill", "dc", "accuracy", "range", "rof", "magazine", "reload", "access", "throwable",
          "special", "suppress_penalty", "blast_m", *_BOOL}


def load_data(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


class DamageTable:
    """seed 004: 'Roll a d10 and look up the damage on the relevant line' (rows: data.yaml dc_table)."""

    def __init__(self, rows: Mapping[Any, list[int]]) -> None:
        self.rows = {int(k): [int(v) for v in row] for k, row in rows.items()}
        for k, row in self.rows.items():
            if len(row) != 10:
                raise ValueError(f"dc_table row {k} has {len(row)} entries, not 10")
        self.top = max(self.rows)

    def wounds(self, dc: int, face: int) -> int:
        """Wounds of one hit: DC row, die face (assumption damage_die_bounds beyond 1..10)."""
        if dc <= 0 or face < 1:
            return 0
        row = self.rows[min(dc, self.top)]
        if face > 10:
            return row[9] + (face - 10)
        return row[face - 1]

    def mean(self, dc: int, mod: int = 0) -> float:
        return sum(self.wounds(dc, f + mod) for f in range(1, 11)) / 10.0


def weapon_from(name: str, w: Mapping[str, Any], dmg: DamageTable) -> Weapon:
    """One weapon from its table row (data.yaml `weapons`, or a scenario's inline weapon)."""
    dc = int(w["dc"])
    kw = {k: bool(w.get(k, False)) for k in _BOOL}
    return Weapon(name=name, kind=w["kind"], skill=w["skill"], dc=dc, damage=DamageClass(dc, dmg.mean(dc)),
                  accuracy=int(w.get("accuracy", 0)), range=w.get("range"), rof=int(w.get("rof", 1)),
                  magazine=int(w.get("magazine", 0)), reload=w.get("reload", "none"),
                  access=w.get("access", "holster"), throwable=w.get("throwable"),
                  special=w.get("special"), suppress_penalty=int(w.get("suppress_penalty", 0)),
                  blast_m=float(w.get("blast_m", 0.0)),
                  extra={k: v for k, v in w.items() if k not in _KNOWN and k != "name"}, **kw)


def build_weapons(table: Mapping[str, Mapping[str, Any]], dmg: DamageTable) -> dict[str, Weapon]:
    return {name: weapon_from(name, w, dmg) for name, w in table.items()}


def build_armour(table: Mapping[str, Mapping[str, Any]]) -> dict[str, Armour]:
    return {n: Armour(n, int(a["sp"]), int(a.get("ev", 0)), bool(a.get("obvious", True)), a.get("covers", "body"))
            for n, a in table.items()}


def _whole(v: Any, source: str | None, field: str, lo: int = 0, hi: int = 99) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ScenarioError(f"{v!r}", source=source, field=field, expected=f"a whole number {lo}..{hi}")
    return v


def _name_list(v: Any, source: str | None, field: str) -> list[str]:
    if v is None:
        return []
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list):
        raise ScenarioError(f"{type(v).__name__}", source=source, field=field, expected="a list of names")
    for i, x in enumerate(v):
        if not isinstance(x, str):
            raise ScenarioError(f"{x!r} is not a name", source=source, field=f"{field}[{i}]", expected="a name")
    return list(v)


def build_stat_block(spec: Mapping[str, Any], bestiary: Mapping[str, Any], weapons: Mapping[str, Weapon],
                     armour: Mapping[str, Armour], items: Mapping[str, Any], source: str | None,
                     field: str, table: DamageTable | None = None, ranges: Collection[str] = (),
                     skills: Collection[str] | None = None) -> dict[str, Any]:
    """Merge a template with overrides (or read a full stat block) and check every name and value
    (inline equipment, starting conditions and state: `start.py`); with `skills` (the ruleset's
    `rules.names.skill_names`) a skill it does not know is refused."""
    from rules.systems.cybergeneration import start

    check_keys(spec, sorted(STAT_FIELDS | {"id", "at", "team"}), source, field, "field")
    tname = spec.get("template")
    base: Mapping[str, Any] = {}
    if tname is not None:
        check_known(tname, sorted(bestiary), source, f"{field}.template", "template")
        base = bestiary[tname]
    merged: dict[str, Any] = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in base.items()}
    for k, v in spec.items():
        if k in ("stats", "skills") and isinstance(v, Mapping) and isinstance(base.get(k), Mapping):
            merged[k] = {**base[k], **v}
        elif k not in ("template", "id", "at", "team"):
            merged[k] = v
    st_in = merged.get("stats")
    if not isinstance(st_in, Mapping):
        raise ScenarioError("no stats", source=source, field=f"{field}.stats",
                            expected="a template or stats: " + ", ".join(REQUIRED_STATS))
    check_keys(st_in, STATS, source, f"{field}.stats", "stat")
    stats = {}
    for s in STATS:
        if s not in st_in:
            if s in REQUIRED_STATS:
                raise ScenarioError(f"stat {s} is missing", source=source, field=f"{field}.stats.{s}",
                                    expected="a whole number 1..30")
            stats[s] = 5
            continue
        stats[s] = _whole(st_in[s], source, f"{field}.stats.{s}", 1, 30)
    sk_in = merged.get("skills") or {}
    if not isinstance(sk_in, Mapping):
        raise ScenarioError("skills must be a mapping", source=source, field=f"{field}.skills", expected="skill: value")
    if skills is not None:
        check_keys(sk_in, skills, source, f"{field}.skills", "skill")
    skills = {str(k): _whole(v, source, f"{field}.skills.{k}", 0, 20) for k, v in sk_in.items()}
    kind = merged.get("kind", "kid")
    if kind not in KINDS:
        raise ScenarioError(f"kind {kind!r}", source=source, field=f"{field}.kind", expected="kid or adult")
    types = _name_list(merged.get("types"), source, f"{field}.types")
    for i, t in enumerate(types):
        check_known(t, TYPES, source, f"{field}.types[{i}]", "type")
    if {"scanner", "bolter", "tinman"} & set(types) and "evolved" not in types:
        types.append("evolved")  # seed 004: scanners, bolters and tinmen are cyber-evolved
    ws = start.weapon_list(merged.get("weapons"), weapons, table, ranges, source, f"{field}.weapons")
    ws.setdefault("unarmed", weapons["unarmed"])
    arm = start.armour_list(merged.get("armour"), armour, source, f"{field}.armour")
    its = start.item_list(merged.get("items"), items, weapons, source, f"{field}.items")
    drawn = merged.get("drawn", "auto")
    if drawn is not None and not isinstance(drawn, str):
        raise ScenarioError(f"drawn {drawn!r}", source=source, field=f"{field}.drawn",
                            expected="a weapon name, auto or none")
    if "drawn" not in spec and drawn not in ws:
        drawn = "auto"  # the template's drawn weapon was overridden away
    if drawn == "auto":
        drawn = next((n for n, w in ws.items() if not w.implant), None)
    elif drawn in (None, "none"):
        drawn = None
    elif drawn not in ws:
        raise UnknownNameError(f"drawn weapon {drawn!r} is not carried", source=source, field=f"{field}.drawn",
                               expected="one of the figure's weapons, or none")
    stun_fail = merged.get("stun_fail", "pass_out")
    if stun_fail not in ("pass_out", "shock"):
        raise ScenarioError(f"stun_fail {stun_fail!r}", source=source, field=f"{field}.stun_fail",
                            expected="pass_out or shock")
    damage = _whole(merged.get("damage", 0), source, f"{field}.damage", 0, 99)
    stun_mod = merged.get("stun_modifier", 0)
    if isinstance(stun_mod, bool) or not isinstance(stun_mod, int) or not -30 <= stun_mod <= 0:
        raise ScenarioError(f"{stun_mod!r}", source=source, field=f"{field}.stun_modifier",
                            expected="a whole number -30..0")
    prone = merged.get("prone", False)
    if not isinstance(prone, bool):
        raise ScenarioError(f"{prone!r}", source=source, field=f"{field}.prone", expected="true or false")
    conditions = start.conditions_of(merged.get("conditions"), source, f"{field}.conditions")
    begin = start.state_of(merged.get("state"), ws, source, f"{field}.state")
    if "wound" in begin:
        if "damage" in merged:
            raise ScenarioError("Wounds given twice", source=source, field=f"{field}.state.wound",
                                expected="damage or state.wound, not both")
        damage = begin.pop("wound")
    if "stun_modifier" in begin:
        if "stun_modifier" in merged:
            raise ScenarioError("the stun modifier given twice", source=source, field=f"{field}.state.stun_modifier",
                                expected="stun_modifier or state.stun_modifier, not both")
        stun_mod = begin.pop("stun_modifier")
    rest_days = _whole(merged.get("rest_days", 0), source, f"{field}.rest_days", 0, 365)
    name = merged.get("name") or tname or "figure"
    if not isinstance(name, str):
        raise ScenarioError(f"{name!r}", source=source, field=f"{field}.name", expected="a name")
    return {"name": name, "template": tname or "custom", "kind": kind, "types": tuple(types), "stats": stats,
            "skills": skills, "weapons": ws, "armour": tuple(arm), "items": its, "drawn": drawn,
            "stun_fail": stun_fail, "damage": damage, "stun_modifier": stun_mod, "prone": prone,
            "conditions": tuple(conditions), "begin": begin, "rest_days": rest_days, "field": field, "source": source,
            "catalog": {n: w for n, w in ws.items() if weapons.get(n) is not w}}
