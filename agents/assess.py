"""Reading the battlefield through the generic `Ruleset` interface, for scripted policies.

Everything here uses only what every rule system offers: `legal_actions` (and its
attack-only part `legal_attacks`), `apply` on a copy of the state, `start_turn` on a copy
(to ask "what could that enemy do to me?"), `attack_odds` (in batches, `attack_odds_many`),
`reach_m`, `ammo_frac`, `health`, `economy`, and the map's line of sight and cover.
Nothing reads a system's stat blocks or resources, so the same policies play every ruleset. Hypothetical states are always copies (`BattleState.clone`) stepped with
the policy's own private dice, so the real fight, its dice and its event log are never
touched.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from rules.actions import Action
from rules.dice import Dice
from rules.grid import COVER_NAMES
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant

from agents.acting import acting_view
from agents.threat_memo import ThreatMemo

#: how much of the incoming fire each cover level (0-4) is assumed to stop, for quick
#: geometric scores; exact numbers come from `attack_odds` where it matters
COVER_PROTECTION = (0.0, 0.3, 0.6, 0.85, 1.0)
#: a figure whose attack reach is at most this (metres) fights hand to hand
MELEE_REACH_M = 2.5
ATTACK_KINDS = ("attack", "grapple")


@dataclass(frozen=True, slots=True)
class Odds:
    """One attack-like action with the ruleset's numbers for it."""

    action: Action
    p_hit: float
    exp_damage: float
    damage_if_hit: float


def foes(state: BattleState, actor: Combatant) -> list[Combatant]:
    """Enemies still standing, in scenario order."""
    return [c for c in state.combatants if c.team != actor.team and not c.down]


def friends(state: BattleState, actor: Combatant) -> list[Combatant]:
    """Allies still standing (the actor excluded), in scenario order."""
    return [c for c in state.combatants if c.team == actor.team and c.id != actor.id and not c.down]


def health_frac(rs: Ruleset, c: Combatant) -> float:
    hp, mx = rs.health(c)
    return hp / mx if mx > 0 else 0.0


def hp_left(rs: Ruleset, c: Combatant) -> float:
    return max(1.0, rs.health(c)[0])


def is_melee(rs: Ruleset, c: Combatant) -> bool:
    return rs.reach_m(c) <= MELEE_REACH_M


def protection(level: int) -> float:
    return COVER_PROTECTION[max(0, min(4, int(level)))]


def cover_name(level: int) -> str:
    return COVER_NAMES[max(0, min(4, int(level)))]


def cover_words(state: BattleState, cell: int, against: int) -> str:
    """'heavy cover (crates)' style words for the cover `cell` has against `against`."""
    g = state.grid
    level, src = g.cover_source(cell, against)
    if not level:
        return "no cover"
    name = g.terrain[src].name if src is not None else ""
    what = f" ({name})" if name and cover_name(level) not in name else ""
    return f"{cover_name(level)} cover{what}"


def turn_over(state: BattleState) -> bool:
    """Whether the acting figure's turn must end (the rules-level `turn_over` flag)."""
    return bool(state.economy.get("turn_over"))


# -- attack odds ---------------------------------------------------------------------------
def attack_options(rs: Ruleset, state: BattleState, actor: Combatant,
                   legal: Iterable[Action] | None = None, plain_only: bool = False,
                   complete: bool = False) -> list[Odds]:
    """Every legal attack-like action of the acting figure with its odds (None odds dropped);
    `plain_only`: only attacks without a ruleset option (no called shots, bursts ...).

    `complete`: `legal` is all of `legal_actions(state)`. Then, as when `legal` is None, the
    ruleset's offence query (`Ruleset.priced_attacks`: the same list, bit for bit) answers
    where it has one."""
    if legal is None or complete:
        quick = rs.priced_attacks(state, actor, plain_only)
        if quick is not None:
            return [Odds(a, p, ed, dih) for a, p, ed, dih in quick]
    if legal is None:
        legal = rs.legal_attacks(state)
    acts = [a for a in legal if a.kind in ATTACK_KINDS and a.target is not None and not (plain_only and a.option)]
    out = []
    for a, o in zip(acts, rs.attack_odds_many(state, actor, acts) if acts else ()):
        if not o:
            continue
        p = float(o.get("p_hit", 0.0))
        ed = float(o.get("exp_damage", 0.0))
        dih = float(o.get("damage_if_hit", ed / p if p > 0 else 0.0))
        out.append(Odds(a, p, ed, dih))
    return out


def p_kill(odds: Odds, hp: float) -> float:
    """Rough chance that this attack takes a target with `hp` health left out of the fight."""
    if odds.p_hit <= 0 or odds.damage_if_hit <= 0:
        return 0.0
    spread = 0.35 * odds.damage_if_hit + 1.0
    z = (odds.damage_if_hit - hp) / spread
    return odds.p_hit / (1.0 + math.exp(-2.0 * z))


# -- hypothetical states -------------------------------------------------------------------
def probe_dice(state: BattleState, actor: Combatant, k: int = 0) -> Dice:
    """Dice for trying actions on copies, seeded from the moment of the fight (round, turn,
    figure, decision k of the turn) and nothing else, so a policy's judgement of a state
    never depends on its seed or on what it looked at before. Never the fight's own dice."""
    return ProbeDice([state.round, state.turn_index + 1, zlib.crc32(actor.id.encode()), k])


#: stands in for a probe's generator until its first roll (never drawn from)
_NOT_YET = np.random.default_rng(0)


class ProbeDice(Dice):
    """`Dice(np.random.default_rng(entropy))`, with the generator made at the first roll: most
    decisions roll no probe die (moving, defending), and making one costs more than a look."""

    __slots__ = ("_entropy",)

    def __init__(self, entropy: list[int]) -> None:
        super().__init__(_NOT_YET)
        self._entropy: list[int] | None = entropy

    def _uniform(self) -> float:
        if self._entropy is not None:
            self._rng = np.random.default_rng(self._entropy)
            self._entropy = None
        return super()._uniform()



def after(rs: Ruleset, state: BattleState, action: Action, dice: Dice) -> BattleState:
    """A copy of the state with `action` applied by the acting figure (private dice)."""
    s2 = state.clone()
    if action.kind != "end_turn":
        rs.apply(s2, action, dice)
    return s2


def as_acting(rs: Ruleset, state: BattleState, who: str, dice: Dice) -> BattleState | None:
    """A copy of the state in which figure `who` starts a fresh turn now (None if it cannot act)."""
    s2 = state.clone()
    c = s2.by_id[who]
    if c.down:
        return None
    s2.order = [who]
    s2.turn_index = 0
    can, _ = rs.start_turn(s2, c, dice)
    if not can or c.down:
        return None
    return s2


def _rolls(dice: Dice | None) -> int:
    """How many dice the probe dice rolled so far (to tell whether a look rolled any)."""
    return len(dice.record) if dice is not None else 0


def incoming(rs: Ruleset, state: BattleState, enemy: Combatant, victim_id: str, dice: Dice,
             memo: dict | None = None, price: bool = True, keyed: ThreatMemo | None = None) -> float:
    """Expected damage of `enemy`'s best single attack on `victim_id` if it acted now, standing still.

    `memo`: a dict the caller keeps for one decision (states it holds are not changed);
    answers found without rolling the probe dice are kept there and reused, so the dice
    draw the same numbers as without it. `price=False`: only start the enemy's turn (rolling
    what it rolls) and answer 0.0, for a caller that no longer needs the number; where the
    ruleset says the turn start rolls nothing (`Ruleset.start_turn_rolls`), not even that.
    `keyed`: enemies' threat profiles kept over a fight (agents/threat_memo.py), used where
    the turn start rolls nothing and the ruleset splits the threat query."""
    if memo is not None:
        hit = memo.get((id(state), enemy.id, victim_id))
        if hit is not None and hit[0] is state:
            return hit[1]
        rolls = _rolls(dice)
    if keyed is not None and state.pending is None and not state.over:
        e0 = state.by_id[enemy.id]
        if not rs.start_turn_rolls(state, e0):
            if not price:
                return 0.0  # starting the turn would roll nothing: the dice draw as without it
            damage = keyed.profile(rs, state, e0, dice)
            best = None if damage is None else damage(state.by_id[victim_id])
            if best is not None:  # (None: the profile does not answer for this victim)
                if memo is not None:
                    memo[(id(state), enemy.id, victim_id)] = (state, best)
                return best
    s2 = acting_view(rs, state, enemy.id, dice)
    if not price:
        return 0.0
    best = 0.0
    if s2 is not None:
        e2 = s2.by_id[enemy.id]
        quick = rs.best_expected_damage(s2, e2, (victim_id,))  # the same number, if the ruleset has it
        if quick is not None:
            best = quick[victim_id]
        else:
            acts = [a for a in rs.legal_attacks(s2, victim_id) if not (a.option and a.kind == "grapple")]
            for o in rs.attack_odds_many(s2, e2, acts) if acts else ():
                if o:
                    best = max(best, float(o.get("exp_damage", 0.0)))
    if memo is not None and _rolls(dice) == rolls:
        memo[(id(state), enemy.id, victim_id)] = (state, best)
    return best


def best_threat(rs: Ruleset, state: BattleState, enemy: Combatant, dice: Dice, memo: dict | None = None,
                keyed: ThreatMemo | None = None) -> float:
    """Expected damage of `enemy`'s best single attack on anyone, relative to that figure's health.

    `memo` as for `incoming`, which it fills for every figure the enemy could attack; `keyed`
    as for `incoming`."""
    rolls = _rolls(dice)
    if keyed is not None and state.pending is None and not state.over:
        e0 = state.by_id[enemy.id]
        damage = keyed.profile(rs, state, e0, dice) if not rs.start_turn_rolls(state, e0) else None
        if damage is not None:
            best = 0.0
            for c in state.combatants:
                x = damage(c)
                if x is None:
                    break  # the profile does not answer for this victim: the long way, below
                if x:  # as below: max(ed / hp) over one target's attacks is max(ed) / hp
                    best = max(best, x / hp_left(rs, c))
                if memo is not None:
                    memo[(id(state), enemy.id, c.id)] = (state, x)
            else:
                return best
    s2 = acting_view(rs, state, enemy.id, dice)
    if s2 is None:
        return 0.0
    e2 = s2.by_id[enemy.id]
    best = 0.0
    per = rs.best_expected_damage(s2, e2, [c.id for c in s2.combatants])
    if per is not None:
        # max(ed / hp) over one target's attacks is max(ed) / hp: dividing by hp > 0 keeps order
        for c in s2.combatants:
            if per[c.id]:
                best = max(best, per[c.id] / hp_left(rs, c))
    else:
        per = {}
        acts = [a for a in rs.legal_attacks(s2) if a.target is not None and not (a.option and a.kind == "grapple")]
        for a, o in zip(acts, rs.attack_odds_many(s2, e2, acts) if acts else ()):
            if o:
                ed = float(o.get("exp_damage", 0.0))
                best = max(best, ed / hp_left(rs, s2.by_id[a.target]))
                per[a.target] = max(per.get(a.target, 0.0), ed)
    if memo is not None and _rolls(dice) == rolls:
        for c in state.combatants:
            memo[(id(state), enemy.id, c.id)] = (state, per.get(c.id, 0.0))
    return best


# -- movement --------------------------------------------------------------------------------
def move_costs(state: BattleState, actor: Combatant, cells: Iterable[int]) -> dict[int, int]:
    """Path cost (half-cell units) from the actor to each legal move cell."""
    g = state.grid
    blockers = [c.pos for c in state.combatants if c.team != actor.team and not c.down]
    cells = list(cells)
    cap = max(g.reach_cap, 2)
    reach = g.reachable(actor.pos, cap, blockers)
    big = 1 << 20
    return {c: reach.get(c, big) for c in cells}


def move_tiers(rs: Ruleset, state: BattleState, moves: list[Action], dice: Dice,
               cache: dict | None = None) -> dict[int, tuple[float, bool]]:
    """cell -> (actions the move uses up, whether it ends the turn), found by trying moves on copies
    (or from the ruleset's `move_price`, which gives what trying would).

    The price of a move grows with its path cost, so two binary searches over the distinct
    costs find where moving starts to cost an action and where it ends the turn. The
    thresholds depend only on the figure and its economy, so `cache` (a dict the caller
    keeps) saves the searches when the same economy comes back. A search that tries a move
    the ruleset cannot price may roll the probe dice, so with a cache a decision's later looks
    can draw other numbers than without it: the decision depends on what the cache holds."""
    if not moves:
        return {}
    actor = state.actor
    costs = move_costs(state, actor, (m.cell for m in moves))
    levels = sorted(set(costs.values()))
    econ = rs.economy(state)
    key = (actor.id, tuple(sorted(econ.items())), tuple(levels))
    hit = cache.get(key) if cache is not None else None
    if hit is None:
        hit = _tier_thresholds(rs, state, moves, costs, levels, econ, dice)
        if cache is not None:
            if len(cache) > 512:
                cache.clear()
            cache[key] = hit
    free_upto, walk_upto, used_mid, used_end = hit
    out = {}
    for m in moves:
        c = costs[m.cell]
        if c <= free_upto:
            out[m.cell] = (0.0, False)
        elif c <= walk_upto:
            out[m.cell] = (used_mid, False)
        else:
            out[m.cell] = (used_end, True)
    return out


def _tier_thresholds(rs: Ruleset, state: BattleState, moves: list[Action], costs: dict[int, int],
                     levels: list[int], econ: dict[str, float], dice: Dice) -> tuple[int, int, float, float]:
    """(largest free cost, largest cost that does not end the turn, actions used in between, at the end)."""
    rep = {}
    for m in sorted(moves, key=lambda m: m.cell):
        rep.setdefault(costs[m.cell], m)
    left0 = econ.get("actions_left")
    memo: dict[int, tuple[float, bool]] = {}

    def probe(i: int) -> tuple[float, bool]:
        lvl = levels[i]
        if lvl not in memo:
            # the ruleset's price is what trying the move gives, and it declines any move that
            # could roll the probe dice, so the dice draw as before (tests/test_move_price.py)
            price = rs.move_price(state, rep[lvl])
            if price is None:
                s2 = after(rs, state, rep[lvl], dice)
                over = turn_over(s2)
                left1 = rs.economy(s2).get("actions_left", left0) if left0 is not None else None
            else:
                left1, over = price
            used = 0.0
            if left0 is not None:
                used = max(0.0, float(left0) - float(left1))
            memo[lvl] = (used, over)
        return memo[lvl]

    def first(pred) -> int:
        lo, hi = 0, len(levels)
        while lo < hi:
            mid = (lo + hi) // 2
            if pred(probe(mid)):
                hi = mid
            else:
                lo = mid + 1
        return lo

    i_ends = first(lambda r: r[1])
    i_costs = first(lambda r: r[0] > 0 or r[1])
    free_upto = levels[i_costs - 1] if i_costs > 0 else -1
    walk_upto = levels[i_ends - 1] if i_ends > 0 else -1
    used_mid = max(probe(i_costs)[0], 1.0) if i_costs < i_ends else 0.0
    used_end = probe(i_ends)[0] if i_ends < len(levels) else 1.0
    return free_upto, walk_upto, used_mid, used_end
