"""A saved fight is untrusted input (issues #33, #34): every field of a state file or an API
state is checked as strictly as an encounter file, and an impossible state is refused with a
`ScenarioError` naming the field, before anything reads it.

Three checks, in the order `rules.serialize.battle_from_dict` runs them:

- `check_document(doc, source)`: no NaN or infinite number and no lone surrogate (a string
  that cannot be written as UTF-8) anywhere in a document (a scenario or a whole state);
  the scenario loader runs it too.
- `check_saved(d, grid, source)`: the file's own shapes before they are used: `map_rows`
  (the scenario's size, map characters of its legend), each figure's `pos` ([x, y] whole
  numbers on the map: nothing wraps to the next row), `conditions` (names) and `res` (a
  mapping), `objects` keys, `round`, `order`, `turn_index`, `economy`, `actions_resolved`
  and the dice (`buf`: uniform floats in [0, 1), as `rules.dice.Dice` draws them, empty in
  files written since 2026-12-07, whose generator is wound back over them instead;
  `bit_generator`: a PCG64 state of numpy's shape).
- `check_state(state, ruleset, source)`: the loaded fight against the rules: figures on
  cells that do not block movement (stacking: see below); the initiative order naming
  existing figures (a figure may be named twice: the engine's own metalface and
  Cybergeneration states do, a turn taken again later in the round); `turn_index` inside
  the order while the fight goes on; `round` from 0 to the round limit; each damage track
  (`Ruleset.damage_tracks`) a whole number from 0 to its maximum, beyond it on a dead
  figure only (the engine's own Cortex and Cybergeneration states carry Wounds past the
  maximum on the dead); ammunition from 0 to the weapon's magazine or capacity; conditions
  the ruleset knows (`known_conditions`); counters (`COUNTERS`) whole and not negative;
  figures named in resources (`FIGURE_REFS`) existing. Economy numbers are only checked
  finite: cortex_hu's `run_penalty` is negative in the engine's own states.

What the rules allow and the checks therefore accept: a downed figure under a standing one
(a standing figure may end its move on a downed figure's cell, `BattleState.occupied`), two
downed figures on one cell, and two standing figures on one cell. The last is not refused
because the engine makes it: a figure that gets up where another now stands (a GM's track or
condition override lowering Wounds or lifting `unconscious`, metalface's repair threshold,
Cybergeneration's stun save, cortex_hu's knock-out ending) stays on its cell; seeded fights
with random GM overrides wrote such states (20 of 1,279 saves, metalface and cortex_hu), and
refusing them would lose those fights' saves. Refused instead: a figure off the map, inside
terrain that blocks movement, or on a cell that wraps to another row (`check_saved`).
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from typing import Any, Mapping

from rules.errors import ScenarioError, TacticaError
from rules.limits import check_figures, check_name
from rules.state import DOWN_CONDITIONS, BattleState

#: conditions a ruleset's figures may carry in a fight beyond those its GM sets
#: (`gm_conditions`) and its damage tracks decide (`track_conditions`): the ones its actions
#: and rolls give (read from the rules' code: grapples, aim, dodges, held actions ...)
ACTION_CONDITIONS: dict[str, tuple[str, ...]] = {
    "cortex": ("grappled", "grappling"),
    "cortex_hu": ("grappled", "grappling", "feinted", "dying", "dead"),
    "cybergeneration": ("aiming", "dodging", "holding_action", "suppressed", "grappled", "grappling",
                        "impaired", "incapacitated", "dying", "dead"),
    "metalface": ("grappled", "grappling", "dying", "dead"),
}
#: resources that are counts (whole numbers, 0 or more) wherever a ruleset keeps them
COUNTERS = ("damage", "pp", "second_winds_used", "reaction_debt", "no_move_round", "debt", "grip", "aim",
            "ko_turns", "delays")
#: resources that name another figure (an id, or a list of ids; None: nobody)
FIGURE_REFS = ("grappling", "grappled_by", "feinted_by", "held_by", "grapple", "suppressed_by")
_U64 = 2 ** 64
_U128 = 2 ** 128


def _fail(what: str, source: str | None, field: str, expected: str) -> ScenarioError:
    return ScenarioError(what, source=source, field=field, expected=expected)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _key(path: str, k: Any) -> str:
    return f"{path}[{k}]" if isinstance(k, int) else (f"{path}.{k}" if path else str(k))


def _bad_text(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_document(doc: Any, source: str | None = None, path: str = "") -> None:
    """Refuse a NaN or infinite number, or a string (value or key) holding a lone surrogate,
    anywhere in `doc`; the error names the field (`teams[0].combatants[1].name`)."""
    stack: list[tuple[str, Any]] = [(path, doc)]
    while stack:
        p, v = stack.pop()
        if isinstance(v, float):
            if not math.isfinite(v):
                raise _fail(f"{v!r} is not a number a fight can use", source, p or "(top level)",
                            "a finite number")
        elif isinstance(v, str):
            if _bad_text(v):
                raise _fail(f"{ascii(v)} holds a lone surrogate", source, p or "(top level)",
                            "text that can be written as UTF-8")
        elif isinstance(v, Mapping):
            for k, x in v.items():
                if isinstance(k, str) and _bad_text(k):
                    raise _fail(f"the key {ascii(k)} holds a lone surrogate", source, p or "(top level)",
                                "text that can be written as UTF-8")
                stack.append((_key(p, k), x))
        elif isinstance(v, (list, tuple)):
            stack.extend((_key(p, i), x) for i, x in enumerate(v))


def _whole(v: Any, source: str | None, field: str, lo: int, hi: int | None, what: str = "") -> int:
    if not _is_int(v) or v < lo or (hi is not None and v > hi):
        rng = f"from {lo} to {hi}" if hi is not None else f"{lo} or more"
        raise _fail(f"{v!r}", source, field, f"a whole number {rng}{' (' + what + ')' if what else ''}")
    return v


def _xy(raw: Any, grid: Any, source: str | None, field: str) -> tuple[int, int]:
    if not isinstance(raw, (list, tuple)) or len(raw) != 2 or not all(_is_int(v) for v in raw):
        raise _fail(f"position {raw!r}", source, field, "[x, y], two whole numbers")
    x, y = raw
    if not grid.in_bounds(x, y):
        raise _fail(f"position {[x, y]} is off the {grid.width}x{grid.height} map", source, field,
                    f"0 <= x < {grid.width}, 0 <= y < {grid.height}")
    return x, y


def _check_map(rows: Any, grid: Any, source: str | None) -> None:
    if not isinstance(rows, list) or len(rows) != grid.height:
        raise _fail(f"{len(rows) if isinstance(rows, list) else type(rows).__name__} rows", source, "map_rows",
                    f"{grid.height} rows, as the scenario's map")
    for y, row in enumerate(rows):
        if not isinstance(row, str) or len(row) != grid.width:
            raise _fail(f"{row!r}", source, f"map_rows[{y}]", f"{grid.width} map characters")
        for x, ch in enumerate(row):
            if ch not in grid.legend:
                raise _fail(f"unknown map character {ch!r} at x={x}", source, f"map_rows[{y}]",
                            "one of " + " ".join(repr(k) for k in grid.legend))


def _check_dice(dice: Any, source: str | None) -> None:
    if not isinstance(dice, Mapping) or set(dice) != {"bit_generator", "buf"}:
        raise _fail(f"{type(dice).__name__}", source, "dice", "{bit_generator: ..., buf: [...]}")
    buf = dice["buf"]
    if not isinstance(buf, list):
        raise _fail(f"{type(buf).__name__}", source, "dice.buf", "a list of numbers from 0 up to (not including) 1")
    for i, u in enumerate(buf):
        if not _is_num(u) or not 0 <= u < 1:
            raise _fail(f"{u!r}", source, f"dice.buf[{i}]",
                        "a uniform number from 0 up to (not including) 1, as the dice draw them")
    bg = dice["bit_generator"]
    shape = "{bit_generator: PCG64, state: {state, inc}, has_uint32: 0 or 1, uinteger}"
    if not isinstance(bg, Mapping) or set(bg) != {"bit_generator", "state", "has_uint32", "uinteger"}:
        raise _fail("not a generator state", source, "dice.bit_generator", shape)
    if bg["bit_generator"] != "PCG64":
        raise _fail(f"{bg['bit_generator']!r}", source, "dice.bit_generator.bit_generator", "'PCG64'")
    st = bg["state"]
    if not isinstance(st, Mapping) or set(st) != {"state", "inc"}:
        raise _fail("not a PCG64 state", source, "dice.bit_generator.state", "{state, inc}")
    for k in ("state", "inc"):
        _whole(st[k], source, f"dice.bit_generator.state.{k}", 0, _U128 - 1)
    _whole(bg["has_uint32"], source, "dice.bit_generator.has_uint32", 0, 1)
    _whole(bg["uinteger"], source, "dice.bit_generator.uinteger", 0, _U64 - 1)


def check_saved(d: Mapping[str, Any], grid: Any, source: str | None = None) -> None:
    """The state file's own fields before they are read (`grid`: the scenario's map)."""
    check_document(d, source)
    if "map_rows" in d:
        _check_map(d["map_rows"], grid, source)
    figs = d.get("combatants")
    if isinstance(figs, Mapping):
        for cid, cd in figs.items():
            f = f"combatants.{cid}"
            if not isinstance(cd, Mapping):
                raise _fail(f"{type(cd).__name__}", source, f, "{pos: [x, y], conditions: [...], res: {...}}")
            for k in ("pos", "conditions", "res"):
                if k not in cd:
                    raise _fail("missing", source, f"{f}.{k}", "this field to be present")
            _xy(cd["pos"], grid, source, f"{f}.pos")
            conds = cd["conditions"]
            if not isinstance(conds, list) or not all(isinstance(x, str) for x in conds):
                raise _fail(f"{conds!r}", source, f"{f}.conditions", "a list of condition names")
            if len(set(conds)) != len(conds):
                raise _fail(f"{conds!r} names a condition twice", source, f"{f}.conditions",
                            "each condition once")
            if not isinstance(cd["res"], Mapping):
                raise _fail(f"{type(cd['res']).__name__}", source, f"{f}.res", "a mapping of the figure's resources")
    objs = d.get("objects")
    if isinstance(objs, Mapping):
        for key, items in objs.items():
            f = f"objects.{key}"
            try:
                x, y = (int(v) for v in str(key).split(","))
            except ValueError:
                raise _fail(f"{key!r}", source, f, "a cell written 'x,y'") from None
            _xy([x, y], grid, source, f)
            # on the map as saved (a blast may have cleared the cell since the scenario)
            ch = d["map_rows"][y][x] if "map_rows" in d else grid.rows[y][x]
            if grid.legend[ch].blocks_move:
                raise _fail(f"cell {[x, y]} is inside {grid.legend[ch].name}", source, f,
                            "a cell a figure can stand on")
            if not isinstance(items, list) or not items or not all(isinstance(i, str) and i for i in items):
                raise _fail(f"{items!r}", source, f, "a list of item names")
    for k in ("round", "turn_index"):
        if k in d and not _is_int(d[k]):
            raise _fail(f"{d[k]!r}", source, k, "a whole number")
    if "actions_resolved" in d:
        _whole(d["actions_resolved"], source, "actions_resolved", 0, None)
    order = d.get("order")
    if order is not None and (not isinstance(order, list) or not all(isinstance(x, str) for x in order)):
        raise _fail(f"{order!r}", source, "order", "a list of figure ids")
    econ = d.get("economy")
    if isinstance(econ, Mapping):
        _check_economy(econ, source, "economy")
    for k in ("over",):
        if k in d and not isinstance(d[k], bool):
            raise _fail(f"{d[k]!r}", source, k, "true or false")
    if "dice" in d:
        _check_dice(d["dice"], source)


def _check_economy(v: Any, source: str | None, field: str) -> None:
    """The acting figure's turn so far: every value a number (finite: `check_document`; some
    are negative: cortex_hu's `run_penalty`), text, true/false, null, a list or a mapping."""
    if not isinstance(v, (int, float, str, type(None), Mapping, list, tuple)):
        raise _fail(f"{v!r}", source, field, "a number, text, true/false, null, a list or a mapping")
    elif isinstance(v, Mapping):
        for k, x in v.items():
            _check_economy(x, source, f"{field}.{k}")
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            _check_economy(x, source, f"{field}[{i}]")


def known_conditions(ruleset: Any) -> frozenset[str]:
    """Every condition a figure of `ruleset` may carry: those a GM sets, those its damage
    tracks decide, the down conditions the engine knows and those its actions give."""
    return frozenset(ruleset.gm_conditions()) | frozenset(ruleset.track_conditions()) | DOWN_CONDITIONS \
        | frozenset(ACTION_CONDITIONS.get(ruleset.name, ()))


def _capacities(c: Any, ruleset: Any) -> dict[str, int]:
    """Weapon name -> rounds it holds (magazine or capacity; 0: none), the figure's weapons
    first, then the ruleset's table (a weapon picked up)."""
    out: dict[str, int] = {}
    table = getattr(ruleset, "weapons", None)
    for src in (table.values() if isinstance(table, Mapping) else (), c.weapons.values()):
        for w in src:
            name = getattr(w, "name", None)
            if isinstance(name, str):
                out[name] = int(getattr(w, "magazine", 0) or getattr(w, "capacity", 0) or 0)
    return out


def check_state(state: BattleState, ruleset: Any, source: str | None = None) -> None:
    """The loaded fight against the rules (see the module's text); raises ScenarioError."""
    g = state.grid
    known = known_conditions(ruleset)
    check_figures(len(state.combatants), source, "added")
    for c in state.combatants:
        check_name(c.id, source, f"combatants.{c.id}")
        check_name(c.name, source, f"combatants.{c.id}.name")
    if len(state.by_id) != len(state.combatants):  # a figure `added` under a scenario figure's id
        twice = sorted({c.id for c in state.combatants if sum(o.id == c.id for o in state.combatants) > 1})
        raise _fail(f"figure id(s) {twice} used twice", source, "added", "ids not in the scenario, each once")
    for c in state.combatants:
        f = f"combatants.{c.id}"
        x, y = g.xy(c.pos)
        if not g.passable[c.pos]:
            raise _fail(f"position {[x, y]} is inside {g.terrain[c.pos].name}", source, f"{f}.pos",
                        "a cell a figure can stand on")
        for name in sorted(c.conditions):
            if name not in known:
                raise _fail(f"unknown condition {name!r}", source, f"{f}.conditions",
                            "one of " + ", ".join(sorted(known)))
        try:
            tracks = ruleset.damage_tracks(c)
        except (KeyError, TypeError, ValueError) as e:
            raise _fail(f"damaged resources: {e.__class__.__name__}: {e}", source, f"{f}.res",
                        "the resources the ruleset keeps") from None
        for name, (v, mx) in tracks.items():
            # a track kept under its own name is checked as saved (int() would hide 3.5); past
            # its maximum (the GM's, where the figure dies) only on a dead figure: hits on
            # one go on adding (Cybergeneration fights of the digests)
            raw = c.res[name] if name in c.res else v
            _whole(raw, source, f"{f}.res.{name}", 0, None if c.dead else mx,
                   f"the {name} track" + ("" if c.dead else ", beyond it only when dead"))
        for key in COUNTERS:
            if key in c.res:
                _whole(c.res[key], source, f"{f}.res.{key}", 0, None, "a count")
        for key in FIGURE_REFS:
            ref = c.res.get(key)
            for j, r in enumerate(ref if isinstance(ref, list) else [ref]):
                if r is not None and r not in state.by_id:
                    where = f"{f}.res.{key}" + (f"[{j}]" if isinstance(ref, list) else "")
                    raise _fail(f"no figure {r!r}", source, where, "one of " + ", ".join(sorted(state.by_id)))
        ammo = c.res.get("ammo")
        if ammo is not None:
            if not isinstance(ammo, Mapping):
                raise _fail(f"{ammo!r}", source, f"{f}.res.ammo", "a mapping weapon -> rounds")
            caps = _capacities(c, ruleset)
            for wn, n in ammo.items():
                cap = caps.get(wn)
                _whole(n, source, f"{f}.res.ammo.{wn}", 0, cap if cap else None,
                       f"rounds in the {wn}" if cap else "rounds")
    ids = set(state.by_id)
    for i, cid in enumerate(state.order):  # a figure may be in it twice (a delayed or held turn)
        if cid not in ids:
            raise _fail(f"no figure {cid!r}", source, f"order[{i}]", "one of " + ", ".join(sorted(ids)))
    _whole(state.round, source, "round", 0, state.round_limit, "the scenario's round limit")
    n = len(state.order)
    if not state.over and state.round > 0:
        _whole(state.turn_index, source, "turn_index", 0, n - 1, "a place in the order")
    else:
        _whole(state.turn_index, source, "turn_index", -1, n, "a place in the order")


@contextmanager
def untrusted(source: str | None, field: str = "state"):
    """Around the first reads of a state from a file or a request: an engine failure there is
    the state's fault (a field the checks above let through, such as an economy entry of
    the wrong type; the API's state fuzz found several), reported as one line naming it."""
    try:
        yield
    except TacticaError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError) as e:
        raise _fail(f"damaged: the engine cannot use this state ({e.__class__.__name__} {str(e)[:80]!r})",
                    source, field, "a state as Tactica wrote it") from None


__all__ = ["ACTION_CONDITIONS", "COUNTERS", "FIGURE_REFS", "check_document", "check_saved", "check_state",
           "known_conditions", "untrusted"]
