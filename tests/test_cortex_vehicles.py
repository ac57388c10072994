"""seed 000, Vehicles and Spaceships from a scenario and a replay (issue #32): a figure at the
controls of a vehicle (`vehicle:` in its scenario entry) and its `use` actions: maneuvers,
opening up the thrust, the Pulse Drive and Full Burn (rules/systems/cortex/piloting.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.actions import Action
from rules.errors import ScenarioError, UnknownNameError
from rules.scenario import load_scenario, new_battle
from rules.dice import Dice
from tests.cortex_seed000_setup import act, end, evs, fig, only, open_map, play, scen, who

OPERATING = ("seed 000, Operating Ships/Vehicles: 'The roll for performing maneuvers is either the "
             "ship/vehicle's or the pilot/driver's Agility (whichever is lower) + the pilot's Pilot skill/specialty'")


def _ship(vehicle: Any = "firefly_transport", **kw: Any) -> dict:
    """A d10 Agility pilot (Pilot d6, Intelligence d8, Mechanical Engineering d6) at the controls
    of a d6 Firefly; a bystander far off keeps the fight going."""
    wash = fig("wash", (0, 1), agi="d10", int_="d8", skills={"pilot": "d6", "mechanical_engineering": "d6"},
               vehicle=vehicle, **kw)
    return scen(open_map(), [wash], [fig("x", (11, 1), life_points=99, decline_innate="always")])


def use(option: str, dice: list[int] = ()) -> dict:
    return act("wash", "use", option=option, dice=list(dice))


def rolls_of(b, check: str) -> list[dict]:
    return [e for e in b.events if e["type"] == "roll" and e.get("check") == check]


def sides(e: dict) -> list[int]:
    return [s for s, _ in e["dice"]]


def test_a_maneuver_rolls_the_lower_agility_plus_pilot() -> None:
    """OPERATING: "a pilot with d10 AGI flying a d6 AGI ship normally rolls d6 as the
    Attribute die for maneuvers"; a maneuver is an action against a Difficulty."""
    b = play(_ship(), [use("maneuver:average", [5, 2])])
    r = only(rolls_of(b, "maneuver"))
    assert sides(r) == [6, 6] and r["total"] == 7 and r["difficulty"] == 7 and r["success"]
    assert {"source": "the vehicle's lower Agility (attribute)", "value": -2} in r["modifiers"]
    assert b.state.economy["actions"] == 1
    b = play(_ship(), [use("maneuver:hard", [5, 2])])
    assert not only(rolls_of(b, "maneuver"))["success"]


def test_opening_up_the_thrust_gives_the_full_die_for_the_scene() -> None:
    """seed 000: "a successful Intelligence + Mechanical Engineering check ("open up that
    thrust value") at a Difficulty step equal to the number of steps between the pilot's
    Attribute and the ship's Attribute can allow a pilot to exceed a spaceship's limitations
    and use his full Attribute die for the current scene": d10 vs d6 is 2 steps, Average 7."""
    b = play(_ship(), [use("thrust", [4, 3]), use("maneuver:average", [9, 1])])
    t = only(rolls_of(b, "open_up_thrust"))
    assert sides(t) == [8, 6] and t["difficulty"] == 7 and t["success"]
    m = only(rolls_of(b, "maneuver"))
    assert sides(m) == [10, 4]                         # the full d10; the 2nd action steps Pilot down
    assert {"source": "multiple actions (skill)", "value": -1} in m["modifiers"]
    v = b.ruleset.tracked(b.state, who(b, "wash"))["vehicle"]
    assert v["opened_up"] and v["thrust_tried"] and v["mechanical_damage"] is None
    assert Action("use", option="thrust") not in b.legal_actions()     # once a scene


def test_a_failed_thrust_asks_the_pilot_which_mechanical_damage() -> None:
    """seed 000: "If the check fails, the pilot is stuck using the lower die for the scene -
    and there may be some mechanical damage (either increase monthly maintenance cost by 10%
    or require a later repair check at the same Difficulty)"."""
    s = _ship()
    fail = use("thrust", [3, 3])                       # 6 vs Average 7
    asked = play(s, [fail], questions="ask")
    q = asked.question
    assert (q.figure, q.key, q.options, q.default) == ("wash", "thrust_damage", ("maintenance", "repair"),
                                                       "maintenance")
    upkeep = play(s, [fail, act("wash", "choose", option="maintenance")], questions="ask")
    repair = play(s, [fail, act("wash", "choose", option="repair"), use("maneuver:easy", [2, 1])],
                  questions="ask")
    vu = upkeep.ruleset.tracked(upkeep.state, who(upkeep, "wash"))["vehicle"]
    vr = repair.ruleset.tracked(repair.state, who(repair, "wash"))["vehicle"]
    assert vu["monthly_maintenance"] == 2200 and vu["repair_difficulty"] is None
    assert vr["monthly_maintenance"] == 2000 and vr["repair_difficulty"] == 7 and vr["mechanical_damage"] == "repair"
    assert not vr["opened_up"] and vr["thrust_tried"]
    assert sides(only(rolls_of(repair, "maneuver"))) == [6, 4]      # stuck with the ship's d6
    assert only(evs(repair, "choice", actor="wash"))["choice"] == "repair"


def test_pulse_drive_and_full_burn_burn_fuel() -> None:
    """seed 000, Pulse Drive and Full Burn: "To turn on the Pulse Drive burns 50 hours."
    "Full Burn uses fuel at double rate, and costs 100 hours to travel at maximum speed.\""""
    b = play(_ship(), [use("pulse_drive"), use("full_burn")])
    v = b.ruleset.tracked(b.state, who(b, "wash"))["vehicle"]
    assert v["fuel_hours"] == 450 and v["pulse_drive"] and v["full_burn"]
    low = play(_ship({"template": "firefly_transport", "fuel_hours": 60}), [use("pulse_drive")])
    legal = low.legal_actions()
    assert who(low, "wash").res["vehicle"]["fuel_hours"] == 10
    assert Action("use", option="full_burn") not in legal and Action("use", option="pulse_drive") not in legal
    first = play(_ship({"template": "firefly_transport", "fuel_hours": 60}), [])
    assert Action("use", option="full_burn") not in first.legal_actions()   # 60 < 100 hours


def test_an_inline_land_vehicle_and_born_behind_the_wheel() -> None:
    """seed 000, Born Behind the Wheel: "you gain a bonus d4 on all piloting or driving rolls"
    at the controls of the chosen vehicle type: the inline mule is a land vehicle."""
    mule = {"name": "mule", "agility": "d8", "type": "land", "fuel_hours": 40}
    b = play(_ship(mule, traits=[{"name": "born_behind_the_wheel", "vehicle_type": "land"}]),
             [use("maneuver:average", [4, 2, 1])])
    assert sides(only(rolls_of(b, "maneuver"))) == [8, 6, 4]
    air = play(_ship(mule, traits=[{"name": "born_behind_the_wheel", "vehicle_type": "air_space"}]),
               [use("maneuver:average", [4, 2])])
    assert sides(only(rolls_of(air, "maneuver"))) == [8, 6]


def test_figures_without_a_vehicle_have_no_pilot_actions() -> None:
    b = play(scen(open_map(), [fig("wash", (0, 1))], [fig("x", (11, 1))]), [])
    assert not [a for a in b.legal_actions() if a.kind == "use"]
    assert "vehicle" not in b.ruleset.tracked(b.state, who(b, "wash"))


@pytest.mark.parametrize("vehicle,field,err", [
    ("tardis", "vehicle.template", UnknownNameError),
    ({"name": "x", "agility": "d6", "type": "water"}, "vehicle.type", ScenarioError),
    ({"template": "mule", "wings": 2}, "vehicle", ScenarioError),
    ({"template": "mule", "fuel_hours": -1}, "vehicle.fuel_hours", ScenarioError),
    ({"name": "x", "type": "land"}, "vehicle.agility", ScenarioError),
])
def test_a_bad_vehicle_is_a_clear_scenario_error(vehicle, field, err) -> None:
    with pytest.raises(err) as e:
        spec, _ = load_scenario(_ship(vehicle))
        new_battle(spec, Dice(0))
    assert field in str(e.value)


def test_end_turn_then_the_next_turn_has_fresh_actions() -> None:
    b = play(_ship(), [use("maneuver:easy", [1, 2]), end("wash"), end("x"), use("maneuver:easy", [1, 2])])
    assert [sides(r) for r in rolls_of(b, "maneuver")] == [[6, 6], [6, 6]]


def test_a_saved_fight_keeps_the_vehicle() -> None:
    """The vehicle's state is the pilot's: a saved fight loads with its fuel and drives."""
    import json

    from rules.serialize import battle_from_dict, battle_to_dict
    doc = _ship()
    spec, _ = load_scenario(doc)
    b = new_battle(spec, Dice(1))
    b.start()
    b.step(Action("use", option="pulse_drive"))
    b2 = battle_from_dict(json.loads(json.dumps(battle_to_dict(b, doc))))
    assert b2.state.by_id["wash"].res["vehicle"] == who(b, "wash").res["vehicle"]
    assert b2.state.by_id["wash"].res["vehicle"]["fuel_hours"] == 550
