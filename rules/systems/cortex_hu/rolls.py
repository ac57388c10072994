"""What each `cortex_hu` roll is for and which modifiers it took, as event fields (issue #32).

Every roll event of the ruleset carries, besides `actor`, `purpose`, `dice` and `total`:

- `check`: a stable snake_case key naming what the roll is for (`CHECKS` lists them), so a
  test or a GM tool can pick "the feint roll" without reading the narration;
- `modifiers`: every step modifier applied to that roll, `{"source": why, "value": steps}`,
  in die steps (seed 002's "kockafokozat"; +1 steps a die up), none when the roll had none.
  Those on the action die (the ladder, a run, prone, range, aim, all-out attack, a called
  shot, disarm, full defence: assumption multiple_actions) add up to the roll's `steps`;
  those on an attribute die (wounds, armour) name the attribute, as the shared Cortex code
  does: "wounded (agility)", "tactical_vest (agility)".

The lists are built only when a roll is made, never while listing legal actions.
"""

from __future__ import annotations

from typing import Any, Iterable

from rules.events import Event
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.model import Weapon

#: check key -> what the roll is for
CHECKS: dict[str, str] = {
    "initiative": "Agility + Alertness + modifiers for the turn order",
    "attack": "an attack roll (any option: called shot, disarm, throw, choke, all-out)",
    "grapple": "Agility + Unarmed Combat to seize (Megragadás)",
    "escape": "Agility + Strength to break a hold",
    "feint": "Alertness + melee skill to fool (Csel)",
    "feint_resist": "Intelligence + Perception/Intuition against a feint",
    "run": "Agility + Athletics/Running: metres beyond 9 (rohanás)",
    "innate_defence": "the free Agility roll that is the Difficulty (Ösztönös kitérés)",
    "plot_points": "the Plot Point die added to innate defence",
    "parry": "Agility + weapon skill to parry (Hárítás)",
    "dodge": "Agility + Athletics/Dodge (Kitérés)",
    "damage": "the weapon's damage die",
    "stay_conscious": "Vitality + Willpower against 7 to stay conscious (the Cortex base's key)",
    "dying": "Vitality + Willpower against 7 while dying (the Cortex base's key)",
    "called_shot": "Vitality + Willpower against 7 after a called shot (Célzott lövés)",
    "knockout_rounds": "the d6 of rounds a called shot knocks a figure out",
    "disarm_resist": "Agility + Willpower against 11 to keep hold of the weapon (Lefegyverzés)",
}


def mods(*pairs: tuple[str, int]) -> list[dict[str, Any]]:
    """[{"source", "value"}] for the non-zero (source, value) pairs."""
    return [{"source": s, "value": int(v)} for s, v in pairs if v]


def tag(ev: Event, check: str, modifiers: Iterable[dict[str, Any]] = ()) -> Event:
    """Set the roll event's check key and modifiers; returns it."""
    ev["check"] = check
    ev["modifiers"] = list(modifiers)
    return ev


def fill(evs: list[Event], check: str, modifiers_of: Any = None) -> list[Event]:
    """Give the roll events that the shared Cortex code built without a `check` one
    (`modifiers_of(actor id)` -> their modifiers). Those it built with one keep theirs."""
    for ev in evs:
        if ev["type"] == "roll" and "check" not in ev:
            ev["check"] = check
            ev["modifiers"] = list(modifiers_of(ev["actor"])) if modifiers_of else []
        elif ev["type"] == "roll":
            ev.setdefault("modifiers", [])
    return evs


class RollsHu:
    """The modifier lists of `CortexHuRuleset`'s rolls (see the module docstring)."""

    def attr_mods(self, c: Combatant, attr: str) -> list[dict[str, Any]]:
        """Wounds and each armour's steps on an attribute die (`CortexBase.base_attr_steps`
        decides them; named as cortex_common names them)."""
        total = self.attr_steps(c, attr)
        if not total:
            return []
        armour = [(f"{a.name} ({attr})", a.agility_steps) for a in c.armour] if attr == "agility" else []
        return mods((f"wounded ({attr})", total - sum(v for _, v in armour)), *armour)

    def ladder_mods(self, state: BattleState, slot: int) -> list[dict[str, Any]]:
        """The ladder at action `slot` of the turn: carried-over reactions, then the actions before."""
        debt = state.economy.get("debt", 0)
        return mods(("carried-over reactions", -debt), ("multiple actions", -(slot - debt)))

    def turn_mods(self, state: BattleState, a: Combatant) -> list[dict[str, Any]]:
        """What `turn_steps` adds up: the ladder, a run's penalty, lying prone."""
        e = state.economy
        return self.ladder_mods(state, e["actions"]) + mods(
            ("running", e["run_penalty"]),
            ("prone", int(self.prone_rules["steps"]) if "prone" in a.conditions else 0))

    def attack_mods(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str
                    ) -> list[dict[str, Any]]:
        """What `attack_steps` adds up for this attack, then the attribute die's modifiers."""
        band = self.range_steps(state, a, t, w, option) or 0
        e = state.economy
        out = self.turn_mods(state, a) + mods(
            ("improvised throw" if option == "throw" else "range", band),
            ("all-out attack", self.all_out_steps if option == "all_out" or e["all_out"] else 0),
            ("aim", a.res["aim"] * int(self.aim_rules["steps_per_round"]) if self.ranged_attack(w, option) else 0))
        if option.startswith("called:"):
            out += mods((f"called shot ({self.area_of(option)})", self.option_steps(w, option)))
        elif option == "disarm":
            out += mods(("disarm", self.option_steps(w, option)))
        return out + self.attr_mods(a, "agility" if option == "throw" else w.attribute)

    def reaction_mods(self, d: Combatant) -> list[dict[str, Any]]:
        """What `reaction_steps` adds up: the last turn's actions, earlier reactions, prone, a run
        until the next turn, full defence."""
        return mods(("actions of its last turn", -d.res["last_actions"]), ("earlier reactions", -d.res["debt"]),
                    ("prone", int(self.prone_rules["steps"]) if "prone" in d.conditions else 0),
                    ("running", self.run_steps(d)),
                    ("full defence", self.full_defence_steps if d.res["full_defence"] else 0))


__all__ = ["CHECKS", "RollsHu", "fill", "mods", "tag"]
