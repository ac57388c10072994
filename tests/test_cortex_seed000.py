"""Forced-dice tests for the seed 000 special rules of the `cortex` ruleset.

tests/test_cortex_rules.py covers core combat (attacks, defences, movement, damage); this
file covers the rest of seed 000: Called Shots, burst and autofire (with Trigger Happy),
Cover and Explosions, Getting out of Harm's Way, Improvised Weapons, Tripping, the Unarmed
specialties and grappling, Plot Points, Second Wind, every trait of the seed (through
`ruleset.skill_check` where a trait has no battle rule), Vehicles and Spaceships, and
what `tactica rulesets --json` lists.

Each fight runs through `rules.replay.run_replay` with an inline scenario and
`initiative: fixed` (no initiative rolls). Replays are strict: each step's `dice` list is
exactly the rolls that step makes, so the lists pin down which rolls happen and in which
order (assumption roll_order: attack dice - attribute die, skill die, Plot Point die - then
the defence roll, the damage die, then any Endurance roll). A step that ends a turn also
rolls whatever the next turn starts with (called-shot recovery rolls).

Sources cited in docstrings: "seed 000, <heading>" is /work/shared/seeds/000_*.txt,
"RULES-NOTES" is the cortex section of /work/shared/RULES-NOTES.md and "assumption <key>"
an entry of the `assumptions` list in rules/systems/cortex/data.yaml.

Geometry: cells are 1.5 m (5 ft) unless a scenario says otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rules.actions import Action
from rules.dice import D2, D4, D6, D8, D10, D12, Dice, Step
from rules.errors import DiceError
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from rules.systems.cortex import vehicles

REPO = Path(__file__).resolve().parents[1]
REPLAYS = Path(__file__).parent / "replays" / "cortex_seed000"
RS = get_ruleset("cortex")


# ---------------------------------------------------------------------------------------
# helpers

def fig(id: str, at: tuple[int, int], agi: str = "d6", str_: str = "d6", vit: str = "d6",
        ale: str = "d6", int_: str = "d6", wil: str = "d6", skills: dict | None = None,
        weapons: tuple[str, ...] = (), **extra: Any) -> dict:
    """A full custom stat block placed at `at`."""
    return {"id": id, "at": list(at), "name": id,
            "attributes": {"agility": agi, "strength": str_, "vitality": vit, "alertness": ale,
                           "intelligence": int_, "willpower": wil},
            "skills": dict(skills or {}), "weapons": list(weapons), **extra}


def dummy(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """A target that declines innate defence (Easy 3) and has Life Points to spare."""
    kw.setdefault("decline_innate", "always")
    kw.setdefault("life_points", 99)
    return fig(id, at, **kw)


def scen(rows: list[str], a: list[dict], b: list[dict], *, cell_m: float | None = None,
         settings: dict | None = None, objects: list[dict] = (), legend: dict | None = None) -> dict:
    m: dict[str, Any] = {"rows": list(rows)}
    if cell_m is not None:
        m["cell_m"] = cell_m
    if legend:
        m["legend"] = legend
    return {"name": "test/cortex_seed000", "ruleset": "cortex", "initiative": "fixed",
            "map": m, "teams": [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}],
            "settings": dict(settings or {}), "objects": list(objects)}


def open_map(w: int = 12, h: int = 3) -> list[str]:
    return ["." * w] * h


def step(actor: str, action: Any, dice: list[int] = ()) -> dict:
    return {"actor": actor, "action": action, "dice": list(dice)}


def atk(actor: str, target: str, weapon: str, option: str | None = None, dice: list[int] = ()) -> dict:
    a = {"type": "attack", "target": target, "weapon": weapon}
    if option:
        a["option"] = option
    return step(actor, a, dice)


def end(actor: str, dice: list[int] = ()) -> dict:
    return step(actor, "end_turn", dice)


def act(actor: str, kind: str, dice: list[int] = (), **kw: Any) -> dict:
    return step(actor, {"type": kind, **kw}, dice)


def play(scenario: dict, steps: list[dict] = (), questions: str = "default"):
    """A strict replay: every step's dice must be used exactly. The choices the rules give a
    figure take their defaults unless `questions="ask"` (then they are steps)."""
    return run_replay({"scenario": scenario, "start_dice": [], "steps": list(steps), "questions": questions})


def play_loose(scenario: dict, steps: list[dict], forced: list[int], seed: int = 0):
    """Like `play`, but the forced results are not strict: rolls beyond them come from the
    seeded generator, so a rule that rolls the wrong number of dice fails an assertion
    instead of the dice script."""
    from rules.actions import Action as A
    from rules.scenario import load_scenario, new_battle

    spec, _ = load_scenario(scenario)
    dice = Dice(seed)
    battle = new_battle(spec, dice)
    battle.start()
    dice.force(forced)
    for st in steps:
        battle.step(A.from_dict(st["action"], battle.state.grid.width))
    return battle


def evs(b, type_: str, **match: Any) -> list[dict]:
    return [e for e in b.events if e["type"] == type_ and all(e.get(k) == v for k, v in match.items())]


def rolls(b, purpose: str, actor: str | None = None) -> list[dict]:
    return [e for e in b.events if e["type"] == "roll" and e["purpose"].startswith(purpose)
            and (actor is None or e["actor"] == actor)]


def sides(roll_event: dict) -> list[int]:
    return [s for s, _ in roll_event["dice"]]


def who(b, id: str):
    return b.state.by_id[id]


def pos(b, id: str) -> tuple[int, int]:
    return b.state.grid.xy(who(b, id).pos)


def cell(b, x: int, y: int) -> int:
    return b.state.grid.index(x, y)


def legal(b) -> list[Action]:
    return b.legal_actions()


def attacks_in(b, target: str | None = None) -> list[Action]:
    return [a for a in legal(b) if a.kind == "attack" and (target is None or a.target == target)]


def only(items: list) -> Any:
    assert len(items) == 1, items
    return items[0]


def effects(b, target: str) -> list[str]:
    return [e["effect"] for e in evs(b, "effect", target=target)]


def afflictions(b, id: str) -> list[tuple[str, str]]:
    return [(x["effect"], x["until"]) for x in who(b, id).res["afflictions"]]


def economy(b) -> dict:
    return b.ruleset.economy(b.state)


def max_move_cells(b, y: int = 1) -> int:
    """The farthest cell straight along row y the acting figure may move to now."""
    a = b.state.actor
    x0, _ = b.state.grid.xy(a.pos)
    best = 0
    for x in range(b.state.grid.width):
        if Action("move", cell=cell(b, x, y)) in legal(b):
            best = max(best, abs(x - x0))
    return best


def brawler(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """Strength d6 + Unarmed Combat d6 (both dice d6: easy forced sums)."""
    kw.setdefault("skills", {"unarmed_combat": "d6", "melee_weapons": "d6", "guns": "d6"})
    return fig(id, at, **kw)


# ---------------------------------------------------------------------------------------
# Called Shots

AREAS = {"arm": 4, "leg": 4, "head": 8, "groin": 8, "hand": 12, "kneecap": 12, "heart": 12}


@pytest.mark.parametrize("area,plus", sorted(AREAS.items()))
def test_called_shot_difficulty_by_area(area, plus):
    """seed 000, Called Shots: the area adds +4 (arm, leg), +8 (head, groin) or +12 (hand,
    kneecap, heart) to the Difficulty; one point short misses."""
    s = scen(open_map(), [fig("p", (0, 1), agi="d12", skills={"guns": "d12"}, weapons=("pistol",))],
             [dummy("t", (4, 1))])
    need = 3 + plus
    first = min(12, need - 2)
    b = play(s, [atk("p", "t", "pistol", f"called:{area}", [first, need - 1 - first])])
    a = only(evs(b, "attack"))
    assert a["result"] == "miss" and a["difficulty"] == need
    assert who(b, "t").res["afflictions"] == [] and who(b, "t").res["wound"] == 0


def test_called_shot_must_be_first_action_and_ends_the_actions():
    """assumption called_shot_single (seed 000, Called Shots: 'a called shot is a determined
    single attack. Extra actions ... cannot be called shots'): walking first keeps it; after
    another action no called shot is offered; after a called shot no more actions, but
    walking stays free."""
    called = Action("attack", "t", None, "pistol", "called:head")
    s = scen(open_map(), [brawler("p", (0, 1), weapons=("pistol",))], [dummy("t", (6, 1))])
    assert called in legal(play(s, []))
    assert called in legal(play(s, [act("p", "move", cell=[2, 1])]))      # a walk is free
    b = play(s, [atk("p", "t", "pistol", dice=[1, 1])])                      # a botched shot
    assert called not in legal(b) and attacks_in(b)
    # a called shot (a miss: 2 + 3 = 5 < 11) ends the turn's actions
    b = play(s, [atk("p", "t", "pistol", "called:head", [2, 3])])
    assert b.state.actor.id == "p"
    kinds = {a.kind for a in legal(b)}
    assert "attack" not in kinds and "defend" not in kinds and "reload" not in kinds
    assert Action("move", cell=cell(b, 3, 1)) in legal(b)        # a 15 ft walk
    assert Action("move", cell=cell(b, 4, 1)) not in legal(b)    # no hustle (an action)


def test_burst_and_autofire_cannot_be_called_shots():
    """seed 000, Called Shots: 'bursts, or autofire cannot be called shots' - no option
    combines them, and after a burst no called shot is offered."""
    s = scen(open_map(), [fig("p", (0, 1), agi="d8", skills={"guns": "d6"}, weapons=("smg",))],
             [dummy("t", (5, 1))])
    assert not [o for o in RS.supported_actions["attack"] if o.startswith("called:") and
                ("burst" in o or "auto" in o)]
    b = play(s, [atk("p", "t", "smg", "burst", [1, 1])])
    assert not [a for a in attacks_in(b) if (a.option or "").startswith("called:")]


def _arm_scene(column: str, n_attackers: int = 1) -> dict:
    """Attackers with bare hands (Stun column) or a pistol (Wound column) next to a target
    carrying a two-handed rifle and a pistol."""
    w = ("pistol",) if column == "wound" else ()
    a = [brawler(f"p{i}", (0, i), weapons=w) for i in range(n_attackers)]
    t = dummy("t", (1, 1), skills={"guns": "d6"}, weapons=("rifle", "pistol"))
    return scen(open_map(), a, [t])


def test_called_arm_stun_column_loses_the_arm_until_an_endurance_roll():
    """seed 000, Called Shots, Arm (Stun/Basic): the victim loses use of the limb until it
    succeeds on an Endurance roll (Hard 11, once a turn in its initiative order); assumption
    limbs: a lost arm rules out two-handed weapons (the rifle), not the pistol."""
    s = _arm_scene("stun")
    # bare hands: Strength d6 + Unarmed d6 = 4 + 3 = 7 vs Easy 3 + 4: hit by 0; d2 Stun -> 1
    hit = atk("p0", "t", "unarmed", "called:arm", [4, 3, 1])
    b = play(s, [hit, end("p0", [1, 2])])                 # t's recovery roll: 3 < 11
    assert only(evs(b, "attack"))["difficulty"] == 7
    assert afflictions(b, "t") == [("lose_arm", "endurance")]
    assert "arm_lost" in who(b, "t").conditions
    assert b.state.actor.id == "t"
    rec = only(rolls(b, "Endurance to recover"))
    assert sides(rec) == [6, 6] and rec["difficulty"] == 11
    weapons = {a.weapon for a in attacks_in(b)}
    assert "pistol" in weapons and "rifle" not in weapons
    assert economy(b)["arms_usable"] == 1 and economy(b)["actions_used"] == 0
    # the roll made: the arm works again at once
    b = play(s, [hit, end("p0", [6, 5])])
    assert afflictions(b, "t") == [] and "arm_lost" not in who(b, "t").conditions
    assert "rifle" in {a.weapon for a in attacks_in(b)}


def test_called_arm_wound_column_immediate_endurance_or_lost_until_medical():
    """seed 000, Called Shots, Arm (Wound): the victim must immediately make an Endurance
    roll or lose use of the limb until given medical treatment (assumption
    medical_treatment: the whole fight - no recovery rolls)."""
    s = _arm_scene("wound")
    # pistol: Agility d6 + Guns d6 = 7 vs 7; d6 Wound 2; immediate Endurance 2 + 3 = 5: failed
    b = play(s, [atk("p0", "t", "pistol", "called:arm", [4, 3, 2, 2, 3]), end("p0"), end("t"),
                 end("p0")])
    assert afflictions(b, "t") == [("lose_arm", "medical")]
    assert who(b, "t").res["wound"] == 2
    assert not rolls(b, "Endurance to recover")
    assert only(rolls(b, "Endurance vs called shot"))["difficulty"] == 11
    assert "rifle" not in {a.weapon for a in attacks_in(b)}
    # made (6 + 5 = 11): no effect
    b = play(s, [atk("p0", "t", "pistol", "called:arm", [4, 3, 2, 6, 5])])
    assert afflictions(b, "t") == [] and "arm_lost" not in who(b, "t").conditions


def test_both_arms_lost_no_attacks_or_blocks():
    """seed 000, Called Shots, Arm: incapacitated arms cannot attack or block (assumption
    limbs: with both lost, no weapons or fists); a dodge is still possible."""
    s = _arm_scene("stun", 2)
    b = play(s, [atk("p0", "t", "unarmed", "called:arm", [4, 3, 1]), end("p0"),
                 atk("p1", "t", "unarmed", "called:arm", [4, 3, 1]), end("p1", [1, 2])])
    assert b.state.actor.id == "t"
    assert economy(b)["arms_usable"] == 0
    assert attacks_in(b) == []
    assert Action("defend", option="block") not in legal(b)
    assert Action("defend", option="dodge") in legal(b)
    assert not [a for a in legal(b) if a.kind in ("grapple", "reload")]


@pytest.mark.parametrize("n_legs,run_cells", [(0, 9), (1, 4), (2, 2)])
def test_called_leg_each_lost_leg_halves_movement(n_legs, run_cells):
    """seed 000, Called Shots, Leg: each incapacitated leg reduces base speed by half
    (assumption leg_speed: walk, hustle and run; run 45 ft = 9 cells -> 4 -> 2)."""
    a = [brawler(f"p{i}", (0, i)) for i in range(2)]
    s = scen(open_map(14), a, [dummy("t", (1, 1))])
    steps = []
    for i in range(2):
        if i < n_legs:
            steps.append(atk(f"p{i}", "t", "unarmed", "called:leg", [4, 3, 1]))
        steps.append(end(f"p{i}", [1, 2] if (i == 1 and n_legs) else []))
    b = play(s, steps)
    assert b.state.actor.id == "t"
    assert [e for e, _ in afflictions(b, "t")] == ["lose_leg"] * n_legs
    assert max_move_cells(b) == run_cells
    if n_legs == 1:
        # walking is 7.5 ft: one cell is free, two cells are a hustle (one action)
        b1 = play(s, steps + [act("t", "move", cell=[2, 1])])
        assert economy(b1)["actions_used"] == 0
        b2 = play(s, steps + [act("t", "move", cell=[3, 1])])
        assert economy(b2)["actions_used"] == 1


def _ko_scene(weapons: tuple[str, ...] = (), armour: Any = None, **p_kw: Any) -> dict:
    """p (team a) and a target t with an ally u (team b), so a downed t does not end the fight."""
    t = dummy("t", (1, 1), weapons=("club",))
    if armour:
        t["armour"] = armour
    return scen(open_map(), [brawler("p", (0, 1), weapons=weapons, **p_kw)], [t, dummy("u", (11, 2))])


def test_called_head_stun_column_plus_two_steps_knocked_out_until_endurance():
    """seed 000, Called Shots, Head (Stun/Basic): the damage die is +2 steps (d2 -> d6) and
    the victim is knocked unconscious until it succeeds on an Endurance roll: one Hard (11)
    roll each turn in its initiative order, costing no action."""
    s = _ko_scene()
    hit = atk("p", "t", "unarmed", "called:head", [6, 5, 3])     # 11 vs 3 + 8; d6 damage 3
    b = play(s, [hit])
    assert only(evs(b, "attack"))["difficulty"] == 11
    assert sides(only(rolls(b, "damage"))) == [6]
    assert who(b, "t").res["stun"] == 3
    assert afflictions(b, "t") == [("knocked_out", "endurance")]
    assert who(b, "t").down and evs(b, "down", target="t")
    # failed recovery at t's turn: t is skipped, u acts; next round t tries again and wakes
    b = play(s, [hit, end("p", [1, 2]), end("u"), end("p", [6, 5])])
    assert [r["success"] for r in rolls(b, "Endurance to recover", "t")] == [False, True]
    assert b.state.actor.id == "t" and not who(b, "t").down
    assert economy(b)["actions_used"] == 0
    assert attacks_in(b, "p")


def test_called_head_wound_column_immediate_endurance_or_out_until_surgery():
    """seed 000, Called Shots, Head (Wound): +2 damage steps; the victim must immediately
    make an Endurance roll or be knocked unconscious until treated by surgery (assumption
    medical_treatment: the whole fight - no recovery rolls)."""
    s = _ko_scene(weapons=("knife",))
    # knife: Agility d6 + Melee Weapons d6 = 11; d2 +2 steps = d6 -> 2 Wound; Endurance 1 + 2 fails
    b = play(s, [atk("p", "t", "knife", "called:head", [6, 5, 2, 1, 2]), end("p"), end("u"),
                 end("p"), end("u"), end("p")])
    assert sides(only(rolls(b, "damage"))) == [6]
    assert afflictions(b, "t") == [("knocked_out", "surgery")]
    assert who(b, "t").down and b.state.round == 3
    assert not rolls(b, "Endurance to recover")
    b = play(s, [atk("p", "t", "knife", "called:head", [6, 5, 2, 6, 5])])
    assert afflictions(b, "t") == [] and not who(b, "t").down


def test_called_groin_impaired_minus_two_steps_and_half_speed():
    """seed 000, Called Shots, Groin: impaired (-2 step skill penalty to all actions, base
    speed reduced by half) until an Endurance roll."""
    t = dummy("t", (1, 1), skills={"unarmed_combat": "d6"})
    s = scen(open_map(14), [brawler("p", (0, 1), decline_innate="always")], [t])
    steps = [atk("p", "t", "unarmed", "called:groin", [6, 5, 1]), end("p", [1, 2])]
    b = play(s, steps)
    assert "impaired" in who(b, "t").conditions
    assert afflictions(b, "t") == [("impaired", "endurance")]
    assert max_move_cells(b) == 4
    b = play(s, steps + [atk("t", "p", "unarmed", dice=[1, 1])])   # Strength d6 + Unarmed d6 -2 = d2
    assert sides(only(rolls(b, "attack", "t"))) == [6, 2]


def test_called_hand_stun_column_drop_roll_hard_agility_willpower():
    """seed 000, Called Shots, Hand (Stun/Basic): the hand is lost until an Endurance roll
    and the victim must make a Hard Agility + Willpower roll or drop the object held
    (assumption held_object); a dropped object lies on the map."""
    s = _ko_scene(str_="d12")
    # Strength d12 + Unarmed d6 = 12 + 3 = 15 vs 3 + 12; d2 Stun 1; hold on: 1 + 2 = 3 < 11
    b = play(s, [atk("p", "t", "unarmed", "called:hand", [12, 3, 1, 1, 2])])
    hold = only(rolls(b, "keep hold"))
    assert hold["difficulty"] == 11 and hold["pool"] == "Agility d6 + Willpower d6"
    assert afflictions(b, "t") == [("lose_hand", "endurance")]
    assert b.state.objects == {who(b, "t").pos: ["club"]}
    assert "club" in who(b, "t").res["lost"]
    # 6 + 5 = 11: holds on
    b = play(s, [atk("p", "t", "unarmed", "called:hand", [12, 3, 1, 6, 5])])
    assert b.state.objects == {} and "club" not in who(b, "t").res["lost"]
    assert afflictions(b, "t") == [("lose_hand", "endurance")]


def test_called_hand_wound_column_drops_and_lost_until_surgery():
    """seed 000, Called Shots, Hand (Wound): an immediate Endurance roll or drop any object
    held and lose use of the hand until treated by surgery (no separate drop roll)."""
    s = _ko_scene(weapons=("knife",), agi="d12")
    b = play(s, [atk("p", "t", "knife", "called:hand", [12, 3, 1, 1, 2])])
    assert len(rolls(b, "keep hold")) == 0
    assert afflictions(b, "t") == [("lose_hand", "surgery")]
    assert b.state.objects == {who(b, "t").pos: ["club"]}


def test_called_kneecap_stun_column_prone_incapacitated_crawl_until_endurance():
    """seed 000, Called Shots, Kneecap (Stun/Basic): knocked prone, incapacitated (no
    actions) and crawling until an Endurance roll; once it is made the figure acts again
    (still prone: it must stand up)."""
    s = _ko_scene(str_="d12")
    hit = atk("p", "t", "unarmed", "called:kneecap", [12, 3, 1])
    b = play(s, [hit])
    t = who(b, "t")
    assert {"prone", "incapacitated", "crawl_only", "leg_lost"} <= t.conditions and t.down
    b = play(s, [hit, end("p", [1, 2]), end("u"), end("p", [6, 5])])
    assert b.state.actor.id == "t"
    t = who(b, "t")
    assert "incapacitated" not in t.conditions and "crawl_only" not in t.conditions
    assert "prone" in t.conditions and Action("stand") in legal(b)


def test_called_kneecap_wound_column_incapacitated_until_medical_leg_until_surgery():
    """seed 000, Called Shots, Kneecap (Wound): an immediate Endurance roll or knocked
    prone, incapacitated until given medical treatment, and the leg lost (a crawl) until
    treated by surgery."""
    s = _ko_scene(weapons=("knife",), agi="d12")
    b = play(s, [atk("p", "t", "knife", "called:kneecap", [12, 3, 1, 1, 2]), end("p"), end("u")])
    t = who(b, "t")
    assert {"prone", "incapacitated", "crawl_only", "leg_lost"} <= t.conditions
    assert sorted(afflictions(b, "t")) == [("incapacitated", "medical"), ("lose_leg", "surgery")]
    assert not rolls(b, "Endurance to recover")


def test_called_heart_stun_column_needs_an_electrical_weapon():
    """seed 000, Called Shots, Heart (Stun/Basic): no additional effect unless the attack
    is electrical (the stun baton): then the victim falls down, incapacitated until an
    Endurance roll."""
    s = _ko_scene(weapons=("stun_baton",), str_="d12")
    b = play(s, [atk("p", "t", "unarmed", "called:heart", [12, 3, 1])])
    assert afflictions(b, "t") == [] and "prone" not in who(b, "t").conditions
    b = play(s, [atk("p", "t", "stun_baton", "called:heart", [12, 3, 2])])
    assert afflictions(b, "t") == [("heart_stopped", "endurance")]
    assert {"prone", "incapacitated"} <= who(b, "t").conditions
    assert who(b, "t").res["stun"] == 2


def test_called_heart_wound_column_plus_four_steps_endurance_or_dead():
    """seed 000, Called Shots, Heart (Wound): the damage die is +4 steps (knife d2 -> d10)
    and the victim must immediately make an Endurance roll or fall dead."""
    s = _ko_scene(weapons=("knife",), agi="d12")
    b = play(s, [atk("p", "t", "knife", "called:heart", [12, 3, 7, 1, 2])])
    assert sides(only(rolls(b, "damage"))) == [10]
    assert who(b, "t").res["wound"] == 7
    assert who(b, "t").dead and evs(b, "dead", target="t")
    b = play(s, [atk("p", "t", "knife", "called:heart", [12, 3, 7, 6, 5])])
    assert not who(b, "t").dead and not who(b, "t").down


@pytest.mark.parametrize("area,armour,negated", [
    ("head", "combat_helmet", True),
    ("arm", "ballistic_mesh", True),
    ("leg", "ballistic_mesh", True),
    ("hand", "ballistic_mesh", True),
    ("kneecap", "ballistic_mesh", True),
    ("heart", "tactical_vest", True),
    ("heart", "ballistic_mesh", True),
    ("arm", "tactical_vest", False),      # a vest does not cover the limbs
    ("head", "ballistic_mesh", False),    # a body suit does not cover the head
    ("groin", "ballistic_mesh", False),   # no armour covers the groin
])
def test_called_shot_armour_on_the_area_negates_the_effect(area, armour, negated):
    """seed 000, Called Shots: body armour negates the special effects of a called shot to
    covered areas (a helmet the head, a body suit the limbs, a vest or body suit the
    heart)."""
    s = _ko_scene(weapons=("stun_baton",), str_="d12", armour=armour)
    need = 3 + AREAS[area]       # Strength d12 + Melee d6 hit exactly: margin 0
    dice = [min(12, need - 1), need - min(12, need - 1), 1] + ([1, 2] if area == "hand" and not negated else [])
    b = play(s, [atk("p", "t", "stun_baton", f"called:{area}", dice)])
    assert only(evs(b, "attack"))["result"] == "hit"
    negates = [e for e in effects(b, "t") if e.startswith("armour negates")]
    assert bool(negates) == negated
    assert (afflictions(b, "t") == []) == negated


def test_extraordinary_called_shot_bypasses_covering_armour():
    """seed 000, Called Shots: armour negates the effect 'unless the attacker scores an
    extraordinary success that bypasses the body armor' (beat the Difficulty by 7)."""
    s = _ko_scene(str_="d12", armour="combat_helmet")
    # 12 + 6 = 18 vs 3 + 8 = 11: by 7, extraordinary; d6 Stun 4 passes the helmet whole
    b = play(s, [atk("p", "t", "unarmed", "called:head", [12, 6, 4])])
    assert only(evs(b, "attack"))["result"] == "extraordinary hit"
    assert afflictions(b, "t") == [("knocked_out", "endurance")]
    assert who(b, "t").res["stun"] == 7 + 4 - 3   # Basic 7 (4 Stun + 3 Wound) + 4 Stun
    # by 6: the helmet negates it
    b = play(s, [atk("p", "t", "unarmed", "called:head", [12, 5, 4])])
    assert afflictions(b, "t") == []


# ---------------------------------------------------------------------------------------
# Burst and autofire (assumption fire_modes) and Trigger Happy

def _gunner(traits: tuple = (), weapons: tuple = ("smg", "pistol")) -> dict:
    p = fig("p", (0, 1), agi="d8", skills={"guns": "d6", "guns/submachine_guns": "d8", "guns/pistols": "d8"},
            weapons=weapons, traits=list(traits))
    return scen(open_map(), [p], [dummy("t", (5, 1))])


def test_burst_three_rounds_plus_one_step_attack_and_damage():
    """assumption fire_modes (seed 000 names bursts, p. 154): a burst uses 3 rounds, +1
    step on the attack (skill die d8 -> d10) and +1 step on the damage die (d6 -> d8)."""
    b = play(_gunner(), [atk("p", "t", "smg", "burst", [2, 3, 7])])
    assert sides(only(rolls(b, "attack"))) == [8, 10]
    assert sides(only(rolls(b, "damage"))) == [8]
    assert who(b, "p").res["ammo"]["smg"] == 27
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (1, 1 + 7)   # Basic 2 + d8 W
    assert economy(b)["actions_used"] == 1


def test_autofire_ten_rounds_plus_two_steps_uses_the_whole_rate_of_fire():
    """assumption fire_modes: autofire uses 10 rounds, +2 steps attack (d8 -> d12) and
    damage (d6 -> d10), and the weapon's whole rate of fire: no more shots with it this
    turn (other weapons still may)."""
    b = play(_gunner(), [atk("p", "t", "smg", "autofire", [2, 3, 9])])
    assert sides(only(rolls(b, "attack"))) == [8, 12]
    assert sides(only(rolls(b, "damage"))) == [10]
    assert who(b, "p").res["ammo"]["smg"] == 20
    assert not [a for a in attacks_in(b) if a.weapon == "smg"]
    assert [a for a in attacks_in(b) if a.weapon == "pistol"]


def test_autofire_needs_no_earlier_shot_this_turn():
    """assumption fire_modes: autofire takes the whole rate of fire, so not after a shot
    with the same weapon this turn (a burst still may follow)."""
    b = play(_gunner(), [atk("p", "t", "smg", dice=[1, 1])])
    opts = {a.option for a in attacks_in(b) if a.weapon == "smg"}
    assert "autofire" not in opts and "burst" in opts and None in opts
    assert "autofire" in {a.option for a in attacks_in(play(_gunner(), [])) if a.weapon == "smg"}


def test_autofire_needs_ten_rounds():
    """assumption fire_modes: autofire needs its 10 rounds in the magazine."""
    steps = []
    for r in range(3):
        steps += [atk("p", "t", "smg", "autofire", [1, 1]), end("p"), end("t")]
    b = play(_gunner(), steps[:-2])
    assert who(b, "p").res["ammo"]["smg"] == 0
    b = play(_gunner(), steps[:3] + [atk("p", "t", "smg", "burst", [1, 1]), end("p"), end("t")]
             + [atk("p", "t", "smg", "burst", [1, 1])])   # 30 - 10 - 3 - 3 = 14 left
    assert who(b, "p").res["ammo"]["smg"] == 14
    b = play(_gunner(), steps[:3] + [atk("p", "t", "smg", "autofire", [1, 1]), end("p"), end("t"),
                                     atk("p", "t", "smg", "burst", [1, 1]), end("p"), end("t")])
    assert who(b, "p").res["ammo"]["smg"] == 7
    assert "autofire" not in {a.option for a in attacks_in(b) if a.weapon == "smg"}
    assert "burst" in {a.option for a in attacks_in(b) if a.weapon == "smg"}


@pytest.mark.parametrize("mode,rounds", [("burst", 5), ("autofire", 15)])
def test_trigger_happy_burst_and_autofire_use_half_again(mode, rounds):
    """seed 000, Trigger Happy: half again (rounded up) more bullets for a burst or
    autofire (assumption trigger_happy: 3 -> 5, 10 -> 15), with no extra benefit."""
    b = play(_gunner(("trigger_happy",)), [atk("p", "t", "smg", mode, [1, 1])])
    assert who(b, "p").res["ammo"]["smg"] == 30 - rounds
    plain = play(_gunner(("trigger_happy",)), [atk("p", "t", "smg", mode, [4, 5, 3])])
    normal = play(_gunner(), [atk("p", "t", "smg", mode, [4, 5, 3])])
    assert sides(only(rolls(plain, "attack"))) == sides(only(rolls(normal, "attack")))
    assert who(plain, "t").res["wound"] == who(normal, "t").res["wound"]


def test_trigger_happy_second_single_shot_wastes_a_round():
    """seed 000, Trigger Happy: more than one single-shot attack in a turn wastes an extra
    bullet (assumption trigger_happy: each shot after the first uses 2 rounds); a figure
    without the trait uses 1 a shot."""
    shots = [atk("p", "t", "pistol", dice=[1, 1]) for _ in range(3)]
    b = play(_gunner(("trigger_happy",)), shots[:1])
    assert who(b, "p").res["ammo"]["pistol"] == 14
    b = play(_gunner(("trigger_happy",)), shots)
    assert who(b, "p").res["ammo"]["pistol"] == 15 - 1 - 2 - 2
    b = play(_gunner(), shots)
    assert who(b, "p").res["ammo"]["pistol"] == 12
    # next turn the first shot is a single round again
    b = play(_gunner(("trigger_happy",)), shots[:2] + [end("p"), end("t")] + shots[:1])
    assert who(b, "p").res["ammo"]["pistol"] == 15 - 3 - 1


# ---------------------------------------------------------------------------------------
# Cover and Explosions (assumptions grenades, blast_cover, cover_destruction)

def _thrower(at=(0, 2), **kw) -> dict:
    return fig("g", at, agi="d8", skills={"athletics": "d6", "athletics/throwing": "d8"},
               weapons=("frag_grenade",), **kw)


def _blast_rolls(b) -> dict[str, list[int]]:
    return {r["actor"]: sides(r) for r in rolls(b, "blast damage")}


def test_grenade_throw_at_average_hits_the_spot_full_blast_on_failed_harms_way():
    """assumption grenades: a frag grenade is thrown with Agility + Athletics/Throwing at
    Average (7) for the target's spot, whatever its defence; the blast is 4d6 Wound within
    10 ft. seed 000, Getting out of Harm's Way: a failed roll takes the full blast."""
    s = scen(open_map(12, 5), [_thrower()], [fig("t", (5, 2), agi="d12", life_points=99)])
    # throw 4 + 3 = 7: on the spot. t: harm's way 1 + 2 = 3 < 7; blast 1 + 2 + 3 + 4 = 10 Wound
    b = play(s, [atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2, 1, 2, 3, 4])])
    throw = only(rolls(b, "throw"))
    assert throw["difficulty"] == 7 and throw["pool"] == "Agility d8 + Athletics/Throwing d8"
    assert only(evs(b, "attack"))["lands"] == [5, 2]
    assert not rolls(b, "innate defence")
    assert _blast_rolls(b) == {"t": [6, 6, 6, 6]}
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (0, 10)
    assert pos(b, "t") == (5, 2) and "prone" not in who(b, "t").conditions
    assert who(b, "g").res["uses"]["frag_grenade"] == 1
    # one point short (6): it lands 5 ft off in the d8 direction (3 = east)
    b = play(s, [atk("g", "t", "frag_grenade", dice=[3, 3, 3, 1, 2, 1, 2, 3, 4])])
    assert only(rolls(b, "scatter direction"))["dice"] == [[8, 3]]
    assert only(evs(b, "attack"))["lands"] == [6, 2]


@pytest.mark.parametrize("throw,direction,lands", [
    ([3, 3], 1, (5, 1)),     # short by 1: 5 ft north
    ([2, 1], 5, (5, 3)),     # short by 4: 5 ft south
    ([1, 1], 7, (3, 2)),     # a botch: at least 4 short, here 5: 10 ft west
    ([3, 3], 6, (4, 3)),     # south-west
])
def test_grenade_scatter_on_a_miss(throw, direction, lands):
    """assumption grenades: a miss lands 5 ft off per 4 points short (at least 5 ft), in a
    d8 direction (1 = north, clockwise)."""
    s = scen(open_map(12, 5), [_thrower()], [dummy("t", (5, 2)), dummy("far", (11, 0))])
    b = play(s, [atk("g", "t", "frag_grenade", dice=throw + [direction, 1, 2, 1, 1, 1, 1])])
    assert tuple(only(evs(b, "attack"))["lands"]) == lands
    assert only(evs(b, "attack"))["result"] == "miss"


@pytest.mark.parametrize("ch,n_dice,destroyed", [
    ("l", 3, True),     # light: 1 die off; sturdiness 1 < 4 dice: destroyed
    ("m", 2, True),     # medium: 2 dice off; sturdiness 2 < 4
    ("h", 1, False),    # heavy: 3 dice off; sturdiness 4 is not exceeded
    ("T", 0, False),    # total: never destroyed
])
def test_blast_dice_reduced_by_cover_and_cover_destroyed(ch, n_dice, destroyed):
    """seed 000, Cover and Explosions: 1 die of damage is removed per degree of cover
    against the blast (assumption blast_cover); assumption cover_destruction: a sheltering
    cover object is destroyed when the blast's dice exceed its sturdiness and becomes
    difficult ground (',' in state.grid). Map with 1 m cells: the blast reaches 3 cells."""
    rows = ["..........", "..........", "......" + ch + "...", "..........", ".........."]
    s = scen(rows, [_thrower()], [dummy("t", (4, 2)), dummy("v", (7, 2))], cell_m=1.0)
    dice = [4, 3, 1, 2, 1, 1, 1, 1, 1, 2] + [1] * n_dice
    b = play(s, [atk("g", "t", "frag_grenade", dice=dice)])
    assert _blast_rolls(b) == {"t": [6] * 4, "v": [6] * n_dice}
    assert who(b, "v").res["wound"] == n_dice
    assert (b.state.grid.rows[2][6] == ",") == destroyed
    if destroyed:
        assert b.state.grid.terrain[cell(b, 6, 2)].difficult
        assert b.state.grid.cover_level[cell(b, 6, 2)] == 0


def test_blast_cover_counts_on_the_default_map():
    """seed 000, Cover and Explosions: 'If a character caught by an explosion is behind
    solid cover, 1 die of damage is removed for each degree of cover' - also on the usual
    1.5 m map, where the blast (10 ft) reaches 2 cells and any cover between a figure and
    the blast centre is next to the centre."""
    rows = ["............", "............", "......l.....", "............", "............"]
    s = scen(rows, [_thrower()], [dummy("t", (5, 2)), dummy("v", (7, 2))])
    # throw 7; t fails harm's way, 4d6; v fails harm's way, light cover: 3d6 (forced loosely,
    # so a wrong number of dice fails the assertion, not the dice script)
    b = play_loose(s, [atk("g", "t", "frag_grenade")], [4, 3, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1])
    assert _blast_rolls(b) == {"t": [6] * 4, "v": [6] * 3}
    assert b.state.grid.rows[2][6] == ","


@pytest.mark.parametrize("at,n_dice", [((3, 2), 2), ((4, 2), 4)])
def test_prone_face_down_removes_two_dice_unless_right_by_the_blast(at, n_dice):
    """seed 000, Cover and Explosions: lying face-down prone removes 2 dice of damage,
    unless you are right by the blast source (within 5 ft: explosives.prone_no_help_within_ft)."""
    s = scen(open_map(12, 5), [fig("w", at, life_points=99), _thrower((0, 0))], [dummy("t", (5, 2))])
    b = play(s, [act("w", "drop_prone"), end("w"),
                 atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2] + [1] * n_dice + [1, 2, 1, 1, 1, 1])])
    assert _blast_rolls(b)["w"] == [6] * n_dice
    assert only(rolls(b, "blast damage", "w"))["prone"] is True


def test_grenades_one_a_turn_two_in_all_and_never_a_called_shot():
    """assumption grenades / data.yaml frag_grenade: one throw a turn (rate of fire 1), two
    grenades carried; seed 000, Called Shots: only determined single attacks are called
    shots - no called throw."""
    s = scen(["." * 12] * 5, [_thrower()], [dummy("t", (5, 2)), dummy("far", (11, 0))])
    throw = atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2, 1, 1, 1, 1])
    assert not [a for a in attacks_in(play(s)) if (a.option or "").startswith("called:")]
    b = play(s, [throw])
    assert not [a for a in attacks_in(b) if a.weapon == "frag_grenade"]
    b = play(s, [throw, end("g"), end("t"), end("far"), throw])
    assert who(b, "g").res["uses"]["frag_grenade"] == 0
    b = play(s, [throw, end("g"), end("t"), end("far"), throw, end("g"), end("t"), end("far")])
    assert b.state.actor.id == "g" and not [a for a in attacks_in(b) if a.weapon == "frag_grenade"]


# ---------------------------------------------------------------------------------------
# Getting out of Harm's Way (assumptions harms_way_reaction, harms_way_prone)

def _corridor(t_x: int = 5, traits: tuple = (), **kw) -> dict:
    """A one-row corridor: the thrower at x=0, the target at t_x."""
    return scen(["." * 12], [_thrower((0, 0))],
                [fig("t", (t_x, 0), life_points=99, traits=list(traits), **kw), dummy("far", (11, 0))])


def test_harms_way_success_leaps_five_feet_still_by_the_blast():
    """seed 000, Getting out of Harm's Way: Agility + Alertness at Average (7); on a success
    the figure moves 5 ft away - here still right by the blast (within 5 ft), so it does not
    dive (assumption harms_way_prone) and takes the blast."""
    b = play(_corridor(), [atk("g", "t", "frag_grenade", dice=[4, 3, 4, 3, 1, 1, 1, 1])])
    hw = only(rolls(b, "get out of harm's way"))
    assert hw["pool"] == "Agility d6 + Alertness d6" and hw["difficulty"] == 7 and hw["success"]
    assert pos(b, "t") == (4, 0)
    assert only(evs(b, "move", actor="t"))["mode"] == "leap"
    assert "prone" not in who(b, "t").conditions
    assert _blast_rolls(b) == {"t": [6] * 4}


def test_harms_way_extraordinary_leaps_ten_feet_and_dives_prone():
    """seed 000, Getting out of Harm's Way: 10 ft on an extraordinary success (7 over);
    still in the blast and not right by it, the figure falls prone: 2 dice fewer."""
    s = _corridor(agi="d8", ale="d8")
    b = play(s, [atk("g", "t", "frag_grenade", dice=[4, 3, 8, 6, 1, 1])])     # 14 = 7 + 7
    assert pos(b, "t") == (3, 0)
    assert "prone" in who(b, "t").conditions
    assert _blast_rolls(b) == {"t": [6, 6]}


def test_harms_way_success_out_of_the_blast_takes_nothing():
    """seed 000, Getting out of Harm's Way: a figure at the blast's edge (10 ft) leaps 5 ft
    clear and takes no damage."""
    s = scen(["." * 12], [_thrower((0, 0))], [dummy("t", (5, 0)), fig("v", (7, 0), life_points=99)])
    # on the spot; t fails (4d6); v makes it (4 + 3) and lands 15 ft from the centre
    b = play(s, [atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2, 1, 1, 1, 1, 4, 3])])
    assert pos(b, "v") == (8, 0)
    assert _blast_rolls(b) == {"t": [6] * 4} and who(b, "v").res["wound"] == 0
    assert "prone" not in who(b, "v").conditions


def test_harms_way_costs_the_next_turns_first_action():
    """seed 000, Getting out of Harm's Way: it costs 1 action, like dodging (assumption
    harms_way_reaction: taken from the figure's next turn) - made or failed."""
    for hw in ([4, 3], [1, 2]):
        dice = [4, 3] + hw + [1] * (4 if hw == [1, 2] else 4)
        b = play(_corridor(), [atk("g", "t", "frag_grenade", dice=dice)])
        assert who(b, "t").res["reaction_debt"] == 1
        b = play(_corridor(), [atk("g", "t", "frag_grenade", dice=dice), end("g")])
        assert b.state.actor.id == "t"
        assert economy(b)["actions_used"] == 1 and who(b, "t").res["reaction_debt"] == 0


def test_incapacitated_figure_cannot_get_out_of_harms_way():
    """seed 000, Called Shots, Kneecap: incapacitated 'can take no actions' - so no leap
    out of harm's way (assumption harms_way_reaction: only a figure able to act)."""
    p = fig("p", (0, 0), agi="d12", skills={"guns": "d6"}, weapons=("pistol",))
    s = scen(open_map(12, 5), [p, _thrower((0, 4))], [dummy("t", (6, 2)), dummy("u", (8, 2))])
    # kneecap with a pistol: 12 + 3 = 15 vs 3 + 12; d6 Wound 1; Endurance 1 + 2 fails
    # the grenade lands on u, 10 ft from t: t (prone) rolls no harm's way; u fails its roll
    b = play(s, [atk("p", "t", "pistol", "called:kneecap", [12, 3, 1, 1, 2]), end("p"),
                 atk("g", "u", "frag_grenade", dice=[4, 3, 1, 1, 1, 2, 1, 1, 1, 1])])
    assert "incapacitated" in who(b, "t").conditions
    assert [r["actor"] for r in rolls(b, "get out of harm's way")] == ["u"]
    assert _blast_rolls(b) == {"t": [6] * 2, "u": [6] * 4}


def test_harms_way_action_still_owed_after_waking_from_a_knockout():
    """seed 000, Getting out of Harm's Way costs 1 action (assumption harms_way_reaction:
    taken from the figure's next turn); seed 000, Called Shots: the recovery roll costs no
    action. A figure that leapt, was then knocked out by a punch to the head and wakes at
    its turn still owes the action: its turn starts with one action used."""
    s = scen(open_map(12, 5), [_thrower((0, 0)), brawler("p", (8, 2))],
             [dummy("t", (7, 2)), dummy("u", (5, 2))])
    # the grenade lands on u; u and t (10 ft off) both fail harm's way (4d6 each)
    b = play(s, [atk("g", "u", "frag_grenade", dice=[4, 3, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]), end("g"),
                 atk("p", "t", "unarmed", "called:head", [6, 5, 3]), end("p", [6, 5])])
    assert only(rolls(b, "Endurance to recover", "t"))["success"]
    assert b.state.actor.id == "t"
    assert economy(b)["actions_used"] == 1


@pytest.mark.parametrize("traits,pool", [
    ((), "Agility d6 + Alertness d6"),
    (("clumsy",), "Agility d2 + Alertness d6"),
    (("slow_reflexes",), "Agility d6 + Alertness d4"),
    (("clumsy", "slow_reflexes"), "Agility d2 + Alertness d4"),
])
def test_harms_way_clumsy_and_slow_reflexes(traits, pool):
    """seed 000, Clumsy: -2 steps to Agility or Alertness, applied to Get Out of Harm's Way;
    Slow Reflexes: -1 step to Alertness on rolls to Get Out of Harm's Way."""
    b = play(_corridor(traits=traits), [atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2, 1, 1, 1, 1])])
    assert only(rolls(b, "get out of harm's way"))["pool"] == pool


# ---------------------------------------------------------------------------------------
# Melee Combat, Improvised Weapons (assumptions improvised_skill, improvised_break, pick_up)

SEED_IMPROVISED = {   # seed 000 table: penalty, chance of breaking, damage, after breaking
    "bottle_glass": (-1, 0.50, "d2", "S", "broken_bottle"),
    "chair_wood": (-3, 0.25, "d6", "B", "chair_leg"),
    "chair_metal": (-3, 0.10, "d6", "B", "metal_implement"),
    "chair_leg": (-2, 0.0, "d4", "B", None),
    "heavy_object": (-4, 0.10, "d8", "B", None),
    "metal_implement": (-1, 0.0, "d2", "B", None),
    "pool_stick": (-1, 0.50, "d2", "S", None),
    "pottery_small": (-2, 0.75, "d4", "B", None),
    "pottery_large": (-3, 0.75, "d4", "B", None),
}


@pytest.mark.parametrize("name", sorted(SEED_IMPROVISED))
def test_improvised_weapon_table_matches_the_seed(name):
    """seed 000, Melee Combat, Improvised Weapons: the table's skill penalty, chance of
    breaking, damage before and after breaking (broken bottle: d2 W)."""
    pen, chance, dmg, dtype, broken = SEED_IMPROVISED[name]
    w = RS.weapons[name]
    assert w.x("improvised") and w.x("penalty") == pen and w.x("break") == chance
    assert w.damage == Step.parse(dmg) and w.dtype == dtype
    assert w.x("broken") == broken
    if broken:
        assert broken in RS.weapons
    bb = RS.weapons["broken_bottle"]
    assert (bb.damage, bb.dtype) == (D2, "W")


@pytest.mark.parametrize("name,skill_sides", [
    ("bottle_glass", [6]), ("chair_wood", [2]), ("chair_metal", [2]), ("chair_leg", [4]),
    ("heavy_object", []), ("metal_implement", [6]), ("pool_stick", [6]), ("pottery_small", [4]),
    ("pottery_large", [2]),
])
def test_improvised_weapon_skill_penalty_on_the_attack(name, skill_sides):
    """seed 000, Improvised Weapons: the object's skill penalty steps the Melee Weapons die
    (d8) down: -1 d6, -2 d4, -3 d2, -4 none."""
    p = fig("p", (0, 1), str_="d6", skills={"melee_weapons": "d8"}, items=[name])
    s = scen(open_map(), [p], [fig("t", (1, 1), agi="d12", decline_innate="never")])
    dice = [2] + ([1] if skill_sides else []) + [12]        # a plain miss: no breaking roll
    b = play(s, [atk("p", "t", name, dice=dice)])
    assert sides(only(rolls(b, "attack"))) == [6] + skill_sides
    assert not rolls(b, f"{name} breaks")


def test_improvised_weapon_uses_brawling_when_better():
    """seed 000, Melee Combat, Unarmed: Brawling can be used to attack with improvised
    weapons (assumption improvised_skill: the better of Melee Weapons and Brawling)."""
    p = fig("p", (0, 1), skills={"melee_weapons": "d4", "unarmed_combat": "d4",
                                 "unarmed_combat/brawling": "d10"}, items=["bottle_glass"])
    s = scen(open_map(), [p], [fig("t", (1, 1), agi="d12", decline_innate="never")])
    b = play(s, [atk("p", "t", "bottle_glass", dice=[2, 1, 12])])
    r = only(rolls(b, "attack"))
    assert sides(r) == [6, 8] and "Brawling" in r["pool"]


def test_improvised_weapon_suited_attack_one_step_less_pool_stick_trip():
    """seed 000, Improvised Weapons: an attack particularly suited to the object's form
    reduces the skill penalty by 1 step (a pool stick used for a trip: -1 -> none)."""
    p = fig("p", (0, 1), agi="d6", skills={"melee_weapons": "d8"}, items=["pool_stick"])
    s = scen(open_map(), [p], [fig("t", (1, 1), agi="d12", decline_innate="never")])
    b = play(s, [atk("p", "t", "pool_stick", "trip", [2, 1, 12])])
    assert sides(only(rolls(b, "attack"))) == [6, 8]
    b = play(s, [atk("p", "t", "pool_stick", dice=[2, 1, 12])])
    assert sides(only(rolls(b, "attack"))) == [6, 6]


def _bottle_fight(items=("bottle_glass",), t_at=(1, 1), **kw) -> dict:
    p = fig("p", (0, 1), skills={"melee_weapons": "d6", "ranged_weapons": "d8"}, items=list(items), **kw)
    return scen(open_map(), [p], [dummy("t", t_at)])


def test_bottle_breaks_after_a_hit_into_a_broken_bottle_d2_wound():
    """seed 000, Improvised Weapons: breaking is checked after a hit (assumption
    improvised_break: d100 at or under the chance, 50 for a glass bottle); a broken glass
    bottle does d2 Wound."""
    # 3 + 2 = 5 vs 3; d2 Stun 1; d100 50: breaks
    b = play(_bottle_fight(), [atk("p", "t", "bottle_glass", dice=[3, 2, 1, 50])])
    brk = only(rolls(b, "bottle_glass breaks"))
    assert brk["dice"] == [[100, 50]]
    assert {a.weapon for a in attacks_in(b)} == {"broken_bottle", "unarmed"}
    assert who(b, "p").res["held"] == "broken_bottle"
    b = play(_bottle_fight(), [atk("p", "t", "bottle_glass", dice=[3, 2, 1, 50]),
                               atk("p", "t", "broken_bottle", dice=[3, 1, 2])])
    assert not rolls(b, "broken_bottle breaks")
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (1 + 1 + 1, 1 + 0 + 2)
    # 51: it holds
    b = play(_bottle_fight(), [atk("p", "t", "bottle_glass", dice=[3, 2, 1, 51])])
    assert "bottle_glass" in {a.weapon for a in attacks_in(b)}


def test_improvised_weapon_breaks_on_a_botched_attack_not_on_a_miss():
    """seed 000, Improvised Weapons: the breaking check follows a hit or a botched attack
    roll - not an ordinary miss; objects with no chance (chair leg) never roll."""
    b = play(_bottle_fight(), [atk("p", "t", "bottle_glass", dice=[1, 1, 40])])
    assert only(evs(b, "attack"))["result"] == "miss"
    assert "broken_bottle" in {a.weapon for a in attacks_in(b)}
    s = scen(open_map(), [fig("p", (0, 1), skills={"melee_weapons": "d6"}, items=["bottle_glass"])],
             [fig("t", (1, 1), agi="d12", decline_innate="never")])
    b = play(s, [atk("p", "t", "bottle_glass", dice=[2, 1, 12])])
    assert not rolls(b, "bottle_glass breaks")
    b = play(_bottle_fight(("chair_leg",)), [atk("p", "t", "chair_leg", dice=[3, 2, 1])])
    assert not rolls(b, "chair_leg breaks")


def test_heavy_object_breaks_to_nothing():
    """seed 000, Improvised Weapons: a heavy object that breaks leaves nothing to fight with
    (damage after breaking: 0)."""
    b = play(_bottle_fight(("heavy_object",), str_="d12"),
             [atk("p", "t", "heavy_object", dice=[5, 1, 10])])   # d6 -4 steps: Strength d10 alone
    assert sides(only(rolls(b, "attack"))) == [10]
    assert only(rolls(b, "heavy_object breaks"))["total"] == 10
    assert {a.weapon for a in attacks_in(b)} == {"unarmed"}


def test_pick_up_an_object_from_the_map_costs_an_action():
    """assumption pick_up (seed 000, Improvised Weapons: objects lying around): picking up
    an object from the figure's cell or a next cell is one action; then it can be used."""
    p = fig("p", (0, 1), skills={"melee_weapons": "d6"})
    s = scen(open_map(), [p], [dummy("t", (1, 2))], objects=[{"item": "chair_leg", "at": [1, 1]},
                                                             {"item": "bottle_glass", "at": [5, 1]}])
    b = play(s, [])
    picks = [a for a in legal(b) if a.kind == "pick_up"]
    assert picks == [Action("pick_up", cell=cell(b, 1, 1), weapon="chair_leg")]
    b = play(s, [act("p", "pick_up", cell=[1, 1], weapon="chair_leg")])
    assert economy(b)["actions_used"] == 1
    assert b.state.objects == {cell(b, 5, 1): ["bottle_glass"]}
    assert Action("attack", "t", None, "chair_leg") in legal(b)
    b = play(s, [act("p", "pick_up", cell=[1, 1], weapon="chair_leg"), atk("p", "t", "chair_leg", dice=[3, 1])])
    assert sides(only(rolls(b, "attack"))) == [6]     # d6 -2 (chair leg) -1 (second action): none


def test_thrown_improvised_object_uses_ranged_weapons_and_lands_by_the_target():
    """seed 000, Improvised Weapons: a thrown object uses the Ranged Weapons general skill
    (option 'throw'); it lands on the target's cell and the thrower no longer has it."""
    s = _bottle_fight(t_at=(2, 1))
    b = play(s, [])
    assert Action("attack", "t", None, "bottle_glass", "throw") in legal(b)
    b = play(s, [atk("p", "t", "bottle_glass", "throw", [3, 3, 1, 51])])
    r = only(rolls(b, "attack"))
    assert "Ranged Weapons" in r["pool"] and sides(r)[1] == 6       # d8, -1 step
    assert b.state.objects == {who(b, "t").pos: ["bottle_glass"]}
    assert "bottle_glass" not in {w.name for w in RS.weapons_of(who(b, "p"))}
    # adjacent: no throw
    b = play(_bottle_fight(), [])
    assert not [a for a in legal(b) if a.option == "throw"]


def test_thrown_object_is_a_ranged_attack_rolled_with_agility():
    """seed 000, Attributes for Attacking: Agility is rolled for ranged attacks - a thrown
    object (Ranged Weapons skill, ranged defence) included."""
    b = play(_bottle_fight(t_at=(2, 1), agi="d10", str_="d4"), [atk("p", "t", "bottle_glass", "throw", [3, 3, 1, 51])])
    r = only(rolls(b, "attack"))
    assert r["pool"].startswith("Agility d10"), r["pool"]


def test_thrown_bottle_that_breaks_does_not_come_back_whole():
    """seed 000, Improvised Weapons: a thrown bottle that breaks on the hit is gone: the
    thrower is not left holding a broken bottle, no whole bottle lands on the map, and the
    thrower's second bottle is untouched."""
    s = _bottle_fight(items=("bottle_glass", "bottle_glass"), t_at=(2, 1))
    b = play(s, [atk("p", "t", "bottle_glass", "throw", [3, 3, 1, 20])])
    mine = [w.name for w in RS.weapons_of(who(b, "p"))]
    assert "broken_bottle" not in mine
    assert "bottle_glass" in mine                       # the other bottle
    assert "bottle_glass" not in b.state.objects.get(who(b, "t").pos, [])


# ---------------------------------------------------------------------------------------
# Melee Combat, Tripping (assumptions trip_ties, trip_weapon_drop)

def _trip_scene(weapons: tuple = (), **t_kw) -> dict:
    p = fig("p", (0, 1), agi="d6", str_="d6", skills={"unarmed_combat": "d6", "melee_weapons": "d6"},
            weapons=weapons)
    return scen(open_map(), [p], [dummy("t", (1, 1), **t_kw)])


def test_trip_to_hit_agility_plus_unarmed_then_opposed_agility_strength():
    """seed 000, Melee Combat, Tripping: Agility + Unarmed Combat to hit; then opposed
    Agility + Strength rolls; the attacker winning knocks the defender prone. No damage."""
    b = play(_trip_scene(), [atk("p", "t", "unarmed", "trip", [2, 2, 4, 4, 3, 3])])
    hit = only(rolls(b, "attack"))
    assert hit["pool"].startswith("Agility d6") and "Unarmed" in hit["pool"]
    mine, theirs = only(rolls(b, "trip (opposed)")), only(rolls(b, "resist trip"))
    assert mine["pool"] == theirs["pool"] == "Agility d6 + Strength d6"
    assert "prone" in who(b, "t").conditions and "prone" not in who(b, "p").conditions
    assert not rolls(b, "damage") and who(b, "t").res["stun"] == 0


@pytest.mark.parametrize("opposed,t_prone,p_prone", [
    ([3, 3, 3, 3], False, False),    # a tie: both stand (assumption trip_ties)
    ([1, 2, 5, 4], False, False),    # the defender wins by 6
    ([1, 2, 6, 4], False, True),     # the defender wins by 7: extraordinary, the attacker falls
])
def test_trip_ties_and_defenders_extraordinary_success(opposed, t_prone, p_prone):
    """seed 000, Tripping: the attacker must win the opposed roll; if the defender gets an
    extraordinary success (7 over) the attacker is knocked prone."""
    b = play(_trip_scene(), [atk("p", "t", "unarmed", "trip", [2, 2] + opposed)])
    assert ("prone" in who(b, "t").conditions) == t_prone
    assert ("prone" in who(b, "p").conditions) == p_prone


def test_trip_extraordinary_hit_gives_plus_two_steps_on_the_opposed_roll():
    """seed 000, Tripping: +2 step bonus on the opposed roll after an extraordinary success
    on the attack roll (Strength d6 -> d10)."""
    b = play(_trip_scene(), [atk("p", "t", "unarmed", "trip", [6, 4, 4, 9, 6, 6])])
    assert only(evs(b, "attack"))["result"] == "extraordinary hit"
    assert sides(only(rolls(b, "trip (opposed)"))) == [6, 10]
    assert "prone" in who(b, "t").conditions


def test_trip_botch_knocks_the_attacker_prone():
    """seed 000, Tripping: if the attacker botches, the attacker is knocked prone."""
    b = play(_trip_scene(), [atk("p", "t", "unarmed", "trip", [1, 1])])
    assert "prone" in who(b, "p").conditions and "prone" not in who(b, "t").conditions


def test_tripping_weapon_is_dropped_instead_of_falling():
    """seed 000, Tripping: tripping with a weapon (fighting staff), the attacker can drop
    it to avoid falling prone (assumption trip_weapon_drop: always)."""
    s = _trip_scene(weapons=("fighting_staff",))
    assert Action("attack", "t", None, "fighting_staff", "trip") in legal(play(s, []))
    b = play(s, [atk("p", "t", "fighting_staff", "trip", [1, 1])])
    assert "prone" not in who(b, "p").conditions
    assert b.state.objects == {who(b, "p").pos: ["fighting_staff"]}
    b = play(s, [atk("p", "t", "fighting_staff", "trip", [2, 2, 1, 2, 6, 4])])
    assert "prone" not in who(b, "p").conditions
    assert b.state.objects == {who(b, "p").pos: ["fighting_staff"]}
    # a non-tripping weapon offers no trip
    s = _trip_scene(weapons=("sword",))
    assert Action("attack", "t", None, "sword", "trip") not in legal(play(s, []))


# ---------------------------------------------------------------------------------------
# Melee Combat, Unarmed: the specialties and grappling

def test_offensive_martial_arts_double_two_attack_rolls_one_action():
    """seed 000, Melee Combat, Unarmed: Offensive Martial Arts can be used to attempt two
    unarmed attacks in one turn as a single action."""
    p = fig("p", (0, 1), skills={"unarmed_combat": "d4", "unarmed_combat/offensive_martial_arts": "d8"})
    s = scen(open_map(), [p], [dummy("t", (1, 1))])
    b = play(s, [atk("p", "t", "unarmed", "double", [2, 2, 1, 3, 1, 2])])
    assert [sides(r) for r in rolls(b, "attack")] == [[6, 8], [6, 8]]
    assert [e["margin"] for e in evs(b, "attack")] == [1, 1]
    assert who(b, "t").res["stun"] == (1 + 1) + (1 + 2)
    assert economy(b)["actions_used"] == 1


@pytest.mark.parametrize("style,double", [("wrestling", True), ("brawling", False),
                                          ("defensive_martial_arts", False), (None, False)])
def test_double_attack_only_with_offensive_martial_arts_or_wrestling(style, double):
    """seed 000, Unarmed: only Offensive Martial Arts and Wrestling give two attacks as one
    action."""
    skills = {"unarmed_combat": "d6"}
    if style:
        skills[f"unarmed_combat/{style}"] = "d8"
    s = scen(open_map(), [fig("p", (0, 1), skills=skills)], [dummy("t", (1, 1))])
    assert (Action("attack", "t", None, "unarmed", "double") in legal(play(s, []))) == double


@pytest.mark.parametrize("style,weapon_damage", [("defensive_martial_arts", False), ("brawling", True)])
def test_defensive_martial_arts_blocks_weapons_without_their_damage(style, weapon_damage):
    """seed 000, Unarmed: Defensive Martial Arts allows blocking melee weapon attacks
    without automatically suffering the weapon damage; a plain bare-handed block takes the
    weapon's die (assumption unarmed_block)."""
    d = fig("d", (0, 1), agi="d6", skills={"unarmed_combat": "d4", f"unarmed_combat/{style}": "d8"},
            life_points=99)
    x = fig("x", (1, 1), str_="d6", skills={"melee_weapons": "d6"}, weapons=("sword",))
    s = scen(open_map(), [d], [x])
    # sword 2 + 1 = 3; bare-handed block against a sword -1 step: Agility d6 + d6 = 4 + 4 = 8
    dice = [2, 1, 4, 4] + ([3] if weapon_damage else [])
    b = play(s, [act("d", "defend", option="block"), end("d"), atk("x", "d", "sword", dice=dice)])
    assert only(evs(b, "attack"))["result"] == "miss"
    blk = only(rolls(b, "block"))
    assert sides(blk) == [6, 6]
    assert who(b, "d").res["wound"] == (3 if weapon_damage else 0)


def _grapple_scene(p_skills=None, t_kw=None, extra_a=()) -> dict:
    p = fig("p", (0, 1), agi="d6", str_="d6",
            skills=p_skills or {"unarmed_combat": "d6", "unarmed_combat/wrestling": "d8"})
    t = fig("t", (1, 1), agi="d6", str_="d6", weapons=("club",), life_points=99,
            decline_innate="never", **(t_kw or {}))
    return scen(open_map(), [p, *extra_a], [t])


def test_grapple_hits_then_the_target_is_held_easy_three():
    """assumption grapple (seed 000 needs grappling for Wrestling): Agility + Unarmed
    Combat to hit against the defence; the held target cannot move, is an Easy (3) target
    for the holder's attacks and attacks only the holder."""
    s = _grapple_scene(extra_a=[dummy("q", (2, 1))])
    # grapple: Agility d6 + Wrestling d8 = 3 + 4 = 7 vs innate 5
    g = act("p", "grapple", [3, 4, 5], target="t")
    b = play(s, [g])
    r = only(rolls(b, "grapple"))
    assert sides(r) == [6, 8] and r["difficulty"] == 5
    assert who(b, "t").res["grappled_by"] == "p" and "grappled" in who(b, "t").conditions
    assert who(b, "p").res["grappling"] == "t"
    # the holder's next attack: Easy 3, no innate roll (Strength d6 + d8 -1 step: 2 + 1 = 3)
    b = play(s, [g, atk("p", "t", "unarmed", dice=[2, 1, 1])])
    assert only(evs(b, "defence", actor="t", mode="held"))["difficulty"] == 3
    assert only(evs(b, "attack", weapon="unarmed"))["result"] == "hit"
    # on t's turn: no moves, attacks only at the holder (q stands next to t too)
    b = play(s, [g, end("p"), end("q")])
    assert b.state.actor.id == "t"
    assert not [a for a in legal(b) if a.kind == "move"]
    assert {a.target for a in attacks_in(b)} == {"p"}
    assert Action("grapple", "p", None, None, "escape") in legal(b)


def test_grapple_miss_leaves_both_free():
    """assumption grapple: a grapple that does not beat the defence holds nothing."""
    b = play(_grapple_scene(), [act("p", "grapple", [1, 3, 5], target="t")])
    assert who(b, "t").res["grappled_by"] is None and "grappled" not in who(b, "t").conditions


@pytest.mark.parametrize("esc,hold,free", [([4, 4], [3, 3], True), ([3, 3], [3, 3], False),
                                           ([1, 2], [5, 5], False)])
def test_grapple_escape_opposed_agility_strength_escaper_must_win(esc, hold, free):
    """assumption grapple: escaping costs one action: opposed Agility + Strength, the
    escaper must win (a tie holds)."""
    b = play(_grapple_scene(), [act("p", "grapple", [3, 4, 5], target="t"), end("p"),
                                act("t", "grapple", esc + hold, target="p", option="escape")])
    assert only(rolls(b, "escape", "t"))["pool"] == "Agility d6 + Strength d6"
    assert only(rolls(b, "hold on", "p"))["pool"] == "Agility d6 + Strength d6"
    assert (who(b, "t").res["grappled_by"] is None) == free
    assert economy(b)["actions_used"] == 1


def test_grapple_release_is_free():
    """assumption grapple: holding is free, and so is letting go."""
    b = play(_grapple_scene(), [act("p", "grapple", [3, 4, 5], target="t"),
                                act("p", "grapple", target="t", option="release")])
    assert who(b, "t").res["grappled_by"] is None and who(b, "p").res["grappling"] is None
    assert economy(b)["actions_used"] == 1


def test_wrestling_disarm_and_takedown_only_against_a_grappled_target():
    """seed 000, Unarmed, Wrestling: Disarm and Takedown attacks against a target you are
    grappling (assumption wrestling_moves: a hit drops the held weapon to the ground or
    knocks the target prone)."""
    s = _grapple_scene()
    b = play(s, [])
    assert not [a for a in attacks_in(b) if a.option in ("disarm", "takedown")]
    g = act("p", "grapple", [3, 4, 5], target="t")
    b = play(s, [g])
    assert {a.option for a in attacks_in(b) if a.option in ("disarm", "takedown")} == {"disarm", "takedown"}
    # disarm: Strength d6 + Wrestling d8 -1 step = d6: 2 + 1 = 3 vs Easy 3 (held)
    b = play(s, [g, atk("p", "t", "unarmed", "disarm", [2, 1])])
    r = only(rolls(b, "attack"))
    assert "Wrestling" in r["pool"] and sides(r) == [6, 6]
    assert b.state.objects == {who(b, "t").pos: ["club"]}
    assert not rolls(b, "damage")
    b = play(s, [g, atk("p", "t", "unarmed", "takedown", [2, 1])])
    assert "prone" in who(b, "t").conditions
    # grappling without Wrestling: no disarm or takedown
    s = _grapple_scene(p_skills={"unarmed_combat": "d8"})
    b = play(s, [act("p", "grapple", [3, 4, 5], target="t")])
    assert who(b, "t").res["grappled_by"] == "p"
    assert not [a for a in attacks_in(b) if a.option in ("disarm", "takedown")]


@pytest.mark.parametrize("ranged,roll,diff", [(False, None, 5), (True, 2, 2)])
def test_capoeira_innate_defence_against_melee_is_five(ranged, roll, diff):
    """seed 000, Unarmed, Capoeira: your Innate Defense against melee attacks is 5
    (assumption capoeira_innate: 5, no roll; issue #32); not against ranged attacks."""
    c = {"id": "c", "at": [1, 1] if not ranged else [5, 1], "template": "capoeirista"}
    p = fig("p", (0, 1), agi="d6", skills={"unarmed_combat": "d6", "guns": "d6"},
            weapons=("pistol",) if ranged else ())
    s = scen(open_map(), [p], [c])
    dmg = [1] if 3 >= diff else []          # 1 + 2 = 3 hits only the ranged Difficulty 2
    b = play(s, [atk("p", "c", "pistol" if ranged else "unarmed", dice=[1, 2] + ([roll] if roll else []) + dmg)])
    assert only(evs(b, "defence"))["difficulty"] == diff
    assert [r["dice"] for r in rolls(b, "innate defence")] == ([[[10, roll]]] if roll else [])


@pytest.mark.parametrize("style,block_sides", [
    ("capoeira", [[10, 12], [10, 12], [10, 10]]),
    ("brawling", [[10, 12], [10, 10], [10, 8]]),
])
def test_all_out_defence_capoeira_first_two_rolls_count_as_one(style, block_sides):
    """assumption all_out_defence (RULES-NOTES: +2 steps): each defence roll in the stance
    after the first is one step lower; seed 000, Capoeira: with All-Out Defense the first 2
    defensive moves count as 1 action. All-out defence ends the turn's actions."""
    c = fig("c", (1, 1), agi="d10", skills={"unarmed_combat": "d4", f"unarmed_combat/{style}": "d8"},
            life_points=99)
    xs = [fig(f"x{i}", xy, skills={"unarmed_combat": "d6"}) for i, xy in
          enumerate([(0, 1), (2, 1), (1, 0)])]
    s = scen(open_map(), [c], xs)
    b = play(s, [act("c", "defend", option="all_out_block")])
    assert b.state.actor.id == "x0"                     # the turn is over
    steps = [act("c", "defend", option="all_out_block")]
    for i in range(3):
        steps += [atk(f"x{i}", "c", "unarmed", dice=[2, 1, 2, 2]), end(f"x{i}")]
    b = play(s, steps)
    assert [sides(r) for r in rolls(b, "block")] == block_sides
    assert [e["result"] for e in evs(b, "attack")] == ["miss"] * 3


def test_krav_maga_extraordinary_block_free_counter_against_easy_three():
    """seed 000, Unarmed, Krav Maga: an extraordinary success on a block allows an
    immediate unarmed attack on the attacker as a free action against an Easy (3) target."""
    k = fig("k", (0, 1), agi="d6", str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d8"},
            block_effect="trip", life_points=99)
    x = fig("x", (1, 1), agi="d12", skills={"unarmed_combat": "d6"}, life_points=99, decline_innate="never")
    s = scen(open_map(), [k], [x])
    # x: 1 + 2 = 3; block Agility d6 + Krav Maga d8: 6 + 8 = 14 (by 11); trip, then the
    # counter: Strength d8 + Krav Maga d8 = 2 + 2 = 4 vs Easy 3 (no innate roll); d2 Stun 2
    b = play(s, [act("k", "defend", option="block"), end("k"),
                 atk("x", "k", "unarmed", dice=[1, 2, 6, 8, 2, 2, 2])])
    counter = only(rolls(b, "Krav Maga counter"))
    assert counter["difficulty"] == 3 and sides(counter) == [8, 8]
    assert not rolls(b, "innate defence")
    assert who(b, "x").res["stun"] == 1 + 2
    assert "prone" in who(b, "x").conditions
    assert b.state.actor.id == "x" and economy(b)["actions_used"] == 1


def test_krav_maga_assault_rifle_adds_d6_basic_to_unarmed_attacks():
    """seed 000, Krav Maga: an assault rifle may be used to add d6 Basic damage to an
    unarmed attack (assumption krav_maga_rifle); without the rifle, no extra die."""
    for weapons, extra in ((("assault_rifle",), True), ((), False)):
        k = fig("k", (0, 1), str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d8"},
                weapons=weapons)
        s = scen(open_map(), [k], [dummy("t", (1, 1))])
        dice = [2, 2, 1] + ([5] if extra else [])
        b = play(s, [atk("k", "t", "unarmed", dice=dice)])
        assert bool(rolls(b, "assault rifle")) == extra
        basic = 1 + (5 if extra else 0)
        assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (basic - basic // 2 + 1, basic // 2)


def test_krav_maga_counter_is_an_unarmed_attack_with_the_rifle_bonus():
    """seed 000, Krav Maga: the counter after an extraordinary block is an Unarmed attack,
    so a Krav Maga fighter with an assault rifle adds d6 Basic to it too (assumption
    krav_maga_rifle: 'adds d6 Basic to unarmed attacks')."""
    k = fig("k", (0, 1), agi="d6", str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d8"},
            weapons=("assault_rifle",), block_effect="trip", life_points=99)
    x = fig("x", (1, 1), skills={"unarmed_combat": "d6"}, life_points=99)
    s = scen(open_map(), [k], [x])
    b = play_loose(s, [{"action": {"type": "defend", "option": "block"}}, {"action": "end_turn"},
                       {"action": {"type": "attack", "target": "k", "weapon": "unarmed"}}],
                   [1, 2, 6, 8, 2, 2, 2, 5])
    assert rolls(b, "Krav Maga counter")
    assert rolls(b, "assault rifle"), "no d6 Basic from the assault rifle on the counter"


# ---------------------------------------------------------------------------------------
# Plot Points (RULES-NOTES; assumptions plot_points_use, npc_plot_points)

def _pp_scene(pp: dict, t_kw: dict | None = None, p_weapons=("pistol",)) -> dict:
    p = fig("p", (0, 1), agi="d6", str_="d6", skills={"guns": "d6", "unarmed_combat": "d6", "melee_weapons": "d6"},
            weapons=p_weapons)
    return scen(open_map(), [p], [dummy("t", (1, 1), **(t_kw or {}))], settings={"plot_points": pp})


def test_plot_points_from_scenario_settings_npcs_get_none():
    """assumption npc_plot_points: figures get Plot Points only from the scenario
    (`settings: {plot_points: {team: n}}`)."""
    b = play(_pp_scene({"a": 3}))
    assert who(b, "p").res["pp"] == 3 and who(b, "t").res["pp"] == 0
    assert economy(b)["plot_points"] == 3
    uses = {a.option for a in legal(b) if a.kind == "use"}
    assert uses == {"plot_points:1", "plot_points:2", "plot_points:3"}
    assert not [a for a in legal(play(_pp_scene({}))) if a.kind == "use"]


@pytest.mark.parametrize("n,die", [(1, 2), (2, 4), (3, 6), (5, 10)])
def test_plot_points_spent_before_a_roll_add_a_die(n, die):
    """RULES-NOTES: 1 Plot Point adds a d2, each further point steps the die up;
    assumption plot_points_use: spending is a free `use` action and the die joins the
    figure's next roll (after the attribute and skill dice) - only that one."""
    s = _pp_scene({"a": 6})
    b = play(s, [act("p", "use", option=f"plot_points:{n}")])
    assert economy(b)["actions_used"] == 0 and who(b, "p").res["pp"] == 6 - n
    assert economy(b)["pp_bonus_pending"] == n
    assert not [a for a in legal(b) if a.kind == "use" and a.option.startswith("plot_points")]
    b = play(s, [act("p", "use", option=f"plot_points:{n}"), atk("p", "t", "pistol", dice=[1, 1, 2, 1]),
                 atk("p", "t", "pistol", dice=[1, 1])])
    first, second = rolls(b, "attack")
    assert sides(first) == [6, 6, die] and first["total"] == 4
    assert "Plot Points" in first["pool"]
    assert sides(second) == [6, 4]


def test_plot_points_reduce_damage_that_would_take_the_figure_down():
    """RULES-NOTES: Plot Points spent just after taking damage reduce it by the same die;
    assumption plot_points_use: automatic when a hit would take the figure down, with as
    many points as it has (the die is rolled after the damage die)."""
    s = _pp_scene({"b": 2}, {"life_points": 6})
    # 4 + 3 = 7 vs 3: Basic 4 (2 Stun, 2 Wound) + d6 Wound 4 = 2 Stun + 6 Wound: 8 >= 6
    # 2 points: d4 -> 3 off (Wound first): 2 Stun + 3 Wound = 5 < 6: no Endurance roll
    b = play(s, [atk("p", "t", "pistol", dice=[4, 3, 4, 3])])
    pp = only(rolls(b, "spends 2 Plot Points"))
    assert sides(pp) == [4]
    assert who(b, "t").res["pp"] == 0
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (2, 3)
    assert not who(b, "t").down
    # a hit that leaves it standing spends nothing
    b = play(s, [atk("p", "t", "pistol", dice=[2, 2, 1])])
    assert who(b, "t").res["pp"] == 2 and not rolls(b, "spends")


@pytest.mark.parametrize("weapon,die", [("unarmed", 6), ("club", 6), ("pistol", 2)])
def test_takes_a_punch_major_plot_points_against_blunt_stun(weapon, die):
    """seed 000, Takes a Punch (major): Plot Points spent to reduce Stun damage from
    unarmed or bludgeoning attacks improve as if 2 more had been spent (1 point: d2 -> d6);
    not against a gun."""
    s = _pp_scene({"b": 1}, {"life_points": 4, "traits": [{"name": "takes_a_punch", "major": True}]},
                  p_weapons=("pistol", "club"))
    # Basic 4 (2 Stun 2 Wound) + weapon die 1 = 5 >= 4; the Plot Point die shows its top face
    b = play(s, [atk("p", "t", weapon, dice=[4, 3, 1, die])])
    assert sides(only(rolls(b, "spends 1 Plot Points"))) == [die]


# ---------------------------------------------------------------------------------------
# Second Wind (assumption second_wind_action) and Down But Not Out

def _sw_scene(traits=(), **p_kw) -> dict:
    p = fig("p", (0, 1), life_points=99, decline_innate="always", traits=list(traits), **p_kw)
    x = fig("x", (1, 1), skills={"unarmed_combat": "d6"}, life_points=99, decline_innate="always")
    return scen(open_map(), [p], [x])


# x punches p: 4 + 4 = 8 vs 3: Basic 5 (3 Stun, 2 Wound) + d2 Stun 2 -> 5 Stun, 2 Wound
PUNCH = [end("p"), atk("x", "p", "unarmed", dice=[4, 4, 2]), end("x")]


def test_second_wind_one_action_endurance_removes_that_much_stun_once_a_fight():
    """RULES-NOTES / p. 158 and assumption second_wind_action: Second Wind is one action;
    an Endurance roll (Vitality + Willpower) removes that much Stun; once a day (per fight)."""
    b = play(_sw_scene(), PUNCH)
    assert who(b, "p").res["stun"] == 5
    assert Action("use", option="second_wind") in legal(b)
    b = play(_sw_scene(), PUNCH + [act("p", "use", [2, 1], option="second_wind")])
    sw = only(rolls(b, "Second Wind"))
    assert sw["pool"] == "Vitality d6 + Willpower d6"
    assert who(b, "p").res["stun"] == 2 and who(b, "p").res["wound"] == 2
    assert economy(b)["actions_used"] == 1
    assert Action("use", option="second_wind") not in legal(b)
    b = play(_sw_scene(), PUNCH + [act("p", "use", [2, 1], option="second_wind"), end("p")] + PUNCH[1:])
    assert b.state.actor.id == "p" and who(b, "p").res["stun"] > 0
    assert Action("use", option="second_wind") not in legal(b)
    # more than the Stun it has: Stun goes to 0, Wound stays
    b = play(_sw_scene(), PUNCH + [act("p", "use", [6, 6], option="second_wind")])
    assert (who(b, "p").res["stun"], who(b, "p").res["wound"]) == (0, 2)


def test_second_wind_needs_stun():
    """RULES-NOTES: Second Wind shakes off Stun; with none there is nothing to do."""
    assert Action("use", option="second_wind") not in legal(play(_sw_scene()))


def test_down_but_not_out_two_second_winds_not_in_the_same_turn():
    """seed 000, Down But Not Out (major): two Second Wind rolls a day, never more than one
    in the same turn."""
    s = _sw_scene(traits=("down_but_not_out",))
    b = play(s, PUNCH + [act("p", "use", [1, 2], option="second_wind")])
    assert who(b, "p").res["stun"] == 2
    assert economy(b)["second_winds_left"] == 1
    assert Action("use", option="second_wind") not in legal(b)
    b = play(s, PUNCH + [act("p", "use", [1, 2], option="second_wind"), end("p")] + PUNCH[1:])
    assert Action("use", option="second_wind") in legal(b)
    b = play(s, PUNCH + [act("p", "use", [1, 2], option="second_wind"), end("p")] + PUNCH[1:]
             + [act("p", "use", [1, 2], option="second_wind"), end("p")] + PUNCH[1:])
    assert Action("use", option="second_wind") not in legal(b)
    assert economy(b)["second_winds_left"] == 0


def test_glass_jaw_major_no_second_wind_in_a_fight():
    """seed 000, Glass Jaw (major): you cannot use your Second Wind during a fight."""
    b = play(_sw_scene(traits=({"name": "glass_jaw", "major": True},)), PUNCH)
    assert who(b, "p").res["stun"] > 0
    assert Action("use", option="second_wind") not in legal(b)
    b = play(_sw_scene(traits=("glass_jaw",)), PUNCH)          # minor: allowed
    assert Action("use", option="second_wind") in legal(b)


@pytest.mark.parametrize("traits,pool", [
    (("takes_a_punch",), "Vitality d10 + Willpower d6"),
    (({"name": "gettin_on_in_years", "major": True},), "Vitality d2 + Willpower d6"),
    (({"name": "gettin_on_in_years"},), "Vitality d6 + Willpower d6"),
])
def test_second_wind_trait_modifiers(traits, pool):
    """seed 000, Takes a Punch: +2 steps to Vitality on Second Wind rolls; Gettin' On in
    Years (major): the Vitality penalty (-2) applies to all rolls involving injury; the
    minor form does not touch Second Wind."""
    b = play(_sw_scene(traits=traits), PUNCH + [act("p", "use", [1, 1], option="second_wind")])
    assert only(rolls(b, "Second Wind"))["pool"] == pool


# ---------------------------------------------------------------------------------------
# Traits in battle: Endurance against unarmed or bludgeoning attacks, initiative

@pytest.mark.parametrize("trait,weapon,vit", [
    ("glass_jaw", "unarmed", "d4"), ("glass_jaw", "club", "d4"), ("glass_jaw", "pistol", "d8"),
    ("takes_a_punch", "unarmed", "d12"), ("takes_a_punch", "club", "d12"), ("takes_a_punch", "pistol", "d8"),
])
def test_endurance_against_unarmed_or_bludgeoning(trait, weapon, vit):
    """seed 000, Glass Jaw: -2 steps to Vitality on Endurance rolls against unarmed or
    bludgeoning attacks; Takes a Punch: +2 steps; neither against a gun."""
    p = fig("p", (0, 1), str_="d6", agi="d6", skills={"unarmed_combat": "d6", "melee_weapons": "d6", "guns": "d6"},
            weapons=("club", "pistol"))
    t = dummy("t", (1, 1), vit="d8", traits=[trait])
    s = scen(open_map(), [p], [t, dummy("u", (11, 2))])
    # 6 + 4 = 10 vs 3: by 7, an extraordinary hit: Endurance at Average or knocked prone
    b = play(s, [atk("p", "t", weapon, dice=[6, 4, 1, 4, 3])])
    assert only(rolls(b, "Endurance vs special effect"))["pool"] == f"Vitality {vit} + Willpower d6"


def test_glass_jaw_applies_to_the_head_shot_recovery_roll():
    """seed 000, Glass Jaw: the penalty applies to Endurance rolls against unarmed attacks
    'such as called shots to the head' - the recovery roll after a punch to the head."""
    t = dummy("t", (1, 1), vit="d8", traits=["glass_jaw"])
    s = scen(open_map(), [brawler("p", (0, 1))], [t, dummy("u", (11, 2))])
    b = play(s, [atk("p", "t", "unarmed", "called:head", [6, 5, 3]), end("p", [1, 2])])
    assert only(rolls(b, "Endurance to recover"))["pool"] == "Vitality d4 + Willpower d6"


def test_slow_reflexes_initiative_minus_one_agility_step():
    """seed 000, Slow Reflexes: -1 step to Agility on Initiative rolls."""
    s = scen(open_map(), [fig("p", (0, 1), agi="d8", ale="d6", traits=["slow_reflexes"])],
             [fig("q", (5, 1), agi="d8", ale="d6")])
    s["initiative"] = "roll"
    b = run_replay({"scenario": s, "start_dice": [3, 3, 3, 3], "steps": []})
    pools = {r["actor"]: r["pool"] for r in rolls(b, "initiative")}
    assert pools == {"p": "Agility d6 + Alertness d6", "q": "Agility d8 + Alertness d6"}
    assert b.state.order == ["q", "p"]        # tie 6 - 6: the higher Agility die first


@pytest.mark.parametrize("form,life", [(None, 12), ("minor", 10), ("major", 8)])
def test_paper_tiger_life_points(form, life):
    """seed 000, Paper Tiger: normal total Life Points (max Vitality + max Willpower, here
    6 + 6) reduced by 2; by 4 as a major trait."""
    traits = [] if form is None else [{"name": "paper_tiger", "major": form == "major"}]
    b = play(scen(open_map(), [fig("p", (0, 1), traits=traits)], [dummy("t", (5, 1))]))
    assert who(b, "p").stats["life"] == life


# ---------------------------------------------------------------------------------------
# Traits through ruleset.skill_check (seed 000, Traits)

def person(traits=(), agi="d8", str_="d8", vit="d8", ale="d8", int_="d8", wil="d8", skills=None):
    spec = fig("x", (0, 0), agi=agi, str_=str_, vit=vit, ale=ale, int_=int_, wil=wil,
               skills=skills or {"influence": "d8", "pilot": "d6", "athletics": "d6", "knowledge": "d6",
                                 "discipline": "d6", "perception": "d6"},
               traits=list(traits))
    return RS.build_combatant(spec, id="x", team="a", pos=0, order=0, source=None, field="x")


def check(c, attribute, skill, context, faces=None, plot_points=0, difficulty=7):
    """Roll a skill check with every die showing 1 (or given faces); return the result."""
    d = Dice(0)
    if faces is not None:
        d.force(faces, strict=True)
    else:
        d.on_roll = lambda sides, label: 1
    r = RS.skill_check(c, attribute, skill, difficulty, set(context), d, plot_points=plot_points)
    return r


def pool_sides(r) -> list[int]:
    return [s for s, _ in r.event["dice"]]


@pytest.mark.parametrize("traits,attribute,skill,context,expected", [
    # Born Behind the Wheel (land by default): a bonus d4 at the controls of its vehicle type
    (["born_behind_the_wheel"], "agility", "pilot", {"piloting", "land"}, [8, 6, 4]),
    (["born_behind_the_wheel"], "agility", "pilot", {"piloting", "air_space"}, [8, 6]),
    ([{"name": "born_behind_the_wheel", "vehicle_type": "air_space"}], "agility", "pilot",
     {"piloting", "air_space"}, [8, 6, 4]),
    (["born_behind_the_wheel"], "agility", "athletics", {"land"}, [8, 6]),
    # Stingy: -2 skill steps in social interactions where parting with money is needed
    (["stingy"], "willpower", "influence", {"social", "parting_with_money"}, [8, 4]),
    (["stingy"], "willpower", "influence", {"social"}, [8, 8]),
    # Greedy: -2 skill steps in negotiations (minor and major)
    (["greedy"], "intelligence", "influence", {"negotiation"}, [8, 4]),
    ([{"name": "greedy", "major": True}], "intelligence", "influence", {"negotiation"}, [8, 4]),
    (["greedy"], "intelligence", "influence", {"social"}, [8, 8]),
    # Trustworthy Face: +2 skill steps where trust is involved
    (["trustworthy_face"], "willpower", "influence", {"trust"}, [8, 12]),
    (["trustworthy_face"], "willpower", "influence", {"negotiation"}, [8, 8]),
    # Clumsy: -2 Agility or Alertness steps on balancing, catching, delicate, graceful
    (["clumsy"], "agility", "athletics", {"balance"}, [4, 6]),
    (["clumsy"], "alertness", "perception", {"catching"}, [4, 6]),
    (["clumsy"], "agility", None, {"delicate"}, [4]),
    (["clumsy"], "agility", "athletics", {"graceful"}, [4, 6]),
    (["clumsy"], "agility", "athletics", {"climbing"}, [8, 6]),
    (["clumsy"], "strength", "athletics", {"balance"}, [8, 6]),
    # Gettin' On in Years: -1 (minor) / -2 (major) steps
    (["gettin_on_in_years"], "strength", "athletics", {"athletics"}, [6, 6]),
    ([{"name": "gettin_on_in_years", "major": True}], "strength", "athletics", {"athletics"}, [4, 6]),
    (["gettin_on_in_years"], "vitality", None, {"resist_disease"}, [6]),
    (["gettin_on_in_years"], "vitality", None, {"resist_environment"}, [6]),
    ([{"name": "gettin_on_in_years", "major": True}], "vitality", None, {"resist_environment"}, [4]),
    (["gettin_on_in_years"], "willpower", "influence", {"influence", "appearance"}, [6, 8]),
    (["gettin_on_in_years"], "intelligence", "knowledge", {"memory"}, [6, 6]),
    ([{"name": "gettin_on_in_years", "major": True}], "intelligence", "knowledge", {"memory"}, [4, 6]),
    (["gettin_on_in_years"], "vitality", None, {"injury", "endurance"}, [8]),
    ([{"name": "gettin_on_in_years", "major": True}], "vitality", None, {"injury", "endurance"}, [4]),
    (["gettin_on_in_years"], "intelligence", "knowledge", {"science"}, [8, 6]),
    # Glass Jaw / Takes a Punch: Vitality on Endurance against unarmed or bludgeoning
    (["glass_jaw"], "vitality", None, {"endurance", "unarmed_or_bludgeoning"}, [4]),
    (["glass_jaw"], "vitality", None, {"endurance"}, [8]),
    (["takes_a_punch"], "vitality", None, {"endurance", "unarmed_or_bludgeoning"}, [12]),
    (["takes_a_punch"], "vitality", None, {"second_wind"}, [12]),
    # Slow Reflexes: -1 Agility on initiative, -1 Alertness getting out of harm's way
    (["slow_reflexes"], "agility", None, {"initiative"}, [6]),
    (["slow_reflexes"], "alertness", None, {"harms_way"}, [6]),
    (["slow_reflexes"], "agility", None, {"harms_way"}, [8]),
    # Uneducated: -2 Intelligence steps on knowledge-based checks
    (["uneducated"], "intelligence", "knowledge", {"knowledge"}, [4, 6]),
    (["uneducated"], "intelligence", "perception", {"investigation"}, [8, 6]),
    # Good Luck Charm: -1 Attribute step on all actions while separated from the charm
    (["good_luck_charm"], "agility", "athletics", {"separated_from_charm"}, [6, 6]),
    (["good_luck_charm"], "intelligence", None, {"separated_from_charm"}, [6]),
    (["good_luck_charm"], "agility", "athletics", set(), [8, 6]),
])
def test_trait_modifiers_in_skill_checks(traits, attribute, skill, context, expected):
    """seed 000, Traits (Born Behind the Wheel, Stingy, Greedy, Trustworthy Face, Clumsy,
    Gettin' On in Years, Glass Jaw, Takes a Punch, Slow Reflexes, Uneducated, Good Luck
    Charm): each modifier applies when the roll's context matches, to the die the seed names."""
    r = check(person(traits), attribute, skill, context)
    assert pool_sides(r) == expected, r.event


def test_skill_check_accepts_a_stat_block_and_reports_traits():
    """seed 000, Traits (Uneducated) through the rules API: `ruleset.skill_check` takes a
    Combatant or its stat block; the event names the traits that changed the roll and the
    check succeeds at or over the Difficulty."""
    c = person(["uneducated"])
    r = check(c.stats, "intelligence", "knowledge", {"knowledge"}, faces=[4, 3])
    assert pool_sides(r) == [4, 6] and r.total == 7 and r.success and not r.botch
    assert r.event["traits"] == ["uneducated"] and r.event["difficulty"] == 7
    r = check(c, "intelligence", "knowledge", {"knowledge"}, faces=[1, 1])
    assert r.botch and not r.success
    r = check(c, "intelligence", "knowledge", {"knowledge"}, faces=[4, 2])
    assert r.total == 6 and not r.success


def test_good_luck_charm_condition_separated_from_charm():
    """seed 000, Good Luck Charm: while separated from the charm (a figure condition), -1
    Attribute step on all actions - the figure's conditions count as the check's context."""
    c = person(["good_luck_charm"])
    assert pool_sides(check(c, "willpower", "discipline", set())) == [8, 6]
    c.conditions.add("separated_from_charm")
    assert pool_sides(check(c, "willpower", "discipline", set())) == [6, 6]
    assert pool_sides(check(c, "strength", None, {"lifting"})) == [6]


@pytest.mark.parametrize("traits,flags", [
    (["criminal"], {"criminal_record"}),
    ([{"name": "criminal", "major": True}], {"criminal_record", "felony", "no_voting", "no_legal_firearms",
                                              "no_legal_work", "bounty_if_rim"}),
    (["dandy"], {"must_focus_when_appearance_at_risk"}),
    ([{"name": "greedy", "major": True}], {"must_resist_selling_out"}),
    (["greedy"], set()),
    ([{"name": "glass_jaw", "major": True}], {"no_second_wind_in_fight"}),
])
def test_trait_flags(traits, flags):
    """seed 000, Criminal (minor: a record; major: a felony - no voting, no legal firearms,
    no legal work, a bounty on the Rim), Dandy, Greedy (major: must resist selling out the
    crew), Glass Jaw (major): facts with no roll, in stats['flags']."""
    assert person(traits).stats["flags"] == flags


def test_greedy_major_resisting_a_sell_out_is_willpower_discipline():
    """seed 000, Greedy (major): a Willpower + Discipline test to resist offers to sell out
    the crew (the -2 negotiation penalty does not touch it)."""
    c = person([{"name": "greedy", "major": True}])
    r = check(c, "willpower", "discipline", {"resist_selling_out"}, faces=[5, 2])
    assert pool_sides(r) == [8, 6] and r.success


@pytest.mark.parametrize("traits,pp,die", [
    (["born_behind_the_wheel"], 1, 2),
    ([{"name": "born_behind_the_wheel", "major": True}], 1, 6),
    ([{"name": "born_behind_the_wheel", "major": True}], 2, 8),
])
def test_born_behind_the_wheel_major_plot_points_as_two_more(traits, pp, die):
    """seed 000, Born Behind the Wheel (major): Plot Points spent on actions with the
    chosen vehicle type improve as if 2 more had been spent (1 PP: d2 -> d6); the d4 comes
    in addition to the Plot Point die."""
    r = check(person(traits), "agility", "pilot", {"piloting", "land"}, plot_points=pp)
    assert pool_sides(r) == [8, 6, 4, die]
    r = check(person(traits), "agility", "athletics", {"running"}, plot_points=pp)
    assert pool_sides(r) == [8, 6, 2 * pp]


# ---------------------------------------------------------------------------------------
# Vehicles and Spaceships (rules/systems/cortex/vehicles.py)

@pytest.mark.parametrize("pilot,ship,opened,die", [
    (D10, D6, False, D6), (D6, D10, False, D6), (D8, D8, False, D8), (D10, D6, True, D10),
])
def test_maneuver_attribute_is_the_lower_agility(pilot, ship, opened, die):
    """seed 000, Operating Ships/Vehicles: maneuvers use the ship's or the pilot's Agility,
    whichever is lower (d10 pilot, d6 ship: d6) - unless the thrust was opened up."""
    assert vehicles.maneuver_attribute(pilot, ship, opened) == die


@pytest.mark.parametrize("pilot,ship,diff", [(D8, D6, 3), (D10, D6, 7), (D12, D6, 11),
                                             (D12, D2, 19), (D6, D6, None), (D4, D8, None)])
def test_thrust_difficulty_by_step_gap(pilot, ship, diff):
    """seed 000: the 'open up that thrust value' check is at a Difficulty step equal to the
    number of steps between the pilot's and the ship's Agility (1: Easy 3, 2: Average 7 ...)."""
    assert vehicles.thrust_difficulty(pilot, ship) == diff


def test_open_up_thrust_success_full_die_failure_lower_die_and_damage():
    """seed 000: a successful Intelligence + Mechanical Engineering check lets the pilot use
    the full Attribute die for the scene; a failure keeps the lower die and causes
    mechanical damage (+10% monthly maintenance or a later repair check)."""
    stats = person(skills={"mechanical_engineering": "d6", "pilot": "d6"}, agi="d10", int_="d8").stats
    d = Dice(0)
    d.force([4, 3], strict=True)
    ok = vehicles.open_up_thrust(stats, D6, d)
    assert ok.success and ok.difficulty == 7 and ok.attribute == D10 and ok.mechanical_damage is None
    assert ok.event["pool"] == "Intelligence d8 + Mechanical Engineering d6"
    d.force([3, 3], strict=True)
    bad = vehicles.open_up_thrust(stats, D6, d, damage_choice="repair")
    assert not bad.success and bad.attribute == D6 and bad.mechanical_damage == "repair"
    d.force([1, 2], strict=True)
    assert vehicles.open_up_thrust(stats, D6, d).mechanical_damage == "maintenance"
    assert vehicles.maintenance_after_damage(1000) == 1100
    with pytest.raises(ValueError):
        vehicles.open_up_thrust(stats, D12, Dice(0))


def test_maneuver_roll_lower_die_pilot_skill_and_born_behind_the_wheel():
    """seed 000: a maneuver is the maneuver attribute + the Pilot skill; Born Behind the
    Wheel adds a d4 in its own vehicle type, and as a major trait Plot Points count 2 more."""
    c = person([{"name": "born_behind_the_wheel", "vehicle_type": "air_space", "major": True}],
               agi="d10", skills={"pilot": "d6"})
    d = Dice(0)
    d.force([3, 2, 1, 1], strict=True)
    ok, total, ev = vehicles.maneuver_roll(RS.traitbook, c.stats, c.traits, D6, "air_space", 7, d,
                                           plot_points=1)
    assert ev["pool"] == "d6 + d6 + d4 + d6" and total == 7 and ok
    d.force([3, 2], strict=True)
    ok, total, ev = vehicles.maneuver_roll(RS.traitbook, c.stats, c.traits, D6, "land", 7, d)
    assert ev["pool"] == "d6 + d6" and not ok
    d.force([9, 2], strict=True)
    ok, total, ev = vehicles.maneuver_roll(RS.traitbook, c.stats, c.traits, D6, "land", 7, d, opened_up=True)
    assert ev["pool"] == "d10 + d6" and ok


def test_pulse_drive_and_full_burn_fuel():
    """seed 000, Pulse Drive and Full Burn: turning on the Pulse Drive burns 50 hours; Full
    Burn uses fuel at double rate and costs 100 hours; the functions' defaults match the
    data file."""
    v = RS.data["vehicles"]
    assert (v["pulse_drive_start_hours"], v["full_burn_rate"], v["full_burn_hours"]) == (50, 2, 100)
    assert vehicles.pulse_drive_start(120) == 70
    with pytest.raises(ValueError):
        vehicles.pulse_drive_start(49)
    assert vehicles.fuel_used(10) == 10 and vehicles.fuel_used(10, full_burn=True) == 20
    assert vehicles.full_burn_cost() == 100


def test_impaired_applies_to_every_action_including_skill_checks():
    """seed 000, Called Shots, Groin: impaired is a -2 step skill penalty 'to all actions'
    - a skill check by an impaired figure (ruleset.skill_check with the Combatant) too."""
    s = scen(open_map(), [brawler("p", (0, 1))], [dummy("t", (1, 1), skills={"athletics": "d8"})])
    b = play(s, [atk("p", "t", "unarmed", "called:groin", [6, 5, 1])])
    t = who(b, "t")
    assert "impaired" in t.conditions
    r = check(t, "agility", "athletics", {"climbing"})
    assert pool_sides(r) == [6, 4]


# ---------------------------------------------------------------------------------------
# Replay files (tests/replays/cortex_seed000/*.yaml) and the command line

def test_replay_called_head_knockout_recovery():
    """seed 000, Called Shots, Head (Stun/Basic): knocked out until a Hard Endurance roll,
    one a turn in initiative order, costing no action."""
    b = run_replay(REPLAYS / "called_head_knockout_recovery.yaml")
    assert [r["success"] for r in rolls(b, "Endurance to recover", "jayne")] == [False, True]
    assert not who(b, "jayne").down and who(b, "jayne").res["stun"] == 3
    assert (who(b, "zoe").res["stun"], who(b, "zoe").res["wound"]) == (3, 1)
    assert b.state.actor.id == "jayne" and economy(b)["actions_used"] == 1


def test_replay_grenade_cover_and_harms_way():
    """seed 000, Cover and Explosions; Getting out of Harm's Way."""
    b = run_replay(REPLAYS / "grenade_cover_and_harms_way.yaml")
    assert who(b, "wash").res["wound"] == 10 and who(b, "kaylee").res["wound"] == 6
    assert who(b, "book").res["wound"] == 0 and pos(b, "book") == (4, 6)
    assert "prone" in who(b, "book").conditions
    assert b.state.grid.rows[2][6] == ","
    assert b.state.actor.id == "wash" and economy(b)["actions_used"] == 1
    assert {c: who(b, c).res["reaction_debt"] for c in ("kaylee", "book")} == {"kaylee": 1, "book": 1}


def test_replay_bottle_breaks():
    """seed 000, Improvised Weapons: the bottle breaks into a broken bottle (d2 W)."""
    b = run_replay(REPLAYS / "bottle_breaks.yaml")
    assert (who(b, "mal").res["stun"], who(b, "mal").res["wound"]) == (3, 3)
    assert who(b, "thug").res["held"] == "broken_bottle"
    assert [w.name for w in RS.weapons_of(who(b, "thug"))].count("bottle_glass") == 1


def test_replay_wrestler_grapple_disarm():
    """seed 000, Unarmed, Wrestling: disarm and takedown against a grappled target."""
    b = run_replay(REPLAYS / "wrestler_grapple_disarm.yaml")
    assert b.state.objects == {who(b, "thug").pos: ["club"]}
    assert {"prone", "grappled"} <= who(b, "thug").conditions
    assert b.state.actor.id == "thug"


@pytest.mark.parametrize("path", sorted(p.name for p in REPLAYS.glob("*.yaml")))
def test_tactica_replay_runs_every_file(path):
    """`tactica replay FILE --json` plays each seed 000 replay file with its exact dice."""
    r = subprocess.run([sys.executable, "-m", "tactica", "replay", str(REPLAYS / path), "--json"],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["events"] and doc["final_state"]["combatants"]


def test_a_replay_step_with_too_few_dice_is_an_error():
    """seed 000, Called Shots, Heart and rules/replay.py: forced dice are strict - a called
    shot to the heart with a Wound weapon rolls an immediate Endurance roll, so leaving it
    out is a DiceError."""
    s = _ko_scene(weapons=("knife",), agi="d12")
    with pytest.raises(DiceError):
        play(s, [atk("p", "t", "knife", "called:heart", [12, 3, 7])])


def test_rulesets_json_lists_the_seed_000_actions_and_options():
    """`tactica rulesets --json` lists every seed 000 action and option: called shots,
    burst, autofire, trip, double, disarm, takedown, throw, grapple escape/release, pick_up,
    use plot_points:N / second_wind, all-out block/dodge."""
    r = subprocess.run([sys.executable, "-m", "tactica", "rulesets", "--json"], cwd=REPO,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    info = only([i for i in json.loads(r.stdout) if i["name"] == "cortex"])
    acts = info["actions"]
    assert {f"called:{a}" for a in AREAS} | {"burst", "autofire", "trip", "double", "disarm", "takedown",
                                             "throw"} <= set(acts["attack"])
    assert {"block", "dodge", "all_out_block", "all_out_dodge"} <= set(acts["defend"])
    assert {"escape", "release"} <= set(acts["grapple"])
    assert "pick_up" in acts
    assert {"second_wind"} | {f"plot_points:{n}" for n in range(1, 7)} <= set(acts["use"])
    assert {"reaction_debt", "plot_points", "second_winds_left", "grappled", "arms_usable",
            "impaired"} <= set(info["economy_features"])


def test_trip_is_legal_only_while_its_agility_pool_has_dice():
    """seed 000, Multiple Actions (-1 step per action already taken) and Tripping (an
    Agility roll): a figure whose Agility + Unarmed pool has stepped down to nothing may
    still punch with Strength, but a trip is not offered, and forcing one is refused with
    an error instead of crashing the engine (found by a training run)."""
    from rules.errors import IllegalActionError
    from rules.scenario import load_scenario, new_battle
    p = fig("p", (0, 1), agi="d2", str_="d12", skills={"unarmed_combat": "d2"})
    spec, _ = load_scenario(scen(open_map(), [p], [dummy("t", (1, 1))]))
    b = new_battle(spec, Dice(0))
    b.start()
    b.state.economy["actions"] = 3
    legal = [a for a in RS.legal_actions(b.state) if a.kind == "attack"]
    assert Action("attack", target="t", weapon="unarmed") in legal
    assert not any(a.option == "trip" for a in legal)
    with pytest.raises(IllegalActionError):
        b.step(Action("attack", target="t", weapon="unarmed", option="trip"), check=False)
