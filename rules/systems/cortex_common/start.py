"""What a scenario may say about a Cortex figure beyond its stat block (issue #32).

- Inline weapons and armour: wherever a weapon or armour name is accepted, a mapping with
  the table's fields is accepted too (`{name: sap, kind: melee, attribute: strength, skill:
  melee_weapons, damage: d4, type: S}`, or `{name: heavy_vest, like: tactical_vest, W: 8}`
  to start from a table entry), checked field by field.
- `conditions: [prone, {name: impaired, until: endurance}]` and `state: {wound: 4, ...}`:
  the figure's starting conditions and tracked values. Each ruleset passes a `StartSchema`
  naming what it accepts; `read_start` checks the shapes and names (errors list what is
  allowed), and the ruleset applies the result to its own figure.
"""

from __future__ import annotations

from dataclasses import dataclass, field as dc_field
from typing import Any, Callable, Mapping

from rules.dice import Step
from rules.errors import ScenarioError, UnknownKeyError
from rules.names import check_keys, check_known, did_you_mean
from rules.systems.cortex_common.model import ATTRIBUTES, Armour, Weapon, build_armour, build_weapons

WEAPON_CORE = {"kind": str, "attribute": str, "skill": str, "specialty": (str, type(None)), "damage": "die",
               "type": str, "range_ft": (int, float), "rof": int, "magazine": int, "size": int}
ARMOUR_FIELDS = {"W": int, "S": int, "covers": list, "agility_steps": int}


def _fail(what: str, source: str | None, field: str, expected: str) -> ScenarioError:
    return ScenarioError(what, source=source, field=field, expected=expected)


def _typed(value: Any, kind: Any, source: str | None, field: str) -> None:
    """Check one field's type (`"die"`: a die step such as d6)."""
    if kind == "die":
        try:
            Step.parse(value)
        except (ValueError, TypeError):
            raise _fail(f"{value!r} is not a die", source, field, "a die like d4, d6 ... d12") from None
        return
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
        raise _fail(f"{value!r} is a {type(value).__name__}", source, field, names)


def _extra_kinds(table: Mapping[str, Mapping[str, Any]], core: Mapping[str, Any]) -> dict[str, Any]:
    """The extra fields of a table (hands, burst, break ...) with the types their values have."""
    out: dict[str, Any] = {}
    for row in table.values():
        for k, v in row.items():
            if k in core or k in out:
                continue
            out[k] = (bool,) if isinstance(v, bool) else (int, float) if isinstance(v, (int, float)) else \
                (str, type(None)) if v is None or isinstance(v, str) else (type(v),)
    for k in list(out):  # a field that is null somewhere may be a name elsewhere
        if any(row.get(k) is None for row in table.values() if k in row):
            out[k] = (str, type(None))
    return out


def weapon_rows(weapons: Mapping[str, Weapon]) -> dict[str, dict[str, Any]]:
    """The weapon table as data-file rows (what `build_weapons` reads)."""
    return {n: {"kind": w.kind, "attribute": w.attribute, "skill": w.skill, "specialty": w.specialty,
                "damage": str(w.damage), "type": w.dtype, "range_ft": w.range_ft, "rof": w.rof,
                "magazine": w.magazine, "size": w.size, **(w.extra or {})} for n, w in weapons.items()}


def inline_weapon(entry: Mapping[str, Any], weapons: Mapping[str, Weapon], source: str | None,
                  field: str) -> Weapon:
    """A weapon written out in a scenario (checked against the fields the data table uses)."""
    table = weapon_rows(weapons)
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        raise _fail("an inline weapon needs a name", source, f"{field}.name", "a new weapon name")
    if name in table:
        raise _fail(f"{name!r} is a weapon of the table", source, f"{field}.name",
                    "a new name (write the table's name as a plain string to use it, or `like:`)")
    row: dict[str, Any] = {}
    like = entry.get("like")
    if like is not None:
        check_known(like, sorted(table), source, f"{field}.like", "weapon")
        row.update(table[like])
    extras = _extra_kinds(table, WEAPON_CORE)
    check_keys(entry, sorted({"name", "like", *WEAPON_CORE, *extras}), source, field, "weapon field")
    for k, v in entry.items():
        if k in ("name", "like"):
            continue
        _typed(v, WEAPON_CORE.get(k) or extras[k], source, f"{field}.{k}")
        row[k] = v
    for k in ("kind", "attribute", "skill", "damage", "type"):
        if k not in row:
            raise _fail(f"missing {k}", source, f"{field}.{k}", "the field (or `like:` a table weapon)")
    kinds = sorted({r["kind"] for r in table.values()})
    checks = (("kind", kinds), ("attribute", ATTRIBUTES), ("type", ("S", "W", "B")))
    for k, allowed_values in checks:
        if row[k] not in allowed_values:
            raise _fail(f"{k} {row[k]!r}", source, f"{field}.{k}", "one of " + ", ".join(allowed_values))
    for k in ("range_ft", "magazine", "size"):
        if row.get(k, 0) < 0:
            raise _fail(f"{k} {row[k]!r}", source, f"{field}.{k}", "0 or more")
    if row.get("rof", 1) < 1:
        raise _fail(f"rof {row['rof']!r}", source, f"{field}.rof", "1 or more")
    return build_weapons({name: row})[name]


def inline_armour(entry: Mapping[str, Any], table: Mapping[str, Armour], source: str | None, field: str
                  ) -> Armour:
    """Armour written out in a scenario: `{name, W, S, covers, agility_steps}`."""
    name = entry.get("name")
    if not isinstance(name, str) or not name or name in table:
        raise _fail(f"inline armour name {name!r}", source, f"{field}.name", "a new armour name")
    row: dict[str, Any] = {}
    like = entry.get("like")
    if like is not None:
        check_known(like, sorted(table), source, f"{field}.like", "armour")
        a = table[like]
        row = {"W": a.W, "S": a.S, "covers": list(a.covers), "agility_steps": a.agility_steps}
    check_keys(entry, ("name", "like", *ARMOUR_FIELDS), source, field, "armour field")
    for k, v in entry.items():
        if k in ARMOUR_FIELDS:
            _typed(v, ARMOUR_FIELDS[k], source, f"{field}.{k}")
            row[k] = v
    covers = sorted({c for a in table.values() for c in a.covers})
    for i, c in enumerate(row.get("covers", [])):
        if c not in covers:
            raise _fail(f"covers {c!r}", source, f"{field}.covers[{i}]", "one of " + ", ".join(covers))
    for k in ("W", "S"):
        if row.get(k, 0) < 0:
            raise _fail(f"{k} {row[k]!r}", source, f"{field}.{k}", "0 or more")
    return build_armour({name: row})[name]


@dataclass(frozen=True)
class StartSchema:
    """What a ruleset accepts as starting conditions and state.

    `conditions`: name -> the options a mapping entry may give (`{"until": ("endurance",
    ...)}`, `{"rounds": int}`, or {} for none). `state`: key -> a checker called as
    `check(value, source, field)` that raises `ScenarioError` (see `kind`)."""

    conditions: Mapping[str, Mapping[str, Any]]
    state: Mapping[str, Callable[[Any, str | None, str], None]] = dc_field(default_factory=dict)


def kind(*types: Any, low: int | None = None, choices: tuple = ()) -> Callable[[Any, str | None, str], None]:
    """A state checker: the value's type, a least value, or one of some choices."""
    def check(value: Any, source: str | None, field: str) -> None:
        if choices:
            if value not in choices:
                raise _fail(f"{value!r}", source, field, "one of " + ", ".join(map(str, choices)))
            return
        _typed(value, types, source, field)
        if low is not None and value < low:
            raise _fail(f"{value!r}", source, field, f"{low} or more")
    return check


def mapping_of(inner: Callable[[Any, str | None, str], None]) -> Callable[[Any, str | None, str], None]:
    """A state checker for `{name: value}` mappings (ammunition per weapon ...)."""
    def check(value: Any, source: str | None, field: str) -> None:
        if not isinstance(value, Mapping):
            raise _fail(f"{value!r}", source, field, "a mapping {name: value}")
        for k, v in value.items():
            inner(v, source, f"{field}.{k}")
    return check


def read_start(spec: Mapping[str, Any], schema: StartSchema, source: str | None, field: str
               ) -> tuple[list[tuple[str, dict[str, Any]]], dict[str, Any]]:
    """The checked `conditions` (as (name, options)) and `state` of a scenario figure."""
    raw = spec.get("conditions") or []
    if not isinstance(raw, list):
        raise _fail("conditions must be a list", source, f"{field}.conditions", "[name, {name: ..., ...}]")
    names = ", ".join(sorted(schema.conditions))
    conds: list[tuple[str, dict[str, Any]]] = []
    for i, c in enumerate(raw):
        f = f"{field}.conditions[{i}]"
        opts: dict[str, Any] = {}
        if isinstance(c, Mapping):
            opts = {k: v for k, v in c.items() if k != "name"}
            c = c.get("name")
        check_known(c, sorted(schema.conditions), source, f, "condition", "one of " + names)
        allowed = schema.conditions[c]
        for k in opts:
            if k not in allowed:
                raise UnknownKeyError(f"{c} takes no {k!r}{did_you_mean(k, allowed)}", source=source,
                                      field=f"{f}.{k}", expected=", ".join(allowed) if allowed else f"no options for {c}")
        for k, v in opts.items():
            rule = allowed[k]
            if isinstance(rule, tuple):
                if v not in rule:
                    raise _fail(f"{k} {v!r}", source, f"{f}.{k}", "one of " + ", ".join(rule))
            else:
                _typed(v, rule, source, f"{f}.{k}")
                if isinstance(v, int) and v < 1:
                    raise _fail(f"{k} {v!r}", source, f"{f}.{k}", "1 or more")
        conds.append((c, opts))
    st = spec.get("state") or {}
    if not isinstance(st, Mapping):
        raise _fail("state must be a mapping", source, f"{field}.state", "{key: value}")
    check_keys(st, sorted(schema.state), source, f"{field}.state", "state key")
    for k, v in st.items():
        schema.state[k](v, source, f"{field}.state.{k}")
    return conds, dict(st)


def link_grapples(state: Any) -> None:
    """Tie starting grapples together: `state.grappling` / `grappled_by` name the partner, a
    free enemy next to the figure; both sides get their `grappling` / `grappled` condition."""
    by_id = state.by_id
    for c in state.combatants:
        for key, back in (("grappling", "grappled_by"), ("grappled_by", "grappling")):
            other = c.res.get(key)
            if other is None:
                continue
            o = by_id.get(other)
            if o is None or o.team == c.team or not state.grid.adjacent(c.pos, o.pos) or \
                    o.res[back] not in (None, c.id):
                raise ScenarioError(f"{c.id}: {key} {other!r}", field=f"{c.id}.state.{key}",
                                    expected="the id of a free enemy figure next to it")
            o.res[back] = c.id
    for c in state.combatants:
        for key, cond in (("grappling", "grappling"), ("grappled_by", "grappled")):
            if c.res.get(key) is not None:
                c.conditions.add(cond)


__all__ = ["StartSchema", "inline_weapon", "inline_armour", "read_start", "kind", "mapping_of", "link_grapples"]
