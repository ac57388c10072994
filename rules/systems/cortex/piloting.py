"""seed 000, Vehicles and Spaceships in a fight: a scenario's pilot at the controls of a
vehicle, and the pilot's actions (issue #32).

```yaml
- {id: wash, template: crew_mechanic, at: [1, 1], vehicle: firefly_transport}
- {id: wash, ..., vehicle: {template: firefly_transport, fuel_hours: 80}}
- {id: wash, ..., vehicle: {name: mule, agility: d8, type: land, fuel_hours: 40}}
```

The pilot's `use` actions (data.yaml assumptions pilot_actions, drive_fuel):

- `maneuver:<difficulty>`: "The roll for performing maneuvers is either the ship/vehicle's or
  the pilot/driver's Agility (whichever is lower) + the pilot's Pilot skill/specialty";
- `thrust`: "a successful Intelligence + Mechanical Engineering check ("open up that thrust
  value") at a Difficulty step equal to the number of steps between the pilot's Attribute and
  the ship's Attribute can allow a pilot to ... use his full Attribute die for the current
  scene. If the check fails, the pilot is stuck using the lower die for the scene - and there
  may be some mechanical damage (either increase monthly maintenance cost by 10% or require a
  later repair check at the same Difficulty)": which damage is the pilot's question
  `thrust_damage` (maintenance, repair);
- `pulse_drive`: "To turn on the Pulse Drive burns 50 hours.";
- `full_burn`: "Full Burn uses fuel at double rate, and costs 100 hours to travel at maximum speed."
"""

from __future__ import annotations

from typing import Any, Mapping

from rules.actions import Action
from rules.choices import decide
from rules.dice import Dice, Step
from rules.errors import ScenarioError
from rules.names import check_keys, check_known
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex.model import parse_step
from rules.systems.cortex.vehicles import (full_burn_cost, maintenance_after_damage, maneuver_attribute,
                                           maneuver_roll, open_up_thrust, pulse_drive_start, stepped,
                                           thrust_difficulty)

MANEUVERS = ("easy", "average", "hard", "formidable", "heroic", "incredible", "ridiculous", "impossible")
PILOT_OPTIONS = tuple(f"maneuver:{d}" for d in MANEUVERS) + ("thrust", "pulse_drive", "full_burn")
PILOT_ANSWERS = ("maintenance", "repair")
VEHICLE_TYPES = ("land", "air_space")
_NUMBERS = ("fuel_hours", "monthly_maintenance")
_FLAGS = ("pulse_drive", "full_burn", "opened_up", "thrust_tried")
VEHICLE_FIELDS = ("template", "name", "agility", "type", *_NUMBERS, *_FLAGS)


def build_vehicle(raw: Any, templates: Mapping[str, Mapping[str, Any]], source: str | None, field: str
                  ) -> dict[str, Any]:
    """The vehicle state of a pilot figure from its scenario entry's `vehicle` (checked)."""
    f = f"{field}.vehicle"
    if isinstance(raw, str):
        raw = {"template": raw}
    if not isinstance(raw, Mapping):
        raise ScenarioError(f"vehicle {raw!r}", source=source, field=f,
                            expected="a vehicle template name or a mapping of " + ", ".join(VEHICLE_FIELDS))
    check_keys(raw, VEHICLE_FIELDS, source, f, "vehicle field")
    spec: dict[str, Any] = {}
    if "template" in raw:
        name = raw["template"]
        check_known(name, sorted(templates), source, f"{f}.template", "vehicle template")
        spec.update(templates[name])
    spec.update({k: v for k, v in raw.items() if k != "template"})
    for key in ("name", "agility", "type"):
        if key not in spec:
            raise ScenarioError(f"vehicle has no {key}", source=source, field=f"{f}.{key}",
                                expected="a value here or in the template")
    if not isinstance(spec["name"], str):
        raise ScenarioError(f"name {spec['name']!r}", source=source, field=f"{f}.name", expected="text")
    agility = parse_step(spec["agility"], source, f"{f}.agility")
    if spec["type"] not in VEHICLE_TYPES:
        raise ScenarioError(f"type {spec['type']!r}", source=source, field=f"{f}.type",
                            expected="one of " + ", ".join(VEHICLE_TYPES))
    out: dict[str, Any] = {"name": spec["name"], "type": spec["type"], "agility": str(agility)}
    for key in _NUMBERS:
        v = spec.get(key, 0)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ScenarioError(f"{key} {v!r}", source=source, field=f"{f}.{key}", expected="a number >= 0")
        out[key] = float(v)
    for key in _FLAGS:
        v = spec.get(key, False)
        if not isinstance(v, bool):
            raise ScenarioError(f"{key} {v!r}", source=source, field=f"{f}.{key}", expected="true or false")
        out[key] = v
    if out["opened_up"]:
        out["thrust_tried"] = True
    out["mechanical_damage"] = None
    out["repair_difficulty"] = None
    return out


class PilotingMixin:
    """A pilot's actions at the controls of its vehicle, for `CortexRuleset`."""

    def pilot_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        """The legal `use` actions of a figure at the controls (none for other figures)."""
        v = a.res.get("vehicle")
        if not v:
            return []
        A = self.action
        steps = -state.economy["actions"] + self.impaired_steps(a)
        pa = a.stats["attributes"]["agility"]
        va = Step.parse(v["agility"])
        out: list[Action] = []
        if stepped(maneuver_attribute(pa, va, v["opened_up"]), self.pilot_skill(a), steps) is not None:
            out.extend(A("use", option=f"maneuver:{d}") for d in MANEUVERS)
        if not v["thrust_tried"] and thrust_difficulty(pa, va) is not None and \
                stepped(a.stats["attributes"]["intelligence"], self.engineering_skill(a), steps) is not None:
            out.append(A("use", option="thrust"))
        vd = self.data["vehicles"]
        if not v["pulse_drive"] and v["fuel_hours"] >= vd["pulse_drive_start_hours"]:
            out.append(A("use", option="pulse_drive"))
        if not v["full_burn"] and v["fuel_hours"] >= vd["full_burn_hours"]:
            out.append(A("use", option="full_burn"))
        return out

    @staticmethod
    def pilot_skill(a: Combatant) -> Step:
        sk = a.stats["skills"]
        return max(sk.get("pilot", Step(0)), *(v for k, v in sk.items() if k.startswith("pilot/")), Step(0))

    @staticmethod
    def engineering_skill(a: Combatant) -> Step:
        sk = a.stats["skills"]
        return max(sk.get("mechanical_engineering", Step(0)),
                   *(v for k, v in sk.items() if k.startswith("mechanical_engineering/")), Step(0))

    def impaired_steps(self, a: Combatant) -> int:
        """seed 000, Called Shots, Groin: "impaired (-2 step skill penalty to all actions)": the skill
        steps of an impaired figure's every roll (0 when it is not)."""
        return int(self.called["impaired_steps"]) if "impaired" in a.conditions else 0

    def apply_piloting(self, state: BattleState, a: Combatant, opt: str, dice: Dice) -> list[Event]:
        """Resolve one of `pilot_actions` (checked legal)."""
        v = a.res["vehicle"]
        e = state.economy
        impaired = self.impaired_steps(a)
        steps = -e["actions"] + impaired
        e["actions"] += 1
        va = Step.parse(v["agility"])
        vd = self.data["vehicles"]
        if opt.startswith("maneuver:"):
            name = opt.split(":", 1)[1]
            n = e.get("pp_bonus", 0)
            e["pp_bonus"] = 0
            ok, total, ev = maneuver_roll(self.traitbook, a.stats, a.traits, va, v["type"], self.diff[name], dice,
                                          opened_up=v["opened_up"], plot_points=n, actor=a.id, steps=steps,
                                          impaired=impaired)
            ev["purpose"] = f"maneuver ({name}) at the controls of the {v['name']}"
            return [ev, event("effect", target=a.id, vehicle=v["name"], success=ok,
                                       effect=f"the {name} maneuver {'succeeds' if ok else 'fails'}")]
        if opt == "thrust":
            # assumption plot_points_use: a bonus declared before it is this roll's; the thrust is an
            # action "involving your chosen vehicle type" (Born Behind the Wheel, Major: +2 points)
            extra = self.take_pp_bonus(state, a, {"piloting", v["type"]})
            r = open_up_thrust(a.stats, va, dice, actor=a.id, steps=steps, impaired=impaired, extra=tuple(extra))
            v["thrust_tried"] = True
            v["opened_up"] = r.success
            evs = [r.event]
            if r.success:
                return evs + [event("effect", target=a.id, vehicle=v["name"],
                                    effect=f"opens up the thrust: maneuvers with Agility {r.attribute} this scene")]
            way = decide(state, a, "thrust_damage", PILOT_ANSWERS, "maintenance",
                         f"{a.id} failed to open up the {v['name']}'s thrust: mechanical damage as +10% monthly "
                         f"maintenance or a later repair check at Difficulty {r.difficulty}?")
            evs.append(event("choice", actor=a.id, key="thrust_damage", choice=way))
            v["mechanical_damage"] = way
            if way == "maintenance":
                before = v["monthly_maintenance"]
                v["monthly_maintenance"] = maintenance_after_damage(before, float(vd["maintenance_increase"]))
                what = f"monthly maintenance {before:g} -> {v['monthly_maintenance']:g}"
            else:
                v["repair_difficulty"] = r.difficulty
                what = f"a repair check at Difficulty {r.difficulty} is due"
            return evs + [event("effect", target=a.id, vehicle=v["name"],
                                effect=f"stuck with Agility {r.attribute} this scene; mechanical damage: {what}")]
        before = v["fuel_hours"]
        if opt == "pulse_drive":
            v["fuel_hours"] = pulse_drive_start(before, float(vd["pulse_drive_start_hours"]))
            v["pulse_drive"] = True
            what = "turns on the Pulse Drive"
        else:
            v["fuel_hours"] = before - full_burn_cost(float(vd["full_burn_hours"]))
            v["full_burn"] = True
            what = "goes to Full Burn (fuel at double rate)"
        return [event("effect", target=a.id, vehicle=v["name"], effect=f"{what}: fuel {before:g} -> "
                      f"{v['fuel_hours']:g} hours", fuel_hours=v["fuel_hours"])]

    @staticmethod
    def vehicle_view(c: Combatant) -> dict[str, Any] | None:
        """The vehicle part of `tracked()`: the vehicle, its fuel, drives, thrust and damage."""
        v = c.res.get("vehicle")
        return None if not v else dict(v)
