"""Cortex attacks and defences (seed 000 on Cortex Classic).

seed 000 headings implemented here: Attributes for Attacking; Defense, Melee Combat;
Defense, Ranged Combat; Extraordinary Success in Combat; Called Shots; Cover and
Explosions; Getting out of Harm's Way; Melee Combat (Improvised Weapons, Tripping,
Unarmed); burst and autofire with Trigger Happy; Plot Points spent against damage.
The Basic split, armour, applying damage, the Endurance roll and innate defence are the
common Cortex base (rules/systems/cortex_common/mechanics.py), shared with `cortex_hu`.
"""

from __future__ import annotations

import math
from typing import Any

from rules.actions import Action
from rules.choices import decide
from rules.errors import IllegalActionError
from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import D0, Dice, PoolRoll, Step, roll_steps
from rules.events import Event, event
from rules.grid import FEET
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.targets import difficulty_parts
from rules.systems.cortex.listing import attack_actions
from rules.systems.cortex.model import Weapon, brawling, make_pool, skill_die
from rules.systems.cortex.modifiers import bonus_dice, mod
from rules.systems.cortex.traits import plot_point_die

UNARMED_STYLES = ("offensive_martial_arts", "defensive_martial_arts", "brawling", "wrestling",
                  "capoeira", "krav_maga")


def _faces(r: PoolRoll) -> list[list[int]]:
    return [list(f) for f in r.faces]


class CombatMixin:
    """Attacks, defences, damage and their special rules for `CortexRuleset`."""

    # -- skills ---------------------------------------------------------------------
    def has_style(self, c: Combatant, style: str) -> bool:
        return bool(c.stats["skills"].get(f"unarmed_combat/{style}"))

    def unarmed_skill(self, c: Combatant, prefer: tuple[str, ...] = UNARMED_STYLES) -> tuple[str, Step]:
        sk = c.stats["skills"]
        best = ("unarmed_combat", sk.get("unarmed_combat", D0))
        for s in prefer:
            v = sk.get(f"unarmed_combat/{s}")
            if v is not None and v > best[1]:
                best = (f"unarmed_combat/{s}", v)
        return best

    def weapon_skill(self, c: Combatant, w: Weapon, option: str = "") -> tuple[str, Step]:
        """The skill die for an attack with w (seed 000, Improvised Weapons and Unarmed).

        seed 000, Tripping: "The attacker makes an Agility + Unarmed Combat/Specialty roll to hit",
        with a tripping weapon too ("like a fighting staff or chain"): Unarmed Combat's best
        specialty, as an unarmed attack picks it; an improvised object keeps its own skills
        (Improvised Weapons names "a pool stick used for a trip attack"; assumption trip_skill)."""
        sk = c.stats["skills"]
        if option == "throw":
            return "ranged_weapons", sk.get("ranged_weapons", D0)
        if w.x("improvised"):
            melee = sk.get("melee_weapons", D0)
            bname, brawl = brawling(c.stats)
            return (bname, brawl) if brawl > melee else ("melee_weapons", melee)
        if w.name == "unarmed" or option == "trip":
            if option in ("disarm", "takedown"):
                return "unarmed_combat/wrestling", sk.get("unarmed_combat/wrestling", D0)
            if option == "double":
                return self.unarmed_skill(c, ("offensive_martial_arts", "wrestling"))
            return self.unarmed_skill(c)
        name = f"{w.skill}/{w.specialty}" if w.specialty else w.skill
        return name, skill_die(c.stats, w.skill, w.specialty)

    # -- attack options -------------------------------------------------------------
    def _ranged_band(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon,
                     range_ft: float | None = None) -> int | None:
        d_ft = state.grid.distance_m(a.pos, t.pos) / FEET
        return self.band_at(d_ft, w.range_ft if range_ft is None else range_ft)

    def band_at(self, d_ft: float, rng: float) -> int | None:
        """The range band's skill steps at `d_ft` feet for a weapon of range `rng` feet (None: out of range)."""
        for b in self.bands:
            if d_ft <= rng * b["upto"] + 1e-9:
                return int(b["steps"])
        return None

    def attack_dice(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str = ""
                    ) -> tuple[str, Step, str, Step] | None:
        """(attribute name, attribute die, skill name, skill die) for this attack now, or None."""
        band = 0
        if option == "throw":
            band = self._ranged_band(state, a, t, w, 10.0)
        elif w.ranged:
            band = self._ranged_band(state, a, t, w)
        if band is None:
            return None
        return self.attack_pool(state, a, w, option, band)

    def attack_pool(self, state: BattleState, a: Combatant, w: Weapon, option: str, band: int
                    ) -> tuple[str, Step, str, Step] | None:
        """`attack_dice` at a known range band (its skill steps)."""
        e = state.economy
        key = (a.id, w.name, option, band, e["actions"], e["rise_penalty"])
        cache = self._pool_cache
        hit = cache.get(key, cache)
        if hit is not cache:
            return hit
        steps, attr = self.attack_steps(state, a, w, option, band)
        sname, sk = self.weapon_skill(a, w, option)
        p = make_pool(a, attr, sk, steps, self.attr_steps(a, attr, {"attack"}))
        res = None if p is None else (attr, p[0], sname, p[1])
        cache[key] = res
        return res

    def rounds_for(self, a: Combatant, w: Weapon, option: str, shots_taken: int) -> int:
        """Rounds a shot uses (seed 000, Trigger Happy; fire mode numbers are assumptions)."""
        flags_th = any(t["name"] == "trigger_happy" for t in a.traits)
        if option in ("burst", "autofire"):
            n = int(self.modes[option]["rounds"])
            return int(math.ceil(n * 1.5)) if flags_th else n
        return 2 if (flags_th and shots_taken >= 1) else 1

    def rounds_needed(self, w: Weapon, option: str) -> int:
        """Rounds the magazine must hold for the shot: its own, without Trigger Happy's waste
        (assumption trigger_happy: the wasted rounds go as far as the magazine holds)."""
        return int(self.modes[option]["rounds"]) if option in ("burst", "autofire") else 1

    def can_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str = "") -> bool:
        if t.down or t.team == a.team:
            return False
        g = state.grid
        return self._can_attack(state, a, t, w, option, g.los(a.pos, t.pos), g.adjacent(a.pos, t.pos))

    def _can_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str,
                    seen: bool, adjacent: bool) -> bool:
        """`can_attack` for a standing enemy t, given whether a sees t and stands next to it."""
        e = state.economy
        if option == "throw":
            if not w.x("throwable") or not seen or adjacent:
                return False
        elif w.kind == "explosive":
            if a.res["uses"].get(w.name, 0) <= 0 or e["shots"].get(w.name, 0) >= w.rof:
                return False
            if not seen:
                return False
        elif w.ranged:
            shots = e["shots"].get(w.name, 0)
            if option == "autofire":
                if shots > 0:
                    return False
            elif shots >= w.rof:
                return False
            if w.magazine and a.res["ammo"].get(w.name, 0) < self.rounds_needed(w, option):
                return False
            if not seen:
                return False
        elif not adjacent:
            return False
        return self.attack_dice(state, a, t, w, option) is not None

    def attack_actions(self, state: BattleState, a: Combatant, only: str | None = None) -> list[Action]:
        """The actor's legal attacks (`only`: on that figure alone); see listing.py."""
        return attack_actions(self, state, a, only)

    # -- attacking ------------------------------------------------------------------
    def take_pp_bonus(self, state: BattleState, a: Combatant, context: set[str]) -> list[Step]:
        """The Plot Point die declared for this roll (RULES-NOTES: 1 PP = d2, +1 step per point)."""
        n = state.economy.get("pp_bonus", 0) if state.actor is a else 0
        if not n:
            return []
        state.economy["pp_bonus"] = 0
        bonus = self.traitbook.modifiers(a.traits, context | {"plot_points"}, None).plot_point_bonus if a.traits else 0
        return [plot_point_die(n + bonus)]

    def attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, dice: Dice
               ) -> list[Event]:
        e = state.economy
        dd = self.attack_dice(state, a, t, w, option)
        if dd is None:
            raise IllegalActionError(f"{a.name} has no dice left for this attack ({w.name}"
                                     f"{', ' + option if option else ''})", field="action",
                                     expected="one of the legal actions")
        pre: list[Event] = []
        if w.x("improvised") and option != "throw" and state.asking is not None:
            dd, pre = self.improvised_choice(state, a, w, option, dd)
        attr_name, attr, sname, skill = dd
        mods = self.attack_modifiers(state, a, t, w, option)
        shots = e["shots"].get(w.name, 0)
        e["actions"] += 1
        e["rise_penalty"] = False
        a.res["attacked_last"] = True
        if w.name != "unarmed":
            a.res["held"] = w.name
        if option.startswith("called:"):
            e["called"] = True
        extra = self.take_pp_bonus(state, a, {"attack"})
        if w.kind == "explosive":
            e["shots"][w.name] = shots + 1
            return self.throw_explosive(state, a, t, w, attr_name, attr, sname, skill, extra, dice, mods)
        if w.ranged and option != "throw":
            n = self.rounds_for(a, w, option, shots)
            if w.magazine:
                a.res["ammo"][w.name] -= min(n, a.res["ammo"][w.name])
            e["shots"][w.name] = w.rof if option == "autofire" else shots + 1
        evs: list[Event] = pre
        strikes = 2 if option == "double" else 1
        for _ in range(strikes):
            if t.down or a.down:
                break
            evs += self.strike(state, a, t, w, option, attr_name, attr, sname, skill, extra, dice, mods)
            extra = []
        if option == "throw" and not any(e.get("broke") == w.name for e in evs):
            evs += self.drop_object(state, a, w.name, t.pos, verb="lands")
        return evs

    def strike(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, attr_name: str,
               attr: Step, sname: str, skill: Step, extra: list[Step], dice: Dice, mods: list = ()
               ) -> list[Event]:
        """One attack roll against one defence, and what follows from it."""
        pool = f"{attr_name.capitalize()} {attr}" + (f" + {sname.replace('_', ' ').title()} {skill}" if skill else "")
        pool += "".join(f" + Plot Points {x}" for x in extra)
        purpose = f"attack with {w.name}" + (f" ({option})" if option else "")
        ms = [*mods, *bonus_dice(extra)]
        r = roll_steps(dice, (attr, skill, *extra), f"attack with {w.name}",
                       RollCall(a.id, purpose, "attack", pool, step_sides((attr, skill, *extra)),
                                against=self.defence_against(state, a, t, w, option), modifiers=calls.mods(ms),
                                label=f"attack with {w.name}"))
        ev = event("roll", actor=a.id, purpose=purpose,
                   check="attack", modifiers=ms, pool=pool, dice=_faces(r), total=r.total)
        if r.botch:
            ev["botch"] = True
        evs: list[Event] = [ev]
        area = option[7:] if option.startswith("called:") else None
        if t.res["grappled_by"] == a.id and not w.ranged:
            diff = int(self.data["grapple"]["held_difficulty"])
            info: dict[str, Any] = {}
            evs.append(event("defence", actor=t.id, mode="held", difficulty=diff))
        else:
            diff, info, dev = self.resolve_defence(state, a, t, w, r.total, dice, option)
            evs += dev
        if area:
            diff += int(self.called["areas"][area]["difficulty"])
            evs.append(event("info", text=f"called shot to the {area}: Difficulty +{self.called['areas'][area]['difficulty']}"))
        ev["difficulty"] = diff
        parts = difficulty_parts(evs, diff, self.cover_table,
                                 [(f"called shot ({area})", int(self.called["areas"][area]["difficulty"]))] if area else ())
        if parts:
            ev["difficulty_parts"] = parts
        if r.botch or r.total < diff:
            evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="miss", total=r.total,
                             difficulty=diff, botch=r.botch, option=option))
            if r.botch and w.x("improvised"):
                evs += self.break_check(state, a, w, dice, t.pos if option == "throw" else None)
            if r.botch and option == "trip":
                evs += self.fall_or_drop(state, a, w, "botched trip")
            if info.get("mode") == "block":
                bw = info["block_weapon"]
                if (w.size > 0 and not w.ranged and bw.name == "unarmed"
                        and not self.has_style(t, "defensive_martial_arts")):
                    evs.append(event("effect", target=t.id, effect="blocks bare-handed and takes the weapon's damage"))
                    evs += self.damage(state, a, t, w, 0, dice, False, weapon_only=True)
                if info["roll"] - r.total >= self.xmargin and not a.down and not t.down:
                    evs += self.block_effect(state, t, a, w, bw, dice)
            return evs
        margin = r.total - diff
        extraordinary = margin >= self.xmargin
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name,
                         result="extraordinary hit" if extraordinary else "hit", total=r.total,
                         difficulty=diff, margin=margin, option=option))
        if option == "trip":
            return evs + self.trip(state, a, t, w, extraordinary, dice)
        if option == "disarm":
            held = self.held_weapon(t)
            if held is not None:
                evs += self.drop_object(state, t, held.name, t.pos, verb="is wrenched away")
            return evs
        if option == "takedown":
            return evs + self.knock_prone(t, "takedown")
        bypass = False
        if extraordinary:
            bypass = self.extraordinary_choice(state, a, t, w, area, evs)
        die_steps = 0
        if option in ("burst", "autofire"):
            die_steps += int(self.modes[option]["damage_steps"])
        col = None
        if area:
            col = self.called["areas"][area]["wound" if w.dtype == "W" else "stun_basic"]
            die_steps += int(col.get("damage_steps", 0))
        extra_die = None
        if w.name == "unarmed" and self.has_style(a, "krav_maga"):
            extra_die = self.krav_maga_rifle(state, a, evs)  # seed 000, Krav Maga: d6 Basic
        evs += self.damage(state, a, t, w, margin, dice, bypass, die_steps=die_steps, extra_basic=extra_die,
                           option=option)
        if w.x("improvised"):
            evs += self.break_check(state, a, w, dice, t.pos if option == "throw" else None)
        if area and not t.dead:
            evs += self.called_shot_effect(state, a, t, w, area, bypass, dice)
        if extraordinary:   # a called shot's too: seed 000 names no exception
            evs += self.extraordinary_effect(t, w, bypass, dice)
        return evs

    def extraordinary_effect(self, t: Combatant, w: Weapon, bypass: bool, dice: Dice) -> list[Event]:
        """seed 000, Extraordinary Success in Combat: "the target must make an Endurance roll or
        suffer a special effect" (assumption extraordinary_attack: Average (7), or knocked prone),
        unless the attacker chose to bypass its armour (`extraordinary_choice`) or it is down.
        Every extraordinary hit's, the Krav Maga counter's among them (melee.py)."""
        if bypass or t.down:
            return []
        ok, ev = self.endurance(t, dice, self.diff["average"], "Endurance vs special effect", blunt=self.blunt(w))
        return [ev] if ok else [ev, *self.knock_prone(t, "extraordinary hit")]

    def extraordinary_choice(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, area: str,
                             evs: list[Event]) -> bool:
        """seed 000: "the attacker may choose to bypass the victim's body armor instead of
        inflicting a special effect". Whether the attack bypasses armour (the attacker's
        choice, asked only when the target wears armour; the default is the engine's
        choice before #32: bypass when the armour would stop something)."""
        if not t.armour:
            return False
        covered = area and self.called["areas"][area]["armour"] and any(
            self.called["areas"][area]["armour"] in x.covers for x in t.armour)
        default = ("bypass_armour" if covered or any((x.W if w.dtype != "S" else x.S) > 0 for x in t.armour)
                   else "special_effect")
        way = decide(state, a, "extraordinary_hit", ("bypass_armour", "special_effect"), default,
                     f"{a.id}'s extraordinary hit on {t.id}: bypass {t.id}'s armour or inflict a special effect?")
        evs.append(event("choice", actor=a.id, key="extraordinary_hit", choice=way))
        if way == "bypass_armour":
            evs.append(event("effect", target=t.id, effect="the attack bypasses armour"))
        return way == "bypass_armour"

    @staticmethod
    def blunt(w: Weapon) -> bool:
        """Unarmed or bludgeoning (seed 000: Takes a Punch, Glass Jaw)."""
        return w.name == "unarmed" or (not w.ranged and w.dtype in ("B", "S"))

    # -- damage ---------------------------------------------------------------------
    def damage(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, margin: int, dice: Dice,
               bypass: bool, weapon_only: bool = False, die_steps: int = 0, extra_basic: Step | None = None,
               option: str = "") -> list[Event]:
        """The margin as Basic plus the weapon's damage die, less armour (RULES-NOTES).

        `die_steps` come from the attack's `option` (a fire mode or a called shot)."""
        die = w.damage + die_steps
        why = f"called shot to the {option[7:]}" if option.startswith("called:") else option
        ms = [mod(f"{why} (damage die)", die_steps)] if die_steps else []
        r = roll_steps(dice, (die,), "damage", RollCall(a.id, f"damage ({w.dtype})", "damage", f"{w.name} {die}",
                                                        step_sides((die,)), modifiers=calls.mods(ms), label="damage"))
        evs = [event("roll", actor=a.id, purpose=f"damage ({w.dtype})", check="damage",
                     modifiers=ms,
                     pool=f"{w.name} {die}", dice=_faces(r), total=r.total)]
        basic = 0 if weapon_only else margin
        if extra_basic is not None:
            rb = roll_steps(dice, (extra_basic,), "krav maga rifle",
                            RollCall(a.id, "assault rifle (Krav Maga) Basic", "krav_maga_rifle", str(extra_basic),
                                     step_sides((extra_basic,)), label="krav maga rifle"))
            evs.append(event("roll", actor=a.id, purpose="assault rifle (Krav Maga) Basic", check="krav_maga_rifle",
                             modifiers=[], pool=str(extra_basic), dice=_faces(rb), total=rb.total))
            basic += rb.total
        stun, wound = self.split(basic, w.dtype, r.total)
        return evs + self.take_damage(state, t, stun, wound, dice, w.name, bypass, self.blunt(w))

    def take_damage(self, state: BattleState, t: Combatant, stun: int, wound: int, dice: Dice, source: str,
                    bypass: bool = False, blunt: bool = False) -> list[Event]:
        """Armour, then the Plot Points the figure spends against the hit (asked.py), then apply."""
        stun, wound, absorbed = self.absorb_armour(t, stun, wound, bypass)
        evs: list[Event] = []
        if t.res["pp"] > 0 and (stun or wound):
            stun, wound, evs = self.pp_against_damage(state, t, stun, wound, blunt, dice)
        return evs + self.apply_damage(state, t, stun, wound, dice, source=source, absorbed=absorbed, blunt=blunt)

    # -- called shots ---------------------------------------------------------------
    def called_shot_effect(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, area: str,
                           bypass: bool, dice: Dice) -> list[Event]:
        """seed 000, Called Shots: the Stun/Basic or the Wound column of the table."""
        spec = self.called["areas"][area]
        col_name = "wound" if w.dtype == "W" else "stun_basic"
        col = spec[col_name]
        armour_key = spec.get("armour")
        if armour_key and any(armour_key in x.covers for x in t.armour) and not bypass:
            return [event("effect", target=t.id, effect=f"armour negates the called shot to the {area}")]
        if col.get("electrical_only") and not w.x("electrical"):
            return []
        hard = int(self.called["endurance_difficulty"])
        blunt = self.blunt(w)
        evs: list[Event] = []
        if col.get("immediate"):
            ok, ev = self.endurance(t, dice, hard, f"Endurance vs called shot ({area})", blunt=blunt,
                                    check="called_shot_endurance")
            evs.append(ev)
            if ok:
                return evs
        eff = col["effect"]
        until = col.get("until", "endurance")
        was_down = t.down
        if eff == "death":
            t.conditions.discard("dying")
            t.conditions.add("dead")
            evs.append(event("dead", target=t.id, cause=f"called shot to the {area}"))
            self.release_grapple(state, t)
            return evs
        add = t.res["afflictions"].append
        if eff == "lose_arm":
            add({"area": area, "effect": eff, "until": until, "conds": ["arm_lost"], "blunt": blunt})
        elif eff == "lose_leg":
            add({"area": area, "effect": eff, "until": until, "conds": ["leg_lost"], "blunt": blunt})
        elif eff == "knocked_out":
            add({"area": area, "effect": eff, "until": until, "conds": ["knocked_out"], "blunt": blunt})
        elif eff == "impaired":
            add({"area": area, "effect": eff, "until": until, "conds": ["impaired"], "blunt": blunt})
        elif eff == "lose_hand":
            add({"area": area, "effect": eff, "until": until, "conds": ["hand_lost"], "blunt": blunt})
            held = self.held_weapon(t)
            if col.get("drop") and held is not None:
                evs += self.drop_object(state, t, held.name, t.pos)
            elif col.get("drop_roll") and held is not None:
                agi = Step(max(1, t.stats["attributes"]["agility"].index + self.attr_steps(t, "agility")))
                wil = t.stats["attributes"]["willpower"]
                diff = int(self.called["drop_difficulty"])
                r = roll_steps(dice, (agi, wil), "hold on",
                               RollCall(t.id, "keep hold (Agility + Willpower)", "keep_hold",
                                        f"Agility {agi} + Willpower {wil}", step_sides((agi, wil)), difficulty=diff,
                                        modifiers=calls.mods(self.attr_modifiers(t, "agility")), label="hold on"))
                ok = r.total >= diff and not r.botch
                evs.append(event("roll", actor=t.id, purpose="keep hold (Agility + Willpower)", check="keep_hold",
                                 modifiers=self.attr_modifiers(t, "agility"), pool=f"Agility {agi} + Willpower {wil}", dice=_faces(r), total=r.total,
                                 difficulty=diff, success=ok))
                if not ok:
                    evs += self.drop_object(state, t, held.name, t.pos)
        elif eff == "kneecapped":
            evs += self.knock_prone(t, f"called shot to the {area}")
            if col.get("leg_until"):
                add({"area": area, "effect": "incapacitated", "until": until, "conds": ["incapacitated"],
                     "blunt": blunt})
                add({"area": area, "effect": "lose_leg", "until": col["leg_until"], "conds": ["leg_lost", "crawl_only"],
                     "blunt": blunt})
            else:
                add({"area": area, "effect": "kneecapped", "until": until,
                     "conds": ["incapacitated", "leg_lost", "crawl_only"], "blunt": blunt})
        elif eff == "heart_stopped":
            evs += self.knock_prone(t, f"called shot to the {area}")
            add({"area": area, "effect": eff, "until": until, "conds": ["incapacitated"], "blunt": blunt})
        self.sync_afflictions(t)
        evs.append(event("effect", target=t.id, effect=f"called shot to the {area}: {eff.replace('_', ' ')}",
                         until=until))
        if t.down and not was_down:
            evs.append(event("down", target=t.id, reason=eff.replace("_", " ")))
            self.release_grapple(state, t)
        return evs

    def recovery_roll(self, state: BattleState, c: Combatant, dice: Dice) -> list[Event]:
        """One Endurance roll a turn ends the called-shot effects that last 'until an Endurance roll'."""
        pending = [x for x in c.res["afflictions"] if x["until"] == "endurance"]
        if not pending or c.dead or c.conditions & {"unconscious", "dying"}:
            return []
        hard = int(self.called["endurance_difficulty"])
        ok, ev = self.endurance(c, dice, hard, "Endurance to recover (called shot)",
                                blunt=any(x.get("blunt") for x in pending), check="called_shot_recovery")
        evs = [ev]
        if ok:
            was_down = c.down
            c.res["afflictions"] = [x for x in c.res["afflictions"] if x["until"] != "endurance"]
            self.sync_afflictions(c)
            evs.append(event("effect", target=c.id, effect="recovers from " + ", ".join(
                x["effect"].replace("_", " ") for x in pending)))
            if was_down and not c.down:
                evs.append(event("condition", target=c.id, condition="down", on=False))
                evs += self.make_room(state, c)
        return evs

    def make_room(self, state: BattleState, c: Combatant) -> list[Event]:
        """A figure getting up where another now stands shifts to the nearest free cell."""
        g = state.grid
        others = {o.pos for o in state.combatants if o is not c and not o.down}
        if c.pos not in others:
            return []
        seen = {c.pos}
        frontier = [c.pos]
        while frontier:
            nxt = []
            for cell in frontier:
                for j in g._ring[cell]:
                    if j in seen or not g.passable[j]:
                        continue
                    seen.add(j)
                    if j not in others:
                        frm = c.pos
                        c.pos = j
                        return [event("move", actor=c.id, **{"from": list(g.xy(frm))}, to=list(g.xy(j)),
                                      metres=round(g.distance_m(frm, j), 3), mode="shift")]
                    nxt.append(j)
            frontier = sorted(nxt)
        return []
