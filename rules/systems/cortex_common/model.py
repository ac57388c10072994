"""Cortex data: weapons, armour, stat blocks and dice pools, read from a ruleset's `data.yaml`.

Shared by every Cortex-family ruleset (the die ladder, Difficulty ladder, Life Points and
damage types are the same); each ruleset passes its own data file, which `load_data`
lays over the common `base.yaml`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Mapping

import yaml

from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import D0, D2, Dice, PoolRoll, Step, roll_steps
from rules.errors import ScenarioError, UnknownKeyError
from rules.events import Event, event
from rules.names import check_keys, check_known, close_but_unknown, skill_names, specialty_names
from rules.state import Combatant

ATTRIBUTES = ("agility", "strength", "vitality", "alertness", "intelligence", "willpower")


@dataclass(frozen=True, slots=True)
class Weapon:
    name: str
    kind: str              # ranged | melee | thrown
    attribute: str
    skill: str
    specialty: str | None
    damage: Step
    dtype: str             # S | W | B
    range_ft: float = 0.0
    rof: int = 1
    magazine: int = 0
    size: int = 0
    extra: Mapping[str, Any] | None = None

    @property
    def ranged(self) -> bool:
        return self.kind != "melee"

    def x(self, key: str, default: Any = None) -> Any:
        """An extra table value (hands, burst, autofire, trip, break ...)."""
        return self.extra.get(key, default) if self.extra else default

    @property
    def hands(self) -> int:
        return int(self.x("hands", 1))


@dataclass(frozen=True, slots=True)
class Armour:
    name: str
    W: int
    S: int
    covers: tuple[str, ...]
    agility_steps: int = 0


BASE = Path(__file__).with_name("base.yaml")


def _read(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f) or {}


def load_data(path: Path) -> dict[str, Any]:
    """A ruleset's data file over the common Cortex base (its own keys win; the base's
    assumptions are added where the ruleset does not decide the same key)."""
    base = _read(BASE)
    own = _read(path)
    data = {**base, **own}
    keys = {a.get("key") for a in own.get("assumptions", [])}
    data["assumptions"] = list(own.get("assumptions", [])) + [a for a in base.get("assumptions", [])
                                                              if a.get("key") not in keys]
    return data


def plot_point_die(points: int) -> Step:
    """RULES-NOTES: 1 Plot Point adds a d2, each further point steps that die up."""
    return Step(points) if points > 0 else Step(0)


def parse_step(value: Any, source: str | None, field: str) -> Step:
    try:
        return Step.parse(value)
    except (ValueError, TypeError):
        raise ScenarioError(f"{value!r} is not a die step", source=source, field=field,
                            expected="a die like d2, d4 ... d12, d12+d2") from None


def build_weapons(table: Mapping[str, Mapping[str, Any]]) -> dict[str, Weapon]:
    out = {}
    for name, w in table.items():
        known = {"kind", "attribute", "skill", "specialty", "damage", "type", "range_ft", "rof",
                 "magazine", "size"}
        out[name] = Weapon(name=name, kind=w["kind"], attribute=w["attribute"], skill=w["skill"],
                           specialty=w.get("specialty"), damage=Step.parse(w["damage"]),
                           dtype=w["type"], range_ft=float(w.get("range_ft", 0)),
                           rof=int(w.get("rof", 1)), magazine=int(w.get("magazine", 0)),
                           size=int(w.get("size", 0)),
                           extra={k: v for k, v in w.items() if k not in known} or None)
    return out


def build_armour(table: Mapping[str, Mapping[str, Any]]) -> dict[str, Armour]:
    return {name: Armour(name, int(a.get("W", 0)), int(a.get("S", 0)), tuple(a.get("covers", ())),
                         int(a.get("agility_steps", 0))) for name, a in table.items()}


STAT_FIELDS = {"template", "name", "attributes", "skills", "weapons", "armour", "decline_innate",
               "block_effect", "traits", "plot_points", "life_points", "items"}


def build_stat_block(spec: Mapping[str, Any], bestiary: Mapping[str, Any], weapons: Mapping[str, Weapon],
                     armour: Mapping[str, Armour], source: str | None, field: str,
                     extra_fields: set[str] = frozenset(), start: Any = None,
                     names: SkillNames | None = None) -> dict[str, Any]:
    """Merge a template with overrides (or read a full stat block) and check every name.

    Weapons and armour may be written inline (mappings; `start.inline_weapon`). With a
    `start` schema (`start.StartSchema`) the figure's `conditions` and `state` are read into
    `["start"]` as (conditions, state); without one they are not accepted. With `names`
    ((general skills, their specialties): `known_skills`) an
    unknown general skill, or a specialty one letter or two from a known one, is refused."""
    from rules.systems.cortex_common.start import inline_armour, inline_weapon, read_start

    fields = STAT_FIELDS | set(extra_fields) | {"id", "at", "team"} | ({"conditions", "state"} if start else set())
    check_keys(spec, sorted(fields), source, field, "field")
    base: dict[str, Any] = {}
    tname = spec.get("template")
    if tname is not None:
        if not isinstance(tname, str):
            raise ScenarioError(f"template {tname!r} is not a name", source=source, field=f"{field}.template",
                                expected="one of " + ", ".join(sorted(bestiary)))
        check_known(tname, sorted(bestiary), source, f"{field}.template", "template")
        base = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in bestiary[tname].items()}
    merged = dict(base)
    for k, v in spec.items():
        if k in ("attributes", "skills") and isinstance(v, Mapping):
            merged[k] = {**base.get(k, {}), **v}
        elif k not in ("template", "id", "at", "team"):
            merged[k] = v
    attrs_in = merged.get("attributes")
    if not isinstance(attrs_in, Mapping):
        raise ScenarioError("no attributes", source=source, field=f"{field}.attributes",
                            expected="a template or all six attributes: " + ", ".join(ATTRIBUTES))
    check_keys(attrs_in, ATTRIBUTES, source, f"{field}.attributes", "attribute")
    attrs = {}
    for a in ATTRIBUTES:
        if a not in attrs_in:
            raise ScenarioError(f"attribute {a} is missing", source=source, field=f"{field}.attributes.{a}",
                                expected="a die like d6")
        attrs[a] = parse_step(attrs_in[a], source, f"{field}.attributes.{a}")
        if not attrs[a]:
            raise ScenarioError(f"attribute {a} is d0", source=source, field=f"{field}.attributes.{a}",
                                expected="d2 or more")
    skills_in = merged.get("skills") or {}
    if not isinstance(skills_in, Mapping):
        raise ScenarioError("skills must be a mapping", source=source, field=f"{field}.skills",
                            expected="skill: die")
    if names is not None:
        check_skills(skills_in, names, source, f"{field}.skills")
    skills = {k: parse_step(v, source, f"{field}.skills.{k}") for k, v in skills_in.items()}
    wnames = merged.get("weapons") or []
    if not isinstance(wnames, list):
        raise ScenarioError("weapons must be a list", source=source, field=f"{field}.weapons",
                            expected="a list of weapon names")
    ws: dict[str, Weapon] = {}
    for i, wn in enumerate(wnames):
        if isinstance(wn, Mapping):
            w = inline_weapon(wn, weapons, source, f"{field}.weapons[{i}]")
            ws[w.name] = w
            continue
        if not isinstance(wn, str):
            raise ScenarioError(f"weapon {wn!r} is not a name", source=source, field=f"{field}.weapons[{i}]",
                                expected="a mapping (an inline weapon) or one of " + ", ".join(sorted(weapons)))
        check_known(wn, sorted(weapons), source, f"{field}.weapons[{i}]", "weapon")
        ws[wn] = weapons[wn]
    ws.setdefault("unarmed", weapons["unarmed"])
    arm = merged.get("armour")
    armours: list[Armour] = []
    if arm is not None and not isinstance(arm, (str, list, Mapping)):
        raise ScenarioError(f"armour {arm!r}", source=source, field=f"{field}.armour",
                            expected="an armour name, a mapping (inline armour) or a list of them: "
                            + ", ".join(sorted(armour)))
    for i, an in enumerate([arm] if isinstance(arm, (str, Mapping)) else (arm or [])):
        if isinstance(an, Mapping):
            armours.append(inline_armour(an, armour, source, f"{field}.armour" + (f"[{i}]" if isinstance(arm, list)
                                                                                    else "")))
            continue
        check_known(an, sorted(armour), source, f"{field}.armour" + (f"[{i}]" if isinstance(arm, list) else ""),
                    "armour")
        armours.append(armour[an])
    decline = merged.get("decline_innate", "auto")
    if decline not in ("auto", "never", "always"):
        raise ScenarioError(f"decline_innate {decline!r}", source=source, field=f"{field}.decline_innate",
                            expected="auto, never or always")
    effect = merged.get("block_effect")
    if effect not in (None, "disarm", "trip", "bash"):
        raise ScenarioError(f"block_effect {effect!r}", source=source, field=f"{field}.block_effect",
                            expected="disarm, trip or bash")
    life = merged.get("life_points")
    if life is not None and (isinstance(life, bool) or not isinstance(life, int) or life < 1):
        raise ScenarioError(f"life_points {life!r}", source=source, field=f"{field}.life_points",
                            expected="a whole number of 1 or more")
    for k in ("traits", "items"):
        if merged.get(k) is not None and not isinstance(merged.get(k), list):
            raise ScenarioError(f"{k} must be a list", source=source, field=f"{field}.{k}",
                                expected=f"a list of {k}")
    pp = merged.get("plot_points", 0)
    if isinstance(pp, bool) or not isinstance(pp, int) or pp < 0:
        raise ScenarioError(f"plot_points {pp!r}", source=source, field=f"{field}.plot_points",
                            expected="a whole number of 0 or more")
    return {"name": merged.get("name") or tname or "figure", "attributes": attrs, "skills": skills,
            "weapons": ws, "armour": armours, "decline_innate": decline, "block_effect": effect,
            "traits": tuple(merged.get("traits") or ()), "plot_points": pp,
            "life_points": merged.get("life_points"), "items": list(merged.get("items") or []),
            "template": tname or "custom",
            "start": read_start(spec, start, source, field) if start is not None else ([], {})}


#: (general skills, general skill -> specialties) a ruleset knows (`rules.names`)
SkillNames = tuple[Collection[str], Mapping[str, Collection[str]]]


def known_skills(data: Mapping[str, Any]) -> SkillNames:
    """The general skills and specialties a Cortex data file knows (`rules.names`)."""
    return skill_names(data), specialty_names(data)


def check_skills(skills_in: Mapping[str, Any], known: SkillNames, source: str | None, field: str) -> None:
    """Each `skill` or `skill/specialty` key: the general skill must be known; a specialty may
    be coined, but one a letter or two from a known one is refused as a typo."""
    general, specialties = known
    for k in skills_in:
        g, sep, sp = k.partition("/") if isinstance(k, str) else (k, "", "")
        check_known(g, general, source, f"{field}.{k}", "skill")
        near = close_but_unknown(sp, specialties.get(g, ())) if sep else None
        if near is not None or (sep and not sp):
            some = ", ".join(f"{g}/{s}" for s in sorted(specialties.get(g, ()))[:6])
            raise UnknownKeyError(f"unknown specialty {k!r}" + (f"; did you mean '{g}/{near}'?" if near else ""),
                                  source=source, field=f"{field}.{k}",
                                  expected=f"{g}/SPECIALTY" + (f", e.g. {some}" if some else ""))


def skill_die(stats: Mapping[str, Any], skill: str, specialty: str | None) -> Step:
    """The better of the general skill and its specialty (d0 when unskilled)."""
    skills = stats["skills"]
    best = skills.get(skill, D0)
    if specialty:
        sp = skills.get(f"{skill}/{specialty}")
        if sp is not None and sp > best:
            best = sp
    return best


def describe_pool(attr_name: str, attr: Step, skill_name: str | None, skill: Step) -> str:
    s = f"{attr_name.capitalize()} {attr}"
    if skill_name and skill:
        s += f" + {skill_name.replace('_', ' ').title()} {skill}"
    return s


def make_pool(c: Combatant, attr_name: str, skill: Step, steps: int, attr_steps: int = 0
              ) -> tuple[Step, Step] | None:
    """Attribute and skill dice after step modifiers, or None when the action cannot be tried.

    Positive or negative `steps` go to the skill die; a penalty beyond d0 spills onto the
    attribute die (`attr_steps` go there directly, never below d2); an attribute die below
    d2 makes the action impossible."""
    attr = c.stats["attributes"][attr_name]
    if attr_steps:
        attr = Step(max(1, attr.index + attr_steps)) if attr.index >= 1 else attr
    if steps >= 0:
        return attr, skill + steps
    over = -steps - skill.index
    if over <= 0:
        return attr, skill - (-steps)
    a = attr.index - over
    if a < 1:
        return None
    return Step(a), D0


def roll_pool(dice: Dice, actor: str, purpose: str, attr_name: str, attr: Step, skill_name: str | None,
              skill: Step, difficulty: int | None = None, extra: Mapping[str, Any] | None = None,
              check: str | None = None, modifiers: list | None = None,
              against: dict | None = None) -> tuple[PoolRoll, Event]:
    """Roll attribute + skill, announced first (`against`: the other side of an opposed roll,
    rules/calls.py); the roll event gets `check` and `modifiers` when given (or through
    `extra`, which is laid over the event last)."""
    pool = describe_pool(attr_name, attr, skill_name, skill)
    x = extra or {}
    dice.announce(RollCall(actor, purpose, x.get("check", check), x.get("pool", pool), step_sides((attr, skill)),
                           difficulty=x.get("difficulty", difficulty), against=against,
                           modifiers=calls.mods(x.get("modifiers", modifiers)), label=purpose))
    r = roll_steps(dice, (attr, skill), purpose)
    e = event("roll", actor=actor, purpose=purpose, pool=pool,
              dice=[list(f) for f in r.faces], total=r.total)
    if check is not None:
        e["check"] = check
        e["modifiers"] = list(modifiers or [])
    if difficulty is not None:
        e["difficulty"] = difficulty
    if r.botch:
        e["botch"] = True
    if extra:
        e.update(extra)
    return r, e


__all__ = ["ATTRIBUTES", "Weapon", "Armour", "load_data", "parse_step", "build_weapons", "build_armour",
           "build_stat_block", "skill_die", "describe_pool", "make_pool", "roll_pool", "plot_point_die", "D2",
           "known_skills", "check_skills", "SkillNames"]
