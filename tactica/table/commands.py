"""The command syntax typed at the table: `parse_command` reads a line typed at a prompt (an
action of the vocabulary, a numbered pick or a command of any prompt), `parse_faces` the dice.

The autopilot's `help` (tactica/table/helptext.py) writes the syntax for the fight's ruleset:
its own action commands and options, with examples from the fight. The aliases (`m`, `shoot`,
`block`, `pp N`, ...) are in `ACTION_ALIASES` and `META_ALIASES` below.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable


from rules.actions import KIND_VERBS, KINDS, Action
from rules.state import BattleState
from tactica.table.base import CommandError
from tactica.table.words import command_for


META = ("help", "map", "moves", "list", "status", "order", "log", "hint", "undo", "cancel", "dice",
        "confirm", "save", "export", "quit", "set", "cond", "place", "add", "remove", "endfight", "behave")
META_ALIASES = {"?": "help", "h": "help", "exit": "quit", "q": "quit", "actions": "list", "ls": "list",
                "show": "map", "stat": "status", "who": "status", "suggest": "hint",
                # the GM's overrides (tactica/table/overrule.py)
                "condition": "cond", "conditions": "cond", "put": "place", "drag": "place", "delete": "remove",
                "end_fight": "endfight"}
ACTION_ALIASES = {
    "move": "move", "m": "move", "go": "move", "attack": "attack", "a": "attack", "shoot": "attack",
    "fire": "attack", "hit": "attack", "strike": "attack", "defend": "defend", "block": "defend",
    "dodge": "defend", "reload": "reload", "prone": "drop_prone", "drop": "drop_prone", "down": "drop_prone",
    "stand": "stand", "up": "stand", "rise": "stand", "grapple": "grapple", "escape": "grapple",
    "release": "grapple", "pickup": "pick_up", "pick": "pick_up", "take": "pick_up", "use": "use",
    "pp": "use", "end": "end_turn", "e": "end_turn", "done": "end_turn", "pass": "end_turn",
    "second_wind": "use", "aim": "aim", "ready": "ready", "first_aid": "first_aid",
}
ACTION_WORDS = tuple(dict.fromkeys(list(ACTION_ALIASES) + list(KINDS)))


@dataclass
class Command:
    """What a line typed at a prompt means."""

    kind: str                     # "empty", "meta", "pick", "action"
    name: str = ""                # meta command name
    args: list[str] = field(default_factory=list)
    number: int = 0               # pick
    action: Action | None = None  # action


def _norm(s: str) -> str:
    return re.sub(r"[\s_\-']", "", s.lower())


def _suggest_words(word: str, words: Iterable[str]) -> str:
    close = difflib.get_close_matches(word.lower(), list(words), n=3, cutoff=0.55)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def _typed(state: BattleState, legal: list[Action]) -> list[str]:
    """The first words of the commands that give `legal` (`command_for`): `prone`, `end`, `pp` ..."""
    return list(dict.fromkeys(command_for(state, a).split()[0] for a in legal))


def _words(text: str) -> list[str]:
    """The words of a typed line: `move 3,4` is `move 3 4`, but a `key=value` keeps its commas
    (`cell=3,4`, `hold=15,3`: the forms the help and the errors give)."""
    out: list[str] = []
    for w in text.split():
        out += [w] if "=" in w else [p for p in w.split(",") if p]
    return out


def parse_command(text: str, state: BattleState | None = None, legal: list[Action] | None = None) -> Command:
    """Read one line typed at a prompt. Actions are checked against `legal` (the acting
    figure's legal actions); a typo or an impossible action is a `CommandError` that says
    what was expected, with a suggestion."""
    t = text.strip()
    if not t:
        return Command("empty")
    words = _words(t) if not t.startswith("{") else [t]
    head = words[0].lower()
    if head in META_ALIASES:
        head = META_ALIASES[head]
    if head in META:
        return Command("meta", head, words[1:] if not t.startswith("{") else [])
    if re.fullmatch(r"\d+", head) and len(words) == 1:
        return Command("pick", number=int(head))
    if state is None or legal is None:
        raise CommandError(f"unknown command {words[0]!r}", field="command", expected="help, map, ..."
                           + _suggest_words(head, META))
    if t.startswith("{"):
        try:
            d = json.loads(t)
        except json.JSONDecodeError as e:
            raise CommandError(f"not valid JSON: {e.msg}", field="action", expected='{"type": KIND, ...}') from None
        except (RecursionError, ValueError):  # nested too deep, an integer too long
            raise CommandError("not an action", field="action", expected='{"type": KIND, ...}') from None
        a = Action.from_dict(d, state.grid.width)
        if a not in legal:
            raise CommandError(f"{a} is not legal now", field="action", expected="one of the legal actions (list)")
        return Command("action", action=a)
    return Command("action", action=parse_action(words, state, legal))


def parse_action(words: list[str], state: BattleState, legal: list[Action]) -> Action:
    """Match `attack jubal revolver called:head`, `move 3 4`, ... to one legal action."""
    w0 = words[0].lower()
    kind = ACTION_ALIASES.get(w0) or (w0 if w0 in KINDS else None)
    if w0 == "drop" and any(a.kind == "drop" for a in legal) and (len(words) > 1 or not any(
            a.kind == "drop_prone" for a in legal)):
        kind = "drop"   # cortex_hu drops a weapon (`drop pistol`); `drop` alone still drops prone
    if kind is None:
        raise CommandError(f"unknown command {words[0]!r}", field="command",
                           expected=f"an action ({', '.join(_typed(state, legal))}), a number from the list, or help"
                           + _suggest_words(w0, ACTION_WORDS + META))
    rest = [w for w in words[1:]]
    # shortcuts that carry their option in the verb
    if w0 in ("block", "dodge"):
        rest = [w0] + rest
    if w0 in ("escape", "release"):
        rest = rest + [w0]
    if w0 == "second_wind":
        rest = ["second_wind"]
    if w0 == "pp":
        if len(rest) != 1 or not rest[0].isdigit():
            raise CommandError("pp takes the number of Plot Points", field="pp", expected="pp N, e.g. pp 2")
        rest = [f"plot_points:{rest[0]}"]
    # join "called head" -> "called:head", "all out dodge" -> "all_out_dodge"
    joined: list[str] = []
    i = 0
    while i < len(rest):
        w = rest[i]
        lw = w.lower()
        if lw == "called" and i + 1 < len(rest):
            joined.append(f"called:{rest[i + 1].lower()}")
            i += 2
            continue
        if lw in ("all", "allout", "all-out", "all_out") and i + 1 < len(rest):
            nxt = rest[i + 1].lower()
            if nxt == "out" and i + 2 < len(rest):
                joined.append(f"all_out_{rest[i + 2].lower()}")
                i += 3
                continue
            joined.append(f"all_out_{nxt}")
            i += 2
            continue
        joined.append(w)
        i += 1
    rest = joined
    cands = [a for a in legal if a.kind == kind]
    who = state.actor.name if state.actor else "nobody"
    if not cands:
        what = ("spend Plot Points" if w0 == "pp" else "give first aid" if kind == "first_aid"
                else KIND_VERBS.get(kind, kind.replace("_", " ")))
        raise CommandError(f"{who} cannot {what} now", field=kind, expected="one of: " + ", ".join(_typed(state, legal)))
    targets = {a.target for a in cands if a.target}
    weapons = {a.weapon for a in cands if a.weapon}
    options = {a.option for a in cands if a.option}
    rest = _spans(rest, targets, weapons | options, state)
    want: dict[str, Any] = {}
    nums: list[int] = []
    kv = {}
    for w in rest:
        if "=" in w:
            k, _, v = w.partition("=")
            kv[k.lower()] = v
        elif re.fullmatch(r"-?\d+", w):
            nums.append(int(w))
        else:
            continue
    if kv:
        for k, v in kv.items():
            if k not in ("target", "weapon", "option", "cell"):
                raise CommandError(f"unknown field {k!r}", field=kind, expected="target=, weapon=, option=, cell=X,Y")
            if k == "cell":
                xy = [int(p) for p in re.findall(r"-?\d+", v)]
                if len(xy) != 2:
                    raise CommandError(f"cell {v!r}", field=kind, expected="cell=X,Y")
                nums = xy
            else:
                want[k] = v
    if nums:
        if len(nums) != 2:
            raise CommandError(f"{len(nums)} number(s) {nums}", field=kind, expected="a cell as two numbers: X Y")
        x, y = nums
        g = state.grid
        if not g.in_bounds(x, y):
            raise CommandError(f"[{x}, {y}] is off the {g.width}x{g.height} map", field=kind,
                               expected=f"0 <= X < {g.width}, 0 <= Y < {g.height}")
        want["cell"] = g.index(x, y)
    for w in rest:
        if "=" in w or re.fullmatch(r"-?\d+", w):
            continue
        lw = w.lower()
        hit = _match_name(lw, targets, state)
        if hit and "target" not in want:
            want["target"] = hit
            continue
        hit = _match_plain(lw, weapons)
        if hit and "weapon" not in want:
            want["weapon"] = hit
            continue
        hit = _match_plain(lw, options)
        if hit and "option" not in want:
            want["option"] = hit
            continue
        names = sorted(targets | weapons | options | {state.by_id[t].name.lower() for t in targets})
        raise CommandError(f"{w!r} is not a target, weapon or option of a legal {kind.replace('_', ' ')} now",
                           field=kind, expected=("one of " + ", ".join(names) if names else "no more words")
                           + _suggest_words(lw, names))
    if "target" in want and want["target"] not in targets:
        want["target"] = _match_name(want["target"].lower(), targets, state) or want["target"]
    match = [a for a in cands if all(getattr(a, k) == v for k, v in want.items())]
    if not match:
        desc = " ".join(words)
        some = ", ".join(command_for(state, a) for a in cands[:6]) + (" ..." if len(cands) > 6 else "")
        if kind == "move":
            some = f"{len(cands)} reachable cells (type `moves` to see them)"
        raise CommandError(f"`{desc}` is not legal for {who} now", field=kind, expected=some)
    if len(match) > 1 and "option" not in want:
        plain = [a for a in match if a.option is None]
        if plain:
            match = plain
    if len(match) > 1:
        opts = ", ".join(command_for(state, a) for a in match[:8])
        raise CommandError(f"`{' '.join(words)}` could mean {len(match)} actions", field=kind,
                           expected=f"one of: {opts}")
    return match[0]


def _spans(words: list[str], targets: set[str], things: set[str], state: BattleState) -> list[str]:
    """`words` with a name typed as two or three words joined into one: a figure's name as the table
    shows it (`Goon 1`, `guard 1`), a weapon, item or option with its underscores typed as spaces
    (`beam rifle`, `heavy pistol`). The longest span that names a target or a thing wins."""
    if not targets and not things:
        return words
    figures = set(state.by_id)   # a figure that is no legal target now is still one name (its error says so)
    out: list[str] = []
    i = 0
    while i < len(words):
        for j in range(min(len(words), i + 3), i + 1, -1):
            span = words[i:j]
            if any("=" in w for w in span) or re.fullmatch(r"-?\d+", span[0]):
                continue
            text = " ".join(span).lower()
            if _match_name(text, targets or figures, state) or _match_plain(text, things) or (
                    targets and _match_name(text, figures, state)):
                out.append(" ".join(span))
                i = j
                break
        else:
            out.append(words[i])
            i += 1
    return out


def _match_plain(word: str, names: set[str]) -> str | None:
    by = {n.lower(): n for n in names}
    if word in by:
        return by[word]
    nw = _norm(word)
    for n in names:
        if _norm(n) == nw:
            return n
    pre = [n for n in names if _norm(n).startswith(nw)] if nw else []
    if len(pre) == 1:
        return pre[0]
    suf = [n for n in names if ":" in n and n.split(":", 1)[1].lower() == word]
    if len(suf) == 1:
        return suf[0]
    return None


def _match_name(word: str, ids: set[str], state: BattleState) -> str | None:
    hit = _match_plain(word, ids)
    if hit:
        return hit
    nw = _norm(word)
    named = {cid: _norm(state.by_id[cid].name) for cid in ids if cid in state.by_id}
    exact = [cid for cid, n in named.items() if n == nw]
    if len(exact) == 1:
        return exact[0]
    pre = [cid for cid, n in named.items() if nw and n.startswith(nw)]
    if len(pre) == 1:
        return pre[0]
    return None


def parse_faces(text: str, sides: list[int]) -> list[int]:
    """Die faces typed by the GM for dice with `sides`; impossible values are refused."""
    parts = [p for p in re.split(r"[\s,+]+", text.strip()) if p]
    dice = " ".join(f"d{s}" for s in sides)
    if len(parts) != len(sides):
        raise CommandError(f"{len(parts)} value(s) for {len(sides)} dice ({dice})", field="dice",
                           expected=f"{len(sides)} faces separated by spaces, or r to roll")
    out = []
    for p, s in zip(parts, sides):
        if not re.fullmatch(r"\d+", p):
            raise CommandError(f"{p!r} is not a die face", field="dice", expected=f"a whole number 1..{s} for the d{s}")
        v = int(p)
        if not 1 <= v <= s:
            raise CommandError(f"a d{s} cannot show {v}", field="dice", expected=f"1..{s}")
        out.append(v)
    return out


