"""Property-based fuzzing of encounter files and saves (issue #34): "no traceback, ever".

Each example takes a real document (a bundled encounter, or an autopilot save two actions
into the duel), changes a few of its fields at random (a value replaced by any JSON value or
a hostile one, a key deleted, a list entry duplicated) and feeds it through the front end's
own path, as a file:

- an encounter: `read_document` -> `parse_scenario` -> `build_state`, and where it loads, a
  short fight; the CLI turns a `TacticaError` into one line and status 2, so any other
  exception is a traceback a user would see;
- a save: `Session.resume`, and where it loads, the table's plan and one resolved action.

The API's states are fuzzed in tests/test_server*.py. `-m slow` runs ten times the examples.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

from rules.errors import TacticaError
from rules.scenario import build_state, new_battle, parse_scenario, read_document, resolve_scenario

SCENARIOS = ["cortex/duel", "cortex_hu/csarda", "metalface/rooftop", "cybergeneration/alley_brawl"]
HOSTILE = [-1, 0, 1, 10 ** 6, 10 ** 12, 2 ** 64, -(2 ** 70), 1e-300, 1e300, float("nan"), float("inf"), "",
           "[/x]crew", "\x1b[2J", "\ud800", "x" * 300, [], {}, [[[[]]]], None, True]
LEAF = (st.none() | st.booleans() | st.integers(-(2 ** 70), 2 ** 70)
        | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=6) | st.sampled_from(HOSTILE))
VALUE = st.recursive(LEAF, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
                     max_leaves=6)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=1200, deadline=None, suppress_health_check=list(HealthCheck))


def _paths(doc: Any) -> list[tuple[Any, Any]]:
    """(container, key) of every value inside `doc`."""
    out, stack = [], [doc]
    while stack:
        v = stack.pop()
        items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
        for k, x in items:
            out.append((v, k))
            stack.append(x)
    return out


def _nudge(data, v: Any, doc: Any) -> Any:
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return data.draw(st.integers(-3, 40))
    if isinstance(v, float):
        return data.draw(st.floats(-2, 50, allow_nan=False))
    if isinstance(v, str):  # another string of the document (a name, a template, a row)
        pool = sorted({x[0][x[1]] for x in _paths(doc) if isinstance(x[0][x[1]], str)})
        return data.draw(st.sampled_from(pool))
    if isinstance(v, list) and v:
        return v[:-1] if data.draw(st.booleans()) else v + [copy.deepcopy(v[-1])]
    return v


def _mutate(data, doc: Any, n: int) -> Any:
    doc = copy.deepcopy(doc)
    for _ in range(n):
        paths = _paths(doc)
        if not paths:
            break
        box, key = data.draw(st.sampled_from(paths))
        op = data.draw(st.sampled_from(["nudge", "nudge", "nudge", "replace", "hostile", "delete", "duplicate"]))
        if op == "nudge":  # a value of the same type, often one the rules still take
            box[key] = _nudge(data, box[key], doc)
        elif op == "replace":
            box[key] = data.draw(VALUE)
        elif op == "hostile":
            box[key] = data.draw(st.sampled_from(HOSTILE))
        elif op == "delete":
            del box[key]
        elif isinstance(box, list):
            box.insert(key, copy.deepcopy(box[key]))
        else:
            box[f"{key}_2"] = copy.deepcopy(box[key])
    return doc


def _write(path: Path, doc: Any, as_yaml: bool) -> Path:
    if as_yaml:
        try:
            text = yaml.safe_dump(doc, allow_unicode=False)
        except (yaml.YAMLError, UnicodeEncodeError, TypeError):
            as_yaml = False
    p = path.with_suffix(".yaml" if as_yaml else ".json")
    if not as_yaml:
        text = json.dumps(doc)  # NaN as NaN, lone surrogates escaped: what a careless tool writes
    p.write_text(text, encoding="utf-8")
    return p


def _encounter(data, tmp: Path) -> None:
    name = data.draw(st.sampled_from(SCENARIOS))
    doc = _mutate(data, resolve_scenario(name)[0], data.draw(st.integers(1, 3)))
    p = _write(tmp / "enc", doc, data.draw(st.booleans()))
    try:
        spec = parse_scenario(read_document(p), str(p))
        build_state(spec, str(p))
        spec = spec.model_copy(update={"round_limit": min(spec.round_limit, 3)})
        b = new_battle(spec, 1, str(p), record=False)
        from agents.base import make_policy
        b.run({t.name: make_policy("random", i) for i, t in enumerate(spec.teams)})
    except TacticaError as e:
        assert e.line() and "\n" not in e.line(), e.line()


_GOOD: dict[str, dict] = {}


def _save_doc(tmp: Path) -> dict:
    """An autopilot save of the duel two actions in (made once)."""
    from tactica.table import Session
    if "save" not in _GOOD:
        p = tmp / "good.json"
        s = Session.new("cortex/duel", seed=1, save_path=p)
        s.begin()
        s.resolve(s.plan().action)
        _GOOD["save"] = json.loads(p.read_text())
    return _GOOD["save"]


def _save(data, tmp: Path) -> None:
    from tactica.table import Session
    doc = _mutate(data, _save_doc(tmp), data.draw(st.integers(1, 3)))
    p = tmp / "edited.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    try:
        s = Session.resume(p)
        if not s.battle.state.over:
            plan = s.plan()
            if plan is not None and getattr(plan, "action", None) is not None:
                s.resolve(plan.action)
    except TacticaError as e:
        assert e.line() and "\n" not in e.line(), e.line()


@FAST
@given(data=st.data())
def test_a_changed_encounter_file_loads_or_gets_one_line(data, tmp_path_factory):
    _encounter(data, tmp_path_factory.mktemp("enc", numbered=True))


@FAST
@given(data=st.data())
def test_a_changed_save_resumes_or_gets_one_line(data, tmp_path_factory):
    _save(data, tmp_path_factory.mktemp("save", numbered=True))


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_a_changed_encounter_file_loads_or_gets_one_line_many(data, tmp_path_factory):
    _encounter(data, tmp_path_factory.mktemp("enc", numbered=True))


@pytest.mark.slow
@SLOW
@given(data=st.data())
def test_a_changed_save_resumes_or_gets_one_line_many(data, tmp_path_factory):
    _save(data, tmp_path_factory.mktemp("save", numbered=True))
