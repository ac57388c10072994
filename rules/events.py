"""Typed, JSON-serialisable events and their narration.

An event is a plain dict with a `type` from `EVENT_TYPES`, the fields every event carries
(`COMMON_FIELDS`: its round and the decision it belongs to) and the fields its type
requires (others may follow). Every roll that decided something is a `roll` event with
its roller, what it is for (`check`, a stable key), its dice, each modifier by name and
the target number, so a GM can audit any outcome. The whole vocabulary, with each field's
meaning, is the JSON Schema `rules/schema/events.schema.json` (docs/events.md is made
from it); a test keeps this table and the schema in agreement.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Mapping

from rules.narration import KEYED_FIELDS, keys_told, question_words

Event = dict[str, Any]

#: fields every event carries: `round` (the state's round, 0 before the first) and `step`
#: (0 before the first decision, k while the k-th decision of the fight is resolved)
COMMON_FIELDS: tuple[str, ...] = ("round", "step")

EVENT_TYPES: dict[str, tuple[str, ...]] = {
    "battle_start": ("ruleset", "scenario", "combatants"),
    "round_start": (),
    "initiative": ("order",),
    "turn_start": ("actor",),
    "turn_end": ("actor",),
    "move": ("actor", "from", "to", "metres", "mode"),
    "roll": ("actor", "purpose", "check", "dice", "modifiers", "total"),
    "attack": ("actor", "target", "weapon", "result"),
    "defence": ("actor", "mode", "difficulty"),
    "damage": ("target", "stun", "wound"),
    "condition": ("target", "condition", "on"),
    "down": ("target", "reason"),
    "dead": ("target",),
    "stance": ("actor", "stance"),
    "reload": ("actor", "weapon"),
    "effect": ("target", "effect"),
    "info": ("text",),
    "battle_end": ("winner", "rounds", "reason"),
    "refused": ("actor", "action", "reason"),
    "question": ("actor", "key", "options", "default"),
    "choice": ("actor", "key", "choice"),
    "override": ("kind", "figure", "before", "after"),
}

#: where `event` also puts each event it builds, while `captured()` is open (else None)
_CAPTURE: ContextVar[list[Event] | None] = ContextVar("tactica_event_capture", default=None)


def event(type_: str, **fields: Any) -> Event:
    """Build an event dict; the type comes first."""
    e: Event = {"type": type_}
    e.update(fields)
    sink = _CAPTURE.get()
    if sink is not None:
        sink.append(e)
    return e


@contextmanager
def captured() -> Iterator[list[Event]]:
    """Every event built inside the block, in the order it was built, in the list it yields:
    what a resolution had told when it stopped (at a question, `Battle.before_question`). Rule
    code builds every event with `event` and never reorders them (a test checks the events seen
    before a question against the log the answered action writes)."""
    sink: list[Event] = []
    token = _CAPTURE.set(sink)
    try:
        yield sink
    finally:
        _CAPTURE.reset(token)


def validate_event(e: Mapping[str, Any]) -> list[str]:
    """Problems with an event (empty when it is well formed and JSON-serialisable)."""
    problems = []
    t = e.get("type")
    if t not in EVENT_TYPES:
        return [f"unknown event type {t!r}"]
    for f in COMMON_FIELDS + EVENT_TYPES[t]:
        if f not in e:
            problems.append(f"{t} event lacks field {f!r}")
    try:
        json.dumps(e)
    except (TypeError, ValueError) as exc:
        problems.append(f"{t} event is not JSON: {exc}")
    return problems


def dumps(e: Mapping[str, Any]) -> str:
    """Canonical JSON for logs: sorted keys, no spaces, so equal fights give equal bytes."""
    return json.dumps(e, sort_keys=True, separators=(",", ":"))


def _dice(e: Mapping[str, Any]) -> str:
    faces = "+".join(f"{r}(d{s})" for s, r in e.get("dice", []))
    return faces or "no dice"


_NARRATORS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "battle_start": lambda e: f"Battle begins: {e['scenario']} under {e['ruleset']} rules.",
    "round_start": lambda e: f"--- Round {e['round']} ---",
    "initiative": lambda e: "Initiative: " + ", ".join(e["order"]),
    "turn_start": lambda e: f"{e['actor']}'s turn.",
    "turn_end": lambda e: f"{e['actor']} ends the turn.",
    "move": lambda e: f"{e['actor']} {e['mode']}s {e['metres']:.1f} m to {_xy(list(e['to']))}.",
    "roll": lambda e: (f"{e['actor']} rolls {e['purpose']}"
                       + (f" ({e['pool']})" if e.get("pool") else "")
                       + f": {_dice(e)} = {e['total']}"
                       + (f" vs {e['difficulty']}" if e.get("difficulty") is not None else "")
                       + (" - BOTCH" if e.get("botch") else "")
                       + (" - extraordinary" if e.get("extraordinary") else "")),
    "attack": lambda e: (f"{e['actor']} attacks {e['target']} "
                         + ("unarmed" if e["weapon"] == "unarmed" else f"with the {e['weapon']}") + f": {e['result']}"
                         + (f" by {e['margin']}" if e.get("margin") is not None and e['result'] != "miss" else "")
                         + "."),
    "defence": lambda e: f"{e['actor']} defends by {e['mode']}: Difficulty {e['difficulty']}.",
    "damage": lambda e: (f"{e['target']} takes {e['stun']} Stun and {e['wound']} Wound"
                         + (f" (armour stopped {e['absorbed']})" if e.get("absorbed") else "") + "."),
    "condition": lambda e: (f"{e['target']} {'is now' if e['on'] else 'is no longer'} "
                            f"{str(e['condition']).replace('_', ' ')}."),
    "down": lambda e: f"{e['target']} goes down ({e['reason']}).",
    "dead": lambda e: f"{e['target']} is dead.",
    "stance": lambda e: f"{e['actor']} takes the {e['stance']} stance.",
    "reload": lambda e: f"{e['actor']} reloads the {e['weapon']}.",
    "effect": lambda e: _effect(e),
    "info": lambda e: str(e["text"]),
    "question": lambda e: (f"{e['actor']} must choose {question_words(e['key'])}: "
                           + (f"{e['text']} " if e.get("text") else "") + "(" + " / ".join(e["options"]) + ")"),
    "choice": lambda e: f"{e['actor']} chooses {question_words(e['key'])}: {e['choice'].replace('_', ' ')}.",
    "battle_end": lambda e: (f"The battle ends after {e['rounds']} round{'' if e['rounds'] == 1 else 's'}: "
                             + (f"{e['winner']} win." if e["winner"] else f"draw ({e['reason']}).")),
    "refused": lambda e: f"{e['actor']} tries {_action(e['action'])}: refused ({e['reason']}).",
    "override": lambda e: _override(e),
}


#: an effect that is what its figure does ("turns east", "reacts off its turn: ...", "is knocked out ..."): the
#: line reads "Kestrel turns east.", not "Kestrel: turns east."; others keep the colon ("the attack bypasses armour")
_DOES = re.compile(r"^(?:is|has|[a-z]+s):?(?:\s|$)")


def _effect(e: Mapping[str, Any]) -> str:
    text = str(e["effect"])
    return f"{e['target']} {text}." if _DOES.match(text) and not text.startswith(("its ", "this ")) else \
        f"{e['target']}: {text}."


def _xy(v: Any) -> str:
    """A map cell as the map, the plans and the commands write it: [x, y]."""
    return f"[{v[0]}, {v[1]}]" if isinstance(v, list) and len(v) == 2 else str(v)


def _override(e: Mapping[str, Any]) -> str:
    """A GM override in words: "GM: mal's wound 3 -> 5."."""
    k, f, b, a = e["kind"], e["figure"], e["before"], e["after"]
    if k == "track":
        return f"GM: {f}'s {e.get('track', 'track')} {b} -> {a}."
    if k == "condition":
        return f"GM: {f} {'is now' if a else 'is no longer'} {e.get('condition', '?')}" + (
            "" if a != b else " (no change)") + "."
    if k == "place":
        return f"GM: {f} is placed at {_xy(a)} (from {_xy(b)})."
    if k == "add":
        return f"GM: {f} ({a['template']}) joins {a['team']} at {_xy(a['pos'])}."
    if k == "remove":
        return f"GM: {f} is taken out of the fight."
    if k == "order":
        return "GM: the order is now " + ", ".join(a) + "."
    if k == "end":
        return "GM: the fight ends" + (f", {a['winner']} win" if a.get("winner") else ", a draw") + (
            f" ({a['reason']})." if a.get("reason") else ".")
    return f"GM: {k} {f}: {b} -> {a}."


def _action(a: Any) -> str:
    """An action as a replay author wrote it: `end_turn` or `{type: move, cell: [3, 4]}`."""
    if isinstance(a, Mapping) and set(a) <= {"type", "kind"}:
        return str(a.get("type", a.get("kind")))
    if isinstance(a, Mapping):
        return "{" + ", ".join(f"{k}: {json.dumps(v) if not isinstance(v, str) else v}"
                               for k, v in a.items()) + "}"
    return str(a)


def figures_named(text: str, names: Mapping[str, str]) -> str:
    """`text` with each figure id standing as a whole word (or before `'s`) told by its name."""
    ids = sorted((i for i in names if i and names[i] != i), key=len, reverse=True)
    if not ids:
        return text
    pat = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w-])")
    return pat.sub(lambda m: names[m.group(1)], text)


def _keys_told(e: Mapping[str, Any], names: Mapping[str, str] | None) -> dict[str, Any]:
    """`e` with the keys in its told fields as words ("the sniper rifle", "bypass armour", "rolls
    attack unarmed"): a GM reads the line, the event keeps the keys. A figure's id is left as it is."""
    ids = {e[k] for k in ("actor", "target", "figure") if isinstance(e.get(k), str)} | set(names or ())
    out = dict(e)
    for k in KEYED_FIELDS:
        if isinstance(out.get(k), str):
            out[k] = keys_told(out[k], ids)
    if isinstance(out.get("options"), list):
        out["options"] = [keys_told(x, ids) if isinstance(x, str) else x for x in out["options"]]
    if out.get("type") == "question" and isinstance(out.get("text"), str):   # "the frag_grenade explodes ..."
        out["text"] = keys_told(out["text"], ids)
    return out


def narrate(e: Mapping[str, Any], names: Mapping[str, str] | None = None) -> str:
    """One readable line for an event; rolls, defences and damage with all their numbers
    (rules/narration.py). `names`: figure id -> the name to tell it by (the table's lines name
    figures as its plans do: "Goon 1 attacks Rust", where the event holds "goon1", "rust")."""
    from rules import narration
    if names:
        e = {**e, **{k: names.get(e[k], e[k]) for k in ("actor", "target", "figure") if isinstance(e.get(k), str)}}
        if isinstance(e.get("order"), list):
            e["order"] = [names.get(x, x) if isinstance(x, str) else x for x in e["order"]]
        for k in ("text", "effect", "purpose"):   # a rule's own words: "... after guard2", "blast on red3"
            if isinstance(e.get(k), str) and e[k]:
                e[k] = figures_named(e[k], names)
    e = _keys_told(e, names)
    t = e.get("type", "")
    f = {"roll": narration.roll_line, "defence": narration.defence_line,
         "damage": narration.damage_line}.get(t) or _NARRATORS.get(t)
    if f is None:
        return json.dumps(e)
    return f(e)
