"""seed 000 read a third time (2026-12-07): rules the `cortex` engine narrowed, each now following
the seed's words (docs/cortex.md, "Seed read a third time").

Sources: "seed 000, <heading>" is /work/shared/seeds/000_*.txt; "assumption <key>" an entry of
the `assumptions` list in rules/systems/cortex/data.yaml. Fights run through `play_loose`
(tests/cortex_seed000_setup.py) with forced dice, in the data file's roll order: attack dice
(attribute, skill, Plot Point die), the defence roll, the damage die, then any Endurance roll.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from rules.actions import Action
from rules.systems.cortex.odds import _defence, attack_odds
from tests.cortex_seed000_setup import (
    RS,
    _ko_scene,
    act,
    afflictions,
    dummy,
    evs,
    fig,
    legal,
    open_map,
    play_loose,
    pos,
    rolls,
    scen,
    who,
)

REPO = Path(__file__).resolve().parents[1]


def _roll(b, check: str) -> dict:
    found = [e for e in b.events if e["type"] == "roll" and e.get("check") == check]
    assert len(found) == 1, found
    return found[0]


def _mods(r: dict) -> list[tuple[str, int]]:
    return [(m["source"], m["value"]) for m in r["modifiers"]]


# ---------------------------------------------------------------------------------------
# 1. The Krav Maga counter is an attack: an extraordinary one brings the special effect

def _counter(armour: str | None = None):
    """x punches k (1 + 2 = 3); k blocks (Agility d6 + Krav Maga d8: 6 + 8 = 14, 11 over: an
    extraordinary block) and bashes (Strength d8 - 2 steps = d4: 1 Stun); then k's free
    counter rolls Strength d8 + Krav Maga d8 = 8 + 8 = 16 against Easy (3): 13 over."""
    k = fig("k", (0, 1), agi="d6", str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/krav_maga": "d8"},
            block_effect="bash", life_points=99)
    x = fig("x", (1, 1), agi="d12", skills={"unarmed_combat": "d6"}, life_points=99, decline_innate="never")
    if armour:
        x["armour"] = armour
    # attack 1 2, block 6 8, bash 1, counter 8 8, damage d2: 2, then x's Endurance 1 1
    return play_loose(scen(open_map(), [k], [x]),
                      [{"action": {"type": "defend", "option": "block"}}, {"action": "end_turn"},
                       {"action": {"type": "attack", "target": "k", "weapon": "unarmed"}}],
                      [1, 2, 6, 8, 1, 8, 8, 2, 1, 1, 1, 1])


def test_krav_maga_counter_beating_easy_by_seven_is_an_extraordinary_hit_with_its_endurance_roll():
    """seed 000, Extraordinary Success in Combat: "When an attacker beats the Difficulty to hit a
    defender by 7 or more, the target must make an Endurance roll or suffer a special effect";
    Krav Maga: "immediately make an Unarmed attack against your attacker as a free action against an
    Easy (3) target". The counter (16 vs 3, 13 over) is an extraordinary hit: x rolls Endurance at
    Average (7) (Vitality d6 + Willpower d6: 1 + 1) and is knocked prone (assumption
    extraordinary_attack)."""
    b = _counter()
    counter = [e for e in evs(b, "attack") if e["actor"] == "k"]
    assert [(e["result"], e["total"], e["difficulty"], e["margin"]) for e in counter] == [
        ("extraordinary hit", 16, 3, 13)]
    end = rolls(b, "Endurance vs special effect", "x")
    assert len(end) == 1 and end[0]["pool"] == "Vitality d6 + Willpower d6"
    assert end[0]["total"] == 2 and end[0]["difficulty"] == 7 and end[0]["success"] is False
    assert {"prone", "knocked"} <= who(b, "x").conditions
    # the counter's damage: 13 Basic (7 Stun, 6 Wound) + d2 Stun 2, after the bash's 1 Stun
    assert (who(b, "x").res["stun"], who(b, "x").res["wound"]) == (10, 6)


def test_krav_maga_counter_extraordinary_hit_may_bypass_armour():
    """seed 000, Extraordinary Success in Combat: "Alternatively, the attacker may choose to bypass
    the victim's body armor instead of inflicting a special effect." The counter on an armoured x
    (plate vest) bypasses it (question extraordinary_hit, default bypass_armour when the armour would
    stop something, as for `strike`): the whole 9 Stun and 6 Wound land, no Endurance roll."""
    b = _counter("plate_vest")
    assert [e["choice"] for e in evs(b, "choice") if e["key"] == "extraordinary_hit"] == ["bypass_armour"]
    hit = [e for e in evs(b, "damage") if e["target"] == "x" and e.get("source") == "unarmed"][-1]
    assert (hit["stun"], hit["wound"]) == (9, 6) and not hit.get("absorbed")
    assert not rolls(b, "Endurance vs special effect", "x")
    assert "prone" not in who(b, "x").conditions


# ---------------------------------------------------------------------------------------
# 2. Plot Points declared before a roll go to that roll: the thrust, Second Wind, the escape

def _pilot(**kw):
    return fig("w", (0, 1), agi="d10", int_="d8", skills={"pilot": "d6", "mechanical_engineering": "d6"},
               vehicle={"name": "ship", "agility": "d6", "type": "air_space", "fuel_hours": 400},
               traits=[{"name": "born_behind_the_wheel", "major": True, "vehicle_type": "air_space"}],
               plot_points=3, **kw)


def test_plot_points_before_the_thrust_check_join_it_improved_by_born_behind_the_wheel():
    """assumption plot_points_use: spending "adds the bonus die to the figure's next roll this turn";
    seed 000, Born Behind the Wheel (Major): "any Plot Points spent on actions involving your chosen
    vehicle type improve as if you had spent 2 additional points". One point before the thrust check
    (Intelligence d8 + Mechanical Engineering d6 at Average 7: Agility d10 against the ship's d6) adds
    a d6 (1 + 2 points); 1 + 1 + 5 = 7 opens up the thrust. The pending bonus is used up."""
    b = play_loose(scen(open_map(), [_pilot()], [dummy("t", (3, 1))]),
                   [act("w", "use", option="plot_points:1"), act("w", "use", option="thrust")], [1, 1, 5])
    r = _roll(b, "open_up_thrust")
    assert r["pool"] == "Intelligence d8 + Mechanical Engineering d6 + Plot Points d6"
    assert [s for s, _ in r["dice"]] == [8, 6, 6]
    assert _mods(r) == [("plot points (bonus die)", 3)]
    assert r["total"] == 7 and r["difficulty"] == 7 and r["success"] is True
    assert who(b, "w").res["vehicle"]["opened_up"] is True
    assert b.state.economy["pp_bonus"] == 0 and who(b, "w").res["pp"] == 2


def test_plot_points_before_second_wind_join_its_endurance_roll():
    """assumption plot_points_use ("the figure's next roll this turn"); RULES-NOTES: Second Wind, "an
    Endurance roll removes that much Stun". Two points (a d4) before it: Vitality d6 + Willpower d6 +
    d4 = 2 + 2 + 4 = 8 Stun off 10."""
    w = fig("w", (0, 1), plot_points=3, state={"stun": 10}, life_points=20)
    b = play_loose(scen(open_map(), [w], [dummy("t", (3, 1))]),
                   [act("w", "use", option="plot_points:2"), act("w", "use", option="second_wind")], [2, 2, 4])
    r = _roll(b, "second_wind")
    assert r["pool"] == "Vitality d6 + Willpower d6 + Plot Points d4"
    assert r["total"] == 8 and ("plot points (bonus die)", 2) in _mods(r)
    assert who(b, "w").res["stun"] == 2
    assert b.state.economy["pp_bonus"] == 0


def test_plot_points_before_the_grapple_escape_join_the_escape_roll():
    """assumption plot_points_use ("the figure's next roll this turn") and grapple (escape: opposed
    Agility + Strength, the escaper must win). One point (a d2): 1 + 1 + 2 = 4 beats the holder's
    1 + 2 = 3, and t is free."""
    t = fig("t", (0, 1), agi="d6", str_="d8", state={"grappled_by": "p"}, life_points=99, plot_points=1)
    p = fig("p", (1, 1), agi="d6", str_="d6", skills={"unarmed_combat": "d6"}, life_points=99)
    b = play_loose(scen(open_map(), [t], [p]),
                   [act("t", "use", option="plot_points:1"), act("t", "grapple", target="p", option="escape")],
                   [1, 1, 2, 1, 2])
    r = _roll(b, "escape")
    assert r["pool"] == "Agility d6 + Strength d8 + Plot Points d2" and r["total"] == 4
    assert _mods(r) == [("plot points (bonus die)", 1)]
    assert _roll(b, "hold_on")["total"] == 3
    assert who(b, "t").res["grappled_by"] is None
    assert b.state.economy["pp_bonus"] == 0


# ---------------------------------------------------------------------------------------
# 3. A held figure does not dive to cover

def _held_under_fire(rows: list[str]):
    """t, held by h (next to it), in a dodge stance, shot at by s with a pistol from 5 squares."""
    t = fig("t", (2, 1), agi="d6", skills={"athletics": "d6", "athletics/dodge": "d8"},
            state={"grappled_by": "h", "stance": "dodge"}, life_points=99, decline_innate="never")
    h = fig("h", (1, 1), skills={"unarmed_combat": "d6"}, life_points=99)
    s = fig("s", (7, 1), agi="d8", skills={"guns": "d6"}, weapons=("pistol",), life_points=99)
    return play_loose(scen(rows, [h, s], [t]), [{"action": "end_turn"}], [])


def _shoot(b, forced: list[int]) -> list[dict]:
    n = len(b.events)
    b.dice.force(forced)
    b.step(Action.from_dict({"type": "attack", "target": "t", "weapon": "pistol"}, b.state.grid.width))
    return b.events[n:]


def test_a_held_figure_does_not_dive_to_cover_and_dodges_only_where_it_stands():
    """assumption grapple: "the target is held (cannot move ...)"; seed 000, Defense, Ranged Combat:
    "A targeted character can dodge against ranged attacks only if there is some kind of cover in
    the area ... a skill penalty based on the distance to the available cover: Adjacent, within arm's
    reach ... none". Held t has cover two squares away (the wall at (2, 2) shelters (1, 3) from s)
    but none where it stands: it stays put, next to its holder, with innate defence (Agility d6: 3),
    and the odds price that innate roll, not a dodge. Standing in cover (a wall at (3, 2) between it
    and s), it dodges in place (Agility d6 + Athletics/Dodge d8: 5 + 6 = 11, no distance penalty)."""
    b = _held_under_fire(["........", "........", "..#.....", "........"])
    s, t = who(b, "s"), who(b, "t")
    assert _defence(RS, b.state, s, t, False, True) == ((6,), 0, 0)   # innate Agility d6, no dodge pool
    out = _shoot(b, [4, 4, 3, 1])
    assert not [e for e in out if e["type"] == "move"]
    assert [(e["mode"], e["difficulty"]) for e in out if e["type"] == "defence"] == [("innate", 3)]
    assert pos(b, "t") == (2, 1) and who(b, "t").res["grappled_by"] == "h"
    assert b.state.grid.adjacent(who(b, "t").pos, who(b, "h").pos)

    b = _held_under_fire(["........", "........", "...#....", "........"])
    s, t = who(b, "s"), who(b, "t")
    assert _defence(RS, b.state, s, t, False, True) == ((6, 8), 0, 0)  # the dodge pool, in place
    out = _shoot(b, [4, 4, 5, 6])
    assert not [e for e in out if e["type"] == "move"]
    assert [(e["mode"], e["difficulty"]) for e in out if e["type"] == "defence"] == [("dodge", 11)]
    assert pos(b, "t") == (2, 1)


# ---------------------------------------------------------------------------------------
# 4. The grapple escape takes the impaired and off-balance step penalties

def _escape(conditions: list, steps: list[dict], forced: list[int]):
    t = fig("t", (0, 1), agi="d6", str_="d8", conditions=conditions, state={"grappled_by": "p"}, life_points=99)
    p = fig("p", (1, 1), agi="d6", str_="d6", skills={"unarmed_combat": "d6"}, life_points=99)
    return play_loose(scen(open_map(), [t], [p]), steps + [act("t", "grapple", target="p", option="escape")],
                      forced)


def test_impaired_escape_takes_two_steps_off_the_strength_die():
    """seed 000, Called Shots, Groin: "Victim is impaired (-2 step skill penalty to all actions ...)".
    The escape's Strength die plays the skill die's part (it takes the multiple-action steps): d8 -> d4."""
    b = _escape([{"name": "impaired", "until": "medical"}], [], [1, 1, 1, 1])
    r = _roll(b, "escape")
    assert r["pool"] == "Agility d6 + Strength d4" and [s for s, _ in r["dice"]] == [6, 4]
    assert _mods(r) == [("impaired (strength)", -2)]


def test_escape_after_rising_from_a_knockdown_takes_the_off_balance_step_and_uses_it_up():
    """seed 000, Knocked Prone: "A character forcibly knocked prone ... must spend 1 action to get back
    up and, due to being off-balance, suffers an additional -1 step skill penalty on the next
    combat-related action taken that turn." Standing up (1 action) then escaping: Strength d8 - 1
    (second action) - 1 (off balance) = d4; the penalty is spent."""
    b = _escape(["knocked"], [act("t", "stand")], [1, 1, 1, 1])
    r = _roll(b, "escape")
    assert r["pool"] == "Agility d6 + Strength d4"
    assert _mods(r) == [("multiple actions (strength)", -1), ("off balance after rising (strength)", -1)]
    assert b.state.economy["rise_penalty"] is False


# ---------------------------------------------------------------------------------------
# 5. A trip rolls Unarmed Combat, with a tripping weapon too

def test_a_fighting_staff_trip_rolls_agility_plus_unarmed_combat_to_hit():
    """seed 000, Tripping: "The attacker makes an Agility + Unarmed Combat/Specialty roll to hit ...
    If tripping with a weapon (like a fighting staff or chain), the attacker can drop it to avoid
    falling prone" (assumption trip_skill). With a fighting staff: Agility d6 + Unarmed Combat d8, not
    Melee Weapons d4; the best specialty (Wrestling d10) where the figure has one; the odds price the
    same pool (vs Easy 3 only 1 + 1, a botch, misses: 1 - 1/48)."""
    p = fig("p", (0, 1), agi="d6", skills={"unarmed_combat": "d8", "melee_weapons": "d4"},
            weapons=("fighting_staff",))
    s = scen(open_map(), [p], [dummy("t", (1, 1))])
    b = play_loose(s, [], [])
    trip = Action("attack", "t", None, "fighting_staff", "trip")
    odds = attack_odds(RS, b.state, who(b, "p"), trip)
    assert abs(odds["p_hit"] - (1 - 1 / 48)) < 1e-12
    b = play_loose(s, [{"action": {"type": "attack", "target": "t", "weapon": "fighting_staff", "option": "trip"}}],
                   [1, 1])
    r = _roll(b, "attack")
    assert r["pool"] == "Agility d6 + Unarmed Combat d8"
    # a botch (1, 1): the attacker drops the staff rather than fall (the weapon's own part stays)
    assert "prone" not in who(b, "p").conditions and b.state.objects == {who(b, "p").pos: ["fighting_staff"]}

    p["skills"]["unarmed_combat/wrestling"] = "d10"
    b = play_loose(scen(open_map(), [p], [dummy("t", (1, 1))]),
                   [{"action": {"type": "attack", "target": "t", "weapon": "fighting_staff", "option": "trip"}}],
                   [2, 2, 1, 1, 1, 1])
    assert _roll(b, "attack")["pool"] == "Agility d6 + Unarmed Combat/Wrestling d10"


# ---------------------------------------------------------------------------------------
# 6. Readings marked as assumptions (no play change)

def test_the_third_reading_assumptions_are_in_the_data_file_and_the_docs():
    """seed 000, Called Shots: "Body armor negates the special effects of a called shot to covered
    areas (a helmet ..., a body suit ... the limbs, and a vest or body suit ... the heart)" (groin:
    no armour); Improvised Weapons: "a barrel rolled into an opponent" (no rolling attack); Movement,
    Combat: "Running/sprinting ... it's the only action the character can take in the turn"."""
    keys = {a["key"] for a in RS.data["assumptions"]}
    new = ("groin_armour", "heavy_object_roll", "run_ends_turn", "trip_skill")
    assert set(new) <= keys
    docs = (REPO / "docs" / "cortex.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Seed read a third time (2026-12-07)"):]
    for key in new + ("plot_points_use", "grapple", "ranged_dodge", "extraordinary_attack"):
        assert f"`{key}`" in section, key
    data = yaml.safe_load((REPO / "rules" / "systems" / "cortex" / "data.yaml").read_text(encoding="utf-8"))
    assert data["called_shots"]["areas"]["groin"]["armour"] is None
    assert data["weapons"]["heavy_object"]["suited"] == ["roll"] and "roll" not in RS.supported_actions["attack"]
    # what they describe, as the engine plays it
    b = play_loose(_ko_scene(weapons=("stun_baton",), str_="d12", armour="ballistic_mesh"),
                   [{"action": {"type": "attack", "target": "t", "weapon": "stun_baton", "option": "called:groin"}}],
                   [10, 1, 1, 1, 1, 1])
    assert ("impaired", "endurance") in afflictions(b, "t")   # a body suit does not cover the groin
    p = fig("p", (0, 1), skills={"melee_weapons": "d8"}, items=["heavy_object"])
    b = play_loose(scen(open_map(), [p], [dummy("t", (1, 1))]), [], [])
    assert {a.option for a in legal(b) if a.kind == "attack" and a.weapon == "heavy_object"} >= {None}
    assert "roll" not in {a.option for a in legal(b) if a.kind == "attack"}
    b = play_loose(scen(open_map(14, 3), [fig("p", (0, 1), plot_points=2)], [dummy("t", (13, 1))]),
                   [{"action": {"type": "move", "cell": [8, 1]}}], [])
    assert [e["mode"] for e in evs(b, "move")] == ["run"] and b.state.actor.id == "t"
