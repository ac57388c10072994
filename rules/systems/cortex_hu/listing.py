"""`cortex_hu`'s legal-action listing (issue #30, fourth pass): `legal_list`, what
`CortexHuRuleset.legal_actions` lists, in the same order.

The listing is the env's hot path (the mask of every decision and every random or scripted
opponent's choice). It used to ask the rule methods once per option and per figure
(`move_options`, `defence_pool`, `can_feint`, `can_grapple`, `can_aim`, `weapons_of` twice),
each of which looked the figure's skills and weapons up again. Here the same rules are read
once per call, and what a figure's stat block and weapons decide is kept per ruleset:

- seed 002's ladder (`ladder.ladder_pool`) makes a pool exist iff its stepped die stays at d2
  or above: with D the index of the skill die, or of the attribute die after its own steps
  (`attr_steps`, never below 1) when unskilled, iff D + steps >= 1. So a parry, a dodge, a
  feint and a grab are listed by one sum each (`defence_pool`, `feint_pool`, `grapple_pool`
  with the steps they pass), and the run's reach (`run_pool` in `move_cap`) is the unstepped
  die's and Step(D - slot)'s maxima.
- the skill dice those pools read are functions of the stat block (read-only in a fight) and
  of the weapons the figure can use (the parrying weapon, the melee skill); `weapons_of` and
  `usable_weapons` are functions of the figure's own weapons (read-only), the names it lost and
  gained (the table's weapons) and whether an arm is crippled. So `_Kit` is kept per ruleset on
  those (`_hu_kits`), holding the stat block and weapons so their ids stay theirs; a figure
  that gained a scenario's inline weapon gets a fresh `_Kit`.
- one walk over the figures finds the standing enemies (the movement blockers and attack,
  feint and grapple targets, in figure order) and the cells no move may end on
  (`taken_cells`), and the move cells are the reach's cells (`Grid.reachable`, canonical)
  less those, in the reach's order, as `move_options` gives them.

tests/test_cortex_hu_listing.py keeps the code this replaced and compares the two lists on
every decision of seeded fights, and on copies after each legal action.
"""

from __future__ import annotations

from itertools import filterfalse
from typing import Any

from rules.actions import END_TURN, Action
from rules.dice import D0
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.model import skill_die
from rules.systems.cortex_hu.offence import attacks_on

#: conditions a knocked-out figure may not have for its cell to stay taken (`taken_cells`)
_NOT_UP = frozenset({"unconscious", "dying", "dead"})
#: kits kept per ruleset before starting afresh
_MAX = 4096


class _Kit:
    """What a figure's stat block and weapons decide for the listing: its weapons (`weapons_of`)
    and those it can use (`usable_weapons`), the drops, reloads and aimable weapons they give,
    and the skill-die index (0: unskilled) of its parry, dodge, run, grab and feint."""

    __slots__ = ("usable", "drops", "reloads", "ranged", "parry", "dodge", "run", "grab", "feint")

    def __init__(self, rs: Any, a: Combatant, ws: list, usable: list) -> None:
        A = rs.action
        self.usable = usable
        self.drops = tuple(A("drop", weapon=w.name) for w in ws if w.name != "unarmed")
        self.reloads = tuple((w.name, w.magazine, A("reload", weapon=w.name))
                             for w in ws if w.magazine and w.x("reload", True))
        self.ranged = tuple((w.name, w.magazine) for w in usable if w.ranged)
        stats = a.stats
        self.parry = rs.weapon_skill(a, rs.parry_weapon(a))[1].index      # defence_pool("parry")
        self.dodge = skill_die(stats, "athletics", "dodge").index          # defence_pool("dodge")
        self.run = skill_die(stats, "athletics", "running").index          # run_pool
        self.grab = skill_die(stats, "unarmed_combat", "grappling").index  # grapple_pool
        self.feint = rs.melee_skill(a)[1].index                            # feint_pool


def kit_of(rs: Any, a: Combatant) -> _Kit:
    """`a`'s `_Kit`, kept per (stat block, weapons, weapons lost, weapons gained, arm crippled):
    what `weapons_of` and `usable_weapons` read. A weapon gained that is not the table's (a
    scenario's inline weapon, read from `res["inline"]`) makes a fresh kit instead."""
    res = a.res
    lost, gained = res["lost"], res["gained"]
    table = rs.weapons
    if gained and any(n not in table for n in gained):
        return _Kit(rs, a, rs.weapons_of(a), rs.usable_weapons(a))
    key = (id(a.stats), id(a.weapons), tuple(lost), tuple(gained), "arm_useless" in a.conditions)
    memo = rs.__dict__.setdefault("_hu_kits", {})
    hit = memo.get(key)
    if hit is None:
        if len(memo) >= _MAX:
            memo.clear()
        hit = memo[key] = (a.stats, a.weapons, _Kit(rs, a, rs.weapons_of(a), rs.usable_weapons(a)))
    return hit[2]


def _fixed(rs: Any) -> tuple[Action, ...]:
    """The ruleset's shared actions without arguments the listing may give."""
    got = rs.__dict__.get("_hu_fixed")
    if got is None:
        A = rs.action
        got = rs.__dict__["_hu_fixed"] = (A("drop_prone"), A("defend", option="parry"), A("defend", option="dodge"),
                                          A("defend", option="full_defence"), A("aim"), A("stand"))
    return got


def legal_list(rs: Any, state: BattleState) -> list[Action]:
    """What `CortexHuRuleset.legal_actions` lists (no question open), in its order."""
    a = state.actor
    if a is None or a.down:
        return [END_TURN]
    DROP_PRONE, PARRY, DODGE, FULL_DEFENCE, AIM, STAND = _fixed(rs)
    A = rs.action
    e = state.economy
    res = a.res
    conds = a.conditions
    kit = kit_of(rs, a)
    prone = "prone" in conds
    free = [] if prone else [DROP_PRONE]
    free += kit.drops
    grappling = res["grappling"]
    if grappling is not None:
        free.append(A("grapple", target=grappling, option="release"))
    acts = [END_TURN]
    if e["aimed"]:
        return acts + free  # seed 002, Célzás: nothing but free actions while aiming
    holder = res["grappled_by"]
    held = holder is not None
    team = a.team
    foes = []
    blockers = []
    taken = set()
    for c in state.combatants:
        if not c.down:
            taken.add(c.pos)
            if c.team != team:
                foes.append(c)
                blockers.append(c.pos)
        elif "knocked_out" in c.conditions and _NOT_UP.isdisjoint(c.conditions):
            taken.add(c.pos)
    ts = rs.turn_steps(state, a)
    agi = max(1, a.stats["attributes"]["agility"].index + rs.attr_steps(a, "agility"))
    g = state.grid
    # movement: `move_options` (`move_cap`, the reach less the taken cells)
    if not (e["ran"] or held):
        walk, jog, crawl = rs.units(state)
        if prone:
            cap = crawl
        elif e["full_defence"]:
            cap = walk
        else:
            jogging = e["mode"] == "jog"
            cap = jog if jogging or e["actions"] < rs.max_actions else walk
            slot = e["move_slot"] if jogging else e["actions"]
            # run_pool: (the agility die, the running die stepped) or (agility stepped, d0)
            n = (kit.run or agi) - slot
            if n >= 1:
                p0, p1 = (D0 + agi, D0 + n) if kit.run else (D0 + n, D0)
                cap = max(cap, g.budget_units(rs.mv["run_base"] + p0.maximum + p1.maximum))
        budget = cap - e["move_units"]
        if budget > 0:
            reach = g.reachable(a.pos, budget, blockers)
            acts.extend(map(g.move_actions.__getitem__, filterfalse(taken.__contains__, reach)))
    guard = not (e["all_out"] or res["all_out"])
    fd = e["full_defence"]
    defends = []
    if guard:
        dsteps = ts + (rs.full_defence_steps if fd else 0)
        if (kit.parry or agi) + dsteps >= 1:
            defends.append(PARRY)
        if (kit.dodge or agi) + dsteps >= 1:
            defends.append(DODGE)
    if fd:
        return acts + defends + free  # seed 002, Teljes Védekezés: only defending this turn
    if kit.usable:
        acts.extend(attacks_on(rs, state, a, kit.usable, foes))
    acts.extend(defends)
    if guard and not e["acted"] and not e["carried"]:
        acts.append(FULL_DEFENCE)
    if not (e["acted"] or e["move_units"] or held):  # can_aim
        ammo = res["ammo"]
        if any(not mag or ammo.get(name, 0) > 0 for name, mag in kit.ranged):
            acts.append(AIM)
    apos = a.pos
    near = [t for t in foes if g.adjacent(apos, t.pos)]
    if near:
        # can_feint: feint_pool is ladder_pool(alertness, the melee skill, turn steps)
        cands = [t for t in near if (holder is None or holder == t.id) and t.res["feinted_by"] is None]
        if cands and (kit.feint or max(1, a.stats["attributes"]["alertness"].index
                                       + rs.attr_steps(a, "alertness"))) + ts >= 1:
            acts.extend(A("feint", target=t.id) for t in cands)
    if held:
        if rs.escape_pool(state, a) is not None:
            acts.append(A("grapple", target=holder, option="escape"))
    elif near and grappling is None:
        # can_grapple: grapple_pool is ladder_pool(agility, unarmed/grappling, turn steps + all-out)
        cands = [t for t in near if t.res["grappled_by"] is None]
        if cands and (kit.grab or agi) + ts + (rs.all_out_steps if e["all_out"] else 0) >= 1:
            acts.extend(A("grapple", target=t.id) for t in cands)
    if rs.can_act(state):
        ammo = res["ammo"]
        for name, mag, act in kit.reloads:
            if ammo.get(name, 0) < mag:
                acts.append(act)
        if prone and "leg_useless" not in conds and not held:
            acts.append(STAND)
    return acts + free


__all__ = ["kit_of", "legal_list"]
