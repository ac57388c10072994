"""cortex_hu's legal-action listing (issue 30, fourth pass: `listing.legal_list`) is the code
it replaced, kept here (`old_legal_actions`): the same actions in the same order.

Seeded fights of cortex_hu (bundled and generated maps; random, aggressive and tactical teams)
are walked decision by decision; at each, the listing is compared with the old one on the
state itself and on a copy after each of its legal actions (dice seeded), so stances, aim,
runs, grapples, feints, drops, reloads and the ladder's end are all met. A figure's kit kept
per stat block and weapons is also compared with one made afresh. Each part of the shortcut
broken on purpose is noticed.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import assess as A
from rules.actions import END_TURN, Action
from rules.dice import Dice
from rules.ruleset import get_ruleset
from rules.state import BattleState
from rules.systems.cortex_hu import listing
from tests.test_offence_query import states


def old_legal_actions(self, state: BattleState) -> list[Action]:
    """`CortexHuRuleset.legal_actions` before the fourth speed pass (the code it replaced)."""
    a = state.actor
    acts = [END_TURN]
    if a is None or a.down:
        return acts
    e = state.economy
    A = self.action
    prone = "prone" in a.conditions
    free = []
    if not prone:
        free.append(A("drop_prone"))
    free += [A("drop", weapon=w.name) for w in self.weapons_of(a) if w.name != "unarmed"]
    if a.res["grappling"] is not None:
        free.append(A("grapple", target=a.res["grappling"], option="release"))
    if e["aimed"]:
        return acts + free  # seed 002, Célzás: nothing but free actions while aiming
    g = state.grid
    acts.extend(map(g.move_actions.__getitem__, self.move_options(state, a)))
    held = a.res["grappled_by"] is not None
    guard = not (e["all_out"] or a.res["all_out"])
    dsteps = self.turn_steps(state, a) + (self.full_defence_steps if e["full_defence"] else 0)
    defends = [A("defend", option=m) for m in ("parry", "dodge")
               if guard and self.defence_pool(a, m, dsteps) is not None]
    if e["full_defence"]:
        return acts + defends + free  # seed 002, Teljes Védekezés: only defending this turn
    acts.extend(self.attack_actions(state, a))
    acts.extend(defends)
    if guard and not e["acted"] and not e["carried"] and not e["full_defence"]:
        acts.append(A("defend", option="full_defence"))
    if self.can_aim(state, a):
        acts.append(A("aim"))
    for t in state.combatants:
        if self.can_feint(state, a, t):
            acts.append(A("feint", target=t.id))
    if held:
        if self.escape_pool(state, a) is not None:
            acts.append(A("grapple", target=a.res["grappled_by"], option="escape"))
    else:
        for t in state.combatants:
            if self.can_grapple(state, a, t):
                acts.append(A("grapple", target=t.id))
    if self.can_act(state):
        for w in self.weapons_of(a):
            if (w.magazine and w.x("reload", True) and a.res["ammo"].get(w.name, 0) < w.magazine):
                acts.append(A("reload", weapon=w.name))
        if prone and "leg_useless" not in a.conditions and not held:
            acts.append(A("stand"))
    return acts + free


def _same(rs, s: BattleState) -> list[Action]:
    got = rs.legal_actions(s)
    want = old_legal_actions(rs, s)
    assert got == want, (s.round, s.actor and s.actor.id, [x for x in got if x not in want],
                         [x for x in want if x not in got])
    a = s.actor
    if a is not None:
        kept, fresh = listing.kit_of(rs, a), listing._Kit(rs, a, rs.weapons_of(a), rs.usable_weapons(a))
        assert all(getattr(kept, k) == getattr(fresh, k) for k in listing._Kit.__slots__)
    return got


def variants(rs, s: BattleState) -> list[BattleState]:
    """Copies of `s` with what seeded fights meet rarely: the actor's arm crippled or its legs
    knocked from under it (as the GM sets them), or held by a standing enemy next to it."""
    out = []
    for name in ("arm_useless", "leg_useless"):
        s2 = s.clone()
        rs.set_condition(s2, s2.actor, name, True)
        out.append(s2)
    a = s.actor
    holder = next((t for t in s.combatants if t.team != a.team and not t.down and t.res["grappling"] is None
                   and s.grid.adjacent(a.pos, t.pos)), None)
    if holder is not None and a.res["grappling"] is None and a.res["grappled_by"] is None:
        s2 = s.clone()
        s2.actor.res["grappled_by"] = holder.id
        s2.by_id[holder.id].res["grappling"] = a.id
        out.append(s2)
    return out


def check(n_fights: int, n_decisions: int, seen: set | None = None, moves: int = 4) -> int:
    """Compare on every decision of the fights, on a copy after each legal action there but
    moves (`moves` of those, picked at random) and on `variants`."""
    compared = 0
    rng = np.random.default_rng(0)
    for rs, s in states("cortex_hu", n_fights, n_decisions, tries=1):
        legal = _same(rs, s)
        compared += 1
        tried = [x for x in legal if x.kind != "move"]
        steps = [x for x in legal if x.kind == "move"]
        tried += [steps[i] for i in rng.permutation(len(steps))[:moves]]
        after = [A.after(rs, s, act, Dice(np.random.default_rng(k))) for k, act in enumerate(tried)]
        for s2 in after + (variants(rs, s) if s.actor is not None and not s.actor.down else []):
            if s2.actor is not None and s2.pending is None:
                got = _same(rs, s2)
                compared += 1
                if seen is not None:
                    seen.update((x.kind, x.option) for x in got)
    return compared


def test_listing_is_the_code_it_replaced() -> None:
    seen: set = set()
    assert check(8, 40, seen) > 5000
    kinds = {k for k, _ in seen}
    assert {"move", "attack", "defend", "aim", "feint", "grapple", "reload", "drop_prone", "stand", "drop"} <= kinds
    assert {("defend", "full_defence"), ("grapple", "release"), ("grapple", "escape"), ("attack", "throw"),
            ("attack", "choke")} <= seen


@pytest.mark.slow
def test_listing_long() -> None:
    assert check(40, 120) > 20000


def test_broken_listing_is_noticed(monkeypatch) -> None:
    """Break one part at a time: the comparison fails."""
    rs = get_ruleset("cortex_hu")
    real = listing._Kit.__init__

    def kit_off(self, *args):  # a parry one step easier
        real(self, *args)
        self.parry += 1

    for name, value in (("_Kit.__init__", kit_off), ("_NOT_UP", frozenset({"dead"})),
                        ("filterfalse", lambda f, xs: iter(xs))):
        rs.__dict__.pop("_hu_kits", None)
        if name == "_Kit.__init__":
            monkeypatch.setattr(listing._Kit, "__init__", value)
        else:
            monkeypatch.setattr(listing, name, value)
        with pytest.raises(AssertionError):
            check(4, 40)
        monkeypatch.undo()
    rs.__dict__.pop("_hu_kits", None)
    assert check(1, 10) > 0
