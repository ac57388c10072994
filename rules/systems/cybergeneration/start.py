"""A figure's starting state and inline equipment in a scenario (issue #32, seed 004).

A combatant entry may give, besides its stat block:

- `weapons`, `armour`, `items`: a table name, or a mapping with the table's fields, e.g.
  `{name: vest, sp: 5}` (armour: sp, ev, obvious, covers body|head) or
  `{name: zip_gun, kind: ranged, skill: handgun, range: handgun, dc: 2, magazine: 6, reload: clip}`
  (the fields of data.yaml `weapons`), each checked field by field;
- `conditions`: `[prone, stunned, ...]` (an entry may be `{name: stunned}`): prone, knocked,
  unconscious, stunned (in shock), dying, dead, dodging, aiming. None lasts a number of
  rounds in seed 004 (a dodge and an aim last until the figure's next turn), so `rounds` is
  refused; impaired follows from Wounds; grapples and held actions are `state` entries;
- `state`: `{wound, stun_modifier, ammo: {weapon: n}, jammed: [..], broken: [..],
  ammo_ready: [..], grapple: [ids], hold: id, held_action: on_move|on_attack|on_draw,
  stable: true|false}`: the starting values of what the rules track;
- `rest_days`: days of rest before the fight; seed 004, Healing: "Cyberevolved without
  medical attention heal at 2HP per day" (applied when the fight starts, `care.py`).

Grapple partners are checked once every figure is placed (`check_links`).
"""

from __future__ import annotations

from typing import Any, Collection, Mapping

from rules.errors import ScenarioError
from rules.names import check_keys, check_known, one_of
from rules.systems.cybergeneration.model import Armour, DamageTable, Weapon, weapon_from

WEAPON_KINDS = ("melee", "ranged", "grenade", "genius", "special")
_FLAGS = ("ap", "blunt", "stun", "emp", "small", "body_bonus", "cyber", "full_auto", "point_blank", "blanket",
          "bow", "crossbow", "grapple_only", "no_roll")
#: inline weapon field -> (kind of value, lowest, highest) or the allowed words
_WEAPON_INTS = {"dc": (0, 10), "accuracy": (-10, 10), "rof": (1, 100), "magazine": (0, 1000),
                "suppress_penalty": (0, 10), "missile_skill": (0, 30), "blast_min": (1, 10), "blast_max": (1, 10),
                "scribble_dc": (1, 10)}
_WEAPON_NUMS = {"blast_m": (0.0, 100.0), "scribble_radius_m": (0.0, 100.0)}
_WEAPON_WORDS = {"reload": ("clip", "loose", "none"), "access": ("holster", "sheath", "slung", "concealed", "implant"),
                 "throwable": ("small", "large"), "special": ("static_wave", "contact_charge", "cybercrush")}
WEAPON_FIELDS = ("name", "kind", "skill", "range", *_WEAPON_INTS, *_WEAPON_NUMS, *_WEAPON_WORDS, *_FLAGS)
ARMOUR_FIELDS = ("name", "sp", "ev", "obvious", "covers")

CONDITIONS = ("prone", "knocked", "unconscious", "stunned", "dying", "dead", "dodging", "aiming")
_NOT_STARTABLE = {"impaired": "it follows from Wounds: give state: {wound: N}",
                  "incapacitated": "write stunned (in shock: stunned, incapacitated and prone)",
                  "grappling": "give state: {grapple: [partner id]}", "grappled": "give the holder state: {hold: id}",
                  "holding_action": "give state: {held_action: on_move | on_attack | on_draw}",
                  "suppressed": "suppression needs a shooter's zone; lay it down in the fight"}
STATE_KEYS = ("wound", "stun_modifier", "ammo", "jammed", "broken", "ammo_ready", "grapple", "hold", "held_action",
              "stable")
TRIGGERS = ("on_move", "on_attack", "on_draw")


def _err(msg: str, source: str | None, field: str, expected: str) -> ScenarioError:
    return ScenarioError(msg, source=source, field=field, expected=expected)


def _int(v: Any, lo: int, hi: int, source: str | None, field: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _err(f"{v!r}", source, field, f"a whole number {lo}..{hi}")
    return v


def _name(v: Any, source: str | None, field: str) -> str:
    if not isinstance(v, str) or not v:
        raise _err(f"{v!r}", source, field, "a name")
    return v


def _mapping_fields(spec: Mapping[str, Any], allowed: Collection[str], source: str | None, field: str) -> None:
    check_keys(spec, allowed, source, field, "field", "some of " + ", ".join(allowed))


# -- inline equipment ---------------------------------------------------------------------------
def inline_weapon(spec: Mapping[str, Any], table: Mapping[str, Weapon], dmg: DamageTable, ranges: Collection[str],
                  source: str | None, field: str) -> Weapon:
    """A weapon written out in the scenario: the fields of data.yaml `weapons`, each checked."""
    _mapping_fields(spec, WEAPON_FIELDS, source, field)
    name = _name(spec.get("name"), source, f"{field}.name")
    if name in table:
        raise _err(f"{name!r} is a weapon of the table", source, f"{field}.name",
                   "a new name for an inline weapon (or the table's name alone, without fields)")
    kind = spec.get("kind")
    if kind not in WEAPON_KINDS:
        raise _err(f"kind {kind!r}", source, f"{field}.kind", "one of " + ", ".join(WEAPON_KINDS))
    row: dict[str, Any] = {"kind": kind}
    if "dc" not in spec:
        raise _err("dc is missing", source, f"{field}.dc", "a damage class 0..10")
    for k, (lo, hi) in _WEAPON_INTS.items():
        if k in spec:
            row[k] = _int(spec[k], lo, hi, source, f"{field}.{k}")
    for k, (lo, hi) in _WEAPON_NUMS.items():
        if k in spec:
            v = spec[k]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                raise _err(f"{v!r}", source, f"{field}.{k}", f"a number {lo:g}..{hi:g}")
            row[k] = float(v)
    for k, words in _WEAPON_WORDS.items():
        if k in spec:
            if spec[k] not in words:
                raise _err(f"{k} {spec[k]!r}", source, f"{field}.{k}", "one of " + ", ".join(words))
            row[k] = spec[k]
    for k in _FLAGS:
        if k in spec:
            if not isinstance(spec[k], bool):
                raise _err(f"{spec[k]!r}", source, f"{field}.{k}", "true or false")
            row[k] = spec[k]
    default_skill = {"grenade": "athletics", "genius": "none"}.get(kind, "streetfighting")
    row["skill"] = _name(spec.get("skill", default_skill), source, f"{field}.skill")
    if kind in ("ranged", "genius"):
        rng = spec.get("range")
        if rng not in ranges or rng == "thrown":
            raise _err(f"range {rng!r}", source, f"{field}.range",
                       "one of " + ", ".join(r for r in ranges if r != "thrown"))
        row["range"] = rng
    elif "range" in spec:
        raise _err("a range class on a weapon that is not fired", source, f"{field}.range", "no range")
    if kind == "grenade" and not row.get("blast_m"):
        raise _err("a grenade without a blast", source, f"{field}.blast_m", "the blast radius in metres, above 0")
    if kind == "genius" and not row.get("magazine"):
        raise _err("a genius gun without a capacitor", source, f"{field}.magazine", "its charge in DC, above 0")
    return weapon_from(name, row, dmg)


def inline_armour(spec: Mapping[str, Any], table: Mapping[str, Armour], source: str | None, field: str) -> Armour:
    """Armour written out in the scenario: `{name, sp, ev, obvious, covers}`, e.g. `{name: vest, sp: 5}`."""
    _mapping_fields(spec, ARMOUR_FIELDS, source, field)
    name = _name(spec.get("name"), source, f"{field}.name")
    if "sp" not in spec:
        raise _err("sp is missing", source, f"{field}.sp", "the stopping power 0..20")
    sp = _int(spec["sp"], 0, 20, source, f"{field}.sp")
    ev = _int(spec.get("ev", 0), 0, 10, source, f"{field}.ev")
    obvious = spec.get("obvious", True)
    if not isinstance(obvious, bool):
        raise _err(f"{obvious!r}", source, f"{field}.obvious", "true or false")
    covers = spec.get("covers", "body")
    if covers not in ("body", "head"):
        raise _err(f"covers {covers!r}", source, f"{field}.covers", "body or head")
    return Armour(name, sp, ev, obvious, covers)


def weapon_list(v: Any, table: Mapping[str, Weapon], dmg: DamageTable, ranges: Collection[str],
                source: str | None, field: str) -> dict[str, Weapon]:
    """`weapons:` of a stat block: names of the table or inline weapons."""
    out: dict[str, Weapon] = {}
    for i, x in enumerate(_entries(v, source, field)):
        f = f"{field}[{i}]"
        if isinstance(x, Mapping):
            w = inline_weapon(x, table, dmg, ranges, source, f)
        else:
            check_known(x, table, source, f, "weapon", one_of(sorted(table)) + ", or a mapping of its fields")
            w = table[x]
        if w.name in out and out[w.name] != w:
            raise _err(f"two weapons named {w.name!r}", source, f, "distinct names")
        out[w.name] = w
    return out


def armour_list(v: Any, table: Mapping[str, Armour], source: str | None, field: str) -> list[Armour]:
    out: list[Armour] = []
    for i, x in enumerate(_entries(v, source, field)):
        f = f"{field}[{i}]"
        if isinstance(x, Mapping):
            out.append(inline_armour(x, table, source, f))
        else:
            check_known(x, table, source, f, "armour", one_of(sorted(table)) + ", or {name, sp, ev, covers}")
            out.append(table[x])
    return out


def item_list(v: Any, items: Mapping[str, Any], weapons: Mapping[str, Weapon], source: str | None,
              field: str) -> list[str]:
    """`items:` names of the item table, or `{name: ...}` for gear with no rules of its own."""
    out: list[str] = []
    for i, x in enumerate(_entries(v, source, field)):
        f = f"{field}[{i}]"
        if isinstance(x, Mapping):
            _mapping_fields(x, ("name",), source, f)
            out.append(_name(x.get("name"), source, f"{f}.name"))
        else:
            check_known(x, {**items, **weapons}, source, f, "item", one_of(sorted(items)) + ", or {name: ...}")
            out.append(x)
    return out


def _entries(v: Any, source: str | None, field: str) -> list[Any]:
    if v is None:
        return []
    if isinstance(v, (str, Mapping)):
        v = [v]
    if not isinstance(v, list):
        raise _err(type(v).__name__, source, field, "a list of names or mappings")
    for i, x in enumerate(v):
        if not isinstance(x, (str, Mapping)):
            raise _err(f"{x!r}", source, f"{field}[{i}]", "a name or a mapping of fields")
    return v


# -- conditions and state --------------------------------------------------------------------------
def conditions_of(v: Any, source: str | None, field: str) -> list[str]:
    """`conditions:` names (or `{name: ...}`) of the conditions a figure may start in."""
    out = []
    for i, x in enumerate(_entries(v, source, field)):
        f = f"{field}[{i}]"
        if isinstance(x, Mapping):
            if "rounds" in x:
                raise _err("rounds", source, f"{f}.rounds", "no duration: seed 004's conditions last until a rule "
                           "ends them (a dodge or an aim until the figure's next turn)")
            _mapping_fields(x, ("name",), source, f)
            x = x.get("name")
        if x in _NOT_STARTABLE:
            raise _err(f"condition {x!r} cannot be given", source, f, _NOT_STARTABLE[x])
        check_known(x, CONDITIONS, source, f, "condition")
        out.append(x)
    return out


def state_of(v: Any, weapons: Mapping[str, Weapon], source: str | None, field: str) -> dict[str, Any]:
    """`state:` starting values, each checked (see the module docstring)."""
    if v is None:
        return {}
    if not isinstance(v, Mapping):
        raise _err(type(v).__name__, source, field, "a mapping of " + ", ".join(STATE_KEYS))
    check_keys(v, STATE_KEYS, source, field, "state key", "some of " + ", ".join(STATE_KEYS))
    out: dict[str, Any] = {}

    def weapon_names(key: str, ok, what: str) -> list[str]:
        names = _entries(v[key], source, f"{field}.{key}")
        for i, n in enumerate(names):
            w = weapons.get(n) if isinstance(n, str) else None
            if w is None or not ok(w):
                raise _err(f"{n!r}", source, f"{field}.{key}[{i}]", f"one of the figure's {what}")
        return list(names)

    if "wound" in v:
        out["wound"] = _int(v["wound"], 0, 99, source, f"{field}.wound")
    if "stun_modifier" in v:
        out["stun_modifier"] = _int(v["stun_modifier"], -30, 0, source, f"{field}.stun_modifier")
    if "ammo" in v:
        if not isinstance(v["ammo"], Mapping):
            raise _err(type(v["ammo"]).__name__, source, f"{field}.ammo", "{weapon: rounds}")
        out["ammo"] = {}
        for n, k in v["ammo"].items():
            w = weapons.get(n)
            if w is None or not w.magazine:
                loaded = ", ".join(x for x in weapons if weapons[x].magazine)
                raise _err(f"{n!r}", source, f"{field}.ammo", "weapons of the figure with a magazine: " + loaded)
            out["ammo"][n] = _int(k, 0, w.magazine, source, f"{field}.ammo.{n}")
    if "jammed" in v:
        out["jammed"] = weapon_names("jammed", lambda w: w.ranged, "firearms")
    if "broken" in v:
        out["broken"] = weapon_names("broken", lambda w: not w.implant, "weapons (not implants or bare hands)")
    if "ammo_ready" in v:
        out["ammo_ready"] = weapon_names("ammo_ready", lambda w: w.reload == "clip", "clip-fed weapons")
    if "grapple" in v:
        ids = _entries(v["grapple"], source, f"{field}.grapple")
        for i, x in enumerate(ids):
            _name(x, source, f"{field}.grapple[{i}]")
        out["grapple"] = list(ids)
    if "hold" in v:
        out["hold"] = _name(v["hold"], source, f"{field}.hold")
    if "held_action" in v:
        if v["held_action"] not in TRIGGERS:
            raise _err(f"{v['held_action']!r}", source, f"{field}.held_action", "one of " + ", ".join(TRIGGERS))
        out["held_action"] = v["held_action"]
    if "stable" in v:
        if not isinstance(v["stable"], bool):
            raise _err(f"{v['stable']!r}", source, f"{field}.stable", "true or false")
        out["stable"] = v["stable"]
    return out


# -- applying them ---------------------------------------------------------------------------------
def weapon_row(w: Weapon) -> dict[str, Any]:
    """The table row of a weapon (JSON), from which `weapon_from` builds it again."""
    row: dict[str, Any] = {"kind": w.kind, "skill": w.skill, "dc": w.dc, "accuracy": w.accuracy, "rof": w.rof,
                           "magazine": w.magazine, "reload": w.reload, "access": w.access,
                           "suppress_penalty": w.suppress_penalty, "blast_m": w.blast_m}
    for k in ("range", "throwable", "special"):
        if getattr(w, k) is not None:
            row[k] = getattr(w, k)
    row.update({k: True for k in _FLAGS if getattr(w, k)})
    row.update(w.extra)
    return row


def apply_start(rs: Any, c: Any) -> None:
    """Put a freshly built figure into its starting conditions and state (those that need no
    other figure; grapples: `check_links`, at the start of the fight)."""
    st = c.stats
    begin = st["begin"]
    r = c.res
    for k in ("jammed", "broken", "ammo_ready"):
        r[k] = list(begin.get(k, ()))
    r["ammo"].update(begin.get("ammo", {}))
    if r["drawn"] in r["broken"]:
        r["drawn"] = None
    r["stable"] = bool(begin.get("stable", False))
    conds = set(st["conditions"])
    if "knocked" in conds:
        c.conditions |= {"knocked", "prone"}
    if "prone" in conds:
        c.conditions.add("prone")
    if "unconscious" in conds:
        c.conditions |= {"unconscious", "prone"}
    if "stunned" in conds:
        c.conditions |= {"stunned", "incapacitated", "prone"}
    if "dead" in conds:
        c.conditions |= {"dead", "prone"}
    if "aiming" in conds:  # aimed in the round before the fight: +3 in its first turn
        r["aim_round"] = 1
        c.conditions.add("aiming")
    if "held_action" in begin:
        w = rs.held_weapon(c)
        r["trigger"] = {"on": begin["held_action"], "weapon": w.name, "steady": False, "aim": 0, "round": 1}
        c.conditions.add("holding_action")
    rs.sync_wounds(c, 0)
    rem = rs.remaining(c)
    field, source = st["field"], st["source"]
    if "dying" in conds and not (-5 < rem < 0 and "dying" in c.conditions):
        raise _err(f"dying with {rem} Wounds left" + (" and stable" if r["stable"] else ""), source,
                   f"{field}.conditions", "Wounds left -1..-4 (state: {wound: N}) and not stable")
    if "dodging" in conds and not c.down:
        quick = rs.stat(c, "ref") >= rs.mod["dodge_ref_threshold"]
        r["dodge"] = rs.mod["dodge_ref10"] if quick else rs.mod["dodge"]
        c.conditions.add("dodging")
    if c.down:
        r["trigger"] = None
        c.conditions -= {"holding_action", "aiming", "knocked"}


def check_links(rs: Any, state: Any) -> None:
    """Start grapples and holds given as `state: {grapple: [...], hold: id}`: partners must be
    standing enemies next to the figure (seed 004: 'both parties are defined as "grappling"')."""
    g = state.grid
    for c in state.combatants:
        begin = c.stats.get("begin") or {}
        field, source = c.stats.get("field"), c.stats.get("source")
        ids = list(begin.get("grapple", ()))
        if begin.get("hold") is not None and begin["hold"] not in ids:
            ids.append(begin["hold"])
        for i, oid in enumerate(ids):
            o = state.by_id.get(oid)
            f = f"{field}.state.grapple[{i}]" if i < len(begin.get("grapple", ())) else f"{field}.state.hold"
            if o is None or o.team == c.team or o.down or c.down or not g.adjacent(c.pos, o.pos):
                raise _err(f"{oid!r} cannot be a grapple partner", source, f,
                           "the id of a standing enemy next to a standing figure")
            if c.res["trigger"] is not None or o.res["trigger"] is not None:
                raise _err("a held action in a grapple", source, f,
                           "no held action for a grappling figure (assumption triggers_in_grapples)")
            for x, y in ((c, o), (o, c)):
                if y.id not in x.res["grapple"]:
                    x.res["grapple"].append(y.id)
                x.conditions.add("grappling")
        hold = begin.get("hold")
        if hold is not None:
            o = state.by_id[hold]
            if o.res["held_by"] is not None or c.res["held_by"] is not None or o.res["hold"] is not None:
                raise _err(f"{hold!r} is held already", source, f"{field}.state.hold", "one hold per pair")
            c.res["hold"] = hold
            o.res["held_by"] = c.id
            o.conditions.add("grappled")
    rows: dict[str, tuple] = {}
    for c in state.combatants:
        for n, w in (c.stats.get("catalog") or {}).items():
            if rows.setdefault(n, (c, w))[1] != w:
                raise _err(f"two different inline weapons named {n!r}", c.stats.get("source"),
                           f"{c.stats.get('field')}.weapons", "one definition per name in a scenario")
