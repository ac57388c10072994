"""Melee of seed 004 (Cybergeneration house rules): the opposed roll, called shots at a gap
in the armour, knockdown, disarm and stun attacks, automatic hits on fallen targets, and the
no-roll attacks of a grapple. A mixin of `CybergenerationRuleset` (right after `CombatMixin`
among its bases, so these are the methods that answer, as when they were written there);
the modifiers they add (`attack_parts`, `opposed_bonus`, `melee_mod`) are in `combat.py`.
"""

from __future__ import annotations

from typing import Any

from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import Check, Part, d10_call, first_die, skill_check
from rules.systems.cybergeneration.model import Weapon


class MeleeMixin:
    """Melee attacks, the defender's side of an opposed roll, and knocking down (see the module)."""

    def melee_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, dice: Dice,
                     turn: dict[str, Any]) -> list[Event]:
        """seed 004, Melee: always opposed checks; body-type bonus on the damage die."""
        evs: list[Event] = []
        mod = self.melee_mod(a, w)
        if t.down:  # seed 004: automatic hit on an unconscious/stunned target, the die counts as 10
            evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit",
                             note=f"automatic hit on a {'stunned' if 'stunned' in t.conditions else 'fallen'} target"))
            return evs + self.hit(state, a, t, w, dice, dc=w.dc, mod=mod, face=10)
        gap = False
        if option == "called:gap":  # a skill roll of the action: -5 in a two-action round too
            i, sf = self.stat(a, "int"), self.skill(a, "streetfighting")
            parts = self.action_parts(state) if state.actor is a else []
            pool = f"INT {i} + streetfighting {sf}" + self._pool(parts)
            r = skill_check(dice, i + sf + sum(v for _, v in parts), "spot a gap in the armour",
                            call=d10_call(a.id, "armour_gap", "spot a gap in the armour", pool, parts,
                                          difficulty=self.chk["spot_gap"]))
            gap = r.total >= self.chk["spot_gap"]
            evs.append(self.roll_event(a, "armour_gap", "spot a gap in the armour", pool, r, parts,
                                       difficulty=self.chk["spot_gap"], success=gap))
        ok, c, evs2 = self.melee_roll(state, a, t, w, option, dice, turn, gap,
                                      may_take_damage=option in ("", "called:head", "called:gap"))
        evs += evs2
        if c.crit == "failure":
            evs += self.mishap(state, a, w, c.second, False)
        if not ok:
            return evs
        if option == "knockdown":
            evs += self.hit(state, a, t, w, dice, dc=1, ap=False, stun_weapon=False)
            both = t.id in a.res["grapple"]
            evs += self.knock_down(t, "knockdown")
            if both:
                evs += self.knock_down(a, "falls with the grapple")
            return evs
        if option == "disarm":
            held = self.has_weapon(t, t.res["drawn"])
            if held is not None and not held.implant:
                evs += self.drop_object(state, t, held.name, t.pos, verb="is wrenched away")
            return evs
        if option == "stun":
            return evs + self.hit(state, a, t, w, dice, dc=1, ap=False, stun_weapon=False,
                                  stun_delta=self.mod["stun_attack"])
        return evs + self.hit(state, a, t, w, dice, dc=w.dc, mod=mod, two_dice=c.two_damage_dice,
                              head=option == "called:head", no_armour=gap)

    def melee_roll(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, dice: Dice,
                   turn: dict[str, Any], gap: bool = False, may_take_damage: bool = True
                   ) -> tuple[bool, Check, list[Event]]:
        """The opposed roll of a melee attack: attacker REF + skill + accuracy against the defender's
        REF + streetfighting (+ dodge) (assumption melee_opposed)."""
        ref = self.stat(a, "ref")
        sname, sk = self.attack_skill(a, w, t)
        parts = self.attack_parts(state, a, t, w, option, turn, melee=True)
        if gap:
            parts.append(("called shot (gap)", self.mod["called_shot"]))
        parts += self.opposed_bonus(state, a, t, knocked=False)  # the knockdown -2 is in attack_parts
        base = ref + sk + w.accuracy + sum(v for _, v in parts)
        label = f"attack with {w.name}" + (f" ({option})" if option else "")
        pool = f"REF {ref} + {sname} {sk}" + (f" + accuracy {w.accuracy}" if w.accuracy else "") + self._pool(parts)
        c = first_die(dice, base, label, call=d10_call(a.id, "attack", label, pool, parts,
                                                       against={"figure": t.id, "what": "melee defence",
                                                                "total": None}))
        dbase, dpool, dparts = self.defence_base(state, t, a)
        d = skill_check(dice, dbase, "melee defence",
                        call=d10_call(t.id, "melee_defence", "melee defence (opposed)", dpool, dparts,
                                      against={"figure": a.id, "what": "attack", "total": None},
                                      label="melee defence"))
        c, evs = self.settle_crit(state, a, dice, c, label, d.total + 1, may_take_damage)
        ok = c.total > d.total
        evs += [self.roll_event(a, "attack", label, pool, c, parts, opposed=d.total),
               self.roll_event(t, "melee_defence", "melee defence (opposed)", dpool, d, dparts, opposed=c.total)]
        evs.append(self.attack_event(a, t, w, "hit" if ok else "miss", c, d.total + 1, option, opposed=d.total))
        return ok, c, evs

    def defence_base(self, state: BattleState, t: Combatant, a: Combatant, dodge: bool = True
                     ) -> tuple[int, str, list[Part]]:
        """The defender's REF + streetfighting + its modifiers in an opposed roll: (base, pool, modifiers)."""
        ref = self.stat(t, "ref")
        sf = self.skill(t, "streetfighting")
        name = "streetfighting"
        if self.kid_vs_adult(t, a):
            sf //= 2
            name = "streetfighting (halved: kid v adult)"
        parts = self.opposed_bonus(state, t, a)
        if dodge and t.res["dodge"]:
            parts.append(("dodging", int(t.res["dodge"])))
        return ref + sf + sum(v for _, v in parts), f"REF {ref} + {name} {sf}" + self._pool(parts), parts

    def knock_down(self, t: Combatant, cause: str) -> list[Event]:
        evs = []
        if "prone" not in t.conditions:
            t.conditions.add("prone")
            evs.append(event("condition", target=t.id, condition="prone", on=True, cause=cause))
        if not t.down and "knocked" not in t.conditions:
            t.conditions.add("knocked")
            evs.append(event("condition", target=t.id, condition="knocked", on=True, cause=cause))
        return evs

    def no_roll_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, dice: Dice) -> list[Event]:
        """Static wave (scanners) and contact charge (bolters): no roll, only in a grapple (seed 004)."""
        evs = [event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit",
                     note=f"{w.name.replace('_', ' ')}: no roll needed in a grapple")]
        return evs + self.hit(state, a, t, w, dice, dc=w.dc)
