"""seed 000, Vehicles and Spaceships: maneuvers, opening up the thrust, Pulse Drive, Full Burn.

The rules as functions; `piloting.py` gives a scenario's pilot and vehicle the actions that
call them. `steps` is the multiple-action penalty (negative) on the skill die: a penalty
beyond d0 spills onto the attribute die, as for every Cortex roll (assumption multiple_actions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, Step, roll_steps
from rules.events import Event, event
from rules.systems.cortex.traits import TraitBook, plot_point_die

LADDER = (3, 7, 11, 15, 19, 23, 27, 31)  # RULES-NOTES: Easy ... Impossible


def maneuver_attribute(pilot_agility: Step, vehicle_agility: Step, opened_up: bool = False) -> Step:
    """seed 000: the lower of the pilot's and the vehicle's Agility, unless the pilot opened it up."""
    if opened_up:
        return pilot_agility
    return min(pilot_agility, vehicle_agility)


def thrust_difficulty(pilot_agility: Step, vehicle_agility: Step) -> int | None:
    """seed 000: a Difficulty step equal to the number of steps between the two Agilities
    (1 step: Easy 3, 2: Average 7 ...); None when the pilot's die is not higher."""
    gap = pilot_agility.index - vehicle_agility.index
    if gap <= 0:
        return None
    return LADDER[min(gap, len(LADDER)) - 1]


def stepped(attr: Step, skill: Step, steps: int) -> tuple[Step, Step] | None:
    """Attribute and skill dice after `steps` on the skill die (None: the roll cannot be tried)."""
    if steps >= 0:
        return attr, skill + steps
    over = -steps - skill.index
    if over <= 0:
        return attr, skill - (-steps)
    return None if attr.index - over < 1 else (Step(attr.index - over), Step(0))


def _steps_mod(steps: int, impaired: int = 0) -> list[dict[str, Any]]:
    """The named skill steps of a pilot's roll: `steps` in all, `impaired` of them the called shot's
    (seed 000, Groin: "-2 step skill penalty to all actions"), the rest the multiple-action penalty."""
    out = [{"source": "multiple actions (skill)", "value": steps - impaired}] if steps - impaired else []
    return out + ([{"source": "impaired (skill)", "value": impaired}] if impaired else [])


@dataclass
class ThrustResult:
    success: bool
    difficulty: int
    attribute: Step           # the die the pilot uses for the rest of the scene
    mechanical_damage: str | None
    event: Event


def open_up_thrust(stats: Mapping[str, Any], vehicle_agility: Step, dice: Dice,
                   damage_choice: str = "maintenance", actor: str = "pilot", steps: int = 0,
                   impaired: int = 0, extra: tuple[Step, ...] = ()) -> ThrustResult:
    """seed 000: Intelligence + Mechanical Engineering to use the pilot's full Agility.

    On a failure the pilot keeps the lower die for the scene and the ship takes mechanical
    damage: `maintenance` (+10% monthly maintenance) or `repair` (a later repair check at
    the same Difficulty). `steps`: on the skill die, `impaired` of them (named apart) the impaired penalty.
    `extra`: the Plot Point die declared for this roll (assumption plot_points_use), rolled after
    the two dice."""
    if damage_choice not in ("maintenance", "repair"):
        raise ValueError("damage_choice must be 'maintenance' or 'repair'")
    pa = stats["attributes"]["agility"]
    diff = thrust_difficulty(pa, vehicle_agility)
    if diff is None:
        raise ValueError("the pilot's Agility is not higher than the vehicle's: nothing to open up")
    intel = stats["attributes"]["intelligence"]
    me = max(stats["skills"].get("mechanical_engineering", Step(0)),
             *(v for k, v in stats["skills"].items() if k.startswith("mechanical_engineering/")), Step(0))
    pool = stepped(intel, me, steps)
    if pool is None:
        raise ValueError("no dice left for the check after the multiple-action penalty")
    intel, me = pool
    dice_ = (intel, me, *extra)
    named = _steps_mod(steps, impaired) + [{"source": "plot points (bonus die)", "value": d.index} for d in extra]
    text = f"Intelligence {intel} + Mechanical Engineering {me}" + "".join(f" + Plot Points {d}" for d in extra)
    r = roll_steps(dice, dice_, "open up the thrust",
                   RollCall(actor, "open up the thrust", "open_up_thrust", text, step_sides(dice_),
                            difficulty=diff, modifiers=calls.mods(named), label="open up the thrust"))
    ok = r.total >= diff and not r.botch
    ev = event("roll", actor=actor, purpose="open up the thrust", check="open_up_thrust",
               modifiers=named, pool=text,
               dice=[list(f) for f in r.faces], total=r.total, difficulty=diff, success=ok)
    return ThrustResult(ok, diff, pa if ok else min(pa, vehicle_agility),
                        None if ok else damage_choice, ev)


def maneuver_roll(book: TraitBook, stats: Mapping[str, Any], traits: Iterable[Mapping[str, Any]],
                  vehicle_agility: Step, vehicle_type: str, difficulty: int, dice: Dice,
                  opened_up: bool = False, plot_points: int = 0, actor: str = "pilot", steps: int = 0,
                  impaired: int = 0) -> tuple[bool, int, Event]:
    """A maneuver: maneuver attribute + the Pilot skill (+ Born Behind the Wheel's d4). `steps`: on the
    skill die, `impaired` of them (named apart) the impaired penalty."""
    attr = maneuver_attribute(stats["attributes"]["agility"], vehicle_agility, opened_up)
    ctx = {"piloting", vehicle_type}
    mods = book.modifiers(traits, ctx, "agility")
    skill = max(stats["skills"].get("pilot", Step(0)),
                *(v for k, v in stats["skills"].items() if k.startswith("pilot/")), Step(0))
    base = attr
    dice2 = stepped(attr, skill, steps)
    if dice2 is None:
        raise ValueError("no dice left for the maneuver after the multiple-action penalty")
    attr, skill = dice2
    pool = [attr, skill, *mods.bonus_dice]
    if plot_points:
        bonus = book.modifiers(traits, ctx | {"plot_points"}, "agility").plot_point_bonus
        pool.append(plot_point_die(plot_points + bonus))
    named = [{"source": "the vehicle's lower Agility (attribute)",
              "value": base.index - stats["attributes"]["agility"].index}] if base != stats["attributes"]["agility"] else []
    named += _steps_mod(steps, impaired)
    named += [{"source": "traits (bonus die)", "value": d.index} for d in mods.bonus_dice]
    named += [{"source": "plot points (bonus die)", "value": pool[-1].index}] if plot_points else []
    r = roll_steps(dice, pool, "maneuver",
                   RollCall(actor, "maneuver", "maneuver", " + ".join(str(p) for p in pool), step_sides(pool),
                            difficulty=difficulty, modifiers=calls.mods(named), label="maneuver"))
    ok = r.total >= difficulty and not r.botch
    ev = event("roll", actor=actor, purpose="maneuver", check="maneuver", modifiers=named,
               pool=" + ".join(str(p) for p in pool),
               dice=[list(f) for f in r.faces], total=r.total, difficulty=difficulty, success=ok)
    return ok, r.total, ev


def pulse_drive_start(fuel_hours: float, start_cost: float = 50) -> float:
    """seed 000: turning on the Pulse Drive burns 50 hours of fuel."""
    if fuel_hours < start_cost:
        raise ValueError(f"not enough fuel to start the Pulse Drive ({fuel_hours} < {start_cost} hours)")
    return fuel_hours - start_cost


def fuel_used(hours: float, full_burn: bool = False, rate: float = 2.0) -> float:
    """Fuel (in hours) for `hours` of flight; Full Burn uses fuel at double rate."""
    return hours * (rate if full_burn else 1.0)


def full_burn_cost(hours: float = 100) -> float:
    """seed 000: Full Burn costs 100 hours to travel at maximum speed."""
    return hours


def maintenance_after_damage(monthly_cost: float, increase: float = 0.10) -> float:
    """seed 000: mechanical damage may raise monthly maintenance by 10%."""
    return round(monthly_cost * (1 + increase), 2)
