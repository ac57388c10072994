"""What a `cortex_hu` hit does: damage, disarm, and the called shots' effects (seed 002).

- damage: the margin as Basic plus the weapon's damage die (stepped up by a called shot),
  less armour, then the common Cortex consequences (`CortexBase.apply_damage`);
- Lefegyverzés: the victim of a disarm rolls Agility + Willpower against 11 or drops the weapon;
- Célzott lövés: after a called shot hits, the target rolls Vitality + Willpower against 7
  whether or not the damage downed it (the seed makes no exception), unless it is dead;
  failing it, the area's consequence follows (paralysis, 1d6 rounds out, death, a joint
  useless until surgery).
"""

from __future__ import annotations

from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, roll_steps
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.mechanics import faces
from rules.systems.cortex_common.model import Weapon
from rules.systems.cortex_hu.rolls import fill, mods, tag


class EffectsHu:
    """Damage and the effects of hits for `CortexHuRuleset`."""

    def damage(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, margin: int, dice: Dice,
               die_steps: int = 0, weapon_only: bool = False, all_stun: bool = False, area: str | None = None
               ) -> list[Event]:
        """The margin as Basic plus the weapon's damage die (stepped up by a called shot), less armour."""
        die = w.damage + die_steps
        purpose = f"damage ({'S' if all_stun else w.dtype})"
        r = roll_steps(dice, (die,), "damage",
                       RollCall(a.id, purpose, "damage", f"{w.name} {die}", step_sides((die,)),
                                modifiers=calls.mods(mods((f"called shot ({area})", die_steps))), label="damage"))
        evs = [tag(event("roll", actor=a.id, purpose=purpose,
                         pool=f"{w.name} {die}", dice=faces(r), total=r.total),
                   "damage", mods((f"called shot ({area})", die_steps)))]
        basic = 0 if weapon_only else margin
        if all_stun:
            stun, wound = basic + r.total, 0
        else:
            stun, wound = self.split(basic, w.dtype, r.total)
        stun, wound, absorbed = self.absorb_armour(t, stun, wound)
        out = self.apply_damage(state, t, stun, wound, dice, source=w.name, absorbed=absorbed)
        return evs + fill(out, "stay_conscious", lambda _id: self.attr_mods(t, "vitality"))

    def disarm_roll(self, state: BattleState, t: Combatant, dice: Dice) -> list[Event]:
        """seed 002, Lefegyverzés: Agility + Willpower against 11 or drop the weapon."""
        held = self.held_weapon(t)
        if held is None:
            return []
        agi = self.attr_die(t, "agility")
        wil = t.stats["attributes"]["willpower"]
        diff = int(self.disarm_rules["difficulty"])
        r = roll_steps(dice, (agi, wil), "keep hold",
                       RollCall(t.id, "keep hold of the weapon (Agility + Willpower)", "disarm_resist",
                                f"Agility {agi} + Willpower {wil}", step_sides((agi, wil)), difficulty=diff,
                                modifiers=calls.mods(self.attr_mods(t, "agility")), label="keep hold"))
        ok = r.total >= diff and not r.botch
        evs = [tag(event("roll", actor=t.id, purpose="keep hold of the weapon (Agility + Willpower)",
                         pool=f"Agility {agi} + Willpower {wil}", dice=faces(r), total=r.total, difficulty=diff,
                         success=ok), "disarm_resist", self.attr_mods(t, "agility"))]
        if not ok:
            evs += self.drop_object(state, t, held.name, t.pos, verb="is knocked away")
        return evs

    def called_effect(self, state: BattleState, t: Combatant, area: str, dice: Dice) -> list[Event]:
        """seed 002, Célzott lövés: Vitality + Willpower against 7, or the area's consequence.

        Rolled by every target a called shot hit that is not dead, downed or not."""
        if t.dead:
            return []
        spec = self.called["areas"][area]
        ok, ev = self.endurance(t, dice, int(self.called["resist_difficulty"]),
                                f"Vitality + Willpower vs called shot ({area})", check="called_shot",
                                modifiers=self.attr_mods(t, "vitality"))
        evs = [tag(ev, "called_shot", self.attr_mods(t, "vitality"))]
        if ok:
            return evs
        eff = spec["effect"]
        if eff == "death":
            t.conditions.discard("dying")
            t.conditions.add("dead")
            evs.append(event("dead", target=t.id, cause=f"called shot to the {area}"))
            return evs + self.release_grapple(state, t)
        if eff == "paralysed":
            return evs + self.cripple_leg(state, t, f"called shot to the {area}: the leg is paralysed")
        evs += self.knock_out(state, t, dice, f"called shot to the {area}")
        if eff == "joint":
            if spec["joint"] == "leg":
                evs += self.cripple_leg(state, t, f"called shot to the {area}: the knee is useless until surgery")
            else:
                t.conditions.add("arm_useless")
                evs.append(event("effect", target=t.id, effect=f"called shot to the {area}: the elbow is useless "
                                 "until surgery", condition="arm_useless"))
                held = self.held_weapon(t)
                if held is not None:
                    evs += self.drop_object(state, t, held.name, t.pos)
        return evs

    def cripple_leg(self, state: BattleState, t: Combatant, why: str) -> list[Event]:
        t.conditions.add("leg_useless")
        evs = [event("effect", target=t.id, effect=why, condition="leg_useless")]
        if "prone" not in t.conditions:
            t.conditions.add("prone")
            evs.append(event("condition", target=t.id, condition="prone", on=True, cause="falls"))
        return evs

    def knock_out(self, state: BattleState, t: Combatant, dice: Dice, cause: str) -> list[Event]:
        """Out for 1d6 of its turns (data.yaml assumption knockout_timing); a figure already
        down (unconscious, dying) gets the condition without a second `down` event."""
        sides = int(self.called["knockout_die"])
        dice.announce(RollCall(t.id, "turns knocked out", "knockout_rounds", f"d{sides}", (sides,),
                               label="knocked out"))
        n = dice.roll(sides, "knocked out")
        was_down = t.down
        t.res["ko_turns"] = n
        t.conditions.add("knocked_out")
        t.res["prepared"] = []
        self.lose_aim(t)
        evs = [tag(event("roll", actor=t.id, purpose="turns knocked out", dice=[[sides, n]], total=n),
                   "knockout_rounds")]
        if was_down:
            evs.append(event("condition", target=t.id, condition="knocked_out", on=True, rounds=n, cause=cause))
        else:
            evs.append(event("down", target=t.id, reason=f"knocked out for {n} rounds ({cause})"))
        return evs + self.release_grapple(state, t)


__all__ = ["EffectsHu"]
