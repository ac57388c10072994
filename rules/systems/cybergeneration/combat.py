"""Attacks, damage, armour and stun saves of seed 004 (Cybergeneration house rules).

seed 004 headings implemented here: ranged combat (REF + skill + accuracy + 1d10 against
the range difficulty, point blank, cover), full automatic, suppression, the genius gun,
bows, shotguns (blanket, buckshot), throwing, grenades, called shots, melee (opposed,
body-type bonus, adults v kids, unconscious targets), knockdown, disarm, critical success
and failure, damage, armour-piercing, stun saves and stun weapons.

Dice order of an attack (docs/cybergeneration.md): the attack d10 (and its second d10 on
a natural 1); in melee the defender's d10 (and its second on a 1 or 10); the attacker's
second d10 of a natural 10 when it adds it; then per hit the damage d10 (two on a
critical that takes two damage dice) and the target's stun save d10.
"""

from __future__ import annotations

import math
from typing import Any

from rules.actions import Action
from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import Check, finish, first_die, skill_check
from rules.systems.cybergeneration.model import Weapon

_DIRS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))  # d8: N, NE, E ... clockwise
CALLED = ("called:head", "called:gap")


class CombatMixin:
    """Attacks and damage for `CybergenerationRuleset`."""

    # -- what may be attacked -----------------------------------------------------------
    def throw_range(self, a: Combatant, w: Weapon) -> float:
        """seed 004: a small object up to 5 m x BODY, a larger one up to BODY m."""
        body = a.stats["stats"]["body"]
        return float(5 * body if (w.throwable or "small") == "small" else body)

    def range_difficulty(self, g, a: Combatant, a_pos: int, t_pos: int, w: Weapon, throw: bool = False
                         ) -> int | None:
        """The difficulty for the distance (point blank when adjacent), None beyond reach."""
        if g.adjacent(a_pos, t_pos):
            return self.pb
        d = g.distance_m(a_pos, t_pos)
        if throw or w.kind == "grenade":
            mx = self.throw_range(a, w)
            bands = [(f * mx, diff) for f, diff in self.ranges["thrown"]]
        else:
            bands = self.ranges[w.range]
        for upto, diff in bands:
            if d <= upto + 1e-9:
                return diff
        return None

    def band_index(self, g, a_pos: int, t_pos: int, w: Weapon) -> int:
        """Which range band (0 = point blank or the first) a distance falls in."""
        if g.adjacent(a_pos, t_pos):
            return 0
        d = g.distance_m(a_pos, t_pos)
        for i, (upto, _) in enumerate(self.ranges[w.range]):
            if d <= upto + 1e-9:
                return i
        return len(self.ranges[w.range]) - 1

    def difficulty(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, throw: bool = False,
                   at: int | None = None) -> tuple[int, dict[str, int]] | None:
        """Range difficulty + cover + the target's dodge (None when out of reach or sight)."""
        g = state.grid
        cell = t.pos if at is None else at
        if not g.los(a.pos, cell):
            return None
        rd = self.range_difficulty(g, a, a.pos, cell, w, throw)
        if rd is None:
            return None
        cover = self.cover_table[g.cover(cell, a.pos)]
        dodge = int(t.res["dodge"])
        return rd + cover + dodge, {"range": rd, "cover": cover, "dodge": dodge}

    def attack_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        """Attacks of a figure that is not grappling (see grapple.py for those that are)."""
        A = self.action
        out: list[Action] = []
        g = state.grid
        ws = [w for w in self.weapons_of(a) if self.in_hand(a, w) and not w.grapple_only]
        if not ws:
            return out
        for t in state.combatants:
            if t.team == a.team or t.dead:
                continue
            adj = g.adjacent(a.pos, t.pos)
            for w in ws:
                if t.down:
                    if w.melee and adj:  # assumption auto_hit_down
                        out.append(A("attack", target=t.id, weapon=w.name))
                    continue
                if w.melee:
                    if adj:
                        out.append(A("attack", target=t.id, weapon=w.name))
                        out.append(A("attack", target=t.id, weapon=w.name, option="called:head"))
                        if self.body_armour(t) is not None:
                            out.append(A("attack", target=t.id, weapon=w.name, option="called:gap"))
                        out.append(A("attack", target=t.id, weapon=w.name, option="knockdown"))
                        if w.blunt:
                            out.append(A("attack", target=t.id, weapon=w.name, option="stun"))
                    elif w.throwable and self.difficulty(state, a, t, w, throw=True) is not None:
                        out.append(A("attack", target=t.id, weapon=w.name, option="throw"))
                    continue
                if not self.loaded(a, w) or self.difficulty(state, a, t, w) is None:
                    continue
                if w.kind == "ranged":
                    out.append(A("attack", target=t.id, weapon=w.name))
                    out.append(A("attack", target=t.id, weapon=w.name, option="called:head"))
                    if w.full_auto and self.loaded(a, w, int(self.data["full_auto"]["rounds"])):
                        out.append(A("attack", target=t.id, weapon=w.name, option="full_auto"))
                elif w.kind == "grenade":
                    out.append(A("attack", target=t.id, weapon=w.name))
                elif w.kind == "genius":
                    charge = a.res["ammo"].get(w.name, 0)
                    for n in range(int(w.x("blast_min", 3)), int(w.x("blast_max", 7)) + 1):
                        if charge >= n:
                            out.append(A("attack", target=t.id, weapon=w.name, option=f"blast:{n}"))
                    if charge >= int(w.x("scribble_dc", 5)):
                        out.append(A("attack", target=t.id, weapon=w.name, option="scribble"))
        return out

    def suppress_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        """seed 004, Suppression: full auto at a target whose difficulty is 20 or lower."""
        out: list[Action] = []
        n = int(self.data["suppression"]["rounds"])
        limit = int(self.data["suppression"]["max_difficulty"])
        for w in self.weapons_of(a):
            if not (w.full_auto and self.in_hand(a, w) and self.loaded(a, w, n)):
                continue
            for t in state.combatants:
                if t.team == a.team or t.down:
                    continue
                d = self.difficulty(state, a, t, w)
                if d is not None and d[0] <= limit:
                    out.append(self.action("suppress", target=t.id, weapon=w.name))
        return out

    # -- modifiers ------------------------------------------------------------------------
    def turn_mods(self, state: BattleState) -> dict[str, Any]:
        e = state.economy
        return {"two": e["two"], "steady": e["steady"], "aim": e["aim"],
                "suppress_pen": e["suppress_pen"] if e["suppress"] == "pass" else 0}

    def attack_skill(self, a: Combatant, w: Weapon, t: Combatant | None, throw: bool = False) -> tuple[str, int]:
        """The skill an attack uses; bows may use yogang (+2, tribals); kids halve streetfighting
        against adults in hand-to-hand (seed 004)."""
        if throw or w.kind == "grenade":
            return "athletics", self.skill(a, "athletics")
        if w.bow and self.is_type(a, "tribal"):
            sf = self.skill(a, "streetfighting")
            yg = self.skill(a, "yogang") + self.mod["yogang_bow_accuracy"]
            if yg > sf:
                return "yogang (+2 bow accuracy)", yg
            return "streetfighting", sf
        name = w.skill
        v = self.skill(a, name)
        if name == "streetfighting" and not w.ranged and t is not None and self.kid_vs_adult(a, t):
            return "streetfighting (halved: kid v adult)", v // 2
        return name, v

    def kid_vs_adult(self, x: Combatant, y: Combatant) -> bool:
        return self.is_kid(x) and not self.is_kid(y)

    def attack_parts(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str,
                     turn: dict[str, Any], melee: bool, throw: bool = False, at: int | None = None
                     ) -> list[tuple[str, int]]:
        """Named modifiers of an attack roll (seed 004; data.yaml `modifiers`)."""
        m = self.mod
        g = state.grid
        parts: list[tuple[str, int]] = []
        if turn.get("two"):
            parts.append(("two actions", m["two_actions"]))
        if turn.get("steady") == w.name and not throw:
            parts.append(("steadied", m["steady"]))
        if turn.get("aim"):
            parts.append(("aimed", int(turn["aim"])))
        if turn.get("suppress_pen"):
            parts.append(("suppressed", -int(turn["suppress_pen"])))
        if turn.get("line"):
            parts.append(("through the suppression line", m["suppression_line"]))
        if "knocked" in a.conditions:
            parts.append(("knocked down", m["knocked_down"]))
        if option == "called:head":
            parts.append(("called shot (head)", m["called_shot"]))
        elif option == "full_auto":
            parts.append(("full auto", m["full_auto"]))
        elif option == "stun":
            parts.append(("stun attack", m["stun_attack"]))
        cell = t.pos if at is None else at
        in_grapple = self.in_grapple(a)
        if (not melee and not throw and w.point_blank and g.adjacent(a.pos, cell) and not in_grapple):
            parts.append(("point blank", m["point_blank_pistol_smg"]))
        if not melee and t.res["grapple"] and a.id not in t.res["grapple"]:
            parts.append(("firing into a grapple", m["into_grapple"]))
        plain = option in ("", "stun", "called:head", "called:gap", "throw", "full_auto")
        if in_grapple and not w.grapple_only and plain:
            parts.append(("while grappling", m["grapple_attack"]))
        return parts

    def opposed_bonus(self, state: BattleState, x: Combatant, y: Combatant) -> list[tuple[str, int]]:
        """Hold advantage and dogpiling on x's opposed rolls against y (seed 004)."""
        parts = []
        if x.res["hold"] == y.id and not self.is_type(y, "tinman"):
            parts.append(("hold", max(self.mod["hold_bonus_min"], self.body_mod(x))))
        piles = sum(1 for o in state.combatants
                    if o.team == x.team and o.id != x.id and not o.down and y.id in o.res["grapple"])
        if piles:
            parts.append(("dogpile", piles * self.mod["dogpile_per_ally"]))
        if "knocked" in x.conditions:
            parts.append(("knocked down", self.mod["knocked_down"]))
        return parts

    def melee_mod(self, a: Combatant, w: Weapon) -> int:
        """seed 004: body type adds to melee damage; cyber limbs only for full conversions and tinmen."""
        if not w.body_bonus:
            return 0
        if w.cyber and not (self.is_type(a, "borg") or self.is_type(a, "tinman")):
            return 0
        return self.body_mod(a)

    @staticmethod
    def _pool(parts: list[tuple[str, int]]) -> str:
        return "".join(f" {'+' if v >= 0 else '-'} {abs(v)} {n}" for n, v in parts)

    # -- dispatch -------------------------------------------------------------------------
    def attack_like(self, state: BattleState, a: Combatant, action: Action, dice: Dice) -> list[Event]:
        t = state.by_id[action.target]
        if action.kind == "grapple":
            return self.grapple_action(state, a, t, action.option or "", dice)
        w = self.has_weapon(a, action.weapon)
        if action.kind == "suppress":
            return self.suppress(state, a, t, w, dice)
        state.economy["actions"] += 1
        option = action.option or ""
        evs: list[Event] = []
        if self.in_grapple(a) and self.needs_preliminary(state, a, t, w, option):
            ok, ev = self.preliminary(state, a, dice)
            evs += ev
            if not ok:
                return evs
        return evs + self.attack(state, a, t, w, option, dice, self.turn_mods(state))

    def attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, dice: Dice,
               turn: dict[str, Any], at: int | None = None) -> list[Event]:
        """One attack of any kind, on the actor's turn or as a held action."""
        if w.no_roll:
            return self.no_roll_attack(state, a, t, w, dice)
        if w.kind == "grenade":
            return self.throw_grenade(state, a, t, w, dice, turn)
        if w.kind == "genius":
            return self.genius_attack(state, a, t, w, option, dice)
        if w.kind in ("melee", "special") and option != "throw":
            return self.melee_attack(state, a, t, w, option, dice, turn)
        return self.ranged_attack(state, a, t, w, option, dice, turn, at=at)

    # -- ranged -----------------------------------------------------------------------------
    def ranged_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, dice: Dice,
                      turn: dict[str, Any], at: int | None = None) -> list[Event]:
        """seed 004: REF + skill + weapon accuracy + 1d10 >= the difficulty."""
        g = state.grid
        throw = option == "throw"
        full = option == "full_auto"
        if w.magazine and not throw and not turn.get("no_ammo"):
            n = int(self.data["full_auto"]["rounds"]) if full else 1
            a.res["ammo"][w.name] = max(0, a.res["ammo"][w.name] - n)
        diff, dparts = self.difficulty(state, a, t, w, throw=throw, at=at)
        sname, sk = self.attack_skill(a, w, t, throw)
        ref = self.stat(a, "ref")
        acc = 0 if throw else w.accuracy
        parts = self.attack_parts(state, a, t, w, option, turn, melee=False, throw=throw, at=at)
        base = ref + sk + acc + sum(v for _, v in parts)
        label = f"attack with {w.name}" + (f" ({option})" if option else "")
        c = first_die(dice, base, label)
        c = finish(dice, c, label, need=diff, may_take_damage=not full)
        evs = [self.roll_event(a, label, f"REF {ref} + {sname} {sk}" + (f" + accuracy {acc}" if acc else "")
                               + self._pool(parts), c, difficulty=diff, **dparts)]
        hit = c.total >= diff
        if c.crit == "failure":
            evs += self.mishap(state, a, w, c.second, throw)
        if w.blanket and not throw:
            return evs + self.blanket(state, a, t, w, c, diff, dice)
        head = option == "called:head"
        if hit:
            evs.append(self.attack_event(a, t, w, "hit", c, diff, option))
            if full:
                evs += self.burst(state, a, t, w, c.total - diff, dice, head)
            else:
                evs += self.hit(state, a, t, w, dice, dc=w.dc, mod=self.body_mod(a) if w.bow else 0,
                                two_dice=c.two_damage_dice, head=head)
        else:
            evs.append(self.attack_event(a, t, w, "miss", c, diff, option))
            evs += self.near_miss(state, a, t, w, diff - c.total, dice)
        if throw:
            self.remove_weapon(a, w.name)
            state.objects.setdefault(t.pos, []).append(w.name)
            evs.append(event("effect", target=a.id, effect=f"the thrown {w.name} lands by {t.id}", item=w.name,
                             at=list(g.xy(t.pos))))
        return evs

    def roll_event(self, a: Combatant, purpose: str, pool: str, c: Check, **extra: Any) -> Event:
        ev = event("roll", actor=a.id, purpose=purpose, pool=pool + " + 1d10", dice=[list(f) for f in c.faces],
                   total=c.total, **extra)
        if c.crit:
            ev["critical"] = c.crit
        if c.two_damage_dice:
            ev["two_damage_dice"] = True
        return ev

    def attack_event(self, a: Combatant, t: Combatant, w: Weapon, result: str, c: Check, diff: int,
                     option: str = "", **extra: Any) -> Event:
        ev = event("attack", actor=a.id, target=t.id, weapon=w.name, result=result, total=c.total,
                   difficulty=diff, **extra)
        if result == "hit":
            ev["margin"] = c.total - diff
        if option:
            ev["option"] = option
        return ev

    def burst(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, margin: int, dice: Dice,
              head: bool) -> list[Event]:
        """seed 004, Full automatic: each point over adds 1 to the damage die; past 10 a second hit starts."""
        r = dice.roll(10, "damage (full auto)")
        value = r + margin
        faces = []
        v = value
        while v > 10:
            faces.append(10)
            v -= 10
        faces.append(v)
        evs = [event("roll", actor=a.id, purpose=f"damage DC{w.dc} (full auto, +{margin})", dice=[[10, r]],
                     total=value, hits=faces)]
        for i, f in enumerate(faces):
            if t.dead:
                break
            evs += self.hit(state, a, t, w, dice, dc=w.dc, face=f, head=head, label=f"full-auto hit {i + 1}")
        return evs

    def near_miss(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, by: int, dice: Dice
                  ) -> list[Event]:
        """seed 004: firing into a grapple, near misses may hit the other guy (assumption fire_into_grapple)."""
        if not t.res["grapple"] or a.id in t.res["grapple"] or by > self.chk["near_miss"]:
            return []
        other = next((o for o in state.combatants if o.id in t.res["grapple"] and o.id != a.id and not o.dead), None)
        if other is None:
            return []
        evs = [event("attack", actor=a.id, target=other.id, weapon=w.name, result="hit",
                     note=f"a near miss at {t.id} hits {other.id}")]
        return evs + self.hit(state, a, other, w, dice, dc=w.dc, mod=self.body_mod(a) if w.bow else 0)

    def blanket(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, c: Check, diff: int, dice: Dice
                ) -> list[Event]:
        """seed 004, shotguns: a blanket 3 m wide along the range; buckshot loses 1 DC per band past 0-10 m."""
        g = state.grid
        reach = self.ranges[w.range][-1][0]
        others = [o for o in state.combatants if o is not a and o is not t and not o.down
                  and self.in_strip(g, a.pos, t.pos, o.pos, 1.5, reach) and g.los(a.pos, o.pos)]
        evs: list[Event] = []
        for o in [t] + others:
            if o.dead:
                continue
            d = diff if o is t else self.difficulty(state, a, o, w)
            if d is None:
                continue
            d = d if isinstance(d, int) else d[0]
            dc = max(0, w.dc - self.band_index(g, a.pos, o.pos, w))
            if c.total >= d:
                evs.append(self.attack_event(a, o, w, "hit", c, d, "", blanket=True, dc=dc))
                evs += self.hit(state, a, o, w, dice, dc=dc, two_dice=c.two_damage_dice)
            else:
                evs.append(self.attack_event(a, o, w, "miss", c, d, "", blanket=True))
        return evs

    @staticmethod
    def in_strip(g, a: int, t: int, o: int, half_m: float, reach_m: float) -> bool:
        ax, ay = g.xy(a)
        tx, ty = g.xy(t)
        ox, oy = g.xy(o)
        vx, vy = tx - ax, ty - ay
        n = math.hypot(vx, vy)
        if n == 0:
            return False
        wx, wy = ox - ax, oy - ay
        along = (wx * vx + wy * vy) / n * g.cell_m
        if along <= 0 or along > reach_m + 1e-9:
            return False
        perp = abs(wx * vy - wy * vx) / n * g.cell_m
        return perp <= half_m + 1e-9

    def mishap(self, state: BattleState, a: Combatant, w: Weapon, second: int | None, throw: bool) -> list[Event]:
        """seed 004, Critical failure: the second d10 decides: jam (ranged), dropped (melee), broken."""
        if second is None or w.implant or throw or w.kind in ("grenade", "genius", "special"):
            return []
        what = self.mishap_table.get(second, "none")
        if what == "none":
            return []
        if what == "broken":
            self.remove_weapon(a, w.name)
            if w.name in a.weapons and w.name in a.res["lost"]:
                a.res["lost"].remove(w.name)
            a.res["broken"].append(w.name)
            return [event("effect", target=a.id, effect=f"the {w.name} breaks (take the bits to a tinkertot)",
                          weapon=w.name, mishap="broken")]
        if w.ranged:
            if w.name not in a.res["jammed"]:
                a.res["jammed"].append(w.name)
            return [event("effect", target=a.id, effect=f"the {w.name} jams", weapon=w.name, mishap="jam")]
        return self.drop_object(state, a, w.name, a.pos, verb="is dropped (critical failure)")

    # -- melee ------------------------------------------------------------------------------
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
        if option == "called:gap":
            i, sf = self.stat(a, "int"), self.skill(a, "streetfighting")
            r = skill_check(dice, i + sf, "spot a gap in the armour")
            gap = r.total >= self.chk["spot_gap"]
            evs.append(self.roll_event(a, "spot a gap in the armour", f"INT {i} + streetfighting {sf}", r,
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
        parts += self.opposed_bonus(state, a, t)
        base = ref + sk + w.accuracy + sum(v for _, v in parts)
        label = f"attack with {w.name}" + (f" ({option})" if option else "")
        c = first_die(dice, base, label)
        dbase, dpool = self.defence_base(state, t, a)
        d = skill_check(dice, dbase, "melee defence")
        c = finish(dice, c, label, need=d.total + 1, may_take_damage=may_take_damage)
        ok = c.total > d.total
        pool = f"REF {ref} + {sname} {sk}" + (f" + accuracy {w.accuracy}" if w.accuracy else "") + self._pool(parts)
        evs = [self.roll_event(a, label, pool, c, opposed=d.total),
               self.roll_event(t, "melee defence (opposed)", dpool, d, opposed=c.total)]
        evs.append(self.attack_event(a, t, w, "hit" if ok else "miss", c, d.total + 1, option, opposed=d.total))
        return ok, c, evs

    def defence_base(self, state: BattleState, t: Combatant, a: Combatant, dodge: bool = True
                     ) -> tuple[int, str]:
        ref = self.stat(t, "ref")
        sf = self.skill(t, "streetfighting")
        name = "streetfighting"
        if self.kid_vs_adult(t, a):
            sf //= 2
            name = "streetfighting (halved: kid v adult)"
        parts = self.opposed_bonus(state, t, a)
        if dodge and t.res["dodge"]:
            parts.append(("dodging", int(t.res["dodge"])))
        return ref + sf + sum(v for _, v in parts), f"REF {ref} + {name} {sf}" + self._pool(parts)

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

    # -- grenades and the genius gun ------------------------------------------------------
    def throw_grenade(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, dice: Dice,
                      turn: dict[str, Any]) -> list[Event]:
        """seed 004, grenades: a 5 m blast; a miss by n lands n m away at n DC less."""
        g = state.grid
        a.res["ammo"][w.name] = max(0, a.res["ammo"][w.name] - 1)
        a.res["drawn"] = None
        diff = self.range_difficulty(g, a, a.pos, t.pos, w, throw=True)
        ref = self.stat(a, "ref")
        sk = self.skill(a, "athletics")
        parts = self.attack_parts(state, a, t, w, "", turn, melee=False, throw=True)
        base = ref + sk + sum(v for _, v in parts)
        c = skill_check(dice, base, f"throw {w.name}")
        evs = [self.roll_event(a, f"throw {w.name}", f"REF {ref} + athletics {sk}" + self._pool(parts), c,
                               difficulty=diff)]
        centre = t.pos
        dc = w.dc
        if c.total < diff:
            n = diff - c.total
            k = dice.roll(8, "grenade scatter direction")
            evs.append(event("roll", actor=a.id, purpose="scatter direction (d8: 1 = north, clockwise)",
                             dice=[[8, k]], total=k))
            cells = int(round(n * float(self.data["grenades"]["scatter_m_per_point"]) / g.cell_m))
            dx, dy = _DIRS[k - 1]
            x, y = g.xy(centre)
            for _ in range(cells):
                nx, ny = x + dx, y + dy
                if not g.in_bounds(nx, ny) or not g.passable[g.index(nx, ny)]:
                    break
                x, y = nx, ny
            centre = g.index(x, y)
            dc = w.dc - n * int(self.data["grenades"]["dc_per_point"])
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit" if centre == t.pos else "miss",
                         total=c.total, difficulty=diff, lands=list(g.xy(centre)), dc=max(0, dc)))
        return evs + self.blast(state, a, w, centre, dc, dice)

    def blast(self, state: BattleState, a: Combatant, w: Weapon, centre: int, dc: int, dice: Dice) -> list[Event]:
        g = state.grid
        if dc <= 0:
            return [event("effect", target=a.id, effect=f"the {w.name} lands too far off to hurt anyone",
                          at=list(g.xy(centre)))]
        evs = [event("effect", target=a.id, effect=f"the {w.name} explodes (DC{dc}, {w.blast_m:g} m)",
                     at=list(g.xy(centre)))]
        for c in state.combatants:
            if c.dead or g.distance_m(c.pos, centre) > w.blast_m + 1e-6 or not g.los(centre, c.pos):
                continue
            evs += self.hit(state, a, c, w, dice, dc=dc, label=f"blast on {c.id}")
        return evs

    def genius_attack(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str, dice: Dice
                      ) -> list[Event]:
        """seed 004, the genius gun: the missile makes the check; blast DC 3-7 or scribble DC 5 over an area."""
        g = state.grid
        scribble = option == "scribble"
        dc = int(w.x("scribble_dc", 5)) if scribble else int(option.split(":")[1])
        a.res["ammo"][w.name] = max(0, a.res["ammo"][w.name] - dc)
        diff, dparts = self.difficulty(state, a, t, w)
        skill = int(w.x("missile_skill", 15))
        r = dice.roll(10, "genius missile")
        total = skill + r
        evs = [event("roll", actor=a.id, purpose=f"genius gun missile ({option})", pool=f"missile {skill} + 1d10",
                     dice=[[10, r]], total=total, difficulty=diff, charge_left=a.res["ammo"][w.name], **dparts)]
        if total < diff:
            evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="miss", total=total,
                             difficulty=diff, option=option))
            return evs
        evs.append(event("attack", actor=a.id, target=t.id, weapon=w.name, result="hit", total=total,
                         difficulty=diff, margin=total - diff, option=option))
        if not scribble:
            return evs + self.hit(state, a, t, w, dice, dc=dc)
        radius = float(w.x("scribble_radius_m", 3))
        area = [t] + [o for o in state.combatants if o is not t and not o.down
                      and g.distance_m(o.pos, t.pos) <= radius + 1e-6 and g.los(t.pos, o.pos)]
        d = dice.roll(10, "damage (scribble)")
        wounds = self.table.wounds(dc, d)
        share, rest = divmod(wounds, len(area))
        evs.append(event("roll", actor=a.id, purpose=f"damage DC{dc} (scribble, shared by {len(area)})",
                         dice=[[10, d]], total=d, wounds=wounds, shares=[share + (rest if o is t else 0) for o in area],
                         targets=[o.id for o in area]))
        for o in area:
            if o.dead:
                continue
            evs += self.wound(state, o, share + (rest if o is t else 0), dice, ap=w.ap, source=f"{w.name} scribble")
        return evs

    # -- suppression ------------------------------------------------------------------------
    def suppress(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, dice: Dice) -> list[Event]:
        """seed 004, Suppression: firing wildly at an area; 30 rounds."""
        g = state.grid
        state.economy["actions"] += 1
        n = int(self.data["suppression"]["rounds"])
        a.res["ammo"][w.name] = max(0, a.res["ammo"][w.name] - n)
        r = int(self.data["suppression"]["zone_cells"])
        cells = sorted(c for c in range(g.n) if g.passable[c] and g.chebyshev(c, t.pos) <= r)
        if a.res["zone"] is not None:
            self.end_suppression(state, a)
        a.res["zone"] = {"cells": cells, "weapon": w.name, "penalty": w.suppress_penalty, "round": state.round}
        evs = [event("effect", target=t.id, effect=f"{a.id} lays down suppressive fire with the {w.name}",
                     by=a.id, weapon=w.name, cells=[list(g.xy(c)) for c in cells], penalty=w.suppress_penalty)]
        for o in state.combatants:
            if o.team != a.team and not o.down and o.pos in cells:
                if a.id not in o.res["suppressed_by"]:
                    o.res["suppressed_by"].append(a.id)
                if "suppressed" not in o.conditions:
                    o.conditions.add("suppressed")
                    evs.append(event("condition", target=o.id, condition="suppressed", on=True, by=a.id))
        return evs

    def end_suppression(self, state: BattleState, a: Combatant) -> list[Event]:
        evs: list[Event] = []
        a.res["zone"] = None
        for o in state.combatants:
            if a.id in o.res["suppressed_by"]:
                o.res["suppressed_by"].remove(a.id)
                if not o.res["suppressed_by"] and "suppressed" in o.conditions:
                    o.conditions.discard("suppressed")
                    evs.append(event("condition", target=o.id, condition="suppressed", on=False))
        return evs

    def suppression_line(self, state: BattleState, m: Combatant, frm: int, to: int, cost: int, dice: Dice
                         ) -> list[Event]:
        """seed 004: anyone moving through the suppression line may be shot at -3 (assumption suppression_line)."""
        shooters = [s for s in state.combatants if s.res["zone"] is not None and s.team != m.team
                    and not s.down and not self.in_grapple(s)]
        if not shooters:
            return []
        g = state.grid
        blockers = [c.pos for c in state.combatants if c.team != m.team and not c.down]
        path = g.path(frm, to, max(cost, 1), blockers) or [frm, to]
        evs: list[Event] = []
        for s in shooters:
            if m.down or state.over:
                break
            zone = set(s.res["zone"]["cells"])
            w = self.weapons[s.res["zone"]["weapon"]]
            cell = next((c for c in path if c in zone and self.difficulty(state, s, m, w, at=c) is not None), None)
            if cell is None:
                continue
            evs.append(event("effect", target=m.id, effect=f"moves through {s.id}'s suppression line",
                             by=s.id, at=list(g.xy(cell))))
            evs += self.ranged_attack(state, s, m, w, "", dice, {"line": True, "no_ammo": True}, at=cell)
        return evs

    # -- damage -----------------------------------------------------------------------------
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
        if face is None:
            r1 = dice.roll(10, "damage")
            faces = [[10, r1]]
            r = r1
            if two_dice:
                r2 = dice.roll(10, "damage (critical: two dice, keep the higher)")
                faces.append([10, r2])
                r = max(r1, r2)
        else:
            faces, r = [], face
        value = r + mod
        raw = self.table.wounds(dc, value)
        ev = event("roll", actor=a.id, purpose=f"damage DC{dc}" + (f" ({label})" if label else ""),
                   pool="d10" + (f" {'+' if mod >= 0 else '-'} {abs(mod)} body type" if mod else ""),
                   dice=faces, total=value, wounds=raw)
        if face is not None and not faces:
            ev["counts_as"] = face
        stun = w.stun if stun_weapon is None else stun_weapon
        delta = stun_delta + (self.mod["stun_weapon_hit"] if stun else 0)
        return [ev] + self.wound(state, t, raw, dice, ap=w.ap if ap is None else ap, head=head, no_armour=no_armour,
                                 stun_delta=delta, source=w.name)

    def wound(self, state: BattleState, t: Combatant, raw: int, dice: Dice, *, ap: bool = False, head: bool = False,
              no_armour: bool = False, stun_delta: int = 0, source: str = "", armour: bool = True,
              save: bool = True) -> list[Event]:
        """seed 004: armour SP is subtracted (armour-piercing halves it; below SP 4 at least 1 goes
        through), the rest comes off Wounds; stun weapons lower the stun modifier; then the stun save."""
        piece = None if (no_armour or not armour) else (self.head_armour(t) if head else self.body_armour(t))
        sp = piece.sp if piece is not None else 0
        if ap:
            sp //= 2
        after = max(0, raw - sp)
        if raw > 0 and after == 0 and piece is not None and piece.sp < self.stop_all_sp:
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
        ok, ev = self.save_roll(t, dice, bonus, purpose)
        evs = [ev]
        if not ok:
            evs += self.pass_out(t, "failed stun save")
        return evs

    def save_roll(self, t: Combatant, dice: Dice, bonus: int, purpose: str) -> tuple[bool, Event]:
        rem = self.remaining(t)
        target = rem + t.res["stun_mod"] + bonus
        r = dice.roll(10, purpose)
        ok = r <= target
        return ok, event("roll", actor=t.id, purpose=purpose,
                         pool=f"d10 at or under Wounds {rem} {t.res['stun_mod']:+d} stun modifier"
                         + (f" +{bonus}" if bonus else ""),
                         dice=[[10, r]], total=r, difficulty=target, success=ok)

    def pass_out(self, t: Combatant, why: str) -> list[Event]:
        if t.stats["stun_fail"] == "shock":
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
