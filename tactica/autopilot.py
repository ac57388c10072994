"""GM autopilot: NPC turns decided, explained and resolved at the table, the GM in charge.

`Session` holds one fight: the battle, the scenario document, which teams are NPCs or PCs
(and their policies), the dice mode, the history of resolved actions (with the dice each
one used) and the undo snapshots. It is saved atomically after every resolved action, so
a session killed at any point loses nothing that was resolved; `Session.resume` continues
exactly where it stopped, dice included. `Terminal` is the interactive loop behind
`tactica autopilot SCENARIO`; everything else here works without a terminal.

Command syntax (at a PC's prompt, or at an NPC's to override its plan):

  move X Y           move to column X, row Y (also: m X Y, move X,Y)
  attack TARGET [WEAPON] [OPTION]
                     attack jubal / attack jubal revolver /
                     attack jubal revolver called:head (or: called head)
  defend block|dodge|all_out_block|all_out_dodge   (also: block, dodge)
  reload [WEAPON]    prone              stand
  grapple TARGET     escape             release
  pickup [X Y] [ITEM]                   use OPTION (use second_wind)
  pp N               spend N Plot Points on the next roll
  end                end the turn (also: e, done, pass)
  N                  the action numbered N in the list shown; at an NPC's
                     prompt the N-th alternative (Enter accepts the plan)
  KIND key=value     any action of the vocabulary: aim target=jubal

Names may be ids or names, any case, or a unique prefix; typos get a
suggestion.

Commands at any prompt (the dice prompt too):

  map                the map, the initiative order and the figures
  moves              the map with the reachable cells (+)
  list               the numbered legal actions again
  status FIGURE      one figure in detail
  order              the initiative order
  log [N]            the last N narrated events
  hint               what the advisor policy would do
  undo               back one resolved action (at a dice prompt: the
                     pending action is dropped too)
  cancel             (dice prompt) drop the pending action
  dice engine|manual switch the dice mode
  confirm on|off     ask before resolving NPC plans, or not
  save [FILE]        save now (it is saved after every action anyway)
  export FILE        the fight so far as a replay file (tactica replay)
  help               this text
  quit               save and leave

Manual dice: every roll the engine needs is asked for, naming who rolls
what against what ("Jubal rolls attack with revolver: Agility d10 +
Guns/Pistols d8 against Mal's defence - enter 2 dice (d10 d8), or r to
roll"). Enter the faces separated by spaces, or r to let the engine roll
them; a face the die cannot show is refused with the reason.

Save files are Tactica state files (`rules/serialize.py`, format `tactica-state`) with an
extra `session` section (format `tactica-autopilot`), so `tactica suggest` reads them too.
"""

from __future__ import annotations

import copy
import datetime as _dt
import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import yaml

from rules.actions import KINDS, Action
from rules.battle import Battle
from rules.choices import ASK
from rules.dice import Dice
from rules.errors import DiceError, IllegalActionError, TacticaError
from rules.events import Event, narrate
from rules.scenario import new_battle, resolve_scenario
from rules.serialize import FORMAT, atomic_write, battle_from_dict, battle_to_dict
from rules.state import BattleState, Combatant

SESSION_FORMAT = "tactica-autopilot"
SESSION_VERSION = 1
DEFAULT_POLICY = "tactical"
ADVISOR_POLICY = "tactical"
#: undo snapshots kept in memory, and in the save file (each holds the dice generator's
#: buffered numbers, tens of kB)
UNDO_KEEP = 30
UNDO_SAVED = 10


class SessionError(TacticaError):
    """A problem with an autopilot session: its options, its save file, a command."""


class CommandError(TacticaError):
    """A command the session cannot read; the message says what was expected."""


# =========================================================================================
# Describing actions
def cell_xy(state: BattleState, cell: int) -> list[int]:
    return list(state.grid.xy(cell))


def action_json(state: BattleState, action: Action) -> dict[str, Any]:
    """`Action.to_dict()` with the cell also given as [x, y] (`at`)."""
    d = action.to_dict()
    if action.cell is not None:
        d["at"] = cell_xy(state, action.cell)
    return d


def command_for(state: BattleState, action: Action) -> str:
    """The short command that selects `action` (what a GM would type)."""
    k = action.kind
    if k == "end_turn":
        return "end"
    if k == "move":
        x, y = state.grid.xy(action.cell)
        return f"move {x} {y}"
    if k == "drop_prone":
        return "prone"
    if k == "defend":
        return f"defend {action.option}"
    if k == "grapple" and action.option in ("escape", "release"):
        return action.option
    if k == "use" and action.option and action.option.startswith("plot_points:"):
        return f"pp {action.option.split(':')[1]}"
    bits = ["pickup" if k == "pick_up" else k]
    if action.target:
        bits.append(action.target)
    if action.cell is not None:
        x, y = state.grid.xy(action.cell)
        bits += [str(x), str(y)]
    if action.weapon:
        bits.append(action.weapon)
    if action.option:
        bits.append(action.option)
    return " ".join(bits)


def odds_words(state: BattleState, action: Action) -> str:
    """'80% to hit, 7.2 expected damage' for attack-like actions, else ''."""
    from rules.ruleset import get_ruleset

    actor = state.actor
    if actor is None or action.kind not in ("attack", "grapple", "suppress", "feint"):
        return ""
    try:
        o = get_ruleset(state.ruleset).attack_odds(state, actor, action)
    except Exception:  # noqa: BLE001 - odds are only a hint
        return ""
    if not o:
        return ""
    return f"{o.get('p_hit', 0):.0%} to hit, {o.get('exp_damage', 0):.1f} expected damage"


def action_note(state: BattleState, action: Action) -> str:
    """A short note for a numbered list: odds for attacks, distance and cover for moves."""
    if action.kind == "move":
        d = describe_action(state, action)
        return d[d.index("(") + 1:-1] if "(" in d else ""
    return odds_words(state, action)


def describe_action(state: BattleState, action: Action, with_odds: bool = True) -> str:
    """A plain description of an action of the acting figure."""
    k = action.kind
    g = state.grid
    actor = state.actor
    if k == "end_turn":
        return "end the turn"
    if k == "move":
        d = g.distance_m(actor.pos, action.cell) if actor is not None else 0.0
        cover = ""
        x0, y0 = g.xy(action.cell)
        near = max((g.cover_level[g.index(x0 + dx, y0 + dy)] for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                    if (dx or dy) and g.in_bounds(x0 + dx, y0 + dy)), default=0)
        if near:
            from rules.grid import COVER_NAMES
            cover = f", next to {COVER_NAMES[min(near, 4)]} cover"
        return f"move to {cell_xy(state, action.cell)} ({d:.1f} m{cover})"
    verbs = {"attack": "attack", "grapple": "grapple", "reload": "reload", "pick_up": "pick up", "defend": "defend",
             "drop_prone": "drop prone", "stand": "stand up", "aim": "aim", "use": "use", "first_aid": "first aid to",
             "ready": "ready", "delay": "delay", "feint": "feint", "suppress": "suppress", "heal": "heal"}
    bits = [verbs.get(k, k.replace("_", " "))]
    if action.target:
        t = state.by_id.get(action.target)
        bits.append(t.name if t else action.target)
    if action.weapon:
        bits.append(("the " if k in ("reload", "pick_up") else "with the ") + action.weapon)
    if action.cell is not None and k != "move":
        bits.append(f"at {cell_xy(state, action.cell)}")
    if action.option:
        bits.append(f"({action.option})")
    text = " ".join(bits)
    if with_odds:
        o = odds_words(state, action)
        if o:
            text += f" - {o}"
    return text


# =========================================================================================
# The NPC brain: a policy's choice, its reason and the next best alternatives
@dataclass
class Alternative:
    action: Action
    reason: str
    score: float | None = None

    def to_json(self, state: BattleState) -> dict[str, Any]:
        d: dict[str, Any] = {"action": action_json(state, self.action), "reason": self.reason,
                             "command": command_for(state, self.action)}
        if self.score is not None:
            d["score"] = round(float(self.score), 4)
        return d


@dataclass
class Plan:
    actor: str
    policy: str
    action: Action
    reason: str
    alternatives: list[Alternative] = field(default_factory=list)
    hypothetical: bool = False

    def to_json(self, state: BattleState) -> dict[str, Any]:
        d = {"actor": self.actor, "policy": self.policy, "action": action_json(state, self.action),
             "command": command_for(state, self.action), "reason": self.reason,
             "alternatives": [a.to_json(state) for a in self.alternatives]}
        if self.hypothetical:
            d["hypothetical"] = True
        return d


def _make_policy(name: str, seed: int):
    from agents.base import make_policy

    try:
        return make_policy(name, seed=seed)
    except TacticaError:
        raise
    except (ImportError, AttributeError, OSError, ValueError) as e:
        raise SessionError(f"policy {name!r} cannot be loaded: {e.__class__.__name__}: {e}", field="policy",
                           expected="an installed policy (see agents/)") from None


def _ranked(policy, state: BattleState, actor: Combatant) -> list[tuple[Action, str, float | None]]:
    """(action, reason, score) best first from a policy that can rank (`rank`), else []."""
    rank = getattr(policy, "rank", None)
    if rank is None:
        return []
    try:
        choices = rank(state, actor)
    except Exception:  # noqa: BLE001 - alternatives are advice; the plan itself stands
        return []
    out = []
    for c in choices:
        a = getattr(c, "action", None)
        if isinstance(a, Action):
            reason = str(getattr(c, "reason", "") or "")
            if reason and not reason.startswith(actor.name):
                reason = f"{actor.name} {reason}"
            out.append((a, reason, getattr(c, "score", None)))
    return out


def _odds_ranked(state: BattleState, legal: list[Action]) -> list[tuple[Action, str, float | None]]:
    """Legal actions scored without a policy: attacks by expected damage, then the rest."""
    from rules.ruleset import get_ruleset

    rs = get_ruleset(state.ruleset)
    actor = state.actor
    scored: list[tuple[float, int, Action, str]] = []
    for i, a in enumerate(legal):
        if a.kind == "move":
            continue
        o = None
        if a.kind in ("attack", "grapple"):
            try:
                o = rs.attack_odds(state, actor, a)
            except Exception:  # noqa: BLE001
                o = None
        if o and float(o.get("p_hit", 0.0)) <= 0.0:
            continue
        if o:
            t = state.by_id.get(a.target) if a.target else None
            hp = max(1e-9, rs.health(t)[0]) if t is not None else 1.0
            score = float(o.get("exp_damage", 0.0)) / hp
            scored.append((score, i, a, f"{describe_action(state, a, with_odds=False)}: "
                                        f"{o.get('p_hit', 0):.0%} to hit, {o.get('exp_damage', 0):.1f} expected damage"))
        else:
            scored.append((0.0 if a.kind != "end_turn" else -0.01, i, a, describe_action(state, a, with_odds=False)))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [(a, r, sc) for sc, _, a, r in scored]


def alternatives_for(state: BattleState, actor: Combatant, chosen: Action, ranker=None, n: int = 4,
                     seed: int = 0) -> list[Alternative]:
    """The next best actions after `chosen`: from `ranker.rank` (or the advisor policy), then
    the legal actions scored by the ruleset's odds; at least 3 when that many are legal."""
    from rules.ruleset import get_ruleset

    legal = get_ruleset(state.ruleset).legal_actions(state)
    legal_set = set(legal)
    out: list[Alternative] = []
    seen = {chosen}
    pools = []
    if ranker is not None:
        pools.append(_ranked(ranker, state, actor))
    if ranker is None or not pools[0]:
        try:
            pools.append(_ranked(_make_policy(ADVISOR_POLICY, seed), state, actor))
        except TacticaError:
            pass
    pools.append(_odds_ranked(state, legal))
    moves_listed = 0
    for pool in pools:
        for a, reason, score in pool:
            if len(out) >= n:
                break
            if a in seen or a not in legal_set:
                continue
            if a.kind == "move" and moves_listed >= 2:
                continue
            seen.add(a)
            moves_listed += a.kind == "move"
            out.append(Alternative(a, reason or describe_action(state, a), score))
    return out


def suggest(state: BattleState, actor_id: str | None = None, policy: str | Any = DEFAULT_POLICY,
            seed: int = 0, n_alternatives: int = 4) -> Plan:
    """The policy's action for a figure with its one-line reason and the next alternatives.

    `state` is not changed. When `actor_id` is not the acting figure, the suggestion is for
    a fresh turn of that figure now (`hypothetical`)."""
    from rules.ruleset import get_ruleset

    rs = get_ruleset(state.ruleset)
    if state.over:
        raise IllegalActionError("the fight is over", field="state", expected="a fight in progress")
    hypothetical = False
    s = state.clone()
    cur = s.actor
    if actor_id is None:
        if cur is None:
            raise IllegalActionError("no figure is acting", field="state", expected="a fight in progress")
        actor_id = cur.id
    if actor_id not in s.by_id:
        raise SessionError(f"no figure {actor_id!r}", field="actor", expected="one of " + ", ".join(s.by_id))
    if cur is None or cur.id != actor_id:
        from agents.assess import as_acting

        s2 = as_acting(rs, s, actor_id, Dice(seed))
        if s2 is None:
            raise IllegalActionError(f"{actor_id} cannot act (down or out of the fight)", field="actor",
                                     expected="a figure that can act")
        s, hypothetical = s2, True
    me = s.by_id[actor_id]
    pol = _make_policy(policy, seed) if isinstance(policy, str) else policy
    pre = copy.deepcopy(pol) if hasattr(pol, "rank") else None
    action = pol.act(s, me)
    reason = pol.explain(s, me, action)
    alts = alternatives_for(s, me, action, pre, n_alternatives, seed)
    return Plan(actor_id, getattr(pol, "name", str(policy)), action, reason, alts, hypothetical)


# =========================================================================================
# The command syntax
META = ("help", "map", "moves", "list", "status", "order", "log", "hint", "undo", "cancel", "dice",
        "confirm", "save", "export", "quit")
META_ALIASES = {"?": "help", "h": "help", "exit": "quit", "q": "quit", "actions": "list", "ls": "list",
                "show": "map", "stat": "status", "who": "status", "suggest": "hint"}
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


def parse_command(text: str, state: BattleState | None = None, legal: list[Action] | None = None) -> Command:
    """Read one line typed at a prompt. Actions are checked against `legal` (the acting
    figure's legal actions); a typo or an impossible action is a `CommandError` that says
    what was expected, with a suggestion."""
    t = text.strip()
    if not t:
        return Command("empty")
    words = t.replace(",", " ").split() if not t.startswith("{") else [t]
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
        a = Action.from_dict(d, state.grid.width)
        if a not in legal:
            raise CommandError(f"{a} is not legal now", field="action", expected="one of the legal actions (list)")
        return Command("action", action=a)
    return Command("action", action=parse_action(words, state, legal))


def parse_action(words: list[str], state: BattleState, legal: list[Action]) -> Action:
    """Match `attack jubal revolver called:head`, `move 3 4`, ... to one legal action."""
    w0 = words[0].lower()
    kind = ACTION_ALIASES.get(w0) or (w0 if w0 in KINDS else None)
    if kind is None:
        raise CommandError(f"unknown command {words[0]!r}", field="command",
                           expected="an action (move, attack, defend, reload, prone, stand, end ...) or help"
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
        kinds = sorted({a.kind for a in legal})
        raise CommandError(f"{who} cannot {kind.replace('_', ' ')} now", field=kind,
                           expected="one of: " + ", ".join(kinds))
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
    targets = {a.target for a in cands if a.target}
    weapons = {a.weapon for a in cands if a.weapon}
    options = {a.option for a in cands if a.option}
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


# =========================================================================================
# Manual dice: which roll comes next, who rolls it and against what
class _NeedDie(Exception):
    def __init__(self, sides: int, label: str) -> None:
        super().__init__(label)
        self.sides = sides
        self.label = label


@dataclass
class DiceRequest:
    """The next roll of a pending action: who rolls what against what, and the dice."""

    roller: str | None
    purpose: str
    pool: str
    sides: list[int]
    against: str
    label: str

    def text(self) -> str:
        who = f"{self.roller} rolls " if self.roller else "roll "
        pool = f": {self.pool}" if self.pool else ""
        against = f" {self.against}" if self.against else ""
        dice = " ".join(f"d{s}" for s in self.sides)
        n = len(self.sides)
        return (f"{who}{self.purpose}{pool}{against} - enter {n} {'die' if n == 1 else 'dice'} ({dice}), "
                f"or r to roll")


def _clone_battle(b: Battle, dice: Dice) -> Battle:
    nb = Battle(b.state.clone(), b.ruleset, dice, record=True)
    nb.deciders = dict(b.deciders)
    nb.actions_resolved = b.actions_resolved
    nb._decisions = b._decisions
    return nb


def _probe(b: Battle, fn: Callable[[Battle], Any], prefix: list[int], tail: str | None):
    """Run `fn` on a copy of the battle with `prefix` forced. `tail` None: stop at the first
    die past the prefix (its sides and label); "low"/"high": the dice past the prefix show 1 / max,
    and the figures' choices take their defaults, so the run goes on to the events that name
    the roll (a question would keep them back until it is answered: rules/choices.py)."""
    d = Dice(0)
    d.force(prefix)

    def hook(sides: int, label: str) -> int:
        if tail is None:
            raise _NeedDie(sides, label)
        return 1 if tail == "low" else sides

    d.on_roll = hook
    nb = _clone_battle(b, d)
    if tail is not None:
        nb.deciders = {t: x for t, x in nb.deciders.items() if x != ASK}
    try:
        fn(nb)
    except _NeedDie as need:
        return need, d.record, nb.events
    return None, d.record, nb.events


def _roll_event_of(record: list[tuple[int, int]], events: list[Event], k: int) -> tuple[Event | None, int]:
    """The roll event that holds die number `k` of `record`, and the die's place in it."""
    p = 0
    for e in events:
        faces = e.get("dice")
        if not isinstance(faces, list) or not faces:
            continue
        try:
            fs = [(int(s), int(r)) for s, r in faces]
        except (TypeError, ValueError):
            continue
        n = len(fs)
        q = p
        while q + n <= len(record) and [tuple(x) for x in record[q:q + n]] != fs:
            q += 1
        if q + n > len(record):
            continue
        if q <= k < q + n:
            return e, k - q
        p = q + n
        if p > k:
            break
    return None, 0


def next_dice_request(b: Battle, fn: Callable[[Battle], Any], prefix: list[int]) -> DiceRequest | None:
    """The next roll `fn` needs past the dice in `prefix`, or None when they are enough."""
    need, _, _ = _probe(b, fn, prefix, None)
    if need is None:
        return None
    k = len(prefix)
    _, rec_lo, ev_lo = _probe(b, fn, prefix, "low")
    _, rec_hi, ev_hi = _probe(b, fn, prefix, "high")
    e_lo, pos = _roll_event_of(rec_lo, ev_lo, k)
    s = b.state
    label = need.label or "a roll"
    if e_lo is None or pos != 0:
        return DiceRequest(None, label, "", [need.sides], "", label)
    sides = [int(x[0]) for x in e_lo["dice"]]
    e_hi, _ = _roll_event_of(rec_hi, ev_hi, k)
    rid = e_lo.get("actor")
    roller = s.by_id[rid].name if rid in s.by_id else rid
    purpose = str(e_lo.get("purpose") or label)
    against = ""
    d_lo = e_lo.get("difficulty")
    d_hi = e_hi.get("difficulty") if e_hi is not None else None
    idx = next(i for i, e in enumerate(ev_lo) if e is e_lo)

    def name(cid: Any) -> str:
        return s.by_id[cid].name if cid in s.by_id else str(cid)

    boundary = {"round_start", "turn_start", "turn_end", "initiative", "battle_end", "move", "stance", "reload"}
    after: list[Event] = []
    for e in ev_lo[idx + 1:]:
        if e.get("type") in boundary or (e.get("type") == "roll" and e.get("actor") == rid):
            break
        after.append(e)
    before: list[Event] = []
    for e in reversed(ev_lo[:idx]):
        if e.get("type") in boundary:
            break
        before.append(e)
    atk_after = next((e for e in after if e.get("type") == "attack"), None)
    atk_before = next((e for e in before if e.get("type") == "attack"), None)
    prev = next((e for e in before if e.get("type") == "roll" and e.get("dice")), None)
    if purpose == "initiative":
        atk_after = atk_before = prev = None
    if d_lo is not None and d_lo == d_hi:
        against = f"against Difficulty {d_lo}"
    elif atk_after is not None and atk_after.get("actor") == rid and d_lo is not None:
        against = f"against {name(atk_after.get('target'))}'s defence"
    elif atk_after is not None and atk_after.get("target") == rid:
        opp = next((e for e in reversed(ev_lo[:idx]) if e.get("type") == "roll"
                    and e.get("actor") == atk_after.get("actor")), None)
        against = (f"against {name(atk_after.get('actor'))}'s {opp.get('purpose')} of {opp.get('total')}"
                   if opp is not None else f"against {name(atk_after.get('actor'))}'s attack")
    elif atk_before is not None and atk_before.get("actor") == rid and "damage" in purpose:
        against = f"on {name(atk_before.get('target'))}"
    elif prev is not None and prev.get("actor") != rid and d_lo is None:
        against = f"against {name(prev.get('actor'))}'s {prev.get('purpose')} of {prev.get('total')}"
    return DiceRequest(roller, purpose, str(e_lo.get("pool") or ""), sides, against, label)


# =========================================================================================
# The session
@dataclass
class Role:
    team: str
    role: str            # "npc" or "pc"
    policy: str | None   # a policy plays the team (a PC team with a policy is a dry run)

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "policy": self.policy}

    def label(self) -> str:
        return self.role.upper() + " " + (self.policy or "GM")


class Abort(Exception):
    """Raised by a dice provider to drop the pending action (`cancel`, `undo`, `quit`)."""

    def __init__(self, then: str = "cancel") -> None:
        super().__init__(then)
        self.then = then


DiceProvider = Callable[[DiceRequest], "list[int] | None"]


def parse_team_options(spec_teams: list[tuple[str, bool]], npc: Iterable[str] = (), pc: Iterable[str] = (),
                       base: Mapping[str, Role] | None = None) -> dict[str, Role]:
    """Roles from the scenario (teams marked `pc: true` are PCs), a saved session and the
    `--npc TEAM[=POLICY]` / `--pc TEAM[=POLICY]` options, in that order."""
    from agents.base import available_policies

    names = [t for t, _ in spec_teams]
    roles = {t: Role(t, "pc", None) if is_pc else Role(t, "npc", DEFAULT_POLICY) for t, is_pc in spec_teams}
    if base:
        roles.update({t: Role(t, r.role, r.policy) for t, r in base.items() if t in roles})
    for opt, role in (("--npc", "npc"), ("--pc", "pc")):
        for item in (npc if role == "npc" else pc):
            team, sep, pol = item.partition("=")
            team = team.strip()
            if team not in roles:
                raise SessionError(f"no team {team!r}", field=opt, expected="one of " + ", ".join(names)
                                   + _suggest_words(team, names))
            pol = pol.strip() or None
            if sep and not pol:
                raise SessionError(f"{item!r}", field=opt, expected="TEAM or TEAM=POLICY")
            if role == "npc" and pol is None:
                pol = DEFAULT_POLICY
            if pol is not None and pol not in available_policies():
                raise SessionError(f"unknown policy {pol!r}", field=opt,
                                   expected="one of " + ", ".join(available_policies()) + _suggest_words(pol, available_policies()))
            roles[team] = Role(team, role, pol)
    return roles


def _policy_rng_state(p) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in vars(p).items():
        if isinstance(v, np.random.Generator):
            out[k] = {"generator": v.bit_generator.state}
        elif isinstance(v, Dice):
            out[k] = {"dice": v.get_state()}
    if isinstance(getattr(p, "_buf", None), list) and isinstance(getattr(p, "_pos", None), int):
        out["_buf"] = {"rest": list(p._buf[p._pos:])}
    return json.loads(json.dumps(out, default=_json_default))


def _json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"{type(o).__name__} is not JSON")


def _set_policy_rng_state(p, st: Mapping[str, Any]) -> None:
    for k, v in st.items():
        cur = getattr(p, k, None)
        if k == "_buf" and isinstance(v, Mapping):
            p._buf = list(v.get("rest", []))
            p._pos = 0
        elif isinstance(cur, np.random.Generator) and "generator" in v:
            cur.bit_generator.state = v["generator"]
        elif isinstance(cur, Dice) and "dice" in v:
            cur.set_state(v["dice"])


def read_save(path: str | Path) -> dict[str, Any]:
    """A save file as a dict, or a clear `SessionError` (missing, unreadable, not JSON, foreign)."""
    p = Path(path)
    src = str(path)
    if not p.exists():
        raise SessionError("file not found", source=src, field="(file)", expected="a save file written by tactica")
    if p.is_dir():
        raise SessionError("is a folder", source=src, field="(file)", expected="a save file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SessionError(f"cannot read: {e.__class__.__name__}", source=src, field="(file)",
                           expected="a readable UTF-8 JSON file") from None
    if not text.strip():
        raise SessionError("file is empty", source=src, field="(file)", expected="a Tactica state file (JSON)")
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise SessionError(f"damaged: not valid JSON at line {e.lineno} column {e.colno}", source=src,
                           field="(file)", expected="a Tactica state file (JSON)") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise SessionError("not a Tactica state file", source=src, field="format",
                           expected=f"a JSON object with format '{FORMAT}' (written by tactica autopilot or the API)")
    return d


def check_writable_target(path: Path, own: Path | None = None) -> None:
    """A save target must be new, or the very file this session was resumed from."""
    path = Path(path)
    if own is not None and path.resolve() == Path(own).resolve():
        return
    if path.exists():
        raise SessionError("already exists", source=str(path), field="--save",
                           expected="a new file (continue a saved session with --resume FILE; it is never overwritten otherwise)")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise SessionError("its folder does not exist", source=str(path), field="--save", expected="a file in an existing folder")


class Session:
    """One fight at the table: the battle, who plays whom, dice, history, undo and saving."""

    def __init__(self, battle: Battle, scenario_doc: Mapping[str, Any], roles: dict[str, Role], *, seed: int = 0,
                 dice_mode: str = "engine", confirm: bool = True, save_path: str | Path | None = None) -> None:
        if dice_mode not in ("engine", "manual"):
            raise SessionError(f"dice mode {dice_mode!r}", field="--dice", expected="engine or manual")
        self.battle = battle
        self.scenario_doc = dict(scenario_doc)
        self.roles = roles
        self.seed = int(seed)
        self.dice_mode = dice_mode
        self.confirm = confirm
        self.save_path = Path(save_path) if save_path else None
        self.start_dice: list[int] | None = []
        self.history: list[dict[str, Any]] = []
        self.undo_stack: list[dict[str, Any]] = []
        self.policies: dict[str, Any] = {}
        self._pending: tuple | None = None   # (key, plan, policy copy before deciding)
        self.created = _dt.datetime.now().isoformat(timespec="seconds")
        self.notes: list[str] = []
        for i, t in enumerate(battle.state.teams):
            r = roles.get(t)
            if r is not None and r.policy:
                self.policies[t] = _make_policy(r.policy, self.policy_seed(i))
        # the GM answers the choices the rules give the figures the GM plays (rules/choices.py);
        # an NPC's take its policy's default
        battle.deciders = {t: ASK for t, r in roles.items() if r.policy is None}

    # -- building ---------------------------------------------------------------------
    def policy_seed(self, i: int) -> int:
        return (self.seed * 1_000_003 + 7919 * (i + 1)) % (1 << 62)

    @classmethod
    def new(cls, scenario: str | Mapping[str, Any], *, npc: Iterable[str] = (), pc: Iterable[str] = (),
            seed: int = 0, dice_mode: str = "engine", confirm: bool = True,
            save_path: str | Path | None = None) -> "Session":
        from rules.scenario import parse_scenario

        if isinstance(scenario, Mapping):
            doc, src = dict(scenario), "<scenario>"
        else:
            doc, src = resolve_scenario(scenario)
        spec = parse_scenario(doc, src)
        doc = dict(doc)
        roles = parse_team_options([(t.name, t.pc) for t in spec.teams], npc, pc)
        if save_path is not None:
            check_writable_target(Path(save_path))
        battle = new_battle(spec, Dice(seed), src)
        return cls(battle, doc, roles, seed=seed, dice_mode=dice_mode, confirm=confirm, save_path=save_path)

    @classmethod
    def resume(cls, path: str | Path, *, npc: Iterable[str] = (), pc: Iterable[str] = (), seed: int | None = None,
               dice_mode: str | None = None, confirm: bool | None = None,
               save_path: str | Path | None = None) -> "Session":
        """Load a save file (or any Tactica state file) and continue where it stopped."""
        src = str(path)
        d = read_save(path)
        battle = battle_from_dict(d, source=src)
        sess = d.get("session")
        spec_teams = [(t["name"], bool(t.get("pc", False))) for t in d["scenario"]["teams"]]
        base = None
        history: list[dict[str, Any]] = []
        start_dice: list[int] | None = None
        undo: list[dict[str, Any]] = []
        policy_states: dict[str, Any] = {}
        saved_seed, saved_mode, saved_confirm = 0, "engine", True
        if sess is not None:
            try:
                info = _SessionBlock.check(sess)
            except SessionError as e:
                raise e.at(src, "session")
            base = {t: Role(t, r["role"], r.get("policy")) for t, r in info["teams"].items()}
            history = info["history"]
            start_dice = info["start_dice"]
            undo = info["undo"]
            policy_states = info["policy_states"]
            saved_seed, saved_mode, saved_confirm = info["seed"], info["dice_mode"], info["confirm"]
        roles = parse_team_options(spec_teams, npc, pc, base)
        target = Path(save_path) if save_path else Path(path)
        check_writable_target(target, own=Path(path))
        s = cls(battle, d["scenario"], roles, seed=saved_seed if seed is None else seed,
                dice_mode=dice_mode or saved_mode, confirm=saved_confirm if confirm is None else confirm,
                save_path=target)
        s.history = history
        s.start_dice = start_dice
        s.undo_stack = undo
        s.created = (sess or {}).get("created", s.created)
        for t, st in policy_states.items():
            if t in s.policies and isinstance(st, Mapping):
                try:
                    _set_policy_rng_state(s.policies[t], st)
                except Exception:  # noqa: BLE001 - a policy that changed shape starts afresh
                    pass
        s._rebuild_turn_memory()
        if sess is None:
            s.notes.append("a plain state file: no history before this point (undo starts here; export, "
                           "which needs the whole fight, is not available)")
        return s

    # -- properties -------------------------------------------------------------------
    @property
    def state(self) -> BattleState:
        return self.battle.state

    @property
    def rs(self):
        return self.battle.ruleset

    @property
    def started(self) -> bool:
        s = self.state
        return s.round > 0 or s.over

    def pc_teams(self) -> list[str]:
        return [t for t, r in self.roles.items() if r.role == "pc"]

    def role_of(self, c: Combatant) -> Role:
        return self.roles.get(c.team) or Role(c.team, "npc", DEFAULT_POLICY)

    def gm_plays(self, c: Combatant) -> bool:
        """Whether the GM picks this figure's actions (a PC team without a policy)."""
        r = self.role_of(c)
        return r.policy is None

    def legal(self) -> list[Action]:
        return self.battle.legal_actions()

    def figure(self, name: str) -> Combatant:
        s = self.state
        lw = name.lower()
        hit = _match_name(lw, set(s.by_id), s)
        if hit is None:
            names = sorted(set(s.by_id) | {c.name.lower() for c in s.combatants})
            raise CommandError(f"no figure {name!r}", field="status", expected="one of " + ", ".join(sorted(s.by_id))
                               + _suggest_words(lw, names))
        return s.by_id[hit]

    # -- resolving ---------------------------------------------------------------------
    def _run(self, fn: Callable[[Battle], list[Event]], provider: DiceProvider | None) -> tuple[list[Event], list[int]]:
        b = self.battle
        dice = b.dice
        if self.dice_mode == "engine" or provider is None:
            n0 = len(dice.record)
            evs = fn(b)
            used = [r for _, r in dice.record[n0:]]
            del dice.record[n0:]
            return evs, used
        prefix: list[int] = []
        while True:
            req = next_dice_request(b, fn, prefix)
            if req is None:
                break
            faces = provider(req)
            if faces is None:
                faces = []
                for sd in req.sides:
                    faces.append(dice.roll(sd, req.label))
                    dice.record.pop()
            if len(faces) != len(req.sides) or any(not 1 <= f <= sd for f, sd in zip(faces, req.sides)):
                raise DiceError(f"dice {faces} do not fit {req.sides}", field="dice", expected="one face per die")
            prefix += [int(f) for f in faces]
        n0 = len(dice.record)
        dice.force(prefix, strict=True)
        try:
            evs = fn(b)
            left = dice.forced_left
        finally:
            dice.clear_forced()
            del dice.record[n0:]
        if left:  # pragma: no cover - the probe and the real run agree by construction
            raise DiceError(f"{left} entered dice were not used", field="dice", expected="exactly the dice rolled")
        return evs, prefix

    def begin(self, provider: DiceProvider | None = None) -> list[Event]:
        """Start the fight (set-up and the first round's initiative)."""
        if self.started:
            return []
        evs, used = self._run(lambda b: b.start(), provider)
        self.start_dice = used
        self.save()
        return evs

    def _decision_policies(self) -> dict[str, Any]:
        """The policies as they were at this decision point (before a plan shown was made)."""
        pols = dict(self.policies)
        if self._pending is not None and self._pending[0] == self.decision_key() and self._pending[2] is not None:
            actor = self.state.by_id.get(self._pending[1].actor)
            if actor is not None and actor.team in pols:
                pols[actor.team] = self._pending[2]
        return pols

    def _snapshot(self) -> dict[str, Any]:
        st = battle_to_dict(self.battle, {}, include_events=False)
        st.pop("scenario", None)
        pols = self._decision_policies()
        snap = {"state": st, "events": len(self.battle.events), "history": len(self.history),
                "policy_states": {t: _policy_rng_state(p) for t, p in pols.items()}}
        snap["_policies"] = copy.deepcopy(pols)  # in memory only (not saved)
        return snap

    def resolve(self, action: Action, provider: DiceProvider | None = None, by: str = "gm",
                reason: str = "") -> list[Event]:
        """Check and resolve one action of the acting figure, record it and save."""
        s = self.state
        if s.over:
            raise IllegalActionError("the fight is over", field="action", expected="no more actions")
        actor = s.actor
        self.rs.check_legal(s, action)
        snap = self._snapshot()
        pending = self._pending
        key = self.decision_key()
        before_state = s.clone()
        turn = (s.round, s.turn_index)
        try:
            evs, used = self._run(lambda b: b.step(action, check=False), provider)
        except BaseException:
            self._restore(snap, keep_policies=True)
            raise
        # policy memory: a plan that was not followed is forgotten, the action taken is committed
        if pending is not None and pending[0] == key:
            plan, before = pending[1], pending[2]
            if action != plan.action and before is not None:
                self.policies[actor.team] = before
                commit = getattr(before, "commit", None)
                if commit is not None:
                    try:
                        commit(before_state, before_state.by_id[actor.id], action)
                    except Exception:  # noqa: BLE001 - memory is advice for the policy only
                        pass
        self._pending = None
        self.undo_stack.append(snap)
        del self.undo_stack[:-UNDO_KEEP]
        self.history.append({"actor": actor.id, "action": action_json(s, action) | {}, "dice": used,
                             "by": by, "reason": reason, "round": turn[0], "turn": turn[1]})
        self.history[-1]["action"].pop("at", None)
        if action.cell is not None:
            self.history[-1]["action"]["cell"] = list(s.grid.xy(action.cell))
        self.save()
        return evs

    def decision_key(self) -> tuple:
        s = self.state
        return (s.round, s.turn_index, s.actor.id if s.actor else None, len(self.history))

    def plan(self) -> Plan:
        """The acting figure's policy's plan (cached for this decision point)."""
        s = self.state
        actor = s.actor
        key = self.decision_key()
        if self._pending is not None and self._pending[0] == key:
            return self._pending[1]
        team = actor.team
        pol = self.policies.get(team)
        if pol is None:
            pol = _make_policy(ADVISOR_POLICY, self.policy_seed(len(s.teams)))
        if self._pending is not None:  # an abandoned plan of another decision point
            self._pending = None
        before = copy.deepcopy(pol)
        action = pol.act(s, actor)
        reason = pol.explain(s, actor, action)
        ranker = copy.deepcopy(before) if hasattr(before, "rank") else None
        alts = alternatives_for(s, actor, action, ranker, 4, self.seed)
        p = Plan(actor.id, getattr(pol, "name", self.role_of(actor).policy or ADVISOR_POLICY), action, reason, alts)
        self._pending = (key, p, before if team in self.policies else None)
        return p

    def advise(self) -> Plan:
        """What the advisor (the team's policy, or `tactical`) would do; changes nothing."""
        s = self.state
        pol = self.policies.get(s.actor.team)
        pol = copy.deepcopy(pol) if pol is not None else ADVISOR_POLICY
        return suggest(s, s.actor.id, pol, seed=self.seed)

    def drop_plan(self) -> None:
        """Forget a plan that was shown but not resolved (its policy's memory too)."""
        if self._pending is not None:
            key, plan, before = self._pending
            actor = self.state.by_id.get(plan.actor)
            if actor is not None and before is not None and actor.team in self.policies:
                self.policies[actor.team] = before
            self._pending = None

    # -- undo, save, resume -------------------------------------------------------------
    def undo(self) -> dict[str, Any] | None:
        """Back one resolved action; returns the history entry undone (None if none)."""
        self.drop_plan()
        if not self.undo_stack or not self.history:
            return None
        snap = self.undo_stack.pop()
        entry = self.history[snap["history"]] if snap["history"] < len(self.history) else None
        self._restore(snap)
        self.save()
        return entry

    def _restore(self, snap: Mapping[str, Any], keep_policies: bool = False) -> None:
        events = self.battle.events
        d = dict(snap["state"])
        d["scenario"] = self.scenario_doc
        nb = battle_from_dict(d, source="(undo)")
        nb.events = events[:snap["events"]]
        nb.deciders = dict(self.battle.deciders)
        self.battle = nb
        del self.history[snap["history"]:]
        if keep_policies:  # an action that failed or was cancelled: the plan shown still stands
            self._set_decisions()
            return
        self._pending = None
        if "_policies" in snap:
            self.policies = copy.deepcopy(snap["_policies"])
        else:
            for i, t in enumerate(self.state.teams):
                r = self.roles.get(t)
                if r is not None and r.policy:
                    self.policies[t] = _make_policy(r.policy, self.policy_seed(i))
                    st = snap.get("policy_states", {}).get(t)
                    if st:
                        try:
                            _set_policy_rng_state(self.policies[t], st)
                        except Exception:  # noqa: BLE001
                            pass
            self._rebuild_turn_memory()
        self._set_decisions()

    def _set_decisions(self) -> None:
        s = self.state
        a = s.actor
        self.battle._decisions = sum(1 for h in self.history if (h.get("round"), h.get("turn"), h.get("actor"))
                                     == (s.round, s.turn_index, a.id if a else None))

    def _rebuild_turn_memory(self) -> None:
        """Tell the acting team's policy what its figure already did this turn (after a load)."""
        self._set_decisions()
        s = self.state
        a = s.actor
        if a is None or s.over:
            return
        pol = self.policies.get(a.team)
        commit = getattr(pol, "commit", None)
        if commit is None:
            return
        for h in self.history:
            if (h.get("round"), h.get("turn"), h.get("actor")) == (s.round, s.turn_index, a.id):
                try:
                    commit(s, a, Action.from_dict(h["action"], s.grid.width))
                except Exception:  # noqa: BLE001
                    pass

    def to_dict(self) -> dict[str, Any]:
        d = battle_to_dict(self.battle, self.scenario_doc)
        d["session"] = {
            "format": SESSION_FORMAT, "format_version": SESSION_VERSION, "created": self.created,
            "saved": _dt.datetime.now().isoformat(timespec="seconds"),
            "seed": self.seed, "dice_mode": self.dice_mode, "confirm": self.confirm,
            "teams": {t: r.to_json() for t, r in self.roles.items()},
            "start_dice": self.start_dice, "history": self.history,
            "undo": [{k: v for k, v in u.items() if not k.startswith("_")} for u in self.undo_stack[-UNDO_SAVED:]],
            "policy_states": {t: _policy_rng_state(p) for t, p in self._decision_policies().items()},
        }
        return d

    def save(self, path: str | Path | None = None) -> Path | None:
        """Write the session atomically (to `path` or the session's save file)."""
        target = Path(path) if path else self.save_path
        if target is None:
            return None
        if path is not None and (self.save_path is None or Path(path).resolve() != self.save_path.resolve()):
            if Path(path).exists():
                try:
                    read_save(path)
                except SessionError:
                    raise SessionError("exists and is not a Tactica save", source=str(path), field="save",
                                       expected="a new file name (a foreign file is never overwritten)") from None
        atomic_write(target, json.dumps(self.to_dict(), default=_json_default))
        return target

    def replay_doc(self) -> dict[str, Any]:
        """The fight so far as a replay document (`tactica replay`): every step with its dice."""
        if self.start_dice is None:
            raise SessionError("this session was resumed from a plain state file: its start is unknown",
                               field="export", expected="a session started by tactica autopilot")
        return replay_from_history(self.scenario_doc, self.seed, self.start_dice, self.history,
                                   [t for t, d in self.battle.deciders.items() if d == ASK])

    def export(self, path: str | Path) -> Path:
        p = Path(path)
        if p.exists():
            try:
                text = p.read_text(encoding="utf-8")
                doc = yaml.safe_load(text)
            except Exception:  # noqa: BLE001
                doc = None
            if not (isinstance(doc, dict) and "steps" in doc and "scenario" in doc):
                raise SessionError("exists and is not a replay file", source=str(p), field="export",
                                   expected="a new file name (other files are never overwritten)")
        atomic_write(p, yaml.safe_dump(self.replay_doc(), sort_keys=False, default_flow_style=None, width=120))
        return p


def replay_from_history(scenario_doc: Mapping[str, Any], seed: int, start_dice: list[int],
                        history: list[Mapping[str, Any]], asked: Iterable[str] | None = None) -> dict[str, Any]:
    """A replay document (rules/replay.py) from a session's recorded steps. `asked`: the
    teams whose figures' choices were the GM's steps (the others took their defaults)."""
    steps = []
    for h in history:
        steps.append({"actor": h["actor"], "action": dict(h["action"]), "dice": list(h["dice"])})
    teams = [t["name"] for t in scenario_doc.get("teams", [])]
    asked = set(asked or ())
    return {"description": "exported by tactica autopilot", "scenario": dict(scenario_doc), "seed": int(seed),
            "start_dice": list(start_dice), "questions": {t: "ask" if t in asked else "default" for t in teams},
            "steps": steps}


def replay_from_save(path: str | Path) -> dict[str, Any]:
    """The replay document of a saved autopilot session."""
    d = read_save(path)
    sess = d.get("session")
    if not isinstance(sess, Mapping):
        raise SessionError("no session section", source=str(path), field="session", expected="an autopilot save")
    try:
        info = _SessionBlock.check(sess)
    except SessionError as e:
        raise e.at(str(path), "session")
    if info["start_dice"] is None:
        raise SessionError("the session's start is unknown", source=str(path), field="session.start_dice",
                           expected="a session started by tactica autopilot")
    asked = [t for t, r in info["teams"].items() if r.get("policy") is None]
    return replay_from_history(d["scenario"], info["seed"], info["start_dice"], info["history"], asked)


class _SessionBlock:
    """Validation of a save file's `session` section (clear errors for damaged files)."""

    @staticmethod
    def check(s: Any) -> dict[str, Any]:
        from pydantic import BaseModel, ConfigDict, ValidationError

        class TeamRole(BaseModel):
            model_config = ConfigDict(extra="forbid")
            role: str
            policy: str | None = None

        class Step(BaseModel):
            model_config = ConfigDict(extra="allow")
            actor: str
            action: dict[str, Any]
            dice: list[int]
            round: int | None = None
            turn: int | None = None

        class Undo(BaseModel):
            model_config = ConfigDict(extra="allow")
            state: dict[str, Any]
            events: int
            history: int

        class Block(BaseModel):
            model_config = ConfigDict(extra="allow")
            format: str
            format_version: int
            seed: int = 0
            dice_mode: str = "engine"
            confirm: bool = True
            teams: dict[str, TeamRole] = {}
            start_dice: list[int] | None = None
            history: list[Step] = []
            undo: list[Undo] = []
            policy_states: dict[str, Any] = {}

        if not isinstance(s, Mapping) or s.get("format") != SESSION_FORMAT:
            raise SessionError("not an autopilot session", field="format", expected=f"'{SESSION_FORMAT}'")
        if s.get("format_version") != SESSION_VERSION:
            raise SessionError(f"format_version {s.get('format_version')!r}", field="format_version",
                               expected=str(SESSION_VERSION))
        try:
            b = Block.model_validate(dict(s))
        except ValidationError as e:
            er = e.errors()[0]
            loc = ".".join(str(p) for p in er.get("loc", ()))
            raise SessionError(f"damaged: {er.get('msg', 'invalid')}", field=loc or "(top)",
                               expected="a session written by tactica autopilot") from None
        for t, r in b.teams.items():
            if r.role not in ("npc", "pc"):
                raise SessionError(f"role {r.role!r}", field=f"teams.{t}.role", expected="npc or pc")
        if b.dice_mode not in ("engine", "manual"):
            raise SessionError(f"dice mode {b.dice_mode!r}", field="dice_mode", expected="engine or manual")
        for i, u in enumerate(b.undo):
            if u.history > len(b.history):
                raise SessionError("undo snapshot beyond the history", field=f"undo[{i}]", expected="a consistent save")
        return {"seed": b.seed, "dice_mode": b.dice_mode, "confirm": b.confirm,
                "teams": {t: r.model_dump() for t, r in b.teams.items()},
                "start_dice": b.start_dice, "history": [h.model_dump() for h in b.history],
                "undo": [u.model_dump() for u in b.undo], "policy_states": b.policy_states}


def default_save_path(scenario_name: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", scenario_name).strip("-") or "fight"
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(f"autopilot-{slug}-{stamp}.json")


# =========================================================================================
# The terminal loop
HELP = "Command syntax" + __doc__.split("Command syntax", 1)[1].split("Save files are", 1)[0].rstrip()


class Quit(Exception):
    pass


class Terminal:
    """The interactive loop: shows the fight, asks the GM, resolves and narrates."""

    def __init__(self, session: Session, console, input_fn: Callable[[str], str] | None = None) -> None:
        self.s = session
        self.con = console
        self.input_fn = input_fn or input
        self.numbered: list[Action] = []
        self._shown_turn: tuple | None = None

    # -- output ------------------------------------------------------------------------
    def say(self, text: str = "", style: str | None = None) -> None:
        from rich.markup import escape

        self.con.print(escape(text) if style is None else f"[{style}]{escape(text)}[/]", highlight=False)

    def show_map(self, highlight: Iterable[int] = ()) -> None:
        from tactica.render import battle_view

        s = self.s
        self.con.print(battle_view(s.state, s.rs, s.pc_teams(),
                                   {t: "PC" for t, r in s.roles.items() if r.role == "pc"}, highlight))

    def narrate(self, evs: list[Event]) -> None:
        for e in evs:
            if e.get("type") == "roll" and e.get("purpose") == "initiative":
                continue
            if e.get("type") in ("turn_start",):
                continue
            style = {"round_start": "bold", "battle_end": "bold green", "down": "bold red", "dead": "bold red",
                     "attack": "yellow", "damage": "red"}.get(e.get("type", ""))
            self.say("  " + narrate(e), style)

    def ask(self, prompt: str) -> str:
        try:
            return self.input_fn(prompt)
        except EOFError:
            raise Quit() from None

    # -- meta commands -----------------------------------------------------------------
    def meta(self, cmd: Command, at_dice: bool = False) -> None:
        """Run a command available at any prompt (undo/quit raise to unwind)."""
        s = self.s
        n, args = cmd.name, cmd.args
        if n == "help":
            self.con.print(HELP, highlight=False, markup=False)
        elif n == "map":
            self.show_map()
        elif n == "moves":
            cells = [a.cell for a in s.legal() if a.kind == "move"]
            self.show_map(cells)
            self.say(f"{len(cells)} reachable cells (+): type move X Y")
        elif n == "list":
            self.show_actions()
        elif n == "order":
            from tactica.render import order_line
            self.con.print(order_line(s.state))
        elif n == "status":
            if not args:
                raise CommandError("status needs a figure", field="status", expected="status FIGURE")
            c = s.figure(" ".join(args))
            self.show_status(c)
        elif n == "log":
            k = int(args[0]) if args and args[0].isdigit() else 15
            evs = [e for e in s.battle.events if not (e.get("type") == "roll" and e.get("purpose") == "initiative")]
            self.narrate(evs[-k:])
        elif n == "hint":
            if s.state.over:
                raise CommandError("the fight is over", field="hint", expected="undo, export or quit")
            self.show_plan(s.advise(), title="advice")
        elif n == "undo":
            raise Abort("undo")
        elif n == "cancel":
            if at_dice:
                raise Abort("cancel")
            self.say("nothing pending to cancel")
        elif n == "dice":
            if not args or args[0] not in ("engine", "manual"):
                raise CommandError(f"dice {' '.join(args)!r}", field="dice", expected="dice engine or dice manual")
            s.dice_mode = args[0]
            s.save()
            self.say(f"dice: {s.dice_mode}" + (" (from the next action on)" if at_dice else ""))
        elif n == "confirm":
            if not args or args[0] not in ("on", "off"):
                raise CommandError(f"confirm {' '.join(args)!r}", field="confirm", expected="confirm on or confirm off")
            s.confirm = args[0] == "on"
            s.save()
            self.say(f"confirm NPC plans: {args[0]}")
        elif n == "save":
            p = s.save(args[0] if args else None)
            self.say(f"saved to {p}" if p else "no save file (start with --save FILE)")
        elif n == "export":
            if not args:
                raise CommandError("export needs a file name", field="export", expected="export FILE.yaml")
            p = s.export(args[0])
            self.say(f"replay written to {p} ({len(s.history)} steps): tactica replay {p}")
        elif n == "quit":
            raise Quit()

    def show_status(self, c: Combatant) -> None:
        s = self.s
        st = s.state
        hp, mx = s.rs.health(c)
        self.say(f"{c.name} ({c.id}) [{c.team}, {s.role_of(c).label()}] at {list(st.grid.xy(c.pos))}: "
                 f"{hp:g}/{mx:g} {', '.join(sorted(c.conditions)) or 'no conditions'}")
        ws = ", ".join(s.rs.weapon_slots(c)) if hasattr(s.rs, "weapon_slots") else ""
        if ws:
            self.say(f"  weapons: {ws}")
        res = {k: v for k, v in c.res.items() if isinstance(v, (int, float, str)) and not isinstance(v, bool) and v}
        ammo = c.res.get("ammo")
        if res:
            self.say("  " + ", ".join(f"{k} {v}" for k, v in res.items()))
        if isinstance(ammo, dict) and ammo:
            self.say("  ammo: " + ", ".join(f"{k} {v}" for k, v in ammo.items()))

    def show_actions(self) -> None:
        """The acting figure's legal actions, grouped and numbered (moves: a few, and `moves`)."""
        s = self.s
        st = s.state
        legal = s.legal()
        groups: dict[str, list[Action]] = {}
        order = ("attack", "grapple", "defend", "reload", "use", "pick_up", "stand", "drop_prone", "end_turn")
        for a in legal:
            if a.kind == "move":
                continue
            groups.setdefault(a.kind if a.kind in order else "other", []).append(a)
        moves = [a for a in legal if a.kind == "move"]
        numbered: list[Action] = []
        titles = {"attack": "Attacks", "grapple": "Grapple", "defend": "Defence", "reload": "Reload", "use": "Use",
                  "pick_up": "Pick up", "stand": "Stand", "drop_prone": "Prone", "end_turn": "End",
                  "other": "Other"}
        lines: list[tuple[str, list[Action]]] = []
        for k in (*order[:-1], "other", "end_turn"):
            if k in groups:
                lines.append((titles[k], groups[k]))
        if moves:
            adv = []
            try:
                adv = [a for a, _, _ in _ranked(_make_policy(ADVISOR_POLICY, s.seed), st, st.actor) if a.kind == "move"][:3]
            except TacticaError:
                pass
            lines.insert(0, (f"Moves ({len(moves)} cells reachable: move X Y, `moves` shows them; suggested)", adv))
        for title, acts in lines:
            self.say(title, "bold")
            for a in acts:
                numbered.append(a)
                note = action_note(st, a)
                self.say(f"  {len(numbered):>2}. {command_for(st, a):<34}" + (f" {note}" if note else ""))
        self.numbered = numbered

    def show_plan(self, plan: Plan, title: str = "plan") -> None:
        st = self.s.state
        self.con.print(f"[bold magenta]{title}[/] ({plan.policy}): [bold]{describe_action(st, plan.action)}[/]"
                       f"  \\[{command_for(st, plan.action)}]", highlight=False)
        self.say(f"  why: {plan.reason}")
        if plan.alternatives:
            self.say("  or (Enter accepts the plan; a number picks; or type any action):")
        for i, alt in enumerate(plan.alternatives, 1):
            sc = f"{alt.score:6.2f} " if alt.score is not None else ""
            self.say(f"  {i}. {command_for(st, alt.action):<34} {sc}{alt.reason}")
        self.numbered = [a.action for a in plan.alternatives]

    # -- dice ---------------------------------------------------------------------------
    def dice_provider(self, req: DiceRequest) -> list[int] | None:
        self.say(req.text(), "bold yellow")
        while True:
            line = self.ask("dice> ").strip()
            if line.lower() in ("r", "roll"):
                return None
            if re.fullmatch(r"[\d\s,+]+", line or "x"):
                try:
                    return parse_faces(line, req.sides)
                except CommandError as e:
                    self.say(f"refused: {e.line()}", "red")
                    continue
            try:
                cmd = parse_command(line)
            except CommandError as e:
                self.say(f"{e.line()}", "red")
                self.say(f"enter {len(req.sides)} faces ({' '.join('d%d' % x for x in req.sides)}) or r", "red")
                continue
            if cmd.kind != "meta":
                self.say(f"enter {len(req.sides)} faces ({' '.join('d%d' % x for x in req.sides)}), r to roll, "
                         f"or a command (cancel, undo, map, help, quit)", "red")
                continue
            try:
                self.meta(cmd, at_dice=True)
            except CommandError as e:
                self.say(e.line(), "red")
            self.say(req.text(), "bold yellow")

    # -- the loop -----------------------------------------------------------------------
    def resolve(self, action: Action, by: str, reason: str = "") -> bool:
        s = self.s
        st = s.state
        actor = st.actor
        self.say(f"> {actor.name}: {describe_action(st, action, with_odds=False)}", "bold")
        try:
            evs = s.resolve(action, self.dice_provider if s.dice_mode == "manual" else None, by=by, reason=reason)
        except Abort as a:
            if a.then == "undo":
                self.do_undo()
            else:
                s.drop_plan()
                self.say("cancelled: nothing was resolved")
            return False
        self.narrate(evs)
        return True

    def do_undo(self) -> None:
        h = self.s.undo()
        if h is None:
            self.say("nothing to undo")
        else:
            self.say(f"undone: {h['actor']} {command_for(self.s.state, Action.from_dict(h['action'], self.s.state.grid.width))}",
                     "bold")
        self._shown_turn = None

    def turn_header(self) -> None:
        s = self.s
        st = s.state
        key = (st.round, st.turn_index)
        if key == self._shown_turn:
            return
        self._shown_turn = key
        self.show_map()
        a = st.actor
        self.con.print(f"[bold]Round {st.round}: {a.name} ({a.id}, {a.team}, {s.role_of(a).label()}) to act[/]",
                       highlight=False)

    def run(self) -> None:
        s = self.s
        st = s.state
        self.say(f"{st.scenario} ({st.ruleset}) - seed {s.seed}, dice {s.dice_mode}, "
                 f"{'confirm' if s.confirm else 'no confirm'}; saving to {s.save_path}", "bold")
        for t, r in s.roles.items():
            self.say(f"  {t}: {r.label()}")
        for n in s.notes:
            self.say(f"  note: {n}")
        self.say("  type help for the commands")
        try:
            if not s.started:
                while True:
                    try:
                        self.narrate(s.begin(self.dice_provider if s.dice_mode == "manual" else None))
                        break
                    except Abort as a:
                        if a.then == "undo":
                            self.say("nothing to undo yet")
                        self.say("the fight must start: its initiative dice are needed")
            while True:
                try:
                    self.step()
                except CommandError as e:
                    self.say(e.line(), "red")
                except TacticaError as e:
                    self.say(f"error: {e.line()}", "red")
        except (Quit, KeyboardInterrupt):
            s.drop_plan()
            p = s.save()
            self.say(f"\nsaved to {p}; continue with: tactica autopilot --resume {p}" if p else "bye")

    def step(self) -> None:
        s = self.s
        st = s.state
        if st.over:
            self._shown_turn = None
            self.show_map()
            self.say(f"The fight is over: {st.winner or 'draw'} ({st.end_reason}). "
                     f"undo, export FILE, log, map or quit.", "bold green")
            line = self.ask("over> ")
            cmd = parse_command(line)
            if cmd.kind == "meta":
                try:
                    self.meta(cmd)
                except Abort as a:
                    if a.then == "undo":
                        self.do_undo()
            elif cmd.kind != "empty":
                raise CommandError("the fight is over", field="command", expected="undo, export FILE, log, map, quit")
            return
        self.turn_header()
        actor = st.actor
        legal = s.legal()
        if not s.gm_plays(actor):
            plan = s.plan()
            self.show_plan(plan, title=f"{actor.name}'s plan")
            if not s.confirm:
                self.resolve(plan.action, "policy", plan.reason)
                return
            while True:
                line = self.ask(f"npc {actor.id}> ")
                try:
                    cmd = parse_command(line, st, legal)
                except CommandError as e:
                    self.say(e.line(), "red")
                    continue
                if cmd.kind == "empty" or line.strip().lower() in ("y", "yes", "ok", "accept"):
                    self.resolve(plan.action, "plan", plan.reason)
                    return
                if cmd.kind == "pick":
                    if not 1 <= cmd.number <= len(self.numbered):
                        self.say(f"no choice {cmd.number} (1..{len(self.numbered)})", "red")
                        continue
                    a = self.numbered[cmd.number - 1]
                    alt = next((x for x in plan.alternatives if x.action == a), None)
                    self.resolve(a, "alternative" if alt else "gm", alt.reason if alt else "picked by the GM")
                    return
                if cmd.kind == "action":
                    self.resolve(cmd.action, "gm", "typed by the GM")
                    return
                if cmd.kind == "meta":
                    try:
                        self.meta(cmd)
                    except Abort as a:
                        if a.then == "undo":
                            self.do_undo()
                        return
                    except CommandError as e:
                        self.say(e.line(), "red")
                    continue
        # the GM plays this figure
        self.show_actions()
        while True:
            line = self.ask(f"pc {actor.id}> ")
            try:
                cmd = parse_command(line, st, legal)
            except CommandError as e:
                self.say(e.line(), "red")
                continue
            if cmd.kind == "empty":
                continue
            if cmd.kind == "pick":
                if not 1 <= cmd.number <= len(self.numbered):
                    self.say(f"no action {cmd.number} (1..{len(self.numbered)}); `moves` for cells, `help`", "red")
                    continue
                self.resolve(self.numbered[cmd.number - 1], "gm")
                return
            if cmd.kind == "action":
                self.resolve(cmd.action, "gm")
                return
            try:
                self.meta(cmd)
            except Abort as a:
                if a.then == "undo":
                    self.do_undo()
                return
            except CommandError as e:
                self.say(e.line(), "red")
