"""A fight in progress as JSON, and back: the state file GM tools save and load.

Format (`format: "tactica-state"`, `format_version: 1`):

```json
{"format": "tactica-state", "format_version": 1,
 "scenario": {... the whole scenario document ...},
 "ruleset": "cortex", "ruleset_version": 1,
 "round": 2, "order": ["mal", "jubal"], "turn_index": 0, "economy": {...},
 "over": false, "winner": null, "end_reason": "",
 "map_rows": ["....", ...],            # the map now (cover can be destroyed)
 "objects": {"x,y": ["bottle_glass"]},
 "combatants": {"mal": {"pos": [1, 10], "conditions": [...], "res": {...}}, ...},
 "added": [{"id": "thug_1", "template": "thug", "team": "b", "name": "Thug", "order": 4}],
 "removed": ["jubal"],                  # GM overrides (rules/overrides.py); absent when none
 "dice": {...generator state...}, "actions_resolved": 12,
 "pending": null,                       # or an open question (rules/choices.py)
 "events": [...]}
```

Loading rebuilds the figures from the scenario and then restores everything a fight
changes, so a saved fight resumes exactly where it stopped, dice included. A state file is
untrusted input: every field is checked first (`rules/state_check.py`), and an impossible
state is a ScenarioError naming the field (`combatants.mal.pos`, `dice.buf[3]`).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Mapping

import numpy as np

from rules.actions import Action
from rules.atomic import atomic_write  # noqa: F401 - saves are written through it
from rules.battle import Battle
from rules.choices import Pending, Question
from rules.dice import Dice
from rules.errors import ScenarioError, TacticaError
from rules.ruleset import get_ruleset
from rules.scenario import new_battle, parse_scenario
from rules.state_check import check_saved, check_state

FORMAT = "tactica-state"
FORMAT_VERSION = 1


def _jsonable(v: Any) -> Any:
    if isinstance(v, set):
        return sorted(v)
    if isinstance(v, tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def battle_to_dict(battle: Battle, scenario_doc: Mapping[str, Any], include_events: bool = True) -> dict[str, Any]:
    """Everything needed to resume `battle` exactly."""
    s = battle.state
    g = s.grid
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "scenario": _jsonable(dict(scenario_doc)),
        "ruleset": s.ruleset, "ruleset_version": battle.ruleset.version,
        "round": s.round, "order": list(s.order), "turn_index": s.turn_index,
        "economy": _jsonable(s.economy), "over": s.over, "winner": s.winner, "end_reason": s.end_reason,
        "map_rows": list(g.rows),
        "objects": {f"{g.xy(c)[0]},{g.xy(c)[1]}": list(v) for c, v in s.objects.items()},
        "combatants": {c.id: {"pos": list(g.xy(c.pos)), "conditions": sorted(c.conditions),
                              "res": _jsonable(c.res)} for c in s.combatants},
        **_added_removed(s, scenario_doc),
        "dice": _jsonable(battle.dice.get_state(compact=True)),
        "actions_resolved": battle.actions_resolved,
        "pending": s.pending.to_dict() if s.pending is not None else None,
        "events": _jsonable(battle.events) if include_events else [],
    }


def _scenario_ids(scenario_doc: Mapping[str, Any]) -> list[str]:
    return [str(c.get("id")) for t in scenario_doc.get("teams", []) for c in t.get("combatants", [])]


def _added_removed(s: Any, scenario_doc: Mapping[str, Any]) -> dict[str, Any]:
    """The figures a GM added (`added`: id, template, team, name, order, in the state's order)
    and took out (`removed`: ids) since the scenario (rules/overrides.py); absent when none."""
    ids = _scenario_ids(scenario_doc)
    out: dict[str, Any] = {}
    added = [{"id": c.id, "template": c.template, "team": c.team, "name": c.name, "order": c.order}
             for c in s.combatants if c.id not in ids]
    removed = [i for i in ids if i not in s.by_id]
    if added:
        out["added"] = added
    if removed:
        out["removed"] = removed
    return out


def _rebuild_figures(battle: Battle, d: Mapping[str, Any], source: str) -> None:
    """Take out the figures saved as `removed` and build those saved as `added` (placed below)."""
    s, rs = battle.state, battle.ruleset
    gone = set(_need(d, "removed", list, source)) if "removed" in d else set()
    s.combatants[:] = [c for c in s.combatants if c.id not in gone]
    for i, a in enumerate(_need(d, "added", list, source) if "added" in d else []):
        entry = {"id": a["id"], "template": a["template"], "at": [0, 0], "name": a["name"]}
        c = rs.build_combatant(entry, id=a["id"], team=a["team"], pos=0, order=int(a["order"]),
                               source=source, field=f"added[{i}]")
        s.combatants.append(c)
    s.by_id = {c.id: c for c in s.combatants}


def _need(d: Mapping[str, Any], key: str, kind: type | tuple, source: str) -> Any:
    if key not in d:
        raise ScenarioError("missing", source=source, field=key, expected="a tactica state file")
    v = d[key]
    if not isinstance(v, kind):
        raise ScenarioError(f"{type(v).__name__}", source=source, field=key,
                            expected=f"{kind.__name__ if isinstance(kind, type) else 'a valid value'}")
    return v


def battle_from_dict(d: Any, source: str = "<state>") -> Battle:
    """Rebuild a battle saved by `battle_to_dict`; a foreign or damaged file is a clear error."""
    if not isinstance(d, Mapping) or d.get("format") != FORMAT:
        raise ScenarioError("not a Tactica state file", source=source, field="format",
                            expected=f"'{FORMAT}'")
    if d.get("format_version") != FORMAT_VERSION:
        raise ScenarioError(f"format_version {d.get('format_version')!r}", source=source, field="format_version",
                            expected=str(FORMAT_VERSION))
    try:
        spec = parse_scenario(_need(d, "scenario", dict, source), source)  # its errors name the save
    except TacticaError as e:
        raise e.at(source, "scenario")
    rs = get_ruleset(spec.ruleset)
    if d.get("ruleset") != spec.ruleset or d.get("ruleset_version") != rs.version:
        raise ScenarioError(f"saved under {d.get('ruleset')} v{d.get('ruleset_version')}", source=source,
                            field="ruleset_version", expected=f"{spec.ruleset} v{rs.version}")
    try:
        battle = new_battle(spec, Dice(0), source)
        s = battle.state
        check_saved(d, s.grid, source)
        rows = _need(d, "map_rows", list, source)
        if rows != list(s.grid.rows):
            changes = {}
            for y, (old, new) in enumerate(zip(s.grid.rows, rows)):
                for x, (a, b) in enumerate(zip(old, new)):
                    if a != b:
                        changes[s.grid.index(x, y)] = b
            s.grid = s.grid.with_changes(changes)
        g = s.grid
        _rebuild_figures(battle, d, source)
        saved = _need(d, "combatants", dict, source)
        if set(saved) != set(s.by_id):
            raise ScenarioError("the figures do not match the scenario", source=source, field="combatants",
                                expected=", ".join(sorted(s.by_id)))
        for cid, cd in saved.items():
            c = s.by_id[cid]
            x, y = cd["pos"]
            c.pos = g.index(int(x), int(y))
            c.conditions = set(cd["conditions"])
            res = dict(cd["res"])
            for k, v in c.res.items():  # keep container types the ruleset expects
                if k in res and isinstance(v, set):
                    res[k] = set(res[k])
                elif k not in res:      # a resource newer than the file: its value at the start
                    res[k] = copy.deepcopy(v)
            c.res = res
        s.round = int(_need(d, "round", int, source))
        s.order = list(_need(d, "order", list, source))
        s.turn_index = int(_need(d, "turn_index", int, source))
        s.economy = dict(_need(d, "economy", dict, source))
        s.over = bool(d.get("over", False))
        s.winner = d.get("winner")
        s.end_reason = d.get("end_reason", "")
        s.objects = {}
        for key, items in _need(d, "objects", dict, source).items():
            x, y = (int(v) for v in key.split(","))
            s.objects[g.index(x, y)] = list(items)
        battle.dice.set_state(_need(d, "dice", dict, source))
        battle.actions_resolved = int(d.get("actions_resolved", 0))
        if d.get("pending") is not None:
            p = _need(d, "pending", dict, source)
            s.pending = Pending(Question.from_dict(p["question"]),
                                Action.from_dict(p["action"], g.width, field="pending.action", height=g.height),
                                str(p["actor"]), tuple(str(a) for a in p["answers"]),
                                tuple(int(r) for r in p["rolls"]))
            if s.pending.question.figure not in s.by_id:
                raise ScenarioError(f"no figure {s.pending.question.figure!r}", source=source,
                                    field="pending.question.figure", expected=", ".join(sorted(s.by_id)))
        battle.events = list(d.get("events", []))
        check_state(s, rs, source)
    except TacticaError:
        raise
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise ScenarioError(f"damaged state: {e.__class__.__name__}: {e}", source=source, field="(file)",
                            expected="a state file written by Tactica") from None
    return battle


def dumps_state(battle: Battle, scenario_doc: Mapping[str, Any]) -> str:
    return json.dumps(battle_to_dict(battle, scenario_doc), sort_keys=True)
