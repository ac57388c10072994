"""NPC behaviour a GM sets per team or figure (issue #33): the settings and their book.

"NPC behaviour a GM sets per team or figure: spare downed PCs or finish them, fall back or
surrender when losing (a morale setting), protect a leader, hold a position." A `Behaviour`
is one figure's settings; a `BehaviourBook` holds them per team and per figure (a figure's
entry overrides its team's, field by field). `agents/behaved.py` plays them on top of any
scripted policy; a default `Behaviour` changes nothing.

- `downed`: "default" (the policy as it is), "spare" (never attack a figure that is down),
  "finish" (prefer attacking a downed enemy in reach). cybergeneration lets a figure
  attack a downed one (seed 004: "You may attack an unconscious/stunned target"), and
  metalface one that repairs brought back above 0 Status while it is still down
  (assumption `down_targets`); in cortex and cortex_hu a downed figure cannot be attacked,
  so there "spare" and "finish" play as "default".
- `morale`: "none", "fall_back" or "surrender"; it breaks when at least `break_at` of the
  figure's side (its team: every figure the fight started with or was given) is down,
  counted at each decision (figures that get back up restore it). Broken "fall_back":
  move away from the enemies towards cover and the map edge, no attack unless cornered (no
  move gets it further away and an enemy stands next to it). Broken "surrender": no
  hostile action, only dropping prone (or lying down) where the ruleset has it, then ending
  the turn. The rules do not know surrender: the fight goes on until the GM ends it.
- `protect`: a figure id of the same team: stay within `PROTECT_CELLS` cells of it, attack
  whoever threatens it most, prefer cells between it and that enemy.
- `hold`: `{"cell": [x, y], "radius": metres}`: never end a move further from the cell
  than the radius (a figure outside it only moves closer).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from rules.errors import TacticaError

DOWNED = ("default", "spare", "finish")
MORALE = ("none", "fall_back", "surrender")
#: a protector ends its moves within this many cells (Chebyshev) of the figure it protects
PROTECT_CELLS = 2
KEYS = ("downed", "morale", "break_at", "protect", "hold")


class BehaviourError(TacticaError):
    """A behaviour setting that is not one (bad name, value or figure)."""


def _did_you_mean(word: Any, options) -> str:
    close = difflib.get_close_matches(str(word), list(options), n=2, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def _name(doc: Mapping, key: str, options: tuple, field: str) -> str:
    v = doc[key]
    if v not in options:
        raise BehaviourError(f"unknown {key} {v!r}{_did_you_mean(v, options)}", field=f"{field}.{key}",
                             expected="one of " + ", ".join(options))
    return v


def _number(v: Any, field: str, expected: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
        raise BehaviourError(f"not a number: {v!r}", field=field, expected=expected)
    return float(v)


@dataclass(frozen=True, slots=True)
class Hold:
    """A position to hold: the cell (x, y) and how far from it (metres) a move may end."""

    cell: tuple[int, int]
    radius: float

    @staticmethod
    def from_json(doc: Any, field: str = "hold") -> "Hold":
        if not isinstance(doc, Mapping):
            raise BehaviourError(f"must be a mapping, got {doc!r}", field=field,
                                 expected='{"cell": [x, y], "radius": metres} or null')
        unknown = [k for k in doc if k not in ("cell", "radius")]
        if unknown:
            k = unknown[0]
            raise BehaviourError(f"unknown key {k!r}{_did_you_mean(k, ('cell', 'radius'))}", field=f"{field}.{k}",
                                 expected="cell, radius")
        for k in ("cell", "radius"):
            if k not in doc:
                raise BehaviourError(f"missing {k}", field=f"{field}.{k}",
                                     expected="[x, y]" if k == "cell" else "metres, a number >= 0")
        c = doc["cell"]
        if (not isinstance(c, (list, tuple)) or len(c) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in c)):
            raise BehaviourError(f"bad cell {c!r}", field=f"{field}.cell", expected="[x, y], integers >= 0")
        r = _number(doc["radius"], f"{field}.radius", "metres, a number >= 0")
        if r < 0:
            raise BehaviourError(f"negative radius {r}", field=f"{field}.radius", expected="metres, a number >= 0")
        return Hold((int(c[0]), int(c[1])), r)

    def to_json(self) -> dict:
        return {"cell": list(self.cell), "radius": self.radius}


@dataclass(frozen=True, slots=True)
class Behaviour:
    """One figure's behaviour settings (see the module docstring); the default changes nothing."""

    downed: str = "default"
    morale: str = "none"
    #: the share (0 < x <= 1) of the figure's side down at which its morale breaks
    break_at: float = 0.5
    protect: str | None = None
    hold: Hold | None = None

    @property
    def is_default(self) -> bool:
        """True when the policy plays exactly as without behaviour."""
        return self.downed == "default" and self.morale == "none" and self.protect is None and self.hold is None

    @staticmethod
    def from_json(doc: Any, field: str = "behaviour", base: "Behaviour | None" = None) -> "Behaviour":
        """Settings from a mapping; the keys it leaves out come from `base` (or the defaults)."""
        return Behaviour.parse(doc, field, base)[0]

    @staticmethod
    def parse(doc: Any, field: str = "behaviour", base: "Behaviour | None" = None) -> tuple["Behaviour", dict]:
        """(the settings, the validated keys the mapping gave, in JSON form)."""
        if doc is None:
            doc = {}
        if not isinstance(doc, Mapping):
            raise BehaviourError(f"must be a mapping, got {type(doc).__name__}", field=field,
                                 expected="{" + ", ".join(KEYS) + "}")
        for k in doc:
            if k not in KEYS:
                raise BehaviourError(f"unknown setting {k!r}{_did_you_mean(k, KEYS)}", field=f"{field}.{k}",
                                     expected="one of " + ", ".join(KEYS))
        got: dict[str, Any] = {}
        if "downed" in doc:
            got["downed"] = _name(doc, "downed", DOWNED, field)
        if "morale" in doc:
            got["morale"] = _name(doc, "morale", MORALE, field)
        if "break_at" in doc:
            x = _number(doc["break_at"], f"{field}.break_at", "a share of the side down, 0 < x <= 1")
            if not 0 < x <= 1:
                raise BehaviourError(f"break_at {x} is out of range", field=f"{field}.break_at",
                                     expected="a share of the side down, 0 < x <= 1 (0.5: half the side)")
            got["break_at"] = x
        if "protect" in doc:
            p = doc["protect"]
            if p is not None and (not isinstance(p, str) or not p):
                raise BehaviourError(f"bad figure id {p!r}", field=f"{field}.protect",
                                     expected="a figure id of the same team, or null")
            got["protect"] = p
        if "hold" in doc:
            got["hold"] = None if doc["hold"] is None else Hold.from_json(doc["hold"], f"{field}.hold")
        b = base or Behaviour()
        out = Behaviour(**{f.name: got.get(f.name, getattr(b, f.name)) for f in fields(Behaviour)})
        return out, {k: (v.to_json() if isinstance(v, Hold) else v) for k, v in got.items()}

    def to_json(self) -> dict:
        return {"downed": self.downed, "morale": self.morale, "break_at": self.break_at,
                "protect": self.protect, "hold": None if self.hold is None else self.hold.to_json()}


DEFAULT = Behaviour()


@dataclass(frozen=True)
class BehaviourBook:
    """Behaviour per team (`"*"`: every team) and per figure; a figure's entry overrides its
    team's field by field, and a team's entry overrides `"*"`'s.

    JSON: `{"teams": {"gang": {"morale": "fall_back"}}, "figures": {"boss": {"hold": ...}}}`."""

    teams: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    figures: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @staticmethod
    def from_json(doc: Any, field: str = "behaviour") -> "BehaviourBook":
        if doc is None:
            return BehaviourBook()
        if not isinstance(doc, Mapping):
            raise BehaviourError(f"must be a mapping, got {type(doc).__name__}", field=field,
                                 expected='{"teams": {TEAM: {...}}, "figures": {ID: {...}}}')
        for k in doc:
            if k not in ("teams", "figures"):
                raise BehaviourError(f"unknown key {k!r}{_did_you_mean(k, ('teams', 'figures'))}",
                                     field=f"{field}.{k}", expected="teams, figures")
        parts: dict[str, dict] = {}
        for part in ("teams", "figures"):
            d = doc.get(part) or {}
            if not isinstance(d, Mapping):
                raise BehaviourError(f"must be a mapping, got {type(d).__name__}", field=f"{field}.{part}",
                                     expected="{NAME: {" + ", ".join(KEYS) + "}}")
            parts[part] = {str(n): Behaviour.parse(v, f"{field}.{part}.{n}")[1] for n, v in d.items()}
        return BehaviourBook(parts["teams"], parts["figures"])

    @staticmethod
    def of(x: "BehaviourBook | Behaviour | Mapping | None", field: str = "behaviour") -> "BehaviourBook":
        """A book from a book, one Behaviour for every figure, or a JSON mapping (either a
        book's `{"teams": ..., "figures": ...}` or one behaviour's settings)."""
        if isinstance(x, BehaviourBook):
            return x
        if x is None:
            return BehaviourBook()
        if isinstance(x, Behaviour):
            return BehaviourBook({"*": x.to_json()})
        if isinstance(x, Mapping) and not (set(x) & {"teams", "figures"}):
            return BehaviourBook({"*": Behaviour.parse(x, field)[1]})
        return BehaviourBook.from_json(x, field)

    def to_json(self) -> dict:
        return {"teams": {k: dict(v) for k, v in self.teams.items()},
                "figures": {k: dict(v) for k, v in self.figures.items()}}

    @property
    def empty(self) -> bool:
        """True when no entry changes anything (every figure plays its policy as it is)."""
        return all(Behaviour.from_json(v).is_default for v in (*self.teams.values(), *self.figures.values()))

    def resolve(self, team: str, figure: str) -> Behaviour:
        """The settings of figure `figure` of team `team`."""
        b = DEFAULT
        for d in (self.teams.get("*"), self.teams.get(team), self.figures.get(figure)):
            if d:
                b = Behaviour.from_json(d, base=b)
        return b

    def check(self, state, field: str = "behaviour") -> None:
        """Errors for names the fight does not have: teams, figures, a protected figure that
        is not on the protector's team, a held cell off the map."""
        teams = {c.team for c in state.combatants}
        ids = {c.id: c for c in state.combatants}
        g = state.grid
        for n in self.teams:
            if n != "*" and n not in teams:
                raise BehaviourError(f"no team {n!r}{_did_you_mean(n, teams)}", field=f"{field}.teams.{n}",
                                     expected="one of " + ", ".join(sorted(teams)) + ", or *")
        for n in self.figures:
            if n not in ids:
                raise BehaviourError(f"no figure {n!r}{_did_you_mean(n, ids)}", field=f"{field}.figures.{n}",
                                     expected="one of " + ", ".join(ids))
        for part, entries in (("teams", self.teams), ("figures", self.figures)):
            for n, d in entries.items():
                f = f"{field}.{part}.{n}"
                h = d.get("hold")
                if h is not None and not g.in_bounds(*h["cell"]):
                    raise BehaviourError(f"cell {h['cell']} is off the map", field=f"{f}.hold.cell",
                                         expected=f"0 <= x < {g.width}, 0 <= y < {g.height}")
                p = d.get("protect")
                if p is None:
                    continue
                if p not in ids:
                    raise BehaviourError(f"no figure {p!r}{_did_you_mean(p, ids)}", field=f"{f}.protect",
                                         expected="a figure id of the same team")
                team = ids[n].team if part == "figures" else n
                if team != "*" and ids[p].team != team:
                    raise BehaviourError(f"{p!r} is on team {ids[p].team!r}, not {team!r}", field=f"{f}.protect",
                                         expected="a figure id of the same team")
