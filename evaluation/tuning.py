"""Encounter tuning: turn declared knobs until the PC win probability hits a target.

A scenario declares what a GM is willing to change in its `tuning` block; every knob moves
in whole steps between `min` and `max`, and its value as written is its baseline:

```yaml
tuning:
  knobs:
    # how many figures of a template a team fields (added ones copy the last such figure and
    # stand at the listed `cells`, else at the free cells nearest the team)
    - {kind: count, team: syndicate, template: mercenary, min: 0, max: 3}
    # die steps up or down from the stat block as written (a figure, or every figure of a
    # team); `attribute` is one name or a list stepped together (attributes or skills)
    - {kind: trait_step, figure: heavy, attribute: [agility, strength], min: -2, max: 2}
    - {kind: trait_step, team: syndicate, attribute: vitality, min: -1, max: 1}
    # which weapons a figure carries: choices from weakest to strongest; one of them must be
    # what the figure carries as written
    - {kind: weapon, figure: gunman1, choices: [pistol, [rifle], [shotgun]]}
    # start the team N cells farther from (N < 0: nearer) the other teams
    - {kind: distance, team: syndicate, min: -3, max: 3}
    # how many of the listed cells hold cover of `terrain` (in the order listed; the rest
    # become `floor`)
    - {kind: cover, cells: [[6, 4], [13, 4]], terrain: m, floor: ".", min: 0, max: 2}
```

Every knob may carry a `name`. Without a `tuning` block, `default_knobs` derives knobs that
suit most encounters: the count of the most common NPC template, and a team-wide step of
each of the NPC team's attack and toughness traits (one knob each).
Counts, distances, weapons and cover need nothing from the ruleset; a trait step writes a
stat-block override under the group that holds the trait (`attributes:`, `values:`,
`stats:` or `skills:`, see `TRAIT_GROUPS`), one die step (Cortex family) or one point
(whole-number traits) at a time; a ruleset that ignores the override is an error. Derived
step knobs use `DEFAULT_STEP_TRAITS` (cortex and cortex_hu: agility, strength, vitality;
metalface: agl, str, end; cybergeneration: ref, body).

The search (`tune`) uses common random numbers: every candidate encounter is played on the
same fight seeds `(seed, 0..n-1)`, so two candidates differ by what changed, not by luck.
From the scenario as written it moves one knob one step at a time to the neighbour whose
win rate is nearest the target, until that is within half the tolerance or no neighbour
is nearer. The result is then measured afresh on other seeds (`check_seed`, default
`seed + 1`), and that fresh measurement, with its interval, is what the report stands on.
When the fresh measurement misses the tolerance, the search goes on from there for up to
`refine` more rounds, each on new seeds and twice the fights per candidate (round r
searches on `seed + 2r` and checks on `check_seed + 2r`).

The search of a round is `evaluation.tune_search.search_round`: it never leaves a setting
inside the band (target +- tolerance) for one outside it, and it reports every candidate
it plays, every step, stop and fresh check, with the reason, as a `Note` (`on_note`).
"""

from __future__ import annotations

import copy
import math
from collections import Counter, deque
from pathlib import Path
from typing import Any, Annotated, Callable, Literal, Mapping, Sequence, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evaluation.difficulty import (Estimate, assess, interval, label_for, pc_team_of, resolve_policies,
                                   run_fights, tally)
from evaluation.parallel import FightPool
from evaluation.tune_search import Note, check_note, search_round
from rules.dice import Step
from rules.errors import ScenarioError, TacticaError
from rules.grid import Grid, legend_from_spec
from rules.names import check_known
from rules.ruleset import get_ruleset
from rules.scenario import ScenarioSpec, build_state, parse_scenario, pydantic_error, resolve_scenario
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
                                             "metalface": ["agl", "str", "end"],
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

def _values_dict(knobs: Sequence[Any], values: Sequence[int]) -> dict[str, Any]:
    out = {}
    for k, v in zip(knobs, values):
        out[knob_label(k)] = _choice(k.choices[v]) if isinstance(k, WeaponKnob) else v
    return out


def tune(scenario: str | Path | Mapping[str, Any], target_win: float, *, tolerance: float = 0.05,
         pc: str | None = None, policies: Mapping[str, str] | None = None, episodes: int = 400,
         check_episodes: int = 1000, seed: int = 0, check_seed: int | None = None, max_steps: int = 30,
         refine: int = 2,
         workers: int = 1, backend: str = "local", address: str | None = None,
         progress: Callable[[str, Estimate], None] | None = None,
         on_note: Callable[[Note], None] | None = None) -> dict[str, Any]:
    """Search the scenario's knobs for the target PC win rate (see the module doc).

    `progress(stage, estimate)` is called as fights finish (the stage names the round and the
    candidate or fresh check; `Estimate` holds the PC win rate so far and its interval);
    `on_note(note)` with every candidate tried, step taken, stop and fresh check, and why
    (`evaluation.tune_search.Note`).

    Returns a JSON-ready result; `result["document"]` is the tuned scenario document."""
    if not 0 < target_win < 1:
        raise TacticaError(f"target win {target_win!r}", field="--target-win", expected="a probability between 0 and 1")
    if not 0 < tolerance < 0.5:
        raise TacticaError(f"tolerance {tolerance!r}", field="--tolerance", expected="a number between 0 and 0.5")
    for val, fld, low in ((episodes, "--episodes", 1), (check_episodes, "--check-episodes", 1),
                          (max_steps, "--max-steps", 1), (refine, "--refine", 0)):
        if isinstance(val, bool) or not isinstance(val, int) or val < low:
            raise TacticaError(f"{val!r}", field=fld, expected=f"a whole number >= {low}")
    if isinstance(scenario, Mapping):
        doc, source = dict(scenario), "<scenario>"
    else:
        doc, source = resolve_scenario(scenario)
    spec = parse_scenario(doc, source)
    build_state(spec, source)
    pc_team = pc_team_of(spec, pc)
    pols = resolve_policies(spec, policies)
    knobs = parse_knobs(doc, spec, source, pc)
    declared = bool(spec.tuning)
    bases = [baseline(doc, k, spec, source) for k in knobs]
    ranges = [knob_range(k) for k in knobs]
    check_seed = seed + 1 if check_seed is None else check_seed
    cols = ("values", "win_rate", "ci_low", "ci_high")
    path: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    evaluated = 0

    say = on_note or (lambda note: None)

    with FightPool(workers, backend, address) as pool:
        cur = tuple(bases)
        for rnd in range(refine + 1):
            n, s_seed, c_seed = episodes * 2 ** rnd, seed + 2 * rnd, check_seed + 2 * rnd
            cache: dict[tuple[int, ...], dict[str, Any]] = {}

            def evaluate(values: tuple[int, ...], label: str) -> dict[str, Any]:
                if values in cache:
                    return cache[values]
                d = apply_knobs(doc, knobs, values, bases, source)
                sp = parse_scenario(d, source)
                build_state(sp, source)
                stage = f"round {rnd + 1}, candidate {len(cache) + 1}: {label}"
                cb = tally(pc_team, lambda est: progress(stage, est), n) if progress else None
                fights = run_fights(sp, pols, s_seed, range(n), pool, source, cb)   # common random numbers
                wins = sum(1 for f in fights if f.winner == pc_team)
                lo, hi = interval(wins, n)
                cache[values] = {"values": _values_dict(knobs, values), "win_rate": wins / n,
                                 "ci_low": lo, "ci_high": hi, "episodes": n, "document": d}
                return cache[values]

            def change(i: int, old: int, new: int) -> str:
                k = knobs[i]
                lab = knob_label(k)
                return f"{lab}: {_values_dict([k], [old])[lab]} -> {_values_dict([k], [new])[lab]}"

            start = "start" if rnd else "as written"
            found = search_round(evaluate, cur, ranges, change, target_win, tolerance, max_steps,
                                 rnd=rnd + 1, start_label=start, note=say)
            cur, res = found.values, found.result
            head = {"round": rnd + 1, "seed": s_seed, "episodes": n}
            path.append({**head, "step": 0, "change": start, **{k: found.start[k] for k in cols}})
            for step, text, r in found.moves:
                path.append({**head, "step": step, "change": text, **{kk: r[kk] for kk in cols}})
            evaluated += len(cache)
            tuned_doc = res["document"]
            cb = (lambda est: progress(f"round {rnd + 1}, fresh check", est)) if progress else None
            check = assess(parse_scenario(tuned_doc, source), pc=pc_team, policies=pols,
                           episodes=check_episodes, seed=c_seed, source=source, pool=pool, progress=cb)
            checks.append({"round": rnd + 1, "seed": c_seed, "episodes": check["episodes"],
                           "wins": check["pc_wins"], "deaths": round(check["p_pc_death"] * check["episodes"]),
                           "values": _values_dict(knobs, cur),
                           "pc_win_rate": check["pc_win_rate"], "ci_low": check["ci_low"],
                           "ci_high": check["ci_high"], "label": check["label"], "p_pc_death": check["p_pc_death"]})
            pooled = pooled_check(checks)
            done = abs(pooled["pc_win_rate"] - target_win) <= tolerance
            say(check_note(checks[-1], pooled, target_win, tolerance, more=None if done or rnd == refine else
                           (seed + 2 * (rnd + 1), episodes * 2 ** (rnd + 1))))
            if done:
                break
    check = pooled_check(checks)
    gap = abs(check["pc_win_rate"] - target_win)
    return {
        "scenario": spec.name, "source": source, "pc_team": pc_team, "policies": pols,
        "target_win": target_win, "tolerance": tolerance, "search_episodes": episodes, "seed": seed,
        "knobs_declared": declared,
        "knobs": [{"label": knob_label(k), **k.model_dump(exclude_none=True),
                   "as_written": _values_dict([k], [b])[knob_label(k)]} for k, b in zip(knobs, bases)],
        "values": _values_dict(knobs, cur), "changed": cur != tuple(bases),
        "path": path, "candidates_evaluated": evaluated, "checks": checks, "check": check,
        "pc_win_rate": check["pc_win_rate"], "ci_low": check["ci_low"], "ci_high": check["ci_high"],
        "within_tolerance": gap <= tolerance,
        "document": tuned_doc,
    }


def pooled_check(checks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The fresh measurement of the final settings: every fresh check of them pooled.

    Fresh checks are on distinct seeds, so when a round ends on the settings the previous
    round ended on, its fights and the earlier ones measure the same encounter together
    (rather than keeping whichever check happened to land in tolerance)."""
    last = checks[-1]
    same = [c for c in checks if c["values"] == last["values"]]
    wins, n = sum(c["wins"] for c in same), sum(c["episodes"] for c in same)
    deaths = sum(c["deaths"] for c in same)
    lo, hi = interval(wins, n)
    return {"rounds": [c["round"] for c in same], "seeds": [c["seed"] for c in same], "episodes": n,
            "wins": wins, "pc_win_rate": wins / n, "ci_low": lo, "ci_high": hi,
            "p_pc_death": deaths / n, "label": label_for(wins / n, deaths / n), "values": last["values"]}


def write_tuned(result: Mapping[str, Any], out: str | Path) -> Path:
    """Write the tuned scenario (YAML, or JSON for a .json name) with a note of how it was measured."""
    from rules.atomic import atomic_write

    out = Path(out)
    doc = result["document"]
    if out.suffix.lower() == ".json":
        import json
        atomic_write(out, json.dumps(doc, indent=2) + "\n", mode=0o644)
        return out
    c = result["check"]
    head = (f"# Tuned by `tactica tune` from {result['source']}: target PC win {result['target_win']:.0%} "
            f"+- {result['tolerance']:.0%}.\n# Measured afresh: {c['pc_win_rate']:.1%} "
            f"[{c['ci_low']:.1%}, {c['ci_high']:.1%}] over {c['episodes']} fights "
            f"(seeds {', '.join(map(str, c['seeds']))}), "
            f"policies {result['policies']}.\n")
    atomic_write(out, head + dump_yaml(doc), mode=0o644)   # whole or not at all (a full disk: one line)
    return out


def _scalar(x: Any) -> bool:
    return not isinstance(x, (dict, list))


def _simple(x: Any) -> bool:
    """A scalar, a list without mappings, or a mapping of scalars: fits on one line."""
    if isinstance(x, list):
        return all(_scalar(y) or (isinstance(y, list) and all(map(_scalar, y))) for y in x)
    if isinstance(x, dict):
        return all(map(_scalar, x.values()))
    return True


class _Flow(dict):
    flow = True


class _FlowList(list):
    flow = True


class _Row(str):
    pass


class _Dumper(yaml.SafeDumper):
    """Scenario files the way people write them: a figure per line, a map row per line."""


_Dumper.add_representer(_Row, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", str(v), style='"'))

_Dumper.add_representer(_Flow, lambda d, v: d.represent_mapping("tag:yaml.org,2002:map", v.items(), flow_style=True))
_Dumper.add_representer(_FlowList, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True))


def dump_yaml(doc: Mapping[str, Any]) -> str:
    """A scenario document as YAML: leaf mappings (figures, knobs) and short lists inline."""
    def walk(v: Any, key: str | None, top: bool) -> Any:
        if isinstance(v, Mapping):
            inner = {k: walk(x, k, False) for k, x in v.items()}
            flat = not top and "rows" not in v and all(_simple(x) for x in v.values())
            return _Flow(inner) if flat else dict(inner)
        if isinstance(v, list):
            if key == "rows":
                return [_Row(x) if isinstance(x, str) else x for x in v]
            items = [walk(x, None, False) for x in v]
            return _FlowList(items) if key != "rows" and _simple(list(v)) and v else items
        return v
    return yaml.dump(walk(dict(doc), None, True), Dumper=_Dumper, sort_keys=False, width=120,
                     default_flow_style=False, allow_unicode=True)


def default_out(scenario: str | Path) -> Path:
    """`<name>.tuned.yaml` in the working folder."""
    return Path(Path(str(scenario)).stem + ".tuned.yaml")
