"""Damage, armour, Wounds and stun saves (seed 004, Damage, Armour, Stun/Shock Saves, Wounds).

- "Roll a d10 and look up the damage on the relevant line."
- "Armour SP is subtracted from damage ... then the remainder is subtracted from your
  Wounds"; "Medium Armour (SP 4) and above can reduce the damage from an attack to 0,
  anything lighter can reduce it to a minimum of 1"; armour piercing: "Half the stopping
  power of any armour (round down)".
- "Every time you take damage you need to make a stun save or pass out ... The save needs
  to be made even if armour stops all damage"; stun weapons: "Apply a -2 penalty to your
  stun modifier for each hit (stacking!), then you must make a stun/shock save".
- "When your wounds reach 2 or lower your INT, REF and MA are halved. At 0 wounds you
  automatically pass out. At -5 wounds, you die."
Decided numbers: data.yaml assumptions dc_table, damage_die_bounds, armour_minimum,
stun_save, stun_fail_choice, bleeding.
"""

from __future__ import annotations

from rules import calls
from rules.calls import RollCall
from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import crit_call, modifiers, roll_ev
from rules.systems.cybergeneration.model import Weapon


class DamageMixin:
    """Hits, armour, Wounds and stun saves for `CybergenerationRuleset`."""

    def body_armour(self, t: Combatant):
        best = None
        for x in t.armour:
            if x.covers == "body" and (best is None or x.sp > best.sp):
                best = x
        return best

    def head_armour(self, t: Combatant):
        best = None
        for x in t.armour:
            if x.covers == "head" and (best is None or x.sp > best.sp):
                best = x
        return best

    def hit(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, dice: Dice, *, dc: int, mod: int = 0,
            face: int | None = None, two_dice: bool = False, head: bool = False, no_armour: bool = False,
            ap: bool | None = None, stun_weapon: bool | None = None, stun_delta: int = 0, label: str = ""
            ) -> list[Event]:
        """One hit: the damage d10 (+ modifiers) read on the DC row, then armour, Wounds and the stun save."""
        pool = "d10" + (f" {'+' if mod >= 0 else '-'} {abs(mod)} body type" if mod else "")
        purpose = f"damage DC{dc}" + (f" ({label})" if label else "")
        if face is None:
            call = RollCall(a.id, purpose, "damage", pool, (10,), modifiers=calls.mods(modifiers([("body type", mod)])),
                            label="damage")
            dice.announce(call)
            r1 = dice.roll(10, "damage")
            faces = [[10, r1]]
            r = r1
            if two_dice:
                dice.announce(crit_call(call, "damage (critical: two dice, keep the higher)"))
                r2 = dice.roll(10, "damage (critical: two dice, keep the higher)")
                faces.append([10, r2])
                r = max(r1, r2)
        else:
            faces, r = [], face
        value = r + mod
        raw = self.table.wounds(dc, value)
        ev = roll_ev(a.id, "damage", purpose, faces, value,
                     [("body type", mod)], pool=pool, wounds=raw)
        if face is not None and not faces:
            ev["counts_as"] = face
        stun = w.stun if stun_weapon is None else stun_weapon
        delta = stun_delta + (self.mod["stun_weapon_hit"] if stun else 0)
        return [ev] + self.wound(state, t, raw, dice, ap=w.ap if ap is None else ap, head=head, no_armour=no_armour,
                                 stun_delta=delta, source=w.name)

    def wound(self, state: BattleState, t: Combatant, raw: int, dice: Dice, *, ap: bool = False, head: bool = False,
              no_armour: bool = False, stun_delta: int = 0, source: str = "", armour: bool = True,
              save: bool = True) -> list[Event]:
        """seed 004: armour SP is subtracted (armour-piercing halves it; below SP 4, the halved SP
        included, at least 1 goes through: assumption armour_minimum), the rest comes off Wounds; stun weapons lower the stun modifier; then the stun save."""
        piece = None if (no_armour or not armour) else (self.head_armour(t) if head else self.body_armour(t))
        sp = piece.sp if piece is not None else 0
        if ap:
            sp //= 2
        after = max(0, raw - sp)
        if raw > 0 and after == 0 and piece is not None and sp < self.stop_all_sp:   # the halved SP too
            after = 1
        was_down = t.down
        t.res["wound"] += after
        ev = event("damage", target=t.id, stun=0, wound=after, raw=raw, source=source)
        if raw - after:
            ev["absorbed"] = raw - after
        if piece is not None:
            ev["armour"] = piece.name
            ev["sp"] = sp
        evs = [ev]
        if stun_delta and not t.dead:
            t.res["stun_mod"] += stun_delta
            evs.append(event("effect", target=t.id, effect=f"stun modifier {stun_delta:+d} (now {t.res['stun_mod']})",
                             stun_modifier=t.res["stun_mod"]))
        evs += self.sync_wounds(t, state.round)
        if save and not t.down:
            evs += self.stun_save(state, t, dice)
        if t.down and not was_down:
            evs += self.fall_down(state, t)
        return evs

    def stun_save(self, state: BattleState, t: Combatant, dice: Dice, bonus: int = 0, purpose: str = "stun save"
                  ) -> list[Event]:
        """seed 004, stun/shock save: roll under current Wounds less the stun modifier, or pass out."""
        ok, ev = self.save_roll(t, dice, bonus, purpose, "stun_save")
        evs = [ev]
        if not ok:
            evs += self.pass_out(t, "failed stun save", self.stun_fail_way(state, t, evs))
        return evs

    def save_roll(self, t: Combatant, dice: Dice, bonus: int, purpose: str, check: str) -> tuple[bool, Event]:
        """A d10 at or under Wounds left + stun modifier + bonus (the modifiers move that number)."""
        rem = self.remaining(t)
        target = rem + t.res["stun_mod"] + bonus
        parts = [("stun modifier", t.res["stun_mod"]), ("help to wake", bonus)]
        pool = f"d10 at or under Wounds {rem} {t.res['stun_mod']:+d} stun modifier" + (f" +{bonus}" if bonus else "")
        dice.announce(RollCall(t.id, purpose, check, pool, (10,), difficulty=target,
                               modifiers=calls.mods(modifiers(parts)), label=purpose))
        r = dice.roll(10, purpose)
        ok = r <= target
        return ok, roll_ev(t.id, check, purpose, [[10, r]], r, parts, pool=pool, difficulty=target, success=ok)

    def pass_out(self, t: Combatant, why: str, way: str) -> list[Event]:
        """seed 004: "you pass out / go into shock" - `way` is the figure's answer (asks.py stun_fail)."""
        if way == "shock":
            t.conditions |= {"stunned", "incapacitated", "prone"}
            return [event("down", target=t.id, reason=f"{why}: in shock, prone and unable to act")]
        t.conditions |= {"unconscious", "prone"}
        return [event("down", target=t.id, reason=f"{why}: passes out")]

    def sync_wounds(self, c: Combatant, rnd: int) -> list[Event]:
        """seed 004, Wounds: 2 or less halves INT/REF/MA; 0 unconscious; -1 to -4 dying; -5 dead."""
        rem = self.remaining(c)
        evs: list[Event] = []
        if rem <= 2 and "impaired" not in c.conditions and not c.dead:
            c.conditions.add("impaired")
            evs.append(event("condition", target=c.id, condition="impaired", on=True,
                             cause="2 Wounds or less: INT, REF and MA halved"))
        elif rem > 2 and "impaired" in c.conditions:
            c.conditions.discard("impaired")
            evs.append(event("condition", target=c.id, condition="impaired", on=False))
        if c.dead:
            return evs
        if rem <= -5:
            c.conditions -= {"unconscious", "dying", "stunned", "incapacitated"}
            c.conditions |= {"dead", "prone"}
            evs.append(event("dead", target=c.id, wounds=rem))
        elif rem <= -1:
            if "unconscious" not in c.conditions and "dying" not in c.conditions:
                evs.append(event("down", target=c.id, reason=f"{rem} Wounds: bleeding to death"))
            c.conditions |= {"unconscious", "prone"}
            c.conditions -= {"stunned", "incapacitated"}
            if not c.res["stable"] and "dying" not in c.conditions:
                c.conditions.add("dying")
                c.res["dying_round"] = rnd
        elif rem <= 0 and "unconscious" not in c.conditions:
            c.conditions |= {"unconscious", "prone"}
            c.conditions -= {"stunned", "incapacitated"}
            evs.append(event("down", target=c.id, reason="0 Wounds: passes out"))
        return evs

    def fall_down(self, state: BattleState, t: Combatant) -> list[Event]:
        """A figure that goes down lets go of everything it was doing."""
        evs = self.release_all(state, t)
        if t.res["trigger"] is not None:
            evs += self.clear_trigger(t, "falls")
        if t.res["zone"] is not None:
            evs += self.end_suppression(state, t)
        t.res["dodge"] = 0
        t.conditions -= {"dodging", "aiming", "knocked"}
        return evs
