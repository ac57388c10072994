"""Attacks and their consequences under seed 002 (`cortex_hu`).

seed 002 rules implemented here (headings of /work/shared/seeds/002_*.txt):
- multiple actions and rate of fire (attack dice on the ladder, shots per turn);
- Teljes körű támadás: all-out attack (+2 steps, innate defence only until the next turn);
- Lőtávolságok, Hajítófegyverek: range steps, improvised throws;
- Célzás: the aim bonus on the next ranged attack;
- Célzott lövés: called shots with their attack and damage steps;
- Lefegyverzés: disarm.
The defence against an attack (Kitérés/blokkolás, Ösztönös kitérés, Hárítás, Kitérés,
Fedezékek, and the defender's choices) is in `defence.py`; damage and the hits' effects in
`effects.py`, on the common Cortex base (rules/systems/cortex_common/mechanics.py).
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.dice import Dice, Step
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.targets import difficulty_parts
from rules.systems.cortex_common.model import Weapon, roll_pool, skill_die
from rules.systems.cortex_hu.ladder import ladder_pool
from rules.systems.cortex_hu.offence import attack_list


def named_skill(c: Combatant, skill: str, specialty: str | None) -> tuple[str, Step]:
    """(name, die) of the better of a general skill and its specialty (d0 when unskilled)."""
    die = skill_die(c.stats, skill, specialty)
    if specialty and die and c.stats["skills"].get(f"{skill}/{specialty}") == die \
            and c.stats["skills"].get(skill, Step(0)) != die:
        return f"{skill}/{specialty}", die
    return skill, die


class CombatHu:
    """Attacks and defences for `CortexHuRuleset`."""

    # -- weapons ----------------------------------------------------------------------
    @staticmethod
    def is_firearm(w: Weapon) -> bool:
        """Firearms and energy weapons (seed 002: they cannot be parried)."""
        return w.kind == "ranged"

    @staticmethod
    def ranged_attack(w: Weapon, option: str) -> bool:
        return w.ranged or option == "throw"

    @staticmethod
    def can_parry(w: Weapon, option: str) -> bool:
        """seed 002, Hárítás: "Lő és energiafegyvereket ne akarj hárítani. Arra a kitérés
        használható." Everything but firearms and energy weapons may be parried: hand to hand,
        thrown weapons and improvised throws too (data.yaml assumption parry)."""
        return w.kind != "ranged"

    def usable_weapons(self, c: Combatant) -> list[Weapon]:
        """Weapons the figure can use now (a useless elbow rules out two-handed ones)."""
        one_arm = "arm_useless" in c.conditions
        return [w for w in self.weapons_of(c) if not (one_arm and w.hands > 1)]

    def weapon_skill(self, c: Combatant, w: Weapon, option: str = "") -> tuple[str, Step]:
        """The skill an attack with w rolls (a thrown object: Athletics/Throwing)."""
        if option == "throw":
            return named_skill(c, "athletics", "throwing")
        return named_skill(c, w.skill, w.specialty)

    def melee_skill(self, c: Combatant) -> tuple[str, Step]:
        """The better of Unarmed Combat and the skill of a melee weapon the figure can use."""
        best = ("unarmed_combat", c.stats["skills"].get("unarmed_combat", Step(0)))
        for w in self.usable_weapons(c):
            if not w.ranged and w.name != "unarmed":
                name, sk = self.weapon_skill(c, w)
                if sk > best[1]:
                    best = (name, sk)
        return best

    # -- the attack's dice --------------------------------------------------------------
    def range_steps(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str) -> int | None:
        """seed 002, Lőtávolságok and Hajítófegyverek: the distance's step modifier, or None when out of range."""
        d = state.grid.distance_m(a.pos, t.pos)
        if option == "throw":
            for row in self.improvised:
                if d <= row["upto_m"] + 1e-9:
                    return int(row["steps"])
            return None
        if not w.ranged:
            return 0
        bands = w.x("range_m")
        if d > bands[-1] + 1e-9:
            return None
        if d <= self.rng["point_blank_m"] + 1e-9:
            return int(self.rng["point_blank_steps"])
        for lim, st in zip(bands, self.rng["band_steps"]):
            if d <= lim + 1e-9:
                return int(st)
        return None  # pragma: no cover - the last band was checked above

    def attack_steps(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str) -> int | None:
        """Every step modifier of this attack now (ladder, run, prone, range, aim, all-out, called, disarm)."""
        band = self.range_steps(state, a, t, w, option)
        if band is None:
            return None
        e = state.economy
        steps = self.turn_steps(state, a) + band
        if option == "all_out" or e["all_out"]:
            steps += self.all_out_steps
        if self.ranged_attack(w, option):
            steps += a.res["aim"] * int(self.aim_rules["steps_per_round"])
        return steps + self.option_steps(w, option)

    def attack_dice(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str = ""
                    ) -> tuple[str, Step, str, Step] | None:
        """(attribute name, attribute die, skill name, skill die) for this attack now, or None."""
        steps = self.attack_steps(state, a, t, w, option)
        if steps is None:
            return None
        sname, sk = self.weapon_skill(a, w, option)
        attr = "agility" if option == "throw" else w.attribute
        p = ladder_pool(a, attr, sk, steps, self.attr_steps(a, attr))
        return None if p is None else (attr, p[0], sname, p[1])

    @staticmethod
    def area_of(option: str) -> str:
        """'called:knee_waive' -> 'knee'."""
        area = option[7:]
        return area[:-6] if area.endswith("_waive") else area

    def can_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str = "") -> bool:
        if t.down or t.team == a.team:
            return False
        holder = a.res["grappled_by"]
        if holder is not None and (t.id != holder or self.ranged_attack(w, option)):
            return False  # a held figure fights only its holder, hand to hand
        g = state.grid
        e = state.economy
        if option == "choke":
            if w.name != "unarmed" or a.res["grappling"] != t.id:
                return False
        elif option == "throw":
            if w.kind != "melee" or w.name == "unarmed" or not g.los(a.pos, t.pos):
                return False
        elif w.ranged:
            if e["shots"].get(w.name, 0) >= w.rof:
                return False
            if w.magazine and a.res["ammo"].get(w.name, 0) <= 0:
                return False
            if not g.los(a.pos, t.pos):
                return False
        elif not g.adjacent(a.pos, t.pos):
            return False
        if option == "disarm" and (self.held_weapon(t) is None or w.kind == "thrown"):
            return False
        if option == "all_out" and (e["acted"] or e["carried"] or e["full_defence"] or e["all_out"]):
            return False
        return self.attack_dice(state, a, t, w, option) is not None

    def option_steps(self, w: Weapon, option: str) -> int:
        """The step modifier an attack option adds by itself (called shot, disarm; all-out is
        counted in `attack_steps`)."""
        if option.startswith("called:"):
            return int(self.called["areas"][self.area_of(option)]["attack_steps"])
        if option == "disarm":
            return int(self.disarm_rules["firearm_steps" if w.ranged else "melee_steps"])
        return 0

    def attack_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        """Every legal attack: exactly the (target, weapon, option) triples `can_attack` allows.

        This is the env's hot path (legal_actions runs for every decision and for every
        hypothetical the scripted policies weigh), so it checks what does not depend on the
        option - target, hold, line of sight, reach, rate of fire, ammunition, the range band,
        the skill die - once per target and weapon, and the options by one sum each
        (offence.py `attack_list`). `can_attack` stays the rule; tests/test_cortex_hu_scenarios.py
        compares the two on many random positions."""
        return attack_list(self, state, a)

    # -- attacking ----------------------------------------------------------------------
    def attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, dice: Dice
               ) -> list[Event]:
        e = state.economy
        attr_name, attr, sname, skill = self.attack_dice(state, a, t, w, option)
        steps = self.attack_steps(state, a, t, w, option)
        modifiers = self.attack_mods(state, a, t, w, option)
        evs: list[Event] = []
        if option == "all_out":
            e["all_out"] = True
            a.res["all_out"] = True
            evs.append(event("stance", actor=a.id, stance="all-out attack", steps=self.all_out_steps))
        used = self.use_feint(t)
        self.spend(state, a)  # the aim bonus, if any, is in the dice above
        if w.name != "unarmed":
            a.res["held"] = w.name
        if w.ranged:
            e["shots"][w.name] = e["shots"].get(w.name, 0) + 1
            if w.magazine:
                a.res["ammo"][w.name] -= 1
        purpose = f"attack with {w.name}" + (f" ({option})" if option else "")
        held = t.res["grappled_by"] is not None and w.name == "unarmed"
        r, ev = roll_pool(dice, a.id, purpose, attr_name, attr, sname, skill,
                          extra={"steps": steps, "check": "attack", "modifiers": modifiers},
                          against={"figure": t.id, "what": "held" if held else "defence", "total": None,
                                   "cover": 0 if held else self.cover_against(state, a, t, w, option)})
        evs.append(ev)
        if used:
            evs.append(self.feint_used(t, used))
        evs += self.resolve_attack(state, a, t, w, option, r, ev, used is not None, dice)
        if option == "throw":
            evs += self.drop_object(state, a, w.name, t.pos, verb="lands")
        return evs

    def resolve_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, r: Any,
                       ev: Event, feinted: bool, dice: Dice) -> list[Event]:
        """The defence against an attack roll, then the hit and what follows from it."""
        evs: list[Event] = []
        if t.res["grappled_by"] is not None and w.name == "unarmed":
            diff = self.held_difficulty  # seed 002: the held target is Easy (3) for unarmed attacks
            info: dict[str, Any] = {}
            evs.append(event("defence", actor=t.id, mode="held", difficulty=diff))
        else:
            diff, info, dev = self.resolve_defence(state, a, t, w, option, -1 if r.botch else r.total, dice,
                                                   innate_only=feinted)
            evs += dev
        ev["difficulty"] = diff
        parts = difficulty_parts(evs, diff, self.cover_table)
        if parts:
            ev["difficulty_parts"] = parts
        if r.botch or r.total < diff:
            evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="miss", total=r.total,
                             difficulty=diff, botch=r.botch, option=option))
            if info.get("bare_parry") and not t.down:
                evs.append(event("effect", target=t.id, effect="parries bare-handed and takes the weapon's damage"))
                evs += self.damage(state, a, t, w, 0, dice, weapon_only=True)
            return evs
        margin = r.total - diff
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit", total=r.total,
                         difficulty=diff, margin=margin, option=option))
        if option == "disarm":
            return evs + self.disarm_roll(state, t, dice)
        if option == "choke":
            return evs + self.damage(state, a, t, w, margin, dice, all_stun=True)
        area = self.area_of(option) if option.startswith("called:") else None
        die_steps = 0
        if area:
            spec = self.called["areas"][area]
            if option.endswith("_waive"):
                evs.append(event("info", text=f"{a.id} waives the damage bonus of the called shot"))
            else:
                die_steps = int(spec["damage_steps"])
        evs += self.damage(state, a, t, w, margin, dice, die_steps=die_steps, area=area)
        if area:  # seed 002, Célzott lövés: the roll follows the hit, downed target or not
            evs += self.called_effect(state, t, area, dice)
        return evs


__all__ = ["CombatHu", "named_skill"]
