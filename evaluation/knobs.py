"""Tuning knobs: what a scenario's `tuning:` block declares a GM may change, read, checked and
applied (`parse_knobs`, `check_knobs`, `apply_knobs`, `default_knobs`). The search that turns
them is `evaluation.tuning.tune`; its module text shows a `tuning:` block with every kind.
`tactica validate` runs `parse_knobs` too, so a bad knob is found before a tune."""

from __future__ import annotations

import copy
import math
from collections import Counter, deque
from typing import Any, Annotated, Literal, Mapping, Sequence, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluation.difficulty import (pc_team_of)
from rules.dice import Step
from rules.errors import ScenarioError, TacticaError
from rules.grid import Grid, legend_from_spec
from rules.names import check_known
from rules.ruleset import get_ruleset
from rules.scenario import ScenarioSpec, build_state, parse_scenario, pydantic_error
from rules.state import Combatant

Cell = Annotated[list[int], Field(min_length=2, max_length=2)]


class _Knob(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None


class CountKnob(_Knob):
    kind: Literal["count"]
    team: str
    template: str
    min: int = Field(ge=0)
    max: int = Field(ge=0)
    cells: list[Cell] = Field(default_factory=list)


class StepKnob(_Knob):
    kind: Literal["trait_step"]
    figure: str | None = None
    team: str | None = None
    attribute: str | list[str]
    min: int = Field(ge=-12, le=0)
    max: int = Field(ge=0, le=12)


class WeaponKnob(_Knob):
    kind: Literal["weapon"]
    figure: str
    choices: list[str | list[str]] = Field(min_length=2)


class DistanceKnob(_Knob):
    kind: Literal["distance"]
    team: str
    min: int = Field(ge=-50, le=0)
    max: int = Field(ge=0, le=50)


class CoverKnob(_Knob):
    kind: Literal["cover"]
    cells: list[Cell] = Field(min_length=1)
    terrain: str = Field(default="m", min_length=1, max_length=1)
    floor: str = Field(default=".", min_length=1, max_length=1)
    min: int = Field(default=0, ge=0)
    max: int | None = None


Knob = Annotated[Union[CountKnob, StepKnob, WeaponKnob, DistanceKnob, CoverKnob], Field(discriminator="kind")]


class TuningSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    knobs: list[Knob] = Field(min_length=1)


# -- trait steps ------------------------------------------------------------------------

#: stat-block groups that hold steppable traits; a scenario entry overrides each under the
#: same name (`attributes:` in the Cortex family, `values:` in metalface, `stats:` in
#: cybergeneration, `skills:` everywhere)
TRAIT_GROUPS = ("attributes", "values", "stats", "skills")


def _trait(c: Combatant, trait: str) -> tuple[str, Any] | None:
    """(group, value) of a figure's attribute or skill, when its stat block has one."""
    for group in TRAIT_GROUPS:
        vals = c.stats.get(group) if isinstance(c.stats, Mapping) else None
        if isinstance(vals, Mapping) and trait in vals and isinstance(vals[trait], (Step, int)):
            return group, vals[trait]
    return None


def step_trait(entry: dict, c: Combatant, trait: str, offset: int) -> None:
    """Write the stat-block override that steps a figure's trait by `offset`.

    Die steps (`Step`, the Cortex family) move along the die ladder, never below d2 for an
    attribute or d0 for a skill; whole-number traits move by one per step, never below 1
    (attributes, stats) or 0 (skills)."""
    found = _trait(c, trait)
    if found is None:
        raise TacticaError(f"{c.id} has no attribute or skill {trait!r}", field="attribute",
                           expected="an attribute or skill of the figure's stat block")
    group, cur = found
    floor = 0 if group == "skills" else 1
    if isinstance(cur, Step):
        val: Any = str(Step(max(floor, cur.index + offset)))
    else:
        val = max(floor, int(cur) + offset)
    entry[group] = {**(entry.get(group) or {}), trait: val}


def has_trait(c: Combatant, trait: str) -> bool:
    return _trait(c, trait) is not None


#: ruleset -> traits that derived team-wide step knobs move, one knob each (attack and toughness)
DEFAULT_STEP_TRAITS: dict[str, list[str]] = {"cortex": ["agility", "strength", "vitality"],
                                             "cortex_hu": ["agility", "strength", "vitality"],
                                             # metalface fires with PER (Targeting rolls), strikes and hurts
                                             # with STR, resists with END; AGL orders the turns and walks,
                                             # which is no toughness: one step of it moved a duel either way
                                             "metalface": ["per", "str", "end"],
                                             "cybergeneration": ["ref", "body"]}


# -- knobs: labels, ranges, baselines ------------------------------------------------------

def knob_label(k: Any) -> str:
    if k.name:
        return k.name
    if isinstance(k, CountKnob):
        return f"count {k.team}/{k.template}"
    if isinstance(k, StepKnob):
        traits = "+".join(_traits(k))
        return f"step {k.figure or k.team} {traits}"
    if isinstance(k, WeaponKnob):
        return f"weapon {k.figure}"
    if isinstance(k, DistanceKnob):
        return f"distance {k.team}"
    return f"cover {k.terrain} x{len(k.cells)}"


def _traits(k: StepKnob) -> list[str]:
    return [k.attribute] if isinstance(k.attribute, str) else list(k.attribute)


def _choice(ch: str | list[str]) -> list[str]:
    return [ch] if isinstance(ch, str) else list(ch)


def _team(doc: dict, name: str) -> dict | None:
    return next((t for t in doc["teams"] if t.get("name") == name), None)


def _entries(doc: dict) -> dict[str, dict]:
    return {c.get("id"): c for t in doc["teams"] for c in t.get("combatants", [])}


def knob_sign(k: Any, spec: ScenarioSpec, pc_team: str, source: str | None = None) -> int:
    """+1 where turning the knob up helps the PC team, -1 where it helps their foes, 0 where the
    tuner cannot tell (a weapon, a distance, cover: which side gains depends on the map).

    Assumption (docs README, "Preparing an encounter"): another figure of a team, or a step up
    of a trait of its figures, never makes that team weaker. The tuner tries only the steps
    toward the target on such knobs: on few fights a step the wrong way could look nearer on
    the dice alone (a foe's Reflexes up "helped" the PCs from 11.0% to 14.0% of 100 fights)."""
    if isinstance(k, CountKnob):
        team = k.team
    elif isinstance(k, StepKnob):
        team = k.team if k.team is not None else _built(spec, source)[k.figure].team
    else:
        return 0
    return 1 if team == pc_team else -1


def knob_range(k: Any) -> tuple[int, int]:
    if isinstance(k, WeaponKnob):
        return 0, len(k.choices) - 1
    if isinstance(k, CoverKnob):
        return k.min, (len(k.cells) if k.max is None else k.max)
    return k.min, k.max


def baseline(doc: dict, k: Any, spec: ScenarioSpec, source: str | None) -> int:
    """The knob's value in the scenario as written."""
    if isinstance(k, CountKnob):
        return sum(1 for c in _team(doc, k.team)["combatants"] if c.get("template") == k.template)
    if isinstance(k, CoverKnob):
        rows = doc["map"]["rows"]
        return sum(1 for x, y in k.cells if rows[y][x] == k.terrain)
    if isinstance(k, WeaponKnob):
        as_written = set(_built(spec, source)[k.figure].weapons)
        for i, ch in enumerate(k.choices):
            d = copy.deepcopy(doc)
            _entries(d)[k.figure]["weapons"] = _choice(ch)
            if set(_built(parse_scenario(d, source), source)[k.figure].weapons) == as_written:
                return i
        raise TacticaError(f"{k.figure} carries {sorted(as_written)} as written, which is none of the choices",
                           field="choices", expected="the figure's weapons as written among the choices")
    return 0


def _built(spec: ScenarioSpec, source: str | None) -> dict[str, Combatant]:
    return {c.id: c for c in build_state(spec, source).combatants}


# -- applying knob values to a scenario document -------------------------------------------

def _grid(doc: dict, spec: ScenarioSpec, source: str | None) -> Grid:
    rs = get_ruleset(spec.ruleset)
    return Grid(doc["map"]["rows"], legend_from_spec(doc["map"].get("legend"), source),
                doc["map"].get("cell_m") or rs.default_cell_m, source)


def _nearest_free(grid: Grid, starts: Sequence[tuple[int, int]], taken: set[tuple[int, int]]) -> tuple[int, int]:
    """The free, passable cell nearest the starts (breadth-first, in a fixed order)."""
    seen = set(starts)
    q = deque(starts)
    while q:
        x, y = q.popleft()
        if grid.passable[grid.index(x, y)] and (x, y) not in taken:
            return x, y
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)):
            n = (x + dx, y + dy)
            if grid.in_bounds(*n) and n not in seen:
                seen.add(n)
                q.append(n)
    raise ScenarioError("no free cell left on the map", field="tuning", expected="room for the figures")


def _positions(doc: dict) -> set[tuple[int, int]]:
    return {tuple(c["at"]) for t in doc["teams"] for c in t["combatants"] if isinstance(c.get("at"), list)}


def _apply_cover(doc: dict, k: CoverKnob, v: int) -> None:
    rows = [list(r) for r in doc["map"]["rows"]]
    for i, (x, y) in enumerate(k.cells):
        rows[y][x] = k.terrain if i < v else k.floor
    doc["map"]["rows"] = ["".join(r) for r in rows]


def _apply_count(doc: dict, k: CountKnob, v: int, grid: Grid) -> None:
    team = _team(doc, k.team)
    members = team["combatants"]
    same = [c for c in members if c.get("template") == k.template]
    if v < len(same):
        drop = {id(c) for c in same[v:]}
        team["combatants"] = [c for c in members if id(c) not in drop]
        return
    base = same[-1] if same else {"template": k.template}
    ids = set(_entries(doc))
    taken = _positions(doc)
    cells = [tuple(c) for c in k.cells]
    for _ in range(v - len(same)):
        n = 2
        while f"{k.template}{n}" in ids:
            n += 1
        new = copy.deepcopy(base)
        new["id"] = f"{k.template}{n}"
        new["name"] = f"{k.template.replace('_', ' ').title()} {n}"
        free = [c for c in cells if c not in taken and grid.in_bounds(*c) and grid.passable[grid.index(*c)]]
        at = free[0] if free else _nearest_free(grid, [tuple(c["at"]) for c in team["combatants"]], taken)
        new["at"] = [int(at[0]), int(at[1])]
        team["combatants"].append(new)
        ids.add(new["id"])
        taken.add(at)


def _apply_distance(doc: dict, k: DistanceKnob, v: int, grid: Grid) -> None:
    team = _team(doc, k.team)
    own = [c["at"] for c in team["combatants"]]
    others = [c["at"] for t in doc["teams"] if t is not team for c in t["combatants"]]
    ox, oy = sum(p[0] for p in own) / len(own), sum(p[1] for p in own) / len(own)
    ex, ey = sum(p[0] for p in others) / len(others), sum(p[1] for p in others) / len(others)
    dx, dy = ox - ex, oy - ey
    norm = math.hypot(dx, dy) or 1.0
    sx, sy = round(v * dx / norm), round(v * dy / norm)
    taken = {tuple(c["at"]) for t in doc["teams"] if t is not team for c in t["combatants"]}
    for c in team["combatants"]:
        x = min(max(c["at"][0] + sx, 0), grid.width - 1)
        y = min(max(c["at"][1] + sy, 0), grid.height - 1)
        at = _nearest_free(grid, [(x, y)], taken)
        c["at"] = [int(at[0]), int(at[1])]
        taken.add(at)


def apply_knobs(doc: Mapping[str, Any], knobs: Sequence[Any], values: Sequence[int],
                bases: Sequence[int], source: str | None = None) -> dict:
    """A copy of a scenario document with each knob set to its value (baselines left as written).

    Order: cover, counts, distances, weapons, then trait steps (which apply to added figures)."""
    d = copy.deepcopy(dict(doc))
    spec0 = parse_scenario(d, source)
    moved = [(k, v) for k, v, b in zip(knobs, values, bases) if v != b]
    for k, v in moved:
        if isinstance(k, CoverKnob):
            _apply_cover(d, k, v)
    grid = _grid(d, spec0, source)
    for kind, fn in ((CountKnob, _apply_count), (DistanceKnob, _apply_distance)):
        for k, v in moved:
            if isinstance(k, kind):
                fn(d, k, v, grid)
    for k, v in moved:
        if isinstance(k, WeaponKnob) and k.figure in _entries(d):
            _entries(d)[k.figure]["weapons"] = _choice(k.choices[v])
    steps = [(k, v) for k, v in moved if isinstance(k, StepKnob)]
    if steps:
        spec = parse_scenario(d, source)
        built = _built(spec, source)
        entries = _entries(d)
        for k, v in steps:
            targets = [k.figure] if k.figure else [c["id"] for c in _team(d, k.team)["combatants"]]
            for fid in targets:
                if fid in entries:
                    for trait in _traits(k):
                        step_trait(entries[fid], built[fid], trait, v)
    return d


# -- loading and checking knobs ------------------------------------------------------------

def parse_knobs(doc: Mapping[str, Any], spec: ScenarioSpec, source: str | None,
                pc: str | None = None) -> list[Any]:
    """The scenario's declared knobs, checked, or derived defaults when it declares none."""
    if not spec.tuning:
        return default_knobs(doc, spec, source, pc)
    from evaluation.knob_names import check_knob_names  # (it imports the knob models from here)

    check_knob_names(spec.tuning, source)
    try:
        tspec = TuningSpec.model_validate(spec.tuning)
    except ValidationError as e:
        raise pydantic_error(e, source).at(field_prefix="tuning") from None
    knobs = tspec.knobs
    check_knobs(doc, spec, knobs, source)
    return knobs


def check_knobs(doc: Mapping[str, Any], spec: ScenarioSpec, knobs: Sequence[Any], source: str | None) -> None:
    """Every knob names real teams, figures and cells, and builds a valid scenario at both ends."""
    teams = [t.name for t in spec.teams]
    built = _built(spec, source)
    grid = _grid(dict(doc), spec, source)
    on_map = f"0 <= x < {grid.width}, 0 <= y < {grid.height}"
    for i, k in enumerate(knobs):
        f = f"tuning.knobs[{i}]"

        def bad(msg: str, field: str, expected: str) -> TacticaError:
            return ScenarioError(msg, source=source, field=f"{f}.{field}", expected=expected)

        team = getattr(k, "team", None)
        if team is not None:
            check_known(team, teams, source, f"{f}.team", "team")
        fig = getattr(k, "figure", None)
        if fig is not None:
            check_known(fig, list(built), source, f"{f}.figure", "figure")
        lo, hi = knob_range(k)
        if lo > hi:
            raise bad(f"min {lo} > max {hi}", "max", "max >= min")
        if isinstance(k, StepKnob):
            if (k.figure is None) == (k.team is None):
                raise bad("a trait step needs exactly one of figure and team", "figure", "figure: ID or team: NAME")
            for c in ([built[k.figure]] if k.figure else [c for c in built.values() if c.team == k.team]):
                for trait in _traits(k):
                    if not has_trait(c, trait):
                        raise bad(f"{c.id} has no attribute or skill {trait!r} with a die step or number",
                                  "attribute", "an attribute or skill of the figure's stat block")
        if isinstance(k, CountKnob):
            rs = get_ruleset(spec.ruleset)
            if rs.templates():
                check_known(k.template, rs.templates(), source, f"{f}.template", "template")
            others = sum(1 for c in built.values() if c.team == k.team and c.template != k.template)
            if k.min == 0 and others == 0:
                raise bad("min 0 would leave the team empty", "min", "1 or more")
        if isinstance(k, CoverKnob):
            if k.max is not None and k.max > len(k.cells):
                raise bad(f"max {k.max} > {len(k.cells)} listed cells", "max", "at most the number of cells")
            for j, (x, y) in enumerate(k.cells):
                if not grid.in_bounds(x, y):
                    raise bad(f"cell {[x, y]} is off the map", f"cells[{j}]", on_map)
            legend = legend_from_spec(doc["map"].get("legend"), source)
            for ch, fld in ((k.terrain, "terrain"), (k.floor, "floor")):
                if ch not in legend:
                    raise bad(f"unknown map character {ch!r}", fld, "one of " + " ".join(repr(c) for c in legend))
        for j, (x, y) in enumerate(getattr(k, "cells", []) if isinstance(k, CountKnob) else []):
            if not grid.in_bounds(x, y):
                raise bad(f"cell {[x, y]} is off the map", f"cells[{j}]", on_map)
        try:
            b = baseline(dict(doc), k, spec, source)
        except TacticaError as e:
            raise e.at(source, field_prefix=f) from None
        if not lo <= b <= hi:
            raise bad(f"the value as written ({b}) is outside min {lo} .. max {hi}", "min",
                      "a range that includes the scenario as written")
        for v in sorted({lo, hi}):
            try:
                d = apply_knobs(doc, [k], [v], [b], source)
                after = _built(parse_scenario(d, source), source)
            except TacticaError as e:
                raise ScenarioError(f"at value {v}: {e.detail}", source=source, field=f,
                                    expected=e.expected or "a knob range that gives valid scenarios") from None
            if isinstance(k, StepKnob) and v > b:
                fig0 = k.figure or next(c.id for c in built.values() if c.team == k.team)
                for trait in _traits(k):
                    if _trait(after[fig0], trait) == _trait(built[fig0], trait):
                        raise bad(f"the {spec.ruleset} ruleset ignores an override of {trait!r}", "attribute",
                                  "a trait the scenario's stat blocks can override")


def default_knobs(doc: Mapping[str, Any], spec: ScenarioSpec, source: str | None,
                  pc: str | None = None) -> list[Any]:
    """Knobs for a scenario that declares none: the commonest NPC template's count, NPC trait steps."""
    pc_team = pc_team_of(spec, pc)
    built = _built(spec, source)
    npcs = [c for c in built.values() if c.team != pc_team]
    knobs: list[Any] = []
    if npcs:
        counts = Counter((c.team, c.template) for c in npcs)
        (team, template), cur = counts.most_common(1)[0]
        rs = get_ruleset(spec.ruleset)
        if not rs.templates() or template in rs.templates():
            size = sum(1 for c in npcs if c.team == team)
            lo = max(0, cur - 2, cur - (size - 1))
            knobs.append(CountKnob(kind="count", team=team, template=template, min=lo, max=cur + 2))
        traits = DEFAULT_STEP_TRAITS.get(spec.ruleset)
        if traits:
            for team in dict.fromkeys(c.team for c in npcs):
                for t in traits:
                    if all(has_trait(c, t) for c in npcs if c.team == team):
                        knobs.append(StepKnob(kind="trait_step", team=team, attribute=t, min=-2, max=2))
    if not knobs:
        raise ScenarioError("no tuning knobs declared and none can be derived", source=source, field="tuning",
                            expected="a tuning block with knobs (see `evaluation.tuning`)")
    check_knobs(doc, spec, knobs, source)
    return knobs


# -- the search ---------------------------------------------------------------------------


def values_dict(knobs: Sequence[Any], values: Sequence[int]) -> dict[str, Any]:
    out = {}
    for k, v in zip(knobs, values):
        out[knob_label(k)] = _choice(k.choices[v]) if isinstance(k, WeaponKnob) else v
    return out
