"""Every bound on input, in one place (issue #34). The command line and the API read the same
numbers from here; docs/limits.md lists each with its reason, and a test keeps the two in step.

A bound is set far past anything a real table or experiment meets (the largest bundled map is
22x14 with 8 figures) and close enough that one input cannot take gigabytes or hours. Past a
bound the input gets a one-line `ScenarioError` naming the file, the field and the bound.

Reading a document goes through `read_text_file` (a regular file, at most `MAX_FILE_BYTES`
for an encounter or `MAX_SAVE_BYTES` for what Tactica writes, UTF-8) and `load_text` (JSON or YAML without aliases, nested at most `MAX_DEPTH` deep, no
integer too long for Python to read). `check_numbers` then bounds every number of an
encounter by `MAX_NUMBER`.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any, Mapping

import yaml

from rules.errors import ScenarioError

#: bytes of an encounter file: the largest bundled one is 2 KB, a 100x100 map with 60
#: figures written out in full under 100 KB
MAX_FILE_BYTES = 4 * 2 ** 20
#: bytes of a save, a state or a replay document (a file or an API body): Tactica writes these;
#: a table save of an 88-action fight with its undo snapshots is 525 KB (events add ~0.5 KB an
#: action), so this holds fights of tens of thousands of actions
MAX_SAVE_BYTES = 32 * 2 ** 20
#: bytes of an event log read by `tactica replay`/`view` (JSON lines, one fight or many)
MAX_LOG_BYTES = 256 * 2 ** 20
#: nesting of mappings and lists in a document (an encounter needs 6, a save 12)
MAX_DEPTH = 40
#: values (scalars, mappings, lists) in a YAML document: an encounter needs under 5,000;
#: YAML is slow to build (10,000 figures, 60,000 values, took 8 s), so past this it is refused
#: after a fast scan of its events
MAX_YAML_NODES = 50_000
#: magnitude of any number in an encounter (attributes, ranges, counts): rules use tens
MAX_NUMBER = 1_000_000_000
#: cells on a side of a map, and cells in all
MAX_MAP_SIDE = 100
MAX_MAP_CELLS = 10_000
#: figures in one fight (scenario figures and any a GM adds)
MAX_FIGURES = 60
#: characters of a name or an id (a figure, a team, a scenario)
MAX_NAME = 80
#: metres a map cell may measure: a cell smaller than a hand or larger than a house is a typo
#: (movement, reach and blast radii are counted in cells of this size)
CELL_M_MIN = 0.25
CELL_M_MAX = 10.0
#: rounds before a fight is a draw
MAX_ROUND_LIMIT = 1000
#: fights one command may ask for (simulate, difficulty, tune, evaluate)
MAX_EPISODES = 1_000_000
#: generated maps `tactica evaluate --generated` may add
MAX_GENERATED = 10_000
#: a seed is a whole number from 0 to this (numpy's SeedSequence takes no negative seed)
MAX_SEED = 2 ** 63 - 1
#: an exported policy (.npz): bytes on disk and bytes once unpacked (a zip bomb expands)
MAX_POLICY_BYTES = 64 * 2 ** 20
MAX_POLICY_UNPACKED = 256 * 2 ** 20
#: fights the server holds at once
MAX_FIGHTS = 64
#: bytes of a Universal VTT map file (.dd2vtt, .uvtt, .df2vtt): its picture is embedded as
#: base64; Dungeondraft's export of a few rooms at 256 px a square is 2-15 MB
MAX_MAP_FILE_BYTES = 32 * 2 ** 20
#: points of walls, doors and object outlines in one Universal VTT file: a cave map of a
#: hundred squares a side has a few thousand; each wall's segments are snapped to cell edges
MAX_MAP_WALL_POINTS = 50_000


class NoAliasLoader(yaml.SafeLoader):
    """YAML without anchors and aliases: an encounter or a save never needs them, and nested
    aliases expand a 1 KB text into gigabytes ("billion laughs")."""

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            ev = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed here", ev.start_mark)
        return super().compose_node(parent, index)


def read_text_file(path: str | Path, source: str | None = None, limit: int = MAX_FILE_BYTES,
                   expected: str = "a YAML or JSON file") -> str:
    """The text of a regular file of at most `limit` bytes. A FIFO, a device (/dev/zero), a
    folder, a missing, oversized, unreadable or non-UTF-8 file is a one-line error."""
    p = Path(path)
    src = source or str(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise ScenarioError("file not found", source=src, field="(file)", expected="an existing file") from None
    except OSError as e:
        raise ScenarioError(f"cannot read: {e.strerror or e.__class__.__name__}", source=src, field="(file)",
                            expected=expected) from None
    if stat.S_ISDIR(st.st_mode):
        raise ScenarioError("is a folder", source=src, field="(file)", expected=expected)
    if not stat.S_ISREG(st.st_mode):
        raise ScenarioError("is not a regular file (a device, a pipe or a socket)", source=src, field="(file)",
                            expected=expected)
    if st.st_size > limit:
        raise ScenarioError(f"{st.st_size:,} bytes is too large", source=src, field="(file)",
                            expected=f"at most {limit:,} bytes")
    try:
        with open(p, "rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as e:
        raise ScenarioError(f"cannot read: {e.strerror or e.__class__.__name__}", source=src, field="(file)",
                            expected=expected) from None
    if len(raw) > limit:  # grew since stat, or a file whose size stat does not know
        raise ScenarioError("too large", source=src, field="(file)", expected=f"at most {limit:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError("cannot read: UnicodeDecodeError", source=src, field="(file)",
                            expected="a readable UTF-8 text file") from None


def load_text(text: str, source: str | None, fmt: str, field: str = "(file)", limit: int = MAX_SAVE_BYTES) -> Any:
    """Parse `text` as `fmt` ("json" or "yaml"): YAML aliases refused, nesting bounded, an
    integer too long to read refused; errors name the source and the line."""
    if len(text) > limit:
        raise ScenarioError(f"{len(text):,} characters is too large", source=source, field=field,
                            expected=f"at most {limit:,} bytes")
    name = "JSON" if fmt == "json" else "YAML"
    try:
        doc = _json(text, source, field) if fmt == "json" else _yaml(text, source, field)
    except (yaml.YAMLError, json.JSONDecodeError) as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else (
            f" at line {e.lineno}" if isinstance(e, json.JSONDecodeError) else "")
        why = f": {e.problem}" if getattr(e, "problem", None) else ""
        raise ScenarioError(f"not valid {name}{where}{why}", source=source, field=field,
                            expected="a YAML or JSON mapping") from None
    except RecursionError:
        raise ScenarioError("nested too deeply to read", source=source, field=field,
                            expected=f"mappings and lists nested at most {MAX_DEPTH} deep") from None
    except ValueError as e:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise ScenarioError(f"not valid {name}: {str(e).split(';')[0]}", source=source, field=field,
                            expected=f"numbers of at most {len(str(MAX_NUMBER))} digits") from None
    check_depth(doc, source)
    return doc


def _json(text: str, source: str | None, field: str) -> Any:
    """JSON with each key once in an object (the standard library keeps the last silently)."""
    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            keys = [k for k, _ in pairs]
            dup = next(k for i, k in enumerate(keys) if k in keys[:i])
            raise ScenarioError(f"duplicate key {dup!r} in a JSON object", source=source, field=field,
                                expected="each key once in an object")
        return d
    return json.loads(text, object_pairs_hook=unique)


def _yaml(text: str, source: str | None, field: str) -> Any:
    """YAML through libyaml: first a scan of its events (aliases and duplicate keys refused,
    nesting and values counted), then the safe load; without libyaml, the pure-Python loader
    without aliases."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is None:  # pragma: no cover - PyYAML's wheels carry libyaml
        return yaml.load(text, Loader=NoAliasLoader)  # noqa: S506 - a safe loader
    nodes = 0
    # one frame per open mapping or list: [keys seen (None: a list), next node is a key, path,
    # current key or index]; a mapping's scalar keys are compared as YAML reads them (tag, text)
    frames: list[list[Any]] = []
    for ev in yaml.parse(text, Loader=fast):
        if isinstance(ev, yaml.AliasEvent):
            raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed here", ev.start_mark)
        if isinstance(ev, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            nodes += 1
            if nodes > MAX_YAML_NODES:
                raise ScenarioError(f"more than {MAX_YAML_NODES:,} values", source=source, field=field,
                                    expected=f"a YAML document of at most {MAX_YAML_NODES:,} values")
            path = ""
            if frames:
                top = frames[-1]
                if top[0] is None:  # an item of a list
                    top[3] += 1
                    path = f"{top[2]}[{top[3]}]"
                elif top[1]:  # a key of a mapping
                    top[1] = False
                    top[3] = None
                    if isinstance(ev, yaml.ScalarEvent):
                        key = (_RESOLVE(yaml.ScalarNode, ev.value, ev.implicit), ev.value)
                        if key in top[0]:
                            raise ScenarioError(f"duplicate key {ev.value!r} at line {ev.start_mark.line + 1}",
                                                source=source, field=top[2] or "(top level)",
                                                expected="each key once in a mapping")
                        top[0].add(key)
                        top[3] = ev.value
                else:  # its value
                    top[1] = True
                    path = _key(top[2], top[3]) if top[3] is not None else top[2]
            if isinstance(ev, yaml.MappingStartEvent):
                frames.append([set(), True, path, None])
            elif isinstance(ev, yaml.SequenceStartEvent):
                frames.append([None, False, path, -1])
            if len(frames) > MAX_DEPTH:
                raise RecursionError
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            frames.pop()
    return yaml.load(text, Loader=fast)  # noqa: S506 - a safe loader, aliases refused above


_RESOLVE = yaml.resolver.Resolver().resolve


def check_depth(doc: Any, source: str | None, limit: int = MAX_DEPTH) -> None:
    """Refuse mappings and lists nested deeper than `limit`."""
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (Mapping, list, tuple)):
            if d >= limit:
                raise ScenarioError(f"nested more than {limit} deep", source=source, field="(document)",
                                    expected=f"mappings and lists nested at most {limit} deep")
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, Mapping) else v))


def _key(path: str, k: Any) -> str:
    return f"{path}[{k}]" if isinstance(k, int) else (f"{path}.{k}" if path else str(k))


def check_numbers(doc: Any, source: str | None, bound: float = MAX_NUMBER, skip: tuple[str, ...] = ()) -> None:
    """Refuse a number past `bound` in magnitude anywhere in `doc` but the top-level keys in
    `skip`; the error names the field."""
    stack: list[tuple[str, Any]] = [("", doc)]
    while stack:
        p, v = stack.pop()
        if isinstance(v, bool):
            continue
        if isinstance(v, (int, float)):
            if abs(v) > bound or (isinstance(v, float) and not math.isfinite(v)):
                raise ScenarioError(f"{v!r} is out of range", source=source, field=p or "(top level)",
                                    expected=f"a number from -{bound:,} to {bound:,}")
        elif isinstance(v, Mapping):
            stack.extend((_key(p, k), x) for k, x in v.items() if not (p == "" and k in skip))
        elif isinstance(v, (list, tuple)):
            stack.extend((_key(p, i), x) for i, x in enumerate(v))


def check_name(v: Any, source: str | None, field: str) -> None:
    """A name or id: text of at most MAX_NAME printable characters (no control characters:
    a terminal would run an escape sequence in a printed name)."""
    if not isinstance(v, str):
        return
    if len(v) > MAX_NAME:
        raise ScenarioError(f"{len(v)} characters", source=source, field=field,
                            expected=f"a name of at most {MAX_NAME} characters")
    if any(not ch.isprintable() for ch in v):
        raise ScenarioError(f"{ascii(v)} holds a control character", source=source, field=field,
                            expected="a name of printable characters")


def check_map_size(rows: Any, source: str | None, field: str = "map.rows") -> None:
    if not isinstance(rows, list):
        return
    h = len(rows)
    w = max((len(r) for r in rows if isinstance(r, str)), default=0)
    if h > MAX_MAP_SIDE or w > MAX_MAP_SIDE or h * w > MAX_MAP_CELLS:
        raise ScenarioError(f"the map is {w}x{h} cells", source=source, field=field,
                            expected=f"at most {MAX_MAP_SIDE} cells a side and {MAX_MAP_CELLS:,} cells in all")


def check_cell_m(v: Any, source: str | None, field: str = "map.cell_m") -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not CELL_M_MIN <= v <= CELL_M_MAX:
        raise ScenarioError(f"cell size {v!r}", source=source, field=field,
                            expected=f"metres per cell from {CELL_M_MIN} to {CELL_M_MAX}")


def check_figures(n: int, source: str | None, field: str = "teams") -> None:
    if n > MAX_FIGURES:
        raise ScenarioError(f"{n} figures", source=source, field=field, expected=f"at most {MAX_FIGURES} figures")


def check_seed(v: Any, field: str = "--seed", source: str | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_SEED:
        raise ScenarioError(f"{v!r}", source=source, field=field, expected=f"a whole number from 0 to {MAX_SEED}")
    return v


def cap_workers(requested: int, jobs: int) -> int:
    """Worker processes actually started: no more than the jobs and the cores."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(int(requested), int(jobs), cores))


#: (name, value, why) of every limit, in the order docs/limits.md lists them
TABLE: tuple[tuple[str, Any, str], ...] = (
    ("MAX_FILE_BYTES", MAX_FILE_BYTES, "an encounter file"),
    ("MAX_SAVE_BYTES", MAX_SAVE_BYTES, "a save, state or replay document, file or API body"),
    ("MAX_LOG_BYTES", MAX_LOG_BYTES, "an event log read by replay and view"),
    ("MAX_DEPTH", MAX_DEPTH, "mappings and lists nested in a document"),
    ("MAX_YAML_NODES", MAX_YAML_NODES, "values in a YAML document"),
    ("MAX_NUMBER", MAX_NUMBER, "magnitude of a number in an encounter"),
    ("MAX_MAP_SIDE", MAX_MAP_SIDE, "cells on a side of a map"),
    ("MAX_MAP_CELLS", MAX_MAP_CELLS, "cells of a map in all"),
    ("MAX_FIGURES", MAX_FIGURES, "figures in one fight"),
    ("MAX_NAME", MAX_NAME, "characters of a name or an id"),
    ("CELL_M_MIN", CELL_M_MIN, "metres of a map cell, least"),
    ("CELL_M_MAX", CELL_M_MAX, "metres of a map cell, most"),
    ("MAX_ROUND_LIMIT", MAX_ROUND_LIMIT, "rounds before a draw"),
    ("MAX_EPISODES", MAX_EPISODES, "fights one command runs"),
    ("MAX_GENERATED", MAX_GENERATED, "generated maps of evaluate"),
    ("MAX_SEED", MAX_SEED, "a seed"),
    ("MAX_POLICY_BYTES", MAX_POLICY_BYTES, "a policy file on disk"),
    ("MAX_POLICY_UNPACKED", MAX_POLICY_UNPACKED, "a policy file unpacked"),
    ("MAX_FIGHTS", MAX_FIGHTS, "fights the server holds"),
    ("MAX_MAP_FILE_BYTES", MAX_MAP_FILE_BYTES, "a Universal VTT map file"),
    ("MAX_MAP_WALL_POINTS", MAX_MAP_WALL_POINTS, "wall, door and object points in a Universal VTT file"),
)
