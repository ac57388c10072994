"""Cortex melee specials (seed 000, Melee Combat): knocked prone, tripping, improvised
weapons breaking, the extraordinary block's effects and the Krav Maga counter.

Moved out of `combat.py` (issue #32) so that module stays readable; `CombatMixin.strike`
calls these after an attack roll.
"""

from __future__ import annotations

from rules.choices import decide
from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import Dice, Step, roll_steps
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex.model import Weapon, make_pool
from rules.systems.cortex.modifiers import mod


def _faces(r) -> list[list[int]]:
    return [list(f) for f in r.faces]


class MeleeMixin:
    """Knocked prone, trips, breaking, block effects for `CortexRuleset`."""

    def knock_prone(self, t: Combatant, cause: str) -> list[Event]:
        if "prone" in t.conditions:
            return []
        t.conditions.add("prone")
        t.conditions.add("knocked")
        return [event("condition", target=t.id, condition="prone", on=True, cause=cause)]

    def fall_or_drop(self, state: BattleState, a: Combatant, w: Weapon, why: str) -> list[Event]:
        """seed 000, Tripping: the attacker falls, or drops a tripping weapon instead (one it
        still has: a weapon that broke on the botch cannot be dropped)."""
        if w.name != "unarmed" and any(x.name == w.name for x in self.weapons_of(a)):
            # seed 000: "the attacker can drop it to avoid falling prone": the attacker's choice
            way = decide(state, a, "trip_fall", ("drop_weapon", "fall_prone"), "drop_weapon",
                         f"{a.id}'s trip went wrong: drop the {w.name} or fall prone?")
            ev = event("choice", actor=a.id, key="trip_fall", choice=way)
            if way == "drop_weapon":
                return [ev] + self.drop_object(state, a, w.name, a.pos, verb="is dropped to avoid falling")
            return [ev] + self.knock_prone(a, why)
        return self.knock_prone(a, why)

    def trip(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, extraordinary: bool,
             dice: Dice) -> list[Event]:
        """seed 000, Tripping: opposed Agility + Strength; +2 steps on an extraordinary hit.

        An improvised weapon's breaking check comes first: seed 000, Improvised Weapons,
        "checked after a hit or botched attack roll" (assumption improvised_break)."""
        evs = self.break_check(state, a, w, dice) if w.x("improvised") else []
        bonus = int(self.data["trip"]["extraordinary_bonus_steps"]) if extraordinary else 0
        aa = a.stats["attributes"]
        ta = t.stats["attributes"]
        a_pool = (Step(max(1, aa["agility"].index + self.attr_steps(a, "agility"))), aa["strength"] + bonus)
        t_pool = (Step(max(1, ta["agility"].index + self.attr_steps(t, "agility"))), ta["strength"])
        a_mods = self.attr_modifiers(a, "agility") + ([mod("extraordinary trip attack (strength)", bonus)]
                                                      if bonus else [])
        ra = roll_steps(dice, a_pool, "trip",
                        RollCall(a.id, "trip (opposed)", "trip", f"Agility {a_pool[0]} + Strength {a_pool[1]}",
                                 step_sides(a_pool), against={"figure": t.id, "what": "resist trip", "total": None},
                                 modifiers=calls.mods(a_mods), label="trip"))
        rt = roll_steps(dice, t_pool, "resist trip",
                        RollCall(t.id, "resist trip (opposed)", "resist_trip",
                                 f"Agility {t_pool[0]} + Strength {t_pool[1]}", step_sides(t_pool),
                                 against={"figure": a.id, "what": "trip", "total": ra.total},
                                 modifiers=calls.mods(self.attr_modifiers(t, "agility")), label="resist trip"))
        evs += [event("roll", actor=a.id, purpose="trip (opposed)", check="trip", modifiers=a_mods, pool=f"Agility {a_pool[0]} + Strength {a_pool[1]}",
                     dice=_faces(ra), total=ra.total),
               event("roll", actor=t.id, purpose="resist trip (opposed)", check="resist_trip",
                     modifiers=self.attr_modifiers(t, "agility"), pool=f"Agility {t_pool[0]} + Strength {t_pool[1]}", dice=_faces(rt), total=rt.total)]
        if ra.total > rt.total:
            evs += self.knock_prone(t, "tripped")
        elif ra.botch or rt.total - ra.total >= self.xmargin:   # assumption trip_botch
            evs += self.fall_or_drop(state, a, w, "trip reversed")
        return evs

    def break_check(self, state: BattleState, a: Combatant, w: Weapon, dice: Dice,
                    thrown_to: int | None = None) -> list[Event]:
        """seed 000, Improvised Weapons: a chance of breaking after a hit or a botched attack.

        A thrown object that breaks leaves what is left of it where it landed."""
        chance = float(w.x("break", 0) or 0)
        if chance <= 0:
            return []
        dice.announce(RollCall(a.id, f"{w.name} breaks on {int(round(chance * 100))} or less", "breaking", "d100",
                               (100,), label="breaking"))
        r = dice.roll(100, "breaking")
        evs = [event("roll", actor=a.id, purpose=f"{w.name} breaks on {int(round(chance * 100))} or less",
                     check="breaking", modifiers=[], dice=[[100, r]], total=r)]
        if r > round(chance * 100):
            return evs
        self.remove_weapon(a, w.name)
        broken = w.x("broken")
        if broken and thrown_to is not None:
            state.objects.setdefault(thrown_to, []).append(broken)
        elif broken:
            a.res["gained"].append(broken)
            a.res["held"] = broken
        evs.append(event("effect", target=a.id, effect=f"the {w.name} breaks" + (f" into a {broken}" if broken else ""),
                         broke=w.name))
        return evs

    def block_effect(self, state: BattleState, d: Combatant, a: Combatant, w: Weapon, bw: Weapon,
                     dice: Dice) -> list[Event]:
        """seed 000, Defense, Melee Combat: disarm, trip or bash after an extraordinary block."""
        default = d.stats["block_effect"] or ("disarm" if w.name != "unarmed" else "bash")
        if default == "disarm" and w.name == "unarmed":
            default = "bash"
        options = ("disarm", "trip", "bash") if w.name != "unarmed" else ("trip", "bash")
        # seed 000: "the defender inflicts his choice of a special effect on the attacker"
        choice = decide(state, d, "block_effect", options, default,
                        f"{d.id}'s extraordinary block against {a.id}: disarm, trip or bash?")
        evs = [event("choice", actor=d.id, key="block_effect", choice=choice),
               event("effect", target=a.id, effect=f"extraordinary block: {choice}", by=d.id)]
        if choice == "disarm":
            if bw.name == "unarmed" and w.name not in d.weapons:
                self.remove_weapon(a, w.name)
                self.gain_weapon(state, d, w.name)
                if w.magazine:
                    d.res["ammo"][w.name] = a.res["ammo"].get(w.name, 0)
                evs.append(event("effect", target=d.id, effect=f"grabs the {w.name}"))
            else:
                evs += self.drop_object(state, a, w.name, a.pos, verb="is knocked away")
        elif choice == "trip":
            evs += self.knock_prone(a, "tripped")
        else:
            st = Step(max(1, d.stats["attributes"]["strength"].index - 2))
            r = roll_steps(dice, (st,), "bash",
                           RollCall(d.id, "bash damage", "bash_damage", f"Strength {st}", step_sides((st,)),
                                    modifiers=(("bash: Strength -2 steps (attribute)", -2),), label="bash"))
            evs.append(event("roll", actor=d.id, purpose="bash damage", check="bash_damage",
                             modifiers=[mod("bash: Strength -2 steps (attribute)", -2)], pool=f"Strength {st}",
                             dice=_faces(r), total=r.total))
            # assumption block_bash: a bash is a bludgeoning hit (Glass Jaw, Takes a Punch), so armour
            # and the Plot Points the attacker spends reduce it as they do any hit's damage
            evs += self.take_damage(state, a, r.total, 0, dice, "bash", blunt=True)
        if self.has_style(d, "krav_maga") and not a.down and not d.down:
            # seed 000, Krav Maga: "allows you to immediately make an Unarmed attack"
            if decide(state, d, "krav_maga_counter", ("attack", "pass"), "attack",
                      f"{d.id} may make a free unarmed attack on {a.id} (Krav Maga): attack or pass?") == "attack":
                evs += self.krav_maga_counter(state, d, a, dice)
            else:
                evs.append(event("choice", actor=d.id, key="krav_maga_counter", choice="pass"))
        return evs

    def krav_maga_counter(self, state: BattleState, d: Combatant, a: Combatant, dice: Dice) -> list[Event]:
        """seed 000, Krav Maga: a free unarmed attack against an Easy (3) target; an impaired
        defender's skill die takes the Groin's "-2 step skill penalty to all actions" (a free
        action is still an action). Beating Easy (3) by 7 or more is an extraordinary hit, with
        `strike`'s choice (bypass armour or the special effect) and Endurance roll."""
        w = self.weapons["unarmed"]
        sname, sk = self.weapon_skill(d, w)
        impaired = self.impaired_steps(d)
        pool = make_pool(d, w.attribute, sk, impaired, self.attr_steps(d, w.attribute))
        if pool is None:
            return [event("effect", target=d.id, effect="is too impaired to make the Krav Maga counter")]
        attr, sk = pool
        diff = self.diff["easy"]
        ms = self.attr_modifiers(d, w.attribute) + ([mod("impaired (skill)", impaired)] if impaired else [])
        r = roll_steps(dice, (attr, sk), "krav maga counter",
                       RollCall(d.id, "Krav Maga counter (free)", "krav_maga_counter", f"Strength {attr} + {sname} {sk}",
                                step_sides((attr, sk)), difficulty=diff,
                                modifiers=calls.mods(ms), label="krav maga counter"))
        evs = [event("roll", actor=d.id, purpose="Krav Maga counter (free)", check="krav_maga_counter",
                     modifiers=ms, pool=f"Strength {attr} + {sname} {sk}",
                     dice=_faces(r), total=r.total, difficulty=diff)]
        if r.botch or r.total < diff:
            evs.append(event("attack", actor=d.id, target=a.id, weapon="unarmed", result="miss", total=r.total,
                             difficulty=diff))
            return evs
        margin = r.total - diff
        # seed 000, Extraordinary Success in Combat: the counter is an attack like any other, so
        # beating Easy (3) by 7 or more brings the special effect or the armour bypass (as `strike`)
        extraordinary = margin >= self.xmargin
        evs.append(event("attack", actor=d.id, target=a.id, weapon="unarmed",
                         result="extraordinary hit" if extraordinary else "hit", total=r.total,
                         difficulty=diff, margin=margin))
        bypass = self.extraordinary_choice(state, d, a, w, None, evs) if extraordinary else False
        rifle = self.krav_maga_rifle(state, d, evs)
        evs += self.damage(state, d, a, w, margin, dice, bypass, extra_basic=rifle)
        if extraordinary:
            evs += self.extraordinary_effect(a, w, bypass, dice)
        return evs
