"""Encounter files: YAML or JSON, validated with pydantic, built into a `BattleState`.

```yaml
name: cortex/duel
ruleset: cortex
description: An open duel with scattered cover.
round_limit: 20            # after this many rounds the fight is a draw
initiative: roll           # roll (the ruleset's initiative) or fixed (listed order, for exact tests)
settings: {}               # ruleset settings (plot points ...)
map:
  cell_m: 1.5              # metres per cell (default: the ruleset's)
  legend: {}               # extra map characters: {c: {name, blocks_move, blocks_sight, cover, difficult}}
  rows:
    - "..........."
  walls: [[3, 0, 3, 4]]     # walls between cells: [x0, y0, x1, y1] along cell edges (rules/edges.py)
# or a Universal VTT file (rules/uvtt.py, docs/uvtt.md), relative to this file:
# map: {uvtt: crypt.dd2vtt, object_cover: 2, objects: {0: 3, altar: {index: 4, cover: 4}}}
teams:
  - name: crew
    combatants:
      - {id: mal, template: gunslinger, name: Mal, at: [1, 2]}
      - {id: zoe, at: [1, 3], attributes: {...}, skills: {...}, weapons: [rifle]}  # full block
```

Every error names the file, the field path and what was expected.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from rules.dice import Dice
from rules.edges import edges_from_segments
from rules.errors import ScenarioError, TacticaError, UnknownNameError
from rules.grid import Grid, legend_from_spec
from rules.map_cache import remember, touch
from rules.names import check_keys, one_of
from rules.limits import (MAX_FILE_BYTES, MAX_ROUND_LIMIT, MAX_SAVE_BYTES, check_cell_m, check_figures, check_map_size, check_name, check_numbers,
                          load_text, read_text_file)
from rules.ruleset import get_ruleset
from rules.state import BattleState
from rules.state_check import check_document


class MapSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rows: list[str] | None = Field(default=None, min_length=1)
    cell_m: float | None = Field(default=None, gt=0)
    legend: dict[str, dict[str, Any]] = Field(default_factory=dict)
    walls: list[Any] = Field(default_factory=list)
    doors: list[dict[str, Any]] = Field(default_factory=list)   # drawn only: closed ones are in `walls`
    uvtt: str | dict[str, Any] | None = None
    object_cover: int = Field(default=2, ge=0, le=4)
    objects: dict[int | str, Any] = Field(default_factory=dict)
    _backdrop: Any = PrivateAttr(default=None)


class TeamSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    combatants: list[dict[str, Any]] = Field(min_length=1)
    pc: bool = False


class ScenarioSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    ruleset: str
    description: str = ""
    map: MapSpec
    teams: list[TeamSpec] = Field(min_length=2)
    round_limit: int = Field(default=20, ge=1, le=MAX_ROUND_LIMIT)
    initiative: Literal["roll", "fixed"] = "roll"
    settings: dict[str, Any] = Field(default_factory=dict)
    objects: list[dict[str, Any]] = Field(default_factory=list)
    tuning: dict[str, Any] = Field(default_factory=dict)


def _loc(loc: tuple) -> str:
    out = ""
    for p in loc:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def pydantic_error(err: ValidationError, source: str | None) -> ScenarioError:
    e = err.errors()[0]
    msg = e.get("msg", "invalid value")
    expected = {"missing": "this field to be present", "extra_forbidden": "no such field"}.get(e.get("type", ""))
    return ScenarioError(msg, source=source, field=_loc(tuple(e.get("loc", ()))) or "(top level)",
                         expected=expected)


def bundled_dir() -> Path:
    """The folder of bundled scenarios (package data of the `tactica` app)."""
    return Path(str(resources.files("tactica"))) / "scenarios"


def bundled_scenarios() -> list[str]:
    base = bundled_dir()
    return sorted(str(p.relative_to(base).with_suffix("")).replace("\\", "/")
                  for p in base.rglob("*.yaml"))


def read_document(path: str | Path, limit: int = MAX_FILE_BYTES) -> Any:
    """Read a YAML or JSON file within the bounds of rules/limits.py: missing, unreadable,
    oversized, empty or too deeply nested files and devices or pipes are clear errors."""
    p = Path(path)
    src = str(path)
    text = read_text_file(p, src, limit=limit)
    if not text.strip():
        raise ScenarioError("file is empty", source=src, field="(file)", expected="a YAML or JSON mapping")
    return load_text(text, src, "json" if p.suffix.lower() == ".json" else "yaml")


def parse_text(text: str, source: str = "<text>") -> Any:
    """A YAML or JSON document given as text (an upload): JSON when it starts with `{`;
    YAML aliases are refused. Errors name the source and the line."""
    if not text.strip():
        raise ScenarioError("empty", source=source, field="(text)", expected="a YAML or JSON mapping")
    return load_text(text, source, "json" if text.lstrip().startswith("{") else "yaml", field="(text)",
                     limit=MAX_SAVE_BYTES)


def resolve_scenario(name_or_path: str | Path) -> tuple[Any, str]:
    """(document, source) for a bundled scenario name or a file path."""
    s = str(name_or_path)
    p = Path(s)
    if not p.exists() and not s.endswith((".yaml", ".yml", ".json")):
        cand = bundled_dir() / f"{s}.yaml"
        if cand.exists():
            return _map_file_absolute(read_document(cand), cand), s
        raise UnknownNameError(f"no scenario file or bundled scenario named {s!r}", source=s,
                               field="scenario", expected="a file path or one of " + ", ".join(bundled_scenarios()))
    return _map_file_absolute(read_document(p), p), s


def _map_file_absolute(doc: Any, path: Path) -> Any:
    """The document with a map file it names (`map.uvtt`) as an absolute path, so that a save
    of a fight on it resumes from any folder."""
    m = doc.get("map") if isinstance(doc, Mapping) else None
    ref = m.get("uvtt") if isinstance(m, Mapping) else None
    if isinstance(ref, str) and ref and not Path(ref).expanduser().is_absolute():
        doc = dict(doc)
        doc["map"] = {**m, "uvtt": str(path.resolve().parent / ref)}
    return doc


def parse_scenario(doc: Any, source: str | None = None) -> ScenarioSpec:
    if not isinstance(doc, Mapping):
        raise ScenarioError(f"the document is a {type(doc).__name__}, not a mapping", source=source,
                            field="(top level)", expected="a mapping with name, ruleset, map and teams")
    check_document(doc, source)  # NaN, infinities, lone surrogates (rules/state_check.py)
    check_numbers(doc, source)  # bounds of rules/limits.py
    try:
        spec = ScenarioSpec.model_validate(dict(doc))
    except ValidationError as e:
        raise pydantic_error(e, source) from None
    _expand_map(spec, source)
    check_limits(spec, source)
    return spec


def _expand_map(spec: ScenarioSpec, source: str | None) -> None:
    """A map given as a Universal VTT file becomes rows and walls (rules/uvtt.py)."""
    m = spec.map
    if m.uvtt is None:
        for k in ("objects", "object_cover"):
            if k in m.model_fields_set:
                raise ScenarioError("given without map.uvtt", source=source, field=f"map.{k}",
                                    expected="a Universal VTT map (map.uvtt) whose objects it sets")
        if m.rows is None:
            raise ScenarioError("Field required", source=source, field="map.rows",
                                expected="map rows, or a Universal VTT file as map.uvtt")
        return
    for k in ("rows", "walls", "doors"):
        if k in m.model_fields_set:
            raise ScenarioError("given with map.uvtt", source=source, field=f"map.{k}",
                                expected="either map rows or a Universal VTT file, not both")
    from rules.uvtt import load_uvtt_map

    imp = load_uvtt_map(m.uvtt, source, m.object_cover, m.objects)
    m.rows, m.walls, m.doors = imp.rows, imp.walls, imp.doors
    m._backdrop = imp.backdrop


def check_limits(spec: ScenarioSpec, source: str | None) -> None:
    """The bounds of rules/limits.py on a parsed encounter: map size, cell size, figures, names."""
    check_name(spec.name, source, "name")
    check_map_size(spec.map.rows, source)
    if spec.map.walls:
        edges_from_segments(spec.map.walls, len(spec.map.rows[0]), len(spec.map.rows), source)
    if spec.map.cell_m is not None:
        check_cell_m(spec.map.cell_m, source)
    check_figures(sum(len(t.combatants) for t in spec.teams), source)
    for ti, t in enumerate(spec.teams):
        check_name(t.name, source, f"teams[{ti}].name")
        for ci, c in enumerate(t.combatants):
            for k in ("id", "name"):
                check_name(c.get(k), source, f"teams[{ti}].combatants[{ci}].{k}")


def load_scenario(name_or_path: str | Path | Mapping[str, Any]) -> tuple[ScenarioSpec, str]:
    """Parse a scenario from a bundled name, a file or an already-read mapping."""
    if isinstance(name_or_path, Mapping):
        return parse_scenario(name_or_path, "<scenario>"), "<scenario>"
    doc, src = resolve_scenario(name_or_path)
    return parse_scenario(doc, src), src


_GRID_CACHE: dict[tuple, Grid] = {}


def _grid_for(spec: ScenarioSpec, default_cell_m: float, source: str | None) -> Grid:
    """The map of a scenario, built once per distinct map so its geometry caches are reused
    (at most MAP_CACHE_CELLS cells of maps, least recently used out: rules/map_cache.py)."""
    m = spec.map
    backdrop = m._backdrop
    key = (tuple(m.rows), m.cell_m or default_cell_m, json.dumps(m.legend, sort_keys=True, default=str),
           json.dumps(m.walls), None if backdrop is None else backdrop.key)
    g = touch(_GRID_CACHE, key)
    if g is None:
        legend = legend_from_spec(m.legend, source)
        edges = edges_from_segments(m.walls, len(m.rows[0]), len(m.rows), source) if m.walls else None
        g = Grid(m.rows, legend, m.cell_m or default_cell_m, source, edges=edges)
        g.backdrop = backdrop
        remember(_GRID_CACHE, key, g)
    return g


def build_state(spec: ScenarioSpec, source: str | None = None) -> BattleState:
    """Place every figure on the map and return the starting state."""
    try:
        rs = get_ruleset(spec.ruleset)
    except TacticaError as e:
        raise e.at(source)
    grid = _grid_for(spec, rs.default_cell_m, source)
    combatants = []
    seen_ids: dict[str, str] = {}
    taken: dict[int, str] = {}
    team_names = []
    order = 0
    for ti, team in enumerate(spec.teams):
        if team.name in team_names:
            raise ScenarioError(f"team name {team.name!r} is used twice", source=source,
                                field=f"teams[{ti}].name", expected="distinct team names")
        team_names.append(team.name)
        for ci, c in enumerate(team.combatants):
            f = f"teams[{ti}].combatants[{ci}]"
            cid = c.get("id")
            if not isinstance(cid, str) or not cid:
                raise ScenarioError("missing id", source=source, field=f"{f}.id", expected="a non-empty name")
            if cid in seen_ids:
                raise ScenarioError(f"id {cid!r} is used twice", source=source, field=f"{f}.id",
                                    expected="ids unique in the scenario")
            at = c.get("at")
            if (not isinstance(at, (list, tuple)) or len(at) != 2
                    or not all(isinstance(v, int) and not isinstance(v, bool) for v in at)):
                raise ScenarioError(f"position {at!r}", source=source, field=f"{f}.at", expected="[x, y] integers")
            x, y = at
            if not grid.in_bounds(x, y):
                raise ScenarioError(f"position {[x, y]} is off the {grid.width}x{grid.height} map",
                                    source=source, field=f"{f}.at",
                                    expected=f"0 <= x < {grid.width}, 0 <= y < {grid.height}")
            cell = grid.index(x, y)
            if not grid.passable[cell]:
                raise ScenarioError(f"position {[x, y]} is inside {grid.terrain[cell].name}",
                                    source=source, field=f"{f}.at", expected="a cell a figure can stand on")
            if cell in taken:
                raise ScenarioError(f"position {[x, y]} is already taken by {taken[cell]!r}", source=source,
                                    field=f"{f}.at", expected="one figure per cell")
            try:
                comb = rs.build_combatant(c, id=cid, team=team.name, pos=cell, order=order,
                                          source=source, field=f)
            except TacticaError as e:
                raise e.at(source)
            except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:
                # a value of a type the ruleset's reader did not expect (found by fuzzing,
                # tests/test_fuzz_inputs.py): still one line naming the figure
                raise ScenarioError(f"a value of the wrong type ({e.__class__.__name__}: {e})", source=source,
                                    field=f, expected=f"a {spec.ruleset} figure as docs/{spec.ruleset}.md describes"
                                    ) from None
            combatants.append(comb)
            seen_ids[cid] = team.name
            taken[cell] = cid
            order += 1
    check_keys(spec.settings, rs.settings_keys, source, "settings", "setting",
               one_of(rs.settings_keys) if rs.settings_keys else f"no settings: the {rs.name} ruleset takes none")
    rs.check_settings(spec.settings, team_names, list(seen_ids), source)
    objects: dict[int, list] = {}
    for oi, ob in enumerate(spec.objects):
        f = f"objects[{oi}]"
        check_keys(ob, ("item", "at"), source, f, "object field")
        item, at = ob.get("item"), ob.get("at")
        if not isinstance(item, str) or not rs.validate_object(item):
            raise ScenarioError(f"unknown object {item!r}", source=source, field=f"{f}.item",
                                expected="an item or weapon of the ruleset")
        if (not isinstance(at, (list, tuple)) or len(at) != 2 or not all(isinstance(v, int) for v in at)
                or not grid.in_bounds(*at) or not grid.passable[grid.index(*at)]):
            raise ScenarioError(f"position {at!r}", source=source, field=f"{f}.at",
                                expected="[x, y] of a free map cell")
        objects.setdefault(grid.index(*at), []).append(item)
    settings = dict(spec.settings)
    settings["initiative"] = spec.initiative
    settings["pc_teams"] = [t.name for t in spec.teams if t.pc]
    state = BattleState(ruleset=spec.ruleset, scenario=spec.name, grid=grid, combatants=combatants,
                        teams=team_names, round_limit=spec.round_limit, settings=settings, objects=objects)
    return state


def new_battle(spec: ScenarioSpec, seed: int | Dice = 0, source: str | None = None, record: bool = True,
               on_event=None):
    """A `Battle` ready to start (maps and their caches are shared between fights)."""
    from rules.battle import Battle

    state = build_state(spec, source)
    dice = seed if isinstance(seed, Dice) else Dice(seed)
    return Battle(state, get_ruleset(spec.ruleset), dice, on_event=on_event, record=record)
