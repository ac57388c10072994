"""Universal VTT map files (`.dd2vtt`, `.uvtt`, `.df2vtt`) read into an encounter's map (issue #35).

Dungeondraft, DungeonFog and Arkenforge export a map as one JSON object: `resolution`
(`map_origin`, `map_size` in grid squares, `pixels_per_grid`), `line_of_sight` (wall
polylines in grid units), `objects_line_of_sight` (outlines of objects such as tables and
pillars), `portals` (doors), `environment`, `lights` and `image` (base64 PNG or WebP).

How they become the engine's map (docs/uvtt.md says the same for a GM):
- a grid square is a cell; point (x, y) of the file is at (x - origin.x, y - origin.y) in
  cell-corner coordinates, so cell (0, 0) is the image's top-left square;
- walls become walls between cells (rules/edges.py), never wall cells: a wall blocks the
  step between two orthogonal neighbours when it crosses the line joining their centres.
  A wall along cell edges blocks exactly those edges; a diagonal or curved wall blocks the
  staircase of edges that keeps every cell on the side its centre is on (so it moves by at
  most half a cell). A centre exactly on a wall counts as on its north-west side;
- a closed door is a wall; an open one lets sight and movement through. Doors stay as the
  file draws them (each ruleset's data.yaml says so: no action opens or closes one);
- an object is a cover object on the cells it covers at least a quarter of (the cell under
  its middle when it covers none that much): it blocks movement and gives the cover level
  the GM sets for it (`objects`), else `object_cover` (default 2, medium); cover 0 leaves it out;
- lights and the environment are ignored (no ruleset has light rules), said once in the report;
- the image is kept as bytes for the battle map to draw under the grid; no rule reads it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import struct
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np

from rules.edges import Edges
from rules.errors import ScenarioError
from rules.limits import (MAX_MAP_CELLS, MAX_MAP_FILE_BYTES, MAX_MAP_SIDE, MAX_MAP_WALL_POINTS, check_map_size,
                          load_text, read_text_file)

#: the cover level of an object the GM does not name (2: medium)
DEFAULT_OBJECT_COVER = 2
#: the map character of an object of each cover level (rules.grid.DEFAULT_LEGEND)
COVER_CHARS = {1: "l", 2: "m", 3: "h", 4: "T"}
#: a point may lie this far (in cells) outside the map and count as on its border
_SLACK = 0.01
#: cell centres are nudged by these (cells) so a wall through a centre has a side
_NUDGE_X, _NUDGE_Y = 1.3e-7, 2.9e-7

_FILES: ContextVar[bool] = ContextVar("tactica_map_files", default=True)


@contextmanager
def no_map_files() -> Iterator[None]:
    """Within this block an encounter may not name a map file (a document sent to the server:
    it must not make the server read its disks); an inline Universal VTT document still works."""
    token = _FILES.set(False)
    try:
        yield
    finally:
        _FILES.reset(token)


@dataclass(frozen=True)
class Backdrop:
    """A map's picture as the file holds it (never decoded by the rules)."""

    data: bytes
    mime: str
    pixels_per_grid: int
    width_px: int | None
    height_px: int | None
    key: str   # sha1 of the bytes


@dataclass
class ImportedMap:
    """A Universal VTT map as the engine reads it, and what the import did."""

    width: int
    height: int
    rows: list[str]
    walls: list[list[int]]
    doors: list[dict[str, Any]]
    objects: list[dict[str, Any]]
    lights: int
    backdrop: Backdrop | None
    wall_lines: int = 0
    off_edge: int = 0
    dropped: list[str] = field(default_factory=list)

    def map_block(self) -> dict[str, Any]:
        """The encounter's `map` block with ASCII rows and walls between cells."""
        out: dict[str, Any] = {"rows": list(self.rows)}
        if self.walls:
            out["walls"] = [list(w) for w in self.walls]
        if self.doors:
            out["doors"] = [dict(d) for d in self.doors]
        return out

    def report(self) -> list[str]:
        """What the import made of the file, a line a fact."""
        closed = sum(1 for d in self.doors if d["closed"])
        lines = [f"cells: {self.width}x{self.height} ({self.width * self.height})",
                 f"walls: {self.wall_lines} wall lines -> {sum(_seg_len(s) for s in self.walls)} cell edges "
                 f"blocked ({len(self.walls)} runs, closed doors included)"
                 + (f"; {self.off_edge} wall lines not on cell edges snapped to the edges beside them"
                    if self.off_edge else ""),
                 f"doors: {len(self.doors)} ({closed} closed, {len(self.doors) - closed} open; "
                 "they stay as drawn)"]
        for o in self.objects:
            cells = " ".join(f"{x},{y}" for x, y in o["cells"])
            lines.append(f"object {o['index']}{' (' + o['name'] + ')' if o['name'] else ''}: "
                         f"cover {o['cover']} on {len(o['cells'])} cell(s) {cells}".rstrip())
        if not self.objects:
            lines.append("objects: none")
        lines.append(f"lights: {self.lights} ignored (no ruleset has light rules)" if self.lights
                     else "lights: none")
        if self.backdrop is not None:
            b = self.backdrop
            size = f" {b.width_px}x{b.height_px} px" if b.width_px else ""
            lines.append(f"image: {b.mime}{size}, {len(b.data):,} bytes, {b.pixels_per_grid} px a cell")
        else:
            lines.append("image: none")
        lines += [f"dropped: {d}" for d in self.dropped]
        return lines


def _seg_len(s: list[int]) -> int:
    return abs(s[2] - s[0]) + abs(s[3] - s[1])


# -- reading ---------------------------------------------------------------------------------
def read_uvtt(path: str | Path, source: str | None = None) -> Any:
    """A Universal VTT file's JSON document, read within the bounds of rules/limits.py."""
    src = source or str(path)
    text = read_text_file(path, src, limit=MAX_MAP_FILE_BYTES, expected="a Universal VTT file (JSON)")
    if not text.strip():
        raise ScenarioError("file is empty", source=src, field="(file)", expected="a Universal VTT JSON object")
    try:
        return load_text(text, src, "json", limit=MAX_MAP_FILE_BYTES)
    except ScenarioError as e:
        raise ScenarioError(e.detail, source=src, field=e.field, expected="a Universal VTT file (JSON)") from None


def map_file_path(ref: str, encounter: str | None, source: str | None, field: str) -> Path:
    """The Universal VTT file an encounter names: relative to the encounter file's folder."""
    if not _FILES.get():
        raise ScenarioError(f"a file path ({ref!r}) in a document sent to the server", source=source, field=field,
                            expected="the Universal VTT document itself, or map rows")
    p = Path(ref).expanduser()
    if not p.is_absolute() and encounter and Path(encounter).is_file():
        p = Path(encounter).resolve().parent / p
    return p


def load_uvtt_map(ref: str | Mapping[str, Any], source: str | None, object_cover: int = DEFAULT_OBJECT_COVER,
                  objects: Mapping[Any, Any] | None = None, field: str = "map.uvtt") -> ImportedMap:
    """The map of an encounter's `map.uvtt` (a path or the document itself)."""
    if isinstance(ref, str):
        path = map_file_path(ref, source, source, field)
        doc, src = read_uvtt(path, str(path)), str(path)
    else:
        doc, src = ref, f"{source or '<scenario>'}: {field}"
    return import_uvtt(doc, src, object_cover, _object_covers(objects or {}, source), source)


# -- the document --------------------------------------------------------------------------
def _err(what: str, source: str | None, fld: str, expected: str) -> ScenarioError:
    return ScenarioError(what, source=source, field=fld, expected=expected)


def _num(v: Any, source: str | None, fld: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _err(f"{v!r}", source, fld, "a finite number")
    return float(v)


def _point(p: Any, source: str | None, fld: str) -> tuple[float, float]:
    if not isinstance(p, Mapping) or "x" not in p or "y" not in p:
        raise _err(f"{p!r}"[:60], source, fld, "a point {x, y} in grid units")
    return _num(p["x"], source, f"{fld}.x"), _num(p["y"], source, f"{fld}.y")


def _lines(doc: Mapping[str, Any], key: str, source: str | None, origin: tuple[float, float],
           size: tuple[int, int], budget: list[int]) -> list[list[tuple[float, float]]]:
    """The polylines under `key`, in cell-corner coordinates, each point on the map."""
    raw = doc.get(key, [])
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _err(f"a {type(raw).__name__}", source, key, "a list of polylines (lists of {x, y} points)")
    out = []
    for i, line in enumerate(raw):
        if not isinstance(line, list):
            raise _err(f"a {type(line).__name__}", source, f"{key}[{i}]", "a list of {x, y} points")
        budget[0] -= len(line)
        if budget[0] < 0:
            raise _err("too many points", source, key, f"at most {MAX_MAP_WALL_POINTS:,} wall, door and object points")
        out.append([_on_map(p, source, f"{key}[{i}][{j}]", origin, size) for j, p in enumerate(line)])
    return out


def _on_map(p: Any, source: str | None, fld: str, origin: tuple[float, float], size: tuple[int, int]
            ) -> tuple[float, float]:
    """A file's point in cell-corner coordinates; a point off the map is an error."""
    x, y = _point(p, source, fld)
    x, y = x - origin[0], y - origin[1]
    w, h = size
    if not (-_SLACK <= x <= w + _SLACK and -_SLACK <= y <= h + _SLACK):
        raise _err(f"point ({x + origin[0]:g}, {y + origin[1]:g}) is outside the map", source, fld,
                   f"x from {origin[0]:g} to {origin[0] + w:g}, y from {origin[1]:g} to {origin[1] + h:g} "
                   "(map_origin + map_size)")
    return min(max(x, 0.0), float(w)), min(max(y, 0.0), float(h))


def _size(res: Mapping[str, Any], source: str | None) -> tuple[tuple[float, float], tuple[int, int], int]:
    if "map_size" not in res:
        raise _err("missing", source, "resolution.map_size", "{x, y}: the map's size in grid squares")
    sx, sy = _point(res["map_size"], source, "resolution.map_size")
    w, h = math.ceil(sx - 1e-9), math.ceil(sy - 1e-9)
    if w < 1 or h < 1:
        raise _err(f"{sx:g}x{sy:g}", source, "resolution.map_size", "at least one grid square each way")
    if w > MAX_MAP_SIDE or h > MAX_MAP_SIDE:
        raise _err(f"the map is {w}x{h} cells", source, "resolution.map_size",
                   f"at most {MAX_MAP_SIDE} cells a side and {MAX_MAP_CELLS:,} cells in all")
    check_map_size(["." * w] * h, source, "resolution.map_size")
    origin = _point(res.get("map_origin", {"x": 0, "y": 0}), source, "resolution.map_origin")
    ppg = res.get("pixels_per_grid", 0)
    if isinstance(ppg, bool) or not isinstance(ppg, (int, float)) or not 1 <= ppg <= 10_000 or ppg != int(ppg):
        raise _err(f"{ppg!r}", source, "resolution.pixels_per_grid", "a whole number of pixels from 1 to 10,000")
    return origin, (w, h), int(ppg)


def import_uvtt(doc: Any, source: str | None, object_cover: int = DEFAULT_OBJECT_COVER,
                covers: Mapping[int, tuple[int, str]] | None = None, encounter: str | None = None) -> ImportedMap:
    """The engine's map of a Universal VTT document (errors name `source` and the field)."""
    if not isinstance(doc, Mapping):
        raise _err(f"a {type(doc).__name__}", source, "(top level)", "a Universal VTT JSON object")
    res = doc.get("resolution")
    if not isinstance(res, Mapping):
        raise _err("missing" if res is None else f"a {type(res).__name__}", source, "resolution",
                   "{map_origin, map_size, pixels_per_grid}")
    origin, (w, h), ppg = _size(res, source)
    budget = [MAX_MAP_WALL_POINTS]
    walls = _lines(doc, "line_of_sight", source, origin, (w, h), budget)
    objs = _lines(doc, "objects_line_of_sight", source, origin, (w, h), budget)
    doors = _portals(doc, source, origin, (w, h), budget)
    segs = [s for line in walls for s in zip(line, line[1:])]
    segs += [(a, b) for d in doors if d["closed"] for a, b in [d["_seg"]]]
    edges = snap_walls(segs, w, h)
    off = sum(1 for line in walls if any(not _on_edges(a, b) for a, b in zip(line, line[1:])))
    grid = [["."] * w for _ in range(h)]
    placed, dropped = [], []
    covers = covers or {}
    for i, poly in enumerate(objs):
        cover, name = covers.get(i, (object_cover, ""))
        cells = object_cells(poly, w, h)
        if cover == 0 or not cells:
            dropped.append(f"object {i}{' (' + name + ')' if name else ''}: "
                           + ("cover 0" if cover == 0 else "covers no cell"))
            continue
        for x, y in cells:
            old = grid[y][x]
            if old == "." or cover > _cover_of(old):
                grid[y][x] = COVER_CHARS[cover]
        placed.append({"index": i, "name": name, "cover": cover, "cells": [list(c) for c in cells]})
    for i in covers:
        if i >= len(objs):
            raise _err(f"object {i}: the file has {len(objs)} objects", encounter, "map.objects",
                       f"an object index from 0 to {len(objs) - 1}" if objs else "no objects (the file has none)")
    lights = doc.get("lights") or []
    return ImportedMap(width=w, height=h, rows=["".join(r) for r in grid],
                       walls=edges.segments() if edges is not None else [],
                       doors=[{k: v for k, v in d.items() if not k.startswith("_")} for d in doors],
                       objects=placed, lights=len(lights) if isinstance(lights, list) else 0,
                       backdrop=_backdrop(doc.get("image"), source, ppg), wall_lines=len(walls), off_edge=off,
                       dropped=dropped)


def _cover_of(ch: str) -> int:
    return next(k for k, v in COVER_CHARS.items() if v == ch)


def _on_edges(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """A segment along cell edges: horizontal or vertical on a whole-number line."""
    return ((a[0] == b[0] and float(a[0]).is_integer()) or (a[1] == b[1] and float(a[1]).is_integer()))


def _portals(doc: Mapping[str, Any], source: str | None, origin: tuple[float, float], size: tuple[int, int],
             budget: list[int]) -> list[dict[str, Any]]:
    raw = doc.get("portals") or []
    if not isinstance(raw, list):
        raise _err(f"a {type(raw).__name__}", source, "portals", "a list of doors")
    out = []
    for i, p in enumerate(raw):
        f = f"portals[{i}]"
        if not isinstance(p, Mapping):
            raise _err(f"a {type(p).__name__}", source, f, "{position, bounds, rotation, closed, freestanding}")
        b = p.get("bounds")
        if not isinstance(b, list) or len(b) != 2:
            raise _err(f"{b!r}"[:60], source, f"{f}.bounds", "two {x, y} points: the door's ends")
        closed = p.get("closed", True)
        if not isinstance(closed, bool):
            raise _err(f"{closed!r}", source, f"{f}.closed", "true or false")
        budget[0] -= 2
        a, c = (_on_map(q, source, f"{f}.bounds[{k}]", origin, size) for k, q in enumerate(b))
        out.append({"at": [_tidy(v) for v in (a[0], a[1], c[0], c[1])], "closed": closed,
                    "_seg": (a, c)})
    return out


def _tidy(v: float) -> int | float:
    """A coordinate as a GM reads it: 6 rather than 6.0, at most 3 decimals."""
    v = round(v, 3)
    return int(v) if v.is_integer() else v


# -- geometry ---------------------------------------------------------------------------------
def snap_walls(segs: list[tuple[tuple[float, float], tuple[float, float]]], w: int, h: int) -> Edges | None:
    """The cell edges the wall segments block: the edge between two orthogonal neighbours is
    blocked when a segment crosses the line joining their (nudged) centres."""
    if not segs:
        return None
    a = np.array(segs, dtype=float).reshape(-1, 4)
    east = _crossed(a[:, 1], a[:, 0], a[:, 3], a[:, 2], h, w, _NUDGE_Y, _NUDGE_X)         # rows j, links i|i+1
    south = _crossed(a[:, 0], a[:, 1], a[:, 2], a[:, 3], w, h, _NUDGE_X, _NUDGE_Y)        # columns i, links j|j+1
    e = np.zeros((h, w), dtype=bool)
    s = np.zeros((w, h), dtype=bool)
    for (line, k), out in ((east, e), (south, s)):
        out[line, k] = True
    ed = Edges(w, h, e.reshape(-1), s.T.reshape(-1))
    return ed if ed.count() else None


def _crossed(u0: np.ndarray, v0: np.ndarray, u1: np.ndarray, v1: np.ndarray, lines: int, cells: int,
             nu: float, nv: float) -> tuple[np.ndarray, np.ndarray]:
    """For links along lines u = k + 0.5 - nu (k < lines), joining centres v = m + 0.5 - nv and
    m + 1.5 - nv (m < cells - 1): the (k, m) of every link a segment (u0, v0)-(u1, v1) crosses."""
    lo = np.clip(np.floor(np.minimum(u0, u1) - 0.5).astype(np.int64), 0, lines - 1)
    hi = np.clip(np.ceil(np.maximum(u0, u1) - 0.5).astype(np.int64), 0, lines - 1)
    n = np.maximum(hi - lo + 1, 0)
    seg = np.repeat(np.arange(len(u0)), n)
    k = lo[seg] + (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n))
    uc = k + 0.5 - nu
    a0, a1, b0, b1 = u0[seg], u1[seg], v0[seg], v1[seg]
    hit = (a0 - uc) * (a1 - uc) < 0
    t = np.where(hit, (uc - a0) / np.where(a1 != a0, a1 - a0, 1.0), 0.0)
    v = b0 + t * (b1 - b0)
    m = np.floor(v - 0.5 + nv).astype(np.int64)
    ok = hit & (m >= 0) & (m < cells - 1)
    return k[ok], m[ok]


def object_cells(poly: list[tuple[float, float]], w: int, h: int) -> list[tuple[int, int]]:
    """The cells an object's outline covers at least a quarter of (the cell under the middle of
    its points when it covers none that much), in row order."""
    if not poly:
        return []
    xs = [p[0] for p in poly]
    ys = [p[1] for p in poly]
    out = []
    if len(poly) >= 3:
        for y in range(max(0, math.floor(min(ys))), min(h, math.ceil(max(ys)))):
            for x in range(max(0, math.floor(min(xs))), min(w, math.ceil(max(xs)))):
                if _clipped_area(poly, x, y) >= 0.25:
                    out.append((x, y))
    if not out:
        cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
        out = [(min(w - 1, int(cx)), min(h - 1, int(cy)))]
    return out


def _clipped_area(poly: list[tuple[float, float]], x: int, y: int) -> float:
    """Area of the polygon inside the unit cell at (x, y) (Sutherland-Hodgman clipping)."""
    pts = list(poly)
    for axis, bound, keep_above in ((0, x, True), (0, x + 1, False), (1, y, True), (1, y + 1, False)):
        if not pts:
            return 0.0
        out = []
        for i, cur in enumerate(pts):
            prev = pts[i - 1]
            cin = cur[axis] >= bound if keep_above else cur[axis] <= bound
            pin = prev[axis] >= bound if keep_above else prev[axis] <= bound
            if cin != pin:
                t = (bound - prev[axis]) / (cur[axis] - prev[axis])
                out.append((prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])))
            if cin:
                out.append(cur)
        pts = out
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(pts, pts[1:] + pts[:1]))) / 2


# -- the GM's settings and the image -----------------------------------------------------------
def _object_covers(objects: Mapping[Any, Any], source: str | None) -> dict[int, tuple[int, str]]:
    """`map.objects`: {INDEX: COVER} or {NAME: {index: INDEX, cover: COVER}} -> index -> (cover, name)."""
    out: dict[int, tuple[int, str]] = {}
    for key, v in objects.items():
        f = f"map.objects.{key}"
        name = ""
        if isinstance(key, int) and not isinstance(key, bool):
            idx = key
        elif isinstance(key, str) and key.isdigit():
            idx = int(key)
        else:
            name = str(key)
            if not isinstance(v, Mapping) or not isinstance(v.get("index"), int) or isinstance(v.get("index"), bool):
                raise _err(f"{v!r}"[:60], source, f, "{index: N, cover: 0-4}: the object's index in the file "
                           "(tactica import-map lists them) and its cover")
            idx = v["index"]
        cover = v.get("cover", DEFAULT_OBJECT_COVER) if isinstance(v, Mapping) else v
        if isinstance(v, Mapping):
            extra = set(v) - {"index", "cover"}
            if extra:
                raise _err(f"unknown key {sorted(extra)[0]!r}", source, f, "index and cover")
        if isinstance(cover, bool) or not isinstance(cover, int) or not 0 <= cover <= 4:
            raise _err(f"{cover!r}", source, f, "a cover level from 0 to 4 (0 none: leave the object out, 1 light, "
                       "2 medium, 3 heavy, 4 total)")
        if idx < 0 or idx in out:
            raise _err(f"object {idx}", source, f, "each object index once, 0 or more")
        out[idx] = (cover, name)
    return out


_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))


def _backdrop(v: Any, source: str | None, ppg: int) -> Backdrop | None:
    """The file's `image`: base64 PNG, WebP or JPEG bytes (absent or empty: none)."""
    if v is None or v == "":
        return None
    if not isinstance(v, str):
        raise _err(f"a {type(v).__name__}", source, "image", "the map's picture as base64 text (PNG or WebP)")
    try:
        data = base64.b64decode(v.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise _err("not base64", source, "image", "the map's picture as base64 text (PNG or WebP)") from None
    mime = next((m for sig, m in _MAGIC if data.startswith(sig)), None)
    if mime is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        mime = "image/webp"
    if mime is None:
        raise _err("not a PNG, WebP or JPEG picture", source, "image", "the map's picture as base64 text (PNG or WebP)")
    wpx = hpx = None
    if mime == "image/png" and len(data) >= 24:
        wpx, hpx = struct.unpack(">II", data[16:24])
    return Backdrop(data, mime, ppg, wpx, hpx, hashlib.sha1(data).hexdigest())
