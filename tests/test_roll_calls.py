"""Issue #33, "The engine says which roll comes next": the rules announce each roll before it
is made ("who rolls, what pool, for what, against what, and the modifiers by name (cover +N,
wound penalty steps, range, options, kept dice)"), as a `RollCall` (rules/calls.py) given to
`Dice.announce` (docs/ruleset-guide.md, the announcement contract).

Two kinds of test:
- seeded fights of all four rulesets with mixed scripted policies (tests/fight_digests.py's
  fight plans): every die the battle's dice roll belongs to a call announced before it, each
  call's `sides` are exactly the dice rolled under it, and the roll event that records a
  call says the same roller, check, purpose, pool, dice, modifiers and difficulty;
- exact cases with forced dice, one per ruleset, quoting the seed sentence of the modifier
  the call names.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from evaluation.simulate import check_policies, fight_streams
from agents.base import make_policy
from rules.actions import Action
from rules.calls import RollCall
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
from tests.fight_digests import RULESETS, SEED, fight_plan
from tests.roll_call_check import CallDice, problems

#: fights per ruleset (bundled scenarios and generated maps in turn, every policy pairing in turn)
FIGHTS = 20


def _fight(ruleset: str, k: int) -> tuple[CallDice, list[dict]]:
    """Fight k of tests/fight_digests.py's plan, with dice that log calls and dice."""
    scen, pols = fight_plan(ruleset, k)
    spec, src = load_scenario(scen)
    pols = check_policies(spec, pols)
    teams = [t.name for t in spec.teams]
    dice_ss, pol_ss = fight_streams(SEED, k, len(teams))
    dice = CallDice(np.random.default_rng(dice_ss))
    events: list[dict] = []
    battle = new_battle(spec, dice, src, record=False, on_event=events.append)
    battle.run({t: make_policy(pols[t], pol_ss[i]) for i, t in enumerate(teams)})
    return dice, events


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_die_of_seeded_fights_was_announced_and_the_roll_event_agrees(ruleset):
    """Issue #33: "the rules announce each roll before it is made"; announcing draws no random
    number (tests/fight_digests.py keeps the fights as they were)."""
    found = []
    rolled = 0
    for k in range(FIGHTS):
        dice, events = _fight(ruleset, k)
        rolled += sum(1 for x in dice.log if x[0] == "die")
        found += [f"fight {k}: {p}" for p in problems(dice.log, events)]
    assert rolled > 0
    assert found == [], "\n".join(found[:10])


def test_a_die_rolled_without_a_call_is_found():
    """The check itself: a die before any call, a call whose dice differ, a roll event whose
    modifiers differ from its call's."""
    d = CallDice(0)
    d.roll(6)
    assert any("before any call" in p for p in problems(d.log, []))
    d = CallDice(0)
    d.announce(RollCall("a", "attack", "attack", "d6", (6,)))
    d.roll(6)
    d.roll(8)
    assert any("was rolled after the dice" in p for p in problems(d.log, []))
    d = CallDice(0)
    d.force([4])
    d.announce(RollCall("a", "attack", "attack", "d6", (6,), modifiers=(("range", 1),)))
    d.roll(6)
    ev = {"type": "roll", "actor": "a", "check": "attack", "purpose": "attack", "dice": [[6, 4]], "modifiers": []}
    assert any("modifiers" in p for p in problems(d.log, [ev]))


def test_announcing_draws_no_random_number():
    """Issue #33 brief: announcing must leave the dice stream as it was."""
    a, b = Dice(7), Dice(7)
    heard: list[RollCall] = []
    b.on_call = heard.append
    call = RollCall("x", "initiative", "initiative", "d10", (10,))
    b.announce(call)
    assert [a.roll(10) for _ in range(20)] == [b.roll(10) for _ in range(20)]
    assert b.call is call and heard == [call]
    assert call.to_json()["sides"] == [10] and call.to_json()["against"] is None


# ---------------------------------------------------------------------------------------
# exact cases

def _play(scenario: dict, actions: list[dict], forced: list[int]) -> tuple[list[RollCall], list[dict], CallDice]:
    """Play `actions` (replay-step action dicts) with strictly forced dice; the calls heard,
    the events, and the dice (whose log `problems` reads)."""
    spec, src = load_scenario(scenario)
    dice = CallDice(0)
    events: list[dict] = []
    battle = new_battle(spec, dice, src, on_event=events.append)
    battle.start()
    dice.force(forced, strict=True)
    for a in actions:
        battle.step(Action.from_dict(a, battle.state.grid.width))
    assert dice.forced_left == 0
    calls = [x[1] for x in dice.log if x[0] == "call"]
    assert problems(dice.log, events) == []
    return calls, events, dice


def _only(xs: list[Any]) -> Any:
    assert len(xs) == 1, xs
    return xs[0]


def test_cortex_attack_call_names_the_wound_steps_and_the_medium_cover():
    """seed 000, Cover: "Medium +8 Cover is thick and/or conceals more than half the body";
    assumption wounded_penalty: Wounds of half the Life Points step the attribute die down
    twice. The shooter (Agility d10, 5 Wounds of 10 Life Points) fires at a target behind
    medium cover: the call names "wounded (agility)" -2, rolls d6 + d8, and is against the
    target's defence with its +8 cover (the Difficulty is rolled after the attack)."""
    from tests.cortex_seed000_setup import dummy, fig, scen
    s = scen(["." * 9, "." * 4 + "m" + "." * 4, "." * 9],
             [fig("s", (0, 1), agi="d10", skills={"guns": "d6", "guns/pistols": "d8"}, weapons=("pistol",),
                  life_points=10, state={"wound": 5})],
             [dummy("t", (5, 1))])
    calls, events, _ = _play(s, [{"type": "attack", "target": "t", "weapon": "pistol"}], [2, 3])
    call = _only(calls)
    assert (call.roller, call.check, call.purpose) == ("s", "attack", "attack with pistol")
    assert call.pool == "Agility d6 + Guns/Pistols d8" and call.sides == (6, 8)
    assert ("wounded (agility)", -2) in call.modifiers
    assert call.against == {"figure": "t", "what": "defence", "total": None, "cover": 8}
    assert _only([e for e in events if e["type"] == "defence"])["cover_bonus"] == 8
    # a target that rolls its innate defence (RULES-NOTES cortex: "a free Agility roll whose
    # total is the Difficulty to hit") rolls it against the attack's total, 2 + 3 = 5
    s["teams"][1]["combatants"] = [fig("t", (5, 1), decline_innate="never", life_points=99)]
    calls, events, _ = _play(s, [{"type": "attack", "target": "t", "weapon": "pistol"}], [2, 3, 1])
    attack, innate = calls
    assert (innate.roller, innate.check, innate.pool, innate.sides) == ("t", "innate_defence", "Agility d6", (6,))
    assert innate.against == {"figure": "s", "what": "attack", "total": 5}


def test_cortex_hu_see_through_the_feint_is_against_the_feint_total():
    """seed 002, Csel: "Dobj Éberség+Közelharc/kézitusa képzettségre; Ellenfél dob
    Intelligencia+Észlelés/Intuícióra; ha a támadóé magasabb ..." - the target's roll is
    called against the feinter's total (6 + 6 = 12), the feint against the target."""
    from tests.cortex_hu_setup import fencer, fig, scen, open_map
    t = fig("t", (1, 1), agi="d6", int_="d6", skills={"perception": "d4", "perception/intuition": "d8"},
            life_points=30, reactions="never")
    s = scen(open_map(), [fencer("f", (0, 1), ale="d8")], [t])
    calls, _, _ = _play(s, [{"type": "feint", "target": "t"}], [6, 6, 3, 3])
    feint, resist = calls
    assert (feint.roller, feint.check, feint.sides) == ("f", "feint", (8, 8))
    assert feint.against == {"figure": "t", "what": "see through the feint", "total": None}
    assert (resist.roller, resist.check, resist.sides) == ("t", "feint_resist", (6, 8))
    assert resist.pool == "Intelligence d6 + Perception/Intuition d8"
    assert resist.against == {"figure": "f", "what": "feint", "total": 12}


def test_metalface_targeting_call_names_the_kept_die_and_the_modifiers():
    """RULES-NOTES metalface: roll as many d6 as the value, keep the single highest, add skill
    levels. seed 003, Targeting: a PER 3 targeting roll with firearms 1, short range +1 and
    both stationary +1 +1, against Difficulty 8."""
    from tests.metalface_setup import dummy, open_map, scen, shooter
    calls, _, _ = _play(scen(open_map(), [shooter()], [dummy()]),
                        [{"type": "attack", "target": "t", "weapon": "pistol"}], [2, 5, 3])
    call = _only(calls)
    assert (call.roller, call.check, call.pool) == ("s", "targeting", "PER 3")
    assert call.sides == (6, 6, 6) and call.keep == "highest of 3d6" and call.difficulty == 8
    assert call.modifiers == (("skill", 1), ("range", 1), ("attacker", 1), ("target", 1))


def test_cybergeneration_two_action_rolls_name_the_minus_five_and_a_critical_is_a_follow_up():
    """seed 004, Your Turn: "Elect not to move and perform 2 actions (eg. shoot twice), with both
    at -5 to all skill rolls"; Critical success and failure: "you roll a 2nd d10 and either add
    or subtract it" - the second die is a follow-up call of the same roll."""
    from tests.cybergeneration_setup import brawler, open_map, scen
    s = scen(open_map(8), [brawler("a", (0, 1), weapons=("knife",))],
             [brawler("d", (1, 1), armour=("heavy_armour",))])
    # gap 6 + 4 - 5 + 5 = 10 < 15; attack natural 1, then 3 off; defence 2
    calls, events, _ = _play(s, [{"type": "use", "option": "two_actions"},
                                 {"type": "attack", "target": "d", "weapon": "knife", "option": "called:gap"}],
                             [5, 1, 3, 2])
    gap, attack, crit, defence = calls
    assert (gap.check, gap.difficulty, gap.modifiers) == ("armour_gap", 15, (("two actions", -5),))
    assert gap.pool == "INT 6 + streetfighting 4 - 5 two actions + 1d10"
    assert (attack.check, attack.modifiers, attack.sides) == ("attack", (("two actions", -5),), (10,))
    assert attack.against == {"figure": "d", "what": "melee defence", "total": None}
    assert crit.follow_up and not attack.follow_up
    assert (crit.check, crit.purpose, crit.label) == ("attack", attack.purpose,
                                                     "attack with knife (called:gap) (critical failure)")
    assert (defence.roller, defence.check, defence.follow_up) == ("d", "melee_defence", False)
    att = _only([e for e in events if e["type"] == "roll" and e["check"] == "attack"])
    assert att["dice"] == [[10, 1], [10, 3]] and att["critical"] == "failure"
