"""The GM overrules the engine: set a track, add or remove a condition, place a figure on any
free cell, add a figure from a template or remove one, change the initiative order, end the
fight (rules/overrides.py). Each is a logged event, undoable, kept in saves and replays.

At a prompt (`help` lists them):

  set FIGURE TRACK VALUE       set jubal wound 5 (the ruleset's own tracks: stun, wound, status)
  cond FIGURE +NAME | -NAME    cond mal +prone / cond mal -prone
  place FIGURE X Y             put a figure on any free cell (no movement, no reactions)
  add TEMPLATE TEAM X Y [NAME] a new figure from a template, last in this round's order
  remove FIGURE                out of the fight
  order ID ID ...              this round's initiative order (`order` alone shows it)
  endfight [TEAM|draw] [WHY]   end the fight (winner TEAM, or nobody)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from rules.events import Event
from rules.state import BattleState
from tactica.table.base import CommandError

if TYPE_CHECKING:  # pragma: no cover
    from tactica.table.session import Session

#: the prompt words of the overrides (the `order` command with arguments is one too)
WORDS = ("set", "cond", "place", "add", "remove", "endfight")


def _int(word: str, what: str, usage: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise CommandError(f"{word!r} is not a whole number", field=what, expected=usage) from None


def parse_override(name: str, args: list[str], state: BattleState) -> dict[str, Any]:
    """The override spec (rules/overrides.py) a GM command asks for; names of figures may be
    ids, names or unique prefixes. The rules check the rest (free cells, track ranges ...)."""
    from tactica.table.commands import _match_name

    def fig(word: str, usage: str) -> str:
        hit = _match_name(word.lower(), set(state.by_id), state)
        if hit is None:
            raise CommandError(f"no figure {word!r}", field=name, expected=usage + "; figures: "
                               + ", ".join(sorted(state.by_id)))
        return hit

    usage = {"set": "set FIGURE TRACK VALUE", "cond": "cond FIGURE +NAME or -NAME",
             "place": "place FIGURE X Y", "add": "add TEMPLATE TEAM X Y [NAME]", "remove": "remove FIGURE",
             "order": "order ID ID ...", "endfight": "endfight [TEAM|draw] [WHY]"}[name]
    need = {"set": 3, "cond": 2, "place": 3, "add": 4, "remove": 1, "order": 1, "endfight": 0}[name]
    if len(args) < need:
        raise CommandError(f"{name} needs {need} word{'s' if need > 1 else ''}", field=name, expected=usage)
    if name == "set":
        return {"kind": "track", "figure": fig(args[0], usage), "track": args[1].lower(),
                "value": _int(args[2], "value", usage)}
    if name == "cond":
        sign, cond = args[1][:1], args[1][1:]
        if sign not in "+-" or not cond:
            raise CommandError(f"{args[1]!r}", field="cond", expected=usage)
        return {"kind": "condition", "figure": fig(args[0], usage), "condition": cond.lower(), "on": sign == "+"}
    if name == "place":
        return {"kind": "place", "figure": fig(args[0], usage),
                "cell": [_int(args[1], "x", usage), _int(args[2], "y", usage)]}
    if name == "add":
        spec = {"kind": "add", "template": args[0], "team": args[1],
                "cell": [_int(args[2], "x", usage), _int(args[3], "y", usage)]}
        if len(args) > 4:
            spec["name"] = " ".join(args[4:])
        return spec
    if name == "remove":
        return {"kind": "remove", "figure": fig(args[0], usage)}
    if name == "order":
        return {"kind": "order", "order": [fig(a, usage) for a in args]}
    winner = None
    if args and args[0].lower() not in ("draw", "nobody", "none"):
        winner = args[0] if args[0] in state.teams else next(
            (t for t in state.teams if t.lower() == args[0].lower()), args[0])
    spec = {"kind": "end", "winner": winner}
    if len(args) > 1:
        spec["reason"] = " ".join(args[1:])
    return spec


def override(session: "Session", spec: Mapping[str, Any], by: str = "gm") -> list[Event]:
    """Apply a GM override to the session's fight: checked whole (nothing changes on an
    error), logged, undoable, saved; the session's history keeps it for replays."""
    from rules.overrides import apply_override

    s = session.state
    session.drop_plan()
    snap = session._snapshot()
    turn = (s.round, s.turn_index)
    spec = dict(spec)
    try:
        evs, used = session._run(lambda b: apply_override(b, spec), None)
    except BaseException:
        session._restore(snap, keep_policies=True)
        raise
    session.undo_stack.append(snap)
    from tactica.table.base import UNDO_KEEP
    del session.undo_stack[:-UNDO_KEEP]
    session.history.append({"override": spec, "dice": used, "by": by, "round": turn[0], "turn": turn[1]})
    session._set_decisions()
    session.save()
    return evs


def entry_words(h: Mapping[str, Any], state: BattleState) -> str:
    """A history entry that is an override, in words: 'GM: set jubal wound 5'."""
    o = h.get("override") or {}
    k = o.get("kind")
    if k == "track":
        return f"GM: set {o.get('figure')} {o.get('track')} {o.get('value')}"
    if k == "condition":
        return f"GM: cond {o.get('figure')} {'+' if o.get('on') else '-'}{o.get('condition')}"
    if k == "place":
        return f"GM: place {o.get('figure')} at {o.get('cell')}"
    if k == "add":
        return f"GM: add a {o.get('template')} to {o.get('team')} at {o.get('cell')}"
    if k == "remove":
        return f"GM: remove {o.get('figure')}"
    if k == "order":
        return "GM: order " + " ".join(map(str, o.get("order") or []))
    if k == "end":
        return f"GM: end the fight ({o.get('winner') or 'draw'})"
    return f"GM: {k}"
