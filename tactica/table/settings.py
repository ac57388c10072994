"""The NPC behaviour a GM sets at the table (agents/behaviour.py): per team or figure, spare
or finish downed PCs, fall back or surrender when losing, protect a leader, hold a position.
The session's policies play it; it is saved with the session and set through the API's
settings or the terminal's `behave` command."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from tactica.table.base import CommandError

if TYPE_CHECKING:  # pragma: no cover
    from tactica.table.session import Session


def check_behaviour(session: "Session", doc: Mapping[str, Any] | None, field: str = "behaviour"):
    """A `BehaviourBook` from its JSON ({"teams": {T: {...}}, "figures": {ID: {...}}}),
    checked against the fight (teams, figures, cells); None for none."""
    from agents.behaviour import BehaviourBook

    if not doc:
        return None
    book = BehaviourBook.from_json(doc, field)
    book.check(session.state, field)
    return None if book.empty else book


def wrap(policy: Any, book: Any) -> Any:
    """`policy` playing `book` (the bare policy when there is none)."""
    from agents.behaved import BehavedPolicy

    inner = policy.inner if isinstance(policy, BehavedPolicy) else policy
    if book is None:
        return inner
    if isinstance(policy, BehavedPolicy):
        policy.book = book
        return policy
    return BehavedPolicy(inner, book)


def set_behaviour(session: "Session", book: Any) -> None:
    session.drop_plan()
    session.behaviour = book
    for t, p in list(session.policies.items()):
        session.policies[t] = wrap(p, book)
    session.save()


def parse_behave(args: list[str]) -> tuple[str, dict[str, Any]]:
    """`behave NAME key=value ...` at a prompt (NAME a team or a figure): the settings of one
    name, e.g. `behave outlaws morale=fall_back break_at=0.5 downed=spare`,
    `behave brick protect=boss`, `behave sniper hold=3,1 radius=4`."""
    usage = "behave TEAM|FIGURE key=value ... (downed, morale, break_at, protect, hold=X,Y radius=M)"
    if not args:
        raise CommandError("behave needs a team or figure", field="behave", expected=usage)
    doc: dict[str, Any] = {}
    for w in args[1:]:
        k, sep, v = w.partition("=")
        if not sep:
            raise CommandError(f"{w!r}", field="behave", expected=usage)
        if k == "hold":
            try:
                x, y = (int(p) for p in v.split(","))
            except ValueError:
                raise CommandError(f"hold={v!r}", field="behave", expected="hold=X,Y") from None
            doc.setdefault("hold", {})["cell"] = [x, y]
            doc["hold"].setdefault("radius", 0)
        elif k == "radius":
            try:
                doc.setdefault("hold", {})["radius"] = float(v)
            except ValueError:
                raise CommandError(f"radius={v!r}", field="behave", expected="a distance in metres") from None
        elif k == "break_at":
            try:
                doc[k] = float(v)
            except ValueError:
                raise CommandError(f"break_at={v!r}", field="behave", expected="a share 0..1") from None
        else:
            doc[k] = v
    return args[0], doc


def behave_command(session: "Session", args: list[str]) -> str:
    """Set one name's behaviour from the prompt; returns the settings now in words."""
    name, doc = parse_behave(args)
    cur = session.behaviour_json()
    kind = "teams" if name in session.state.teams or name == "*" else "figures"   # "*": every team
    new = {"teams": dict(cur.get("teams", {})), "figures": dict(cur.get("figures", {}))}
    new[kind][name] = {**new[kind].get(name, {}), **doc}
    set_behaviour(session, check_behaviour(session, new))
    return behaviour_words(session.behaviour_json(), {c.id: c.name for c in session.state.combatants})


def _one(d: Mapping[str, Any], names: Mapping[str, str]) -> str:
    parts = []
    if d.get("downed") == "spare":
        parts.append("spares downed enemies")
    elif d.get("downed") == "finish":
        parts.append("finishes downed enemies first")
    if d.get("morale") in ("fall_back", "surrender"):
        verb = "falls back" if d["morale"] == "fall_back" else "surrenders"
        parts.append(f"{verb} once {float(d.get('break_at', 0.5)):.0%} of its side is down")
    if d.get("protect"):
        parts.append(f"protects {names.get(d['protect'], d['protect'])}")
    hold = d.get("hold")
    if hold:
        x, y = hold["cell"]
        parts.append(f"holds [{x}, {y}] within {float(hold.get('radius', 0)):g} m")
    return ", ".join(parts) or "plays as its policy"


def behaviour_words(doc: Mapping[str, Any] | None, names: Mapping[str, str]) -> str:
    """The NPC behaviour set at the table as a GM reads it: 'security: surrenders once 50% of its side
    is down; Guard 1: holds [15, 3] within 1 m' (a figure's entry overrides its team's)."""
    if not doc:
        return "default behaviour"
    out = [f"{t}: {_one(d, names)}" for t, d in (doc.get("teams") or {}).items()]
    out += [f"{names.get(f, f)}: {_one(d, names)}" for f, d in (doc.get("figures") or {}).items()]
    return "; ".join(out) or "default behaviour"
