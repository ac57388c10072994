"""Fourth speed pass (issue 30): cybergeneration's `legal_actions` (rules/systems/cybergeneration/
choices.py) lists what the code it replaced listed, in the same order.

The replaced `legal_actions`, `other_actions`, `pick_up_actions` and `delay_actions` are kept
here (`old_*`) and compared with the ruleset's at every decision of seeded fights on every
bundled cybergeneration scenario, and with every other standing figure put in the acting
one's place (its turn, the same economy). The moves, now the sorted reach with the cells no
move may end on deleted, are the long way's walk over every cell of the reach.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents.base import make_policy
from rules.actions import END_TURN
from tests.seeded_states import as_actor, decisions

SCENARIOS = ["cybergeneration/alley_brawl", "cybergeneration/mall_raid", "cybergeneration/rooftop_standoff"]


def old_delay_actions(rs, state, a, can_hold: bool, allow_triggers: bool) -> list:
    A = rs.action
    e = state.economy
    out = []
    left = e["move"] in ("", "walk") and not e["two"] and rs.move_cap(state, a) > 0 or \
        e["actions"] < e["max_actions"]
    i = state.turn_index
    if (left and a.res["delays"] < int(rs.mv["max_delays_per_round"]) and 0 <= i < len(state.order)
            and i + 1 < len(state.order)):
        out.append(A("delay"))
        if i + 2 < len(state.order):
            out.append(A("delay", option="end_of_round"))
    if allow_triggers and can_hold and a.res["trigger"] is None and not rs.in_grapple(a):
        for trig in ("on_move", "on_attack", "on_draw"):
            out.append(A("delay", option=trig))
    return out


def old_pick_up_actions(rs, state, a) -> list:
    if not state.objects:
        return []
    g = state.grid
    out = []
    for cell in (a.pos, *g._ring[a.pos]):
        for item in sorted(set(state.objects.get(cell, ()))):
            out.append(rs.action("pick_up", cell=cell, weapon=item))
    return out


def old_other_actions(rs, state, a, can_act: bool, move_free: bool) -> list:
    A = rs.action
    e = state.economy
    acts = []
    if can_act:
        if not a.res["dodge"]:
            acts.append(A("defend", option="dodge"))
        if e["actions"] == 0 and not e["two"]:
            acts.append(A("aim"))
        for w in rs.weapons_of(a):
            if w.implant:
                continue
            if a.res["drawn"] != w.name and not w.grapple_only:
                acts.append(A("ready", weapon=w.name, option="change"))
            if w.name in a.res["jammed"]:
                acts.append(A("ready", weapon=w.name, option="unjam"))
            if w.reload == "loose" and a.res["ammo"].get(w.name, 0) < w.magazine:
                acts.append(A("reload", weapon=w.name))
        acts.extend(rs.first_aid_actions(state, a, ""))
    if move_free:
        if "prone" in a.conditions and e["suppress"] != "fail":   # 2026-12-07: a pinned figure stays down
            acts.append(A("stand"))
        for w in rs.weapons_of(a):
            if w.implant:
                continue
            if (a.res["drawn"] != w.name and w.access in ("holster", "sheath", "slung")
                    and e["suppress"] != "fail"):
                acts.append(A("ready", weapon=w.name, option="draw"))
            if (a.res["drawn"] == w.name and e["steady"] is None and e["suppress"] != "fail"
                    and (w.ranged or w.melee)):
                acts.append(A("ready", weapon=w.name, option="steady"))
            if w.reload == "clip" and e["suppress"] != "fail" and a.res["ammo"].get(w.name, 0) < w.magazine:
                if w.name not in a.res["ammo_ready"]:
                    acts.append(A("ready", weapon=w.name, option="ammo"))
                if w.name in a.res["ammo_ready"] or can_act and e["actions"] == 0:
                    acts.append(A("reload", weapon=w.name))
        if e["suppress"] != "fail":
            acts.extend(old_pick_up_actions(rs, state, a))
            if can_act and e["actions"] == 0:
                acts.extend(rs.first_aid_actions(state, a, "wake"))
    return acts


def old_legal_actions(rs, state) -> list:
    """`CybergenerationRuleset.legal_actions` before the fourth speed pass."""
    if state.pending is not None:
        return rs.legal_actions(state)
    a = state.actor
    acts = [END_TURN]
    if a is None or a.down or state.over:
        return acts
    e = state.economy
    mv = state.grid.move_actions
    found = rs.reach_now(state, a)
    if found is not None:
        ends = found[1]
        acts.extend(map(mv.__getitem__, sorted([c for c in found[0] if c not in ends])))
    A = rs.action
    if a.res["held_by"] is not None:
        acts.extend(rs.held_actions(state, a))
        return acts
    can_act = e["actions"] < e["max_actions"] and e["suppress"] != "fail"
    move_free = e["move"] == "" and not e["two"]
    if rs.in_grapple(a):
        if can_act:
            acts.extend(rs.grapple_round_actions(state, a))
            acts.extend(rs.suppress_actions(state, a))
        acts.extend(old_other_actions(rs, state, a, can_act, move_free))
        acts.extend(old_delay_actions(rs, state, a, can_act, allow_triggers=False))
        return acts
    if can_act:
        acts.extend(rs.attack_actions(state, a))
        acts.extend(rs.suppress_actions(state, a))
        acts.extend(rs.grapple_start_actions(state, a))
    acts.extend(old_other_actions(rs, state, a, can_act, move_free))
    if "prone" not in a.conditions:
        acts.append(A("drop_prone"))
    acts.extend(old_delay_actions(rs, state, a, can_act and e["actions"] == 0 and not e["two"]
                                  and e["suppress"] != "fail", allow_triggers=True))
    if e["move"] == "" and e["actions"] == 0 and not e["two"] and not e["woke"] and e["suppress"] != "fail":
        acts.append(A("use", option="two_actions"))
    return acts


class Grappler:
    """Takes a hold (or squeezes, or grapples) whenever it may; else a random action."""

    def __init__(self, rs, seed: int) -> None:
        self.rs = rs
        self.rng = np.random.default_rng(seed)

    def act(self, s, actor):
        legal = self.rs.legal_actions(s)
        hold = [x for x in legal if x.kind == "grapple" and x.option in ("hold", "squeeze")]
        close = [x for x in legal if x.kind == "grapple" and x.option != "break"]
        pick = hold or close or legal
        return pick[int(self.rng.integers(len(pick)))]


def _policy(ruleset, name: str, seed: int):
    """The grappler below, or a registered policy."""
    return Grappler(ruleset, seed) if name == "grappler" else make_policy(name, seed)




def check_state(rs, s, seen: Counter) -> None:
    got = rs.legal_actions(s)
    assert got == old_legal_actions(rs, s)
    seen.update(x.kind for x in got)
    seen["states"] += 1
    a = s.actor
    if a is not None and s.pending is None:
        seen["grappling"] += rs.in_grapple(a)
        seen["held"] += a.res["held_by"] is not None
        seen["with ends in reach"] += bool(rs.reach_now(s, a)) and any(
            c in rs.reach_now(s, a)[0] for c in rs.reach_now(s, a)[1])


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_legal_actions_are_the_old_listing(scenario: str) -> None:
    seen: Counter = Counter()
    for seed, pols in ((1, ("random", "random")), (2, ("aggressive", "random")), (3, ("tactical", "random")),
                       (4, ("random", "aggressive")), (5, ("grappler", "grappler")), (6, ("tactical", "tactical")),
                       (7, ("grappler", "random")), (8, ("random", "grappler"))):
        for rs, s in decisions(scenario, seed, pols, make=_policy):
            check_state(rs, s, seen)
            if s.pending is None and s.actor is not None:
                for c in s.combatants:
                    if c is not s.actor and not c.down and c.id in s.order:
                        check_state(rs, as_actor(s, c), seen)
    assert seen["states"] > 500 and seen["move"] > 1000 and seen["attack"] > 50, seen
    assert seen["with ends in reach"] > 100 and seen["grappling"] > 10, seen
    for kind in ("ready", "delay", "use", "defend", "aim"):
        assert seen[kind] > 0, (kind, seen)
