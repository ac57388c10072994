"""cortex_hu's attack listing and offence query (issue 30, third pass) give the long ways.

- `CombatHu.attack_actions` (offence.py `attack_list`: one sum per option, the rows kept per
  target, weapon and ladder) is compared with the code it replaced, kept here, for every
  standing figure at every decision of seeded fights and on copies after trial actions.
- `priced_attacks` (the offence query) is compared with `legal_attacks` priced by
  `attack_odds_many`, bit for bit and in order (tests/test_offence_query.py's check).
- `DefenceHu.parry_weapon` (kept per stat block and usable weapons) is the code it replaced.
- `move_touches` (a walk, jog or crawl on a copy of the mover alone) gives the full trial.
Each shortcut broken on purpose is noticed.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.dice import Step
from rules.ruleset import get_ruleset
from rules.state import BattleState, Combatant
from rules.systems.cortex_hu import offence
from rules.systems.cortex_hu.ladder import ladder_pool
from tests.test_offence_query import check, check_moves, states


def old_attack_actions(self, state: BattleState, a: Combatant) -> list[Action]:
    """`CombatHu.attack_actions` before the third speed pass (the code it replaced)."""
    A = self.action
    out: list[Action] = []
    ws = self.usable_weapons(a)
    if not ws:
        return out
    g = state.grid
    e = state.economy
    holder = a.res["grappled_by"]
    grappling = a.res["grappling"]
    base = self.turn_steps(state, a)
    all_out_now = bool(e["all_out"])
    all_out_ok = not (e["acted"] or e["carried"] or e["full_defence"] or e["all_out"])
    aim = a.res["aim"] * int(self.aim_rules["steps_per_round"])
    attr_steps: dict[str, int] = {}
    skills: dict[tuple[str, bool], tuple[str, Step]] = {}
    opts = self.attack_options
    for t in state.combatants:
        if t.team == a.team or t.down:
            continue
        if holder is not None and t.id != holder:
            continue  # a held figure fights only its holder
        los = g.los(a.pos, t.pos)
        adj = g.adjacent(a.pos, t.pos)
        disarmable: bool | None = None
        throw_band: int | None | bool = False  # False: not computed yet
        for w in ws:
            # what the weapon's plain attack needs (every option but throw and choke)
            if w.ranged:
                reach = (holder is None and los and e["shots"].get(w.name, 0) < w.rof
                         and not (w.magazine and a.res["ammo"].get(w.name, 0) <= 0))
            else:
                reach = adj
            band = self.range_steps(state, a, t, w, "") if reach else None
            for opt in opts:
                if opt == "choke":
                    if w.name != "unarmed" or grappling != t.id:
                        continue
                    b = self.range_steps(state, a, t, w, opt)  # held fast: no reach check
                elif opt == "throw":
                    if holder is not None or w.kind != "melee" or w.name == "unarmed" or not los:
                        continue
                    if throw_band is False:
                        throw_band = self.range_steps(state, a, t, w, "throw")
                    b = throw_band
                else:
                    b = band
                if b is None:
                    continue
                if opt == "disarm":
                    if w.kind == "thrown":
                        continue
                    if disarmable is None:
                        disarmable = self.held_weapon(t) is not None
                    if not disarmable:
                        continue
                elif opt == "all_out" and not all_out_ok:
                    continue
                throw = opt == "throw"
                steps = base + b + self.option_steps(w, opt)
                if opt == "all_out" or all_out_now:
                    steps += self.all_out_steps
                if w.ranged or throw:
                    steps += aim
                key = (w.name, throw)
                sk = skills.get(key)
                if sk is None:
                    sk = skills[key] = self.weapon_skill(a, w, opt if throw else "")
                attr = "agility" if throw else w.attribute
                ast = attr_steps.get(attr)
                if ast is None:
                    ast = attr_steps[attr] = self.attr_steps(a, attr)
                if ladder_pool(a, attr, sk[1], steps, ast) is not None:
                    out.append(A("attack", target=t.id, weapon=w.name, option=opt or None))
    return out



def old_parry_weapon(self, d: Combatant):
    """`DefenceHu.parry_weapon` before the third speed pass (no memo)."""
    melee = [w for w in self.usable_weapons(d) if not w.ranged]
    melee.sort(key=lambda w: (self.weapon_skill(d, w)[1].index, w.size, w.name), reverse=True)
    return melee[0] if melee else self.weapons["unarmed"]


def check_listing(n_fights: int, n_decisions: int, seen: set | None = None) -> int:
    compared = 0
    for rs, s in states("cortex_hu", n_fights, n_decisions):
        for c in s.combatants:
            if not c.down:
                got = rs.attack_actions(s, c)
                assert got == old_attack_actions(rs, s, c), (s.round, c.id)
                assert rs.parry_weapon(c) is old_parry_weapon(rs, c)
                compared += 1
                if seen is not None:
                    seen.update(x.option for x in got)
    return compared


def test_attack_listing_is_the_code_it_replaced() -> None:
    seen: set = set()
    assert check_listing(8, 40, seen) > 3000
    assert {None, "all_out", "called:leg", "called:knee_waive", "disarm", "throw"} <= seen


def test_offence_query_is_the_priced_listing() -> None:
    checked, priced = check("cortex_hu", 8, 40)
    assert checked > 1500 and priced > 3000


def test_a_move_on_a_copy_of_the_mover_alone_is_the_full_trial() -> None:
    assert check_moves("cortex_hu", 8, 40) > 200


@pytest.mark.slow
def test_cortex_hu_offence_long() -> None:
    assert check_listing(40, 120) > 4000
    assert check("cortex_hu", 40, 120)[0] > 2000
    assert check_moves("cortex_hu", 30, 120) > 1000


def _forget(rs) -> None:
    for memo in ("_hu_listed", "_hu_priced", "_hu_statics", "_hu_parry"):
        rs.__dict__.pop(memo, None)


def test_broken_shortcuts_are_noticed(monkeypatch) -> None:
    """Break one part at a time: the comparisons fail."""
    rs = get_ruleset("cortex_hu")
    real_price, real_statics = offence._price, offence._statics

    def price(*args):
        p, ed, dih = real_price(*args)
        return p, ed * (1 + 1e-12), dih

    def statics(rs, w):  # a called shot a step easier
        return tuple((o, k, st + o.startswith("called:"), *rest) for o, k, st, *rest in real_statics(rs, w))

    _forget(rs)
    monkeypatch.setattr(offence, "_price", price)
    with pytest.raises(AssertionError):
        check("cortex_hu", 3, 30)
    monkeypatch.setattr(offence, "_price", real_price)
    _forget(rs)
    monkeypatch.setattr(offence, "_statics", statics)
    with pytest.raises(AssertionError):
        check_listing(3, 30)
    monkeypatch.setattr(offence, "_statics", real_statics)
    _forget(rs)
    monkeypatch.setattr(type(rs), "move_touches", lambda self, state, action: set())
    with pytest.raises(AssertionError):
        check_moves("cortex_hu", 2, 20)
