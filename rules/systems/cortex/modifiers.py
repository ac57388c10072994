"""The named modifiers of `cortex` rolls: the `check` and `modifiers` fields of roll events.

Every roll event carries `check` (a stable snake_case key: `attack`, `block`, `dodge`,
`innate_defence`, `damage`, `trip`, `breaking`, `harms_way`, `endurance` ...; the list is in
docs/cortex.md) and `modifiers`, a list of `{"source": "<why> (<die>)", "value": n}`:

- n is in die steps on the die named in brackets: `(skill)` or `(attribute)`. A skill
  penalty beyond d0 spills onto the attribute die (assumption multiple_actions), so the
  dice rolled are the result of the whole list, not of each entry alone;
- a bonus die (Plot Points, Born Behind the Wheel) is `(bonus die)` with n its size in
  steps (d2 = 1, d4 = 2 ...).

`attack_steps` is the one place that adds up an attack roll's skill steps: `attack_dice`
calls it on the hot path (no list), `attack_modifiers` with a list to name each one.
"""

from __future__ import annotations

from typing import Any, Iterable

from rules.dice import Step
from rules.state import BattleState, Combatant
from rules.systems.cortex.model import Weapon


def mod(source: str, value: int) -> dict[str, Any]:
    """One named modifier of a roll."""
    return {"source": source, "value": int(value)}


def bonus_dice(dice: Iterable[Step], source: str = "plot points") -> list[dict[str, Any]]:
    """Bonus dice as modifiers (value: the die's size in steps)."""
    return [mod(f"{source} (bonus die)", d.index) for d in dice]


class ModifiersMixin:
    """Step sums and their named parts for `CortexRuleset` rolls."""

    def attack_steps(self, state: BattleState, a: Combatant, w: Weapon, option: str, band: int,
                     out: list | None = None) -> tuple[int, str]:
        """(skill steps, attribute rolled) of an attack now; `out` gets each step named."""
        e = state.economy
        steps = -e["actions"] + band
        if e["rise_penalty"]:
            steps -= 1
        impaired = "impaired" in a.conditions
        if impaired:
            steps += int(self.called["impaired_steps"])
        attr = w.attribute
        pen = suited_bonus = 0
        if w.x("improvised"):
            pen = int(w.x("penalty", 0))
            suited = w.x("suited") or ()
            if option in suited or (option == "" and "strike" in suited):
                suited_bonus = min(0, pen + 1) - pen
            steps += pen + suited_bonus
        fire = 0
        if option in ("trip", "throw"):
            attr = "agility"
        elif option in ("burst", "autofire"):
            fire = int(self.modes[option]["attack_steps"])
            steps += fire
        if out is not None:
            for on, source, value in (
                    (e["actions"], "multiple actions", -e["actions"]),
                    (band, "range band", band),
                    (e["rise_penalty"], "off balance after rising", -1),
                    (impaired, "impaired", int(self.called["impaired_steps"])),
                    (pen, f"improvised weapon {w.name}", pen),
                    (suited_bonus, "attack suited to the object", suited_bonus),
                    (fire, option, fire)):
                if on and value:
                    out.append(mod(f"{source} (skill)", value))
        return steps, attr

    def attack_modifiers(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str
                         ) -> list[dict[str, Any]]:
        """The named modifiers of the attack `attack_dice` gives dice for (call it first)."""
        band = 0
        if option == "throw":
            band = self._ranged_band(state, a, t, w, 10.0) or 0
        elif w.ranged:
            band = self._ranged_band(state, a, t, w) or 0
        out: list[dict[str, Any]] = []
        _, attr = self.attack_steps(state, a, w, option, band, out)
        return self.attr_modifiers(a, attr, {"attack"}) + out

    def attr_modifiers(self, c: Combatant, attr: str, context: Iterable[str] = frozenset()
                       ) -> list[dict[str, Any]]:
        """`attr_steps` named: wounds, armour, then each trait that applies."""
        return self.pair_modifiers(c, (attr,), context)

    def pair_modifiers(self, c: Combatant, attrs: tuple[str, ...], context: Iterable[str] = frozenset(),
                       base: bool = True) -> list[dict[str, Any]]:
        """The named attribute steps of a roll of several attribute dice: wounds and armour on
        each (unless not `base`), a trait once, on the first die it names (as
        `TraitBook.pair_steps`)."""
        out = [m for attr in attrs for m in self.base_attr_modifiers(c, attr)] if base else []
        if c.traits:
            ctx = set(context) | c.conditions
            for name, m in self.traitbook.entries(c.traits):
                when = m.get("when")
                if not when or not ctx.issuperset(when) or "attr_steps" not in m:
                    continue
                names = m["attr"] if isinstance(m.get("attr"), list) else [m.get("attr")]
                hit = next((a for a in attrs if "roll" in names or a in names), None)
                if hit is not None:
                    out.append(mod(f"{name} ({hit})", int(m["attr_steps"])))
        return out

    def stance_modifiers(self, d: Combatant, extra: int = 0, extra_source: str = "") -> list[dict[str, Any]]:
        """The named parts of `stance_steps(d) + extra` (a block or dodge roll in a stance)."""
        st = d.res["stance"]
        out = []
        declared = st["steps"] - (2 if st.get("all_out") else 0)
        if declared:
            out.append(mod("stance declared after other actions (skill)", declared))
        if st.get("all_out"):
            out.append(mod("all-out defence (skill)", 2))
        later = st["steps"] - self.stance_steps(d)
        if later:
            out.append(mod("earlier defence rolls in the stance (skill)", -later))
        if extra:
            out.append(mod(f"{extra_source} (skill)", extra))
        if "impaired" in d.conditions:
            out.append(mod("impaired (skill)", int(self.called["impaired_steps"])))
        return self.attr_modifiers(d, "agility") + out

    def tracked(self, state: BattleState, c: Combatant) -> dict[str, Any]:
        """Everything the cortex rules track for `c` (issue #32; JSON-able): the Cortex base's
        part, then afflictions with how long they last, grenades left, Second Winds, the
        declared stance, reactions owed, the vehicle at its controls (piloting.py), and the turn
        economy when `c` is acting."""
        out = self.tracked_common(state, c)
        st = c.res["stance"]
        out.update({
            "afflictions": [{"effect": x["effect"], "area": x["area"], "until": x["until"],
                             "conditions": list(x["conds"])} for x in c.res["afflictions"]],
            "uses": dict(c.res["uses"]),
            "second_winds": {"used": c.res["second_winds_used"], "per_day": c.stats["second_winds"]},
            "stance": None if st is None else {"mode": st["mode"], "all_out": bool(st.get("all_out")),
                                               "steps": st["steps"], "rolls": st["rolls"],
                                               "next_roll_steps": self.stance_steps(c)},
            "reaction_debt": c.res["reaction_debt"],
            "sheltering": not c.res["attacked_last"],
            "no_move_round": c.res["no_move_round"],
            "arms_usable": self.arms_usable(c),
            "speed_factor": self.speed_factor(c),
        })
        if "vehicle" in c.res:
            out["vehicle"] = self.vehicle_view(c)
        e = state.economy
        if state.actor is c and e:
            g = state.grid
            out["turn"] = {"actions_used": e["actions"], "next_action_steps": -e["actions"],
                           "metres_moved": g.units_to_m(e["move_units"]), "move_mode": e["mode"],
                           "ran": e["ran"], "shots": dict(e["shots"]), "off_balance": e["rise_penalty"],
                           "stood_up": e["stood"], "plot_point_bonus_pending": e["pp_bonus"],
                           "called_shot_taken": e["called"], "no_move": e["no_move"], "all_out": e["all_out"]}
        return out

    def tag_harms_way(self, state: BattleState, evs: list) -> list:
        """Give the Getting out of Harm's Way rolls among `evs` their `check` and `modifiers`
        (wounds, armour, Clumsy, Slow Reflexes on Agility + Alertness), unless they have them."""
        for ev in evs:
            if ev["type"] == "roll" and "check" not in ev and ev["purpose"] == "get out of harm's way":
                c = state.by_id[ev["actor"]]
                ev["check"] = "harms_way"
                ev["modifiers"] = self.pair_modifiers(c, ("agility", "alertness"), {"harms_way"})
        return evs


__all__ = ["ModifiersMixin", "mod", "bonus_dice"]
