"""Attacks, defences and their consequences under seed 002 (`cortex_hu`).

seed 002 rules implemented here (headings of /work/shared/seeds/002_*.txt):
- multiple actions and rate of fire (attack dice on the ladder, shots per turn);
- Kitérés/blokkolás: parries and dodges declared on the figure's turn answer the next
  attack even after its turn; reactions after its turn are carried into its next turn;
- Ösztönös kitérés: innate defence, Easy (3) when not watching, Plot Points;
- Hárítás, Kitérés: parry (not against firearms, energy weapons or thrown objects;
  bare-handed against a weapon still takes its damage die) and dodge;
- Teljes körű támadás: all-out attack (+2 steps, innate defence only until the next turn);
- Meglepetésből támadás: surprised figures use innate defence only, not watching;
- Fedezékek, Lőtávolságok, Hajítófegyverek: cover, range steps, improvised throws;
- Célzás: the aim bonus on the next ranged attack;
- Célzott lövés: called shots with their attack and damage steps and effects;
- Lefegyverzés: disarm.
Damage, armour, Life Points, unconsciousness and dying are the common Cortex base
(rules/systems/cortex_common/mechanics.py).
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.dice import Dice, Step, roll_steps
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.mechanics import faces
from rules.systems.cortex_common.model import Weapon, plot_point_die, roll_pool, skill_die
from rules.systems.cortex_hu.ladder import ladder_pool
from rules.systems.cortex_hu.rolls import fill, mods, tag


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
        """seed 002, Hárítás: only hand-to-hand attacks (data.yaml assumption parry)."""
        return not w.ranged and option != "throw"

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
        the skill die - once per target and weapon instead of once per option. `can_attack`
        stays the rule; tests/test_cortex_hu.py compares the two on many random positions."""
        A = self.action
        out: list[Action] = []
        ws = self.usable_weapons(a)
        if not ws:
            return out
        g = state.grid
        e = state.economy
        holder = a.res["grappled_by"]
        grappling = a.res["grappling"]
        base = self.turn_steps(state, a)
        all_out_now = bool(e["all_out"])
        all_out_ok = not (e["acted"] or e["carried"] or e["full_defence"] or e["all_out"])
        aim = a.res["aim"] * int(self.aim_rules["steps_per_round"])
        attr_steps: dict[str, int] = {}
        skills: dict[tuple[str, bool], tuple[str, Step]] = {}
        opts = self.attack_options
        for t in state.combatants:
            if t.team == a.team or t.down:
                continue
            if holder is not None and t.id != holder:
                continue  # a held figure fights only its holder
            los = g.los(a.pos, t.pos)
            adj = g.adjacent(a.pos, t.pos)
            disarmable: bool | None = None
            throw_band: int | None | bool = False  # False: not computed yet
            for w in ws:
                # what the weapon's plain attack needs (every option but throw and choke)
                if w.ranged:
                    reach = (holder is None and los and e["shots"].get(w.name, 0) < w.rof
                             and not (w.magazine and a.res["ammo"].get(w.name, 0) <= 0))
                else:
                    reach = adj
                band = self.range_steps(state, a, t, w, "") if reach else None
                for opt in opts:
                    if opt == "choke":
                        if w.name != "unarmed" or grappling != t.id:
                            continue
                        b = self.range_steps(state, a, t, w, opt)  # held fast: no reach check
                    elif opt == "throw":
                        if holder is not None or w.kind != "melee" or w.name == "unarmed" or not los:
                            continue
                        if throw_band is False:
                            throw_band = self.range_steps(state, a, t, w, "throw")
                        b = throw_band
                    else:
                        b = band
                    if b is None:
                        continue
                    if opt == "disarm":
                        if w.kind == "thrown":
                            continue
                        if disarmable is None:
                            disarmable = self.held_weapon(t) is not None
                        if not disarmable:
                            continue
                    elif opt == "all_out" and not all_out_ok:
                        continue
                    throw = opt == "throw"
                    steps = base + b + self.option_steps(w, opt)
                    if opt == "all_out" or all_out_now:
                        steps += self.all_out_steps
                    if w.ranged or throw:
                        steps += aim
                    key = (w.name, throw)
                    sk = skills.get(key)
                    if sk is None:
                        sk = skills[key] = self.weapon_skill(a, w, opt if throw else "")
                    attr = "agility" if throw else w.attribute
                    ast = attr_steps.get(attr)
                    if ast is None:
                        ast = attr_steps[attr] = self.attr_steps(a, attr)
                    if ladder_pool(a, attr, sk[1], steps, ast) is not None:
                        out.append(A("attack", target=t.id, weapon=w.name, option=opt or None))
        return out

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
        r, ev = roll_pool(dice, a.id, purpose, attr_name, attr, sname, skill,
                          extra={"steps": steps, "check": "attack", "modifiers": modifiers})
        evs.append(ev)
        if used:
            evs.append(used)
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

    # -- defence --------------------------------------------------------------------------
    def watches(self, state: BattleState, d: Combatant, a: Combatant) -> bool:
        """seed 002, Ösztönös kitérés: whether the defender watches its attacker."""
        return not d.res["surprised"] and state.grid.los(d.pos, a.pos)

    def innate_only_reason(self, d: Combatant, feinted: bool) -> str | None:
        if feinted:
            return "feinted"
        if d.res["surprised"]:
            return "surprised"
        if d.res["all_out"]:
            return "all-out attack"
        return None

    def cover_against(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str) -> int:
        """seed 002, Fedezékek: the Difficulty bonus of d's cover against a's ranged attack."""
        if not self.ranged_attack(w, option):
            return 0
        g = state.grid
        level = g.cover(d.pos, a.pos)
        if "prone" in d.conditions and g.distance_m(d.pos, a.pos) > self.rng["point_blank_m"] + 1e-9:
            level = max(level, int(self.prone_rules["ranged_cover_level"]))
        return self.cover_table[level]

    def defence_pool(self, d: Combatant, mode: str, steps: int) -> tuple[Step, Step, str] | None:
        """Agility + the parry or dodge skill with `steps` on the ladder (None if impossible)."""
        if mode == "dodge":
            sname, sk = named_skill(d, "athletics", "dodge")
        else:
            sname, sk = self.weapon_skill(d, self.parry_weapon(d))
        p = ladder_pool(d, "agility", sk, steps, self.attr_steps(d, "agility"))
        return None if p is None else (p[0], p[1], sname)

    def parry_weapon(self, d: Combatant) -> Weapon:
        melee = [w for w in self.usable_weapons(d) if not w.ranged]
        melee.sort(key=lambda w: (self.weapon_skill(d, w)[1].index, w.size, w.name), reverse=True)
        return melee[0] if melee else self.weapons["unarmed"]

    def prepared_for(self, d: Combatant, w: Weapon, option: str) -> int | None:
        """Index of the first prepared defence that can answer this attack: a parry or dodge
        declared on the turn answers the next hand-to-hand attack (seed 002, Kitérés/blokkolás:
        "közelharcban/kézitusában"); gunfire is dodged by reaction only."""
        if self.ranged_attack(w, option) or not d.res["prepared"]:
            return None
        return 0

    def reaction_steps(self, d: Combatant) -> int:
        """The ladder step of a reaction: after the actions of its last turn and earlier reactions."""
        steps = -(d.res["last_actions"] + d.res["debt"])
        if "prone" in d.conditions:
            steps += int(self.prone_rules["steps"])
        if d.res["full_defence"]:
            steps += self.full_defence_steps
        return steps

    def innate_mean(self, state: BattleState, d: Combatant, a: Combatant) -> float:
        if not self.watches(state, d, a) or self.declines_innate(d):
            return float(self.diff["easy"])
        return self.attr_die(d, "agility").mean

    def reaction(self, state: BattleState, d: Combatant, a: Combatant, w: Weapon, option: str
                 ) -> tuple[str, tuple[Step, Step, str], int] | None:
        """The reactive parry or dodge d makes against this attack, if any (assumption reactions)."""
        if d.stats["reactions"] == "never" or d.res["debt"] >= self.reaction_limit:
            return None
        steps = self.reaction_steps(d)
        best = None
        for mode in ("parry", "dodge"):
            if mode == "parry" and not self.can_parry(w, option):
                continue
            p = self.defence_pool(d, mode, steps)
            if p is None:
                continue
            mean = p[0].mean + p[1].mean
            if best is None or mean > best[0]:
                best = (mean, mode, p)
        if best is None or best[0] <= self.innate_mean(state, d, a):
            return None
        return best[1], best[2], steps

    def resolve_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                        atk_total: int, dice: Dice, innate_only: bool = False) -> tuple[int, dict, list[Event]]:
        """The Difficulty to hit d, the events of its defence, and what the defence was."""
        cb = self.cover_against(state, a, d, w, option)
        info: dict[str, Any] = {}
        why = self.innate_only_reason(d, innate_only)
        if why is None:
            i = self.prepared_for(d, w, option)
            if i is not None:
                p = d.res["prepared"].pop(i)
                pool = self.defence_pool(d, p["mode"], p["steps"])
                if pool is not None:
                    declared = p.get("modifiers", mods(("declared", p["steps"])))
                    return self._active_defence(a, d, w, p["mode"], pool, p["steps"], cb, dice, "prepared",
                                                declared + self.attr_mods(d, "agility"))
            react = self.reaction(state, d, a, w, option)
            if react is not None:
                mode, pool, steps = react
                modifiers = self.reaction_mods(d) + self.attr_mods(d, "agility")
                d.res["debt"] += 1
                self.lose_aim(d)
                diff, info, evs = self._active_defence(a, d, w, mode, pool, steps, cb, dice, "reaction", modifiers)
                evs.append(event("effect", target=d.id, effect=f"reacts off its turn: its next turn starts "
                                 f"{d.res['debt']} step{'s' if d.res['debt'] > 1 else ''} lower",
                                 carried=d.res["debt"]))
                return diff, info, evs
        if not self.watches(state, d, a):
            diff = self.diff["easy"] + cb
            return diff, info, [event("defence", actor=d.id, mode="innate, not watching", difficulty=diff,
                                      cover_bonus=cb)]
        diff, evs = self.innate_defence(d, dice, cb)
        fill(evs, "innate_defence", lambda _id: self.attr_mods(d, "agility"))
        if why:
            evs[-1]["mode"] += f" only ({why})"
        if len(evs) == 2:  # rolled: Plot Points may be added (seed 002, Ösztönös kitérés)
            diff, pev = self.innate_plot_points(d, atk_total, diff, dice)
            if pev:
                evs.insert(1, pev)
                evs[-1]["difficulty"] = diff
        return diff, info, evs

    def _active_defence(self, a: Combatant, d: Combatant, w: Weapon, mode: str, pool: tuple[Step, Step, str],
                        steps: int, cb: int, dice: Dice, how: str, modifiers: list[dict[str, Any]]
                        ) -> tuple[int, dict, list[Event]]:
        r, ev = roll_pool(dice, d.id, f"{mode} ({how})", "agility", pool[0], pool[2], pool[1],
                          extra={"steps": steps, "check": mode, "modifiers": modifiers})
        diff = r.total + cb
        info: dict[str, Any] = {"mode": mode, "roll": r.total}
        if mode == "parry" and w.name != "unarmed" and self.parry_weapon(d).name == "unarmed":
            info["bare_parry"] = True
        return diff, info, [ev, event("defence", actor=d.id, mode=f"{mode} ({how})", difficulty=diff,
                                      cover_bonus=cb)]

    def innate_plot_points(self, d: Combatant, atk_total: int, diff: int, dice: Dice) -> tuple[int, Event | None]:
        """Spend the fewest Plot Points whose die could lift the innate roll over the attack
        (assumption innate_plot_points); the die is added to the Difficulty."""
        if d.res["pp"] <= 0 or atk_total < diff:
            return diff, None
        gap = atk_total - diff + 1
        cap = min(d.res["pp"], int(self.pp_rules["max_spend"]))
        n = next((k for k in range(1, cap + 1) if plot_point_die(k).maximum >= gap), None)
        if n is None:
            return diff, None
        d.res["pp"] -= n
        die = plot_point_die(n)
        r = roll_steps(dice, (die,), "plot points")
        return diff + r.total, tag(event("roll", actor=d.id, purpose=f"spends {n} Plot Point{'s' if n > 1 else ''} "
                                         "on innate defence", pool=str(die), dice=faces(r), total=r.total, points=n),
                                   "plot_points")

    def expected_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                         innate_only: bool = False) -> tuple[tuple[int, ...], int]:
        """(defence dice sides, flat addition) that `resolve_defence` would use now, without rolling."""
        if d.res["grappled_by"] is not None and w.name == "unarmed":
            return (), self.held_difficulty
        cb = self.cover_against(state, a, d, w, option)
        if self.innate_only_reason(d, innate_only) is None:
            i = self.prepared_for(d, w, option)
            pool = None
            if i is not None:
                p = d.res["prepared"][i]
                pool = self.defence_pool(d, p["mode"], p["steps"])
            if pool is None:
                react = self.reaction(state, d, a, w, option)
                pool = react[1] if react is not None else None
            if pool is not None:
                return pool[0].dice + pool[1].dice, cb
        if not self.watches(state, d, a) or self.declines_innate(d):
            return (), self.diff["easy"] + cb
        return self.attr_die(d, "agility").dice, cb


__all__ = ["CombatHu", "named_skill"]
