"""Reasons in words a GM checks, for the scripted policies' `explain` (issue #33).

Issue #33, "NPCs that show their numbers": "Reasons in words a GM checks: hit odds, expected
damage, the cover it gains or loses, why not the obvious alternative; scores only as a
tie-break. Suggested moves give the path's real length and say when a move is a run or
ends the turn." And: "Options that cannot succeed (0% to hit) are listed last or hidden,
never focused first" - `succeeds` is the test the table sorts by.

Every number comes from the ruleset (`attack_odds`, `health`, the move tried on a copy of
the state with the policy's probe dice, the map's line of sight and cover), never from a
policy's private scores. Nothing here changes the state, the fight's dice or a policy's
decisions: a line is read off a copy.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from rules.actions import KIND_VERBS, Action, option_words, use_words, weapon_phrase
from rules.errors import TacticaError
from rules.narration import question_words
from rules.ruleset import Ruleset, get_ruleset
from rules.state import BattleState, Combatant

from agents import assess as A

#: each ruleset's damage track, as its seed names it (health() counts down on it)
TRACKS: dict[str, str] = {"cortex": "Stun and Wound", "cortex_hu": "Stun and Wound",
                          "metalface": "Status", "cybergeneration": "Wounds"}
#: scores closer than this are a tie the remark about them helps to break
TIE = 0.05


def track(rs: Ruleset) -> str:
    """The name of a ruleset's damage track ("Status" in METALFACE)."""
    return TRACKS.get(rs.name, "health")


def succeeds(state: BattleState, actor: Combatant, action: Action) -> bool | None:
    """Whether an attack-like action can succeed: False at 0% to hit, True above it, None for
    an action that is not an attack (nothing to judge). The table lists False ones last."""
    if action.kind not in A.ATTACK_KINDS or action.target is None:
        return None
    odds = get_ruleset(state.ruleset).attack_odds(state, actor, action)
    if not odds:
        return None
    return float(odds.get("p_hit", 0.0)) > 0.0


def attack_words(state: BattleState, actor: Combatant, action: Action) -> str | None:
    """"fires at Jubal with the revolver: 45% to hit, 2.3 Stun and Wound expected (5.1 if
    it hits, of 12 left); Jubal has medium cover (crates) against it"; None if not an attack."""
    if action.kind not in A.ATTACK_KINDS or action.target is None:
        return None
    rs = get_ruleset(state.ruleset)
    odds = rs.attack_odds(state, actor, action)
    t = state.by_id.get(action.target)
    if not odds or t is None:
        return None
    g = state.grid
    verb = "grapples" if action.kind == "grapple" else (
        "fires at" if g.chebyshev(actor.pos, t.pos) > 1 and not A.is_melee(rs, actor) else "attacks")
    how = f" {weapon_phrase(action.kind, action.weapon)}" if action.weapon and action.weapon != "unarmed" else ""
    opt = f" ({option_words(action.option)})" if action.option else ""
    p, exp = float(odds.get("p_hit", 0.0)), float(odds.get("exp_damage", 0.0))
    if_hit = float(odds.get("damage_if_hit", exp / p if p > 0 else 0.0))
    left = rs.health(t)[0]
    line = f"{verb} {t.name}{how}{opt}: {p:.0%} to hit"
    if p <= 0:
        line += " (cannot succeed)"
    line += f", {exp:.1f} {track(rs)} expected ({if_hit:.1f} if it hits, of {left:g} left)"
    return line + f"; {t.name} has {A.cover_words(state, t.pos, actor.pos)} against it"


def _cover_against(state: BattleState, cell: int, enemies: Sequence[Combatant]) -> dict[str, int]:
    """Cover level of `cell` against each enemy that can see it (by enemy id)."""
    g = state.grid
    return {e.id: g.cover(cell, e.pos) for e in enemies if g.los(e.pos, cell)}


def tried_move(state: BattleState, actor: Combatant, action: Action, dice: Any,
               attacks: bool = False) -> dict[str, Any] | None:
    """A move of `actor` tried on a copy with `dice`, as the rules resolve it: `metres` along
    its path, `mode` (the pace the move events give: walk, run ...), `ends_turn`, and `rolls`
    (it asked for a roll); with `attacks`, `no_attack_after` too (the legal actions listed before and after:
    the words a GM reads ask for it, the battle map's reach colours do not). None when the rules refuse or ask a
    question first, or move no one. The policies' reasons and the table's move words both read it."""
    if action.kind != "move" or action.cell is None:
        return None
    s2 = state.clone()
    try:
        evs = get_ruleset(state.ruleset).apply(s2, action, dice)
    except Exception:  # noqa: BLE001 - a move that needs a question first: nothing to tell
        return None
    metres, mode = None, None
    for e in evs:
        if e.get("type") == "move" and e.get("actor") == actor.id:
            metres = (metres or 0.0) + float(e["metres"])
            mode = e.get("mode") if mode in (None, "walk") else mode
    if metres is None:
        return None
    ends = bool(A.turn_over(s2) or s2.over)
    rs = get_ruleset(state.ruleset)
    # a move after which the turn goes on (a turn of the body, a posture ...) but no attack is open where one was
    # before it: it spends what an attack needs (METALFACE: "Run ... Full Turn") or leaves every target out of reach
    spent = (attacks and not ends and not any(a.kind in A.ATTACK_KINDS for a in rs.legal_actions(s2))
             and any(a.kind in A.ATTACK_KINDS for a in rs.legal_actions(state)))
    return {"metres": metres, "mode": mode or "move", "ends_turn": ends,
            "rolls": any(e.get("type") == "roll" for e in evs), "no_attack_after": spent}


def move_facts(state: BattleState, actor: Combatant, action: Action) -> dict[str, Any] | None:
    """What a move does, tried on a copy with probe dice (`tried_move`; the straight distance
    when the rules cannot say), and the cover the figure has against each enemy that sees it
    before (`before`) and after (`after`). None if not a move."""
    if action.kind != "move" or action.cell is None:
        return None
    f = tried_move(state, actor, action, A.probe_dice(state, actor, 97), attacks=True) or {
        "metres": state.grid.distance_m(actor.pos, action.cell), "mode": "move", "ends_turn": False, "rolls": False}
    enemies = A.foes(state, actor)
    return f | {"before": _cover_against(state, actor.pos, enemies),
                "after": _cover_against(state, action.cell, enemies)}


def move_words(state: BattleState, actor: Combatant, action: Action) -> str | None:
    """"moves to [4, 2]: 6.0 m, a run, ends the turn; gains medium cover (had no) against
    Jubal; out of sight of Mal"; None if not a move."""
    f = move_facts(state, actor, action)
    if f is None:
        return None
    x, y = state.grid.xy(action.cell)
    bits = [f"{f['metres']:.1f} m"]
    if f["mode"] not in ("walk", "move"):
        bits.append(f"a {f['mode']}")
    bits.append("ends the turn" if f["ends_turn"] else "the turn goes on")
    if f.get("no_attack_after"):
        bits.append("no attack after it")
    return f"moves to [{x}, {y}]: {', '.join(bits)}; " + cover_change_words(state, f["before"], f["after"])


def _cov(level: int) -> str:
    return "no" if level <= 0 else A.cover_name(level)


def cover_change_words(state: BattleState, before: dict[str, int], after: dict[str, int]) -> str:
    """The cover a move gains or loses against each enemy that sees the figure before or
    after, enemies with the same change named together: "gains heavy cover (had no) against
    Jinx, Rook; out of Doc's sight"."""
    names = {c.id: c.name for c in state.combatants}
    groups: dict[str, list[str]] = {}
    for eid in sorted(set(before) | set(after), key=lambda i: names[i]):
        b, a = before.get(eid), after.get(eid)
        if a is None:
            key = "out of sight of"
        elif b is None:
            key = f"comes into sight ({_cov(a)} cover) of"
        elif a > b:
            key = f"gains {_cov(a)} cover (had {_cov(b)}) against"
        elif a < b:
            key = f"loses {_cov(b)} cover (now {_cov(a)}) against"
        else:
            key = f"keeps {_cov(a)} cover against"
        groups.setdefault(key, []).append(names[eid])
    if not groups:
        return "no enemy sees it before or after"
    return "; ".join(f"{k} {', '.join(v)}" for k, v in groups.items())


def action_words(state: BattleState, actor: Combatant, action: Action, fallback: str = "") -> str:
    """The numbers of an action (attack or move), or `fallback` (the policy's own words)."""
    words = attack_words(state, actor, action) or move_words(state, actor, action)
    return words or fallback or str(action)


def label(state: BattleState, action: Action | None) -> str:
    """An action's short name in a GM's words, with map coordinates and figure names: "move to
    [18, 8]", "attack Bomber with the shotgun", "drop prone", "answer innate defence: roll"."""
    if action is None:
        return "end the turn"
    k = action.kind
    g = state.grid
    if k == "move" and action.cell is not None:
        x, y = g.xy(action.cell)
        return f"move to [{x}, {y}]"
    if k == "choose":
        q = state.pending.question.key if state.pending is not None else "the question"
        return f"answer {question_words(q)}: {option_words(action.option or '')}"
    if k == "use" and not action.weapon:
        return use_words(action.option)
    bits = [KIND_VERBS.get(k, k.replace("_", " "))]
    if action.target:
        t = state.by_id.get(action.target)
        bits.append(t.name if t is not None else action.target)
    if action.weapon:
        bits.append(weapon_phrase(k, action.weapon))
    if action.cell is not None and k != "move":
        x, y = g.xy(action.cell)
        bits.append(f"at [{x}, {y}]")
    if action.option:
        bits.append(f"({option_words(action.option)})")
    return " ".join(bits)


def guard_words(saved: float) -> str:
    """What a stance does to the enemies' next attacks, by the expected damage it saves (`saved`, in the figure's
    health; negative: it draws more)."""
    if round(saved, 1) > 0:
        return f"the enemies' next attacks lose {saved:.1f} expected damage"
    if round(saved, 1) < 0:
        return f"the enemies' next attacks gain {-saved:.1f} expected damage"
    return "the enemies' next attacks would lose nothing by it"


def _purpose(own: str) -> str:
    """What a move is for, in the policy's words: tactical's "moves to [3, 4] (heavy cover vs 2
    enemies) to fire at Jubal: 60% to hit" gives "to fire at Jubal: 60% to hit". The bracket may hold the cover's
    source in its own brackets ("heavy cover (crates) vs 1 enemy")."""
    m = re.match(r"(.*?) to \[\d+, \d+\] \((?:[^()]|\([^()]*\))*\),?\s*(.*)", own)
    if m is None:
        return own
    verb, rest = m.groups()
    return rest if verb == "moves" else verb + (f": {rest}" if rest else "")


def explain(state: BattleState, actor: Combatant, action: Action, ranked: Sequence[Any] = (),
            own: str = "") -> str:
    """One line: `actor` does `action` with its numbers (the policy's `own` words kept for
    what is not an attack or a move, and as the move's purpose), why not the best-scored
    other candidate of `ranked` (items with `.action`, `.score`, `.reason`, best first), and
    the scores only when they are within `TIE` of each other."""
    line = f"{actor.name} {action_words(state, actor, action, own)}"
    purpose = _purpose(own) if action.kind == "move" else ""
    if purpose:
        line += f" - {purpose}"
    mine = next((c for c in ranked if c.action == action), None)
    alt = next((c for c in ranked if c.action != action), None)
    if alt is not None:
        line += f"; rather than: {action_words(state, actor, alt.action, alt.reason)}"
        if mine is not None and abs(mine.score - alt.score) < TIE:
            line += f" (a close call: score {mine.score:.2f} against {alt.score:.2f})"
    elif not ranked:
        other = obvious_attack(state, actor, action)
        if other is not None:
            line += f"; rather than: {action_words(state, actor, other)}"
    return line


def obvious_attack(state: BattleState, actor: Combatant, action: Action) -> Action | None:
    """For a policy that scores nothing: the attack with the most expected damage now, other
    than `action` (the obvious alternative to a move or to a weaker attack); None if none."""
    rs = get_ruleset(state.ruleset)
    try:
        opts = A.attack_options(rs, state, actor, rs.legal_attacks(state))
    except TacticaError:
        return None
    opts = [o for o in opts if o.action != action and o.p_hit > 0]
    return max(opts, key=lambda o: o.exp_damage).action if opts else None
