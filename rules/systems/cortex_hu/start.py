"""A `cortex_hu` figure's starting conditions and state (issue #32, common.md #2).

```yaml
- {id: s, template: mesterlovesz, at: [1, 1],
   conditions: [prone, {name: aiming, rounds: 2}],
   state: {wound: 3, ammo: {rifle: 2}, prepared: [{mode: dodge, steps: 0}], feinted_by: b1}}
```

The shared Cortex builder (`cortex_common`'s `build_stat_block(..., start=...)` and
`read_start`) reads `conditions:` and `state:` against `start_schema(rs)`, the `StartSchema`
made of the names `CortexHuRuleset.condition_names()` and `start_keys()` give (their shapes
and types); `apply_start` lays them on the new figure, checking what depends on the figure
(its weapons, magazines, defences), and `link_start` ties the figures that name each other
(grapples, feints) once all are built. Errors name the field and what it accepts.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from rules.errors import ScenarioError
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.start import StartSchema, kind, link_grapples, mapping_of

#: state keys copied as they are into `res`
PLAIN = ("stun", "wound", "pp", "ko_turns", "debt", "last_actions", "grip", "full_defence", "all_out",
         "grappling", "grappled_by", "feinted_by", "ran", "carried_defence")


def _fail(what: str, source: str | None, field: str, expected: str) -> ScenarioError:
    return ScenarioError(what, source=source, field=field, expected=expected)


def _count(most: int | None) -> Callable[[Any, str | None, str], None]:
    """A state checker: a whole number from 0, at most `most` when given."""
    def check(value: Any, source: str | None, field: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (most is not None and value > most):
            raise _fail(f"{value!r}", source, field, "a whole number from 0" + (f" up to {most}" if most is not None else ""))
    return check


def _list_of(what: str) -> Callable[[Any, str | None, str], None]:
    def check(value: Any, source: str | None, field: str) -> None:
        if not isinstance(value, list):
            raise _fail(f"{value!r}", source, field, what)
    return check


#: start_keys() kind -> the shared builder's checker of its value's shape
CHECKERS: dict[str, Callable[[], Callable[[Any, str | None, str], None]]] = {
    "bool": lambda: kind(bool), "figure": lambda: kind(str), "weapon": lambda: kind(str),
    "weapons": lambda: _list_of("a list of weapons"), "ammo": lambda: mapping_of(_count(None)),
    "defences": lambda: _list_of("a list of {mode, steps}"),
}


def start_schema(rs: Any) -> StartSchema:
    """cortex_hu's `StartSchema` for the shared Cortex builder (`build_stat_block(...,
    start=...)`, cortex_common's `read_start`): the conditions of `rs.condition_names()` and
    the `state:` keys of `rs.start_keys()` with their shapes. What depends on the figure (its
    weapons and magazines, the defences' fields) `apply_start` checks."""
    keys = rs.start_keys()
    return StartSchema(conditions=rs.condition_names(),
                       state={k: _count(spec["max"]) if spec["kind"] == "count" else CHECKERS[spec["kind"]]()
                              for k, spec in keys.items()})


def apply_start(rs: Any, c: Combatant, conds: list[tuple[str, dict[str, Any]]], st: Mapping[str, Any],
                source: str | None, field: str) -> None:
    """Lay starting conditions (as (name, options)) and state, their shapes checked by the
    shared builder against `start_schema`, on a new figure, checking what depends on it."""
    names = {w.name: w for w in rs.weapons_of(c)}
    real = ", ".join(sorted(set(names) - {"unarmed"}))
    for wn, n in (st.get("ammo") or {}).items():
        w = names.get(wn)
        if w is None or not w.magazine or isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= w.magazine:
            raise _fail(f"ammo {wn}: {n!r}", source, f"{field}.state.ammo.{wn}",
                        "a weapon of this figure with a magazine, 0 to its magazine: " + ", ".join(sorted(c.res["ammo"])))
        c.res["ammo"][wn] = n
    if "held" in st and (st["held"] not in names or st["held"] == "unarmed"):
        raise _fail(f"held {st['held']!r}", source, f"{field}.state.held", "one of the figure's weapons: " + real)
    for i, wn in enumerate(st.get("lost") or []):
        if wn not in names or wn == "unarmed":
            raise _fail(f"lost {wn!r}", source, f"{field}.state.lost[{i}]", "one of the figure's weapons: " + real)
        rs.remove_weapon(c, wn)
    if "held" in st:
        c.res["held"] = st["held"]
    prepared = []
    for i, p in enumerate(st.get("prepared") or []):
        if not isinstance(p, Mapping) or p.get("mode") not in ("parry", "dodge") or set(p) - {"mode", "steps"} \
                or isinstance(p.get("steps", 0), bool) or not isinstance(p.get("steps", 0), int):
            raise _fail(f"{p!r}", source, f"{field}.state.prepared[{i}]", "{mode: parry or dodge, steps: a whole number}")
        # declared in the fight's first round: used in it, it is brought over from no earlier one
        prepared.append({"mode": p["mode"], "steps": p.get("steps", 0), "round": 1})
    c.res["prepared"] = prepared
    for k in PLAIN:
        if k in st:
            c.res[k] = st[k]
    if st.get("aim"):
        _aim(rs, c, st["aim"])
    if "surprised" in st:
        _surprise(c, bool(st["surprised"]))
    for name, opts in conds:
        if name == "aiming":
            _aim(rs, c, opts.get("rounds", 1))
        elif name == "knocked_out":
            c.res["ko_turns"] = opts.get("rounds", c.res["ko_turns"] or 1)
            c.conditions.add(name)
        elif name == "surprised":
            _surprise(c, True)
        elif name == "leg_useless":
            c.conditions |= {"leg_useless", "prone"}
        else:
            c.conditions.add(name)


def _aim(rs: Any, c: Combatant, rounds: int) -> None:
    c.res["aim"] = min(int(rounds), int(rs.aim_rules["max_rounds"]))
    c.conditions.add("aiming")


def _surprise(c: Combatant, on: bool) -> None:
    c.res["surprised"] = on
    (c.conditions.add if on else c.conditions.discard)("surprised")


def link_start(state: BattleState) -> None:
    """Tie the figures that name each other: a grapple's two sides (next to each other, both
    free; cortex_common), a feint's author (an enemy). Sets `grappled`/`grappling`/`feinted`."""
    link_grapples(state)
    by_id = state.by_id
    for c in state.combatants:
        by = c.res.get("feinted_by")
        if by is not None and (by not in by_id or by_id[by].team == c.team):
            raise _fail(f"{c.id}: feinted_by {by!r}", None, f"{c.id}.state.feinted_by", "the id of an enemy figure")
        if by is not None:
            c.conditions.add("feinted")


__all__ = ["apply_start", "link_start", "start_schema"]
