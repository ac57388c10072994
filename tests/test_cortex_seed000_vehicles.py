"""Forced-dice tests for the seed 000 special rules of the `cortex` ruleset:
Vehicles and Spaceships, the replay files (tests/replays/cortex_seed000/*.yaml), and what
`tactica rulesets --json` lists.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES", "assumption <key>") and the geometry are
in tests/cortex_seed000_setup.py; the other topics in tests/test_cortex_seed000_*.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rules.actions import Action
from rules.dice import D2, D4, D6, D8, D10, D12, Dice
from rules.errors import DiceError
from rules.replay import run_replay
from rules.systems.cortex import vehicles
from tests.cortex_seed000_setup import (AREAS, REPLAYS, REPO, RS, _ko_scene, atk, brawler, check, dummy,
                                        economy, fig, only, open_map, person, play, pool_sides, pos,
                                        rolls, scen, who)


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


def test_an_impaired_pilot_takes_the_skill_penalty_on_maneuvers():
    """seed 000, Called Shots, Groin: "Victim is impaired (-2 step skill penalty to all actions ...)".
    At the controls (`use: maneuver:easy`), an impaired pilot's Pilot d6 rolls d2, the penalty
    named apart from the multiple-action one."""
    from tests.cortex_seed000_setup import act, dummy, fig, open_map, play_loose, scen
    pools = {}
    for impaired in (False, True):
        conds = [{"name": "impaired", "until": "medical"}] if impaired else []
        w = fig("w", (0, 1), agi="d8", int_="d8", skills={"pilot": "d6", "mechanical_engineering": "d6"},
                vehicle={"name": "mule", "agility": "d8", "type": "land", "fuel_hours": 40}, conditions=conds)
        b = play_loose(scen(open_map(), [w], [dummy("t", (1, 1))]), [act("w", "use", option="maneuver:easy")],
                       [1, 1, 1, 1])
        r = [e for e in b.events if e["type"] == "roll" and e.get("check") == "maneuver"][0]
        pools[impaired] = (r["pool"], [m["source"] for m in r["modifiers"]])
    assert pools == {False: ("d8 + d6", []), True: ("d8 + d2", ["impaired (skill)"])}
