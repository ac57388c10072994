"""Attacks of seed 004 (Cybergeneration house rules): who may be attacked, the rolls.

seed 004 headings implemented here: ranged combat (REF + skill + accuracy + 1d10 against
the range difficulty, point blank, cover, dodge), full automatic, bows, throwing, called
shots, melee modifiers (body-type bonus, adults v kids), critical success and failure. The
melee rolls (opposed, unconscious targets, knockdown, disarm, stun attacks) are in
`melee.py`; area fire (shotguns, grenades, the genius gun, suppression) in `ordnance.py`;
damage, armour and stun saves in `damage.py`.

Dice order of an attack (docs/cybergeneration.md): the attack d10 (and its second d10 on
a natural 1); in melee the defender's d10 (and its second on a 1 or 10); the attacker's
second d10 of a natural 10 when it adds it; then per hit the damage d10 (two on a
critical that takes two damage dice) and the target's stun save d10.
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules import calls
from rules.calls import RollCall
from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import Check, Part, crit_call, d10_call, first_die, modifiers, roll_ev
from rules.systems.cybergeneration.model import Weapon

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

    def attack_actions(self, state: BattleState, a: Combatant, carried: list | None = None) -> list[Action]:
        """Attacks of a figure not grappling (grapple.py: those that are); `carried`: `weapons_of(a)`."""
        A = self.action
        out: list[Action] = []
        g = state.grid
        ws = [w for w in carried or self.weapons_of(a) if self.in_hand(a, w) and not w.grapple_only]
        if not ws:
            return out
        for t in state.combatants:
            if t.team == a.team or t.dead:
                continue
            adj = g.adjacent(a.pos, t.pos)
            down = t.down  # seed 004: 'You may attack an unconscious/stunned target' (at range too)
            for w in ws:
                if w.melee:
                    if adj:
                        out.append(A("attack", target=t.id, weapon=w.name))
                        if down:  # an automatic hit (assumption auto_hit_down): no options
                            continue
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

    def attack_skill(self, a: Combatant, w: Weapon, t: Combatant | None, throw: bool = False,
                     state: BattleState | None = None, evs: list[Event] | None = None) -> tuple[str, int]:
        """The skill an attack uses; bows may use yogang (+2, tribals: the figure's choice, asked
        when `evs` collects the attack's events, else the higher); kids halve streetfighting
        against adults in hand-to-hand (seed 004)."""
        if throw or w.kind == "grenade":
            return "athletics", self.skill(a, "athletics")
        if w.bow and self.is_type(a, "tribal"):
            sf = self.skill(a, "streetfighting")
            yg = self.skill(a, "yogang") + self.mod["yogang_bow_accuracy"]
            if (yg > sf) if evs is None else self.pick_bow_skill(state, a, sf, yg, evs):
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
                     turn: dict[str, Any], melee: bool, throw: bool = False, at: int | None = None,
                     evs: list[Event] | None = None) -> list[tuple[str, int]]:
        """Named modifiers of an attack roll (seed 004; data.yaml `modifiers`). With `evs` (the
        attack itself, not odds) the point-blank bonus is the shooter's choice."""
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
        if (not melee and not throw and w.point_blank and g.adjacent(a.pos, cell) and not in_grapple
                and (evs is None or self.take_point_blank(state, a, evs))):
            parts.append(("point blank", m["point_blank_pistol_smg"]))
        if not melee and t.res["grapple"] and a.id not in t.res["grapple"]:
            parts.append(("firing into a grapple", m["into_grapple"]))
        plain = option in ("", "stun", "called:head", "called:gap", "throw", "full_auto")
        if in_grapple and not w.grapple_only and plain:
            parts.append(("while grappling", m["grapple_attack"]))
        return parts

    def opposed_bonus(self, state: BattleState, x: Combatant, y: Combatant, knocked: bool = True
                      ) -> list[tuple[str, int]]:
        """Hold advantage, dogpiling and (with `knocked`) a knocked-down x's -2 on x's opposed rolls
        against y (seed 004). A melee attack roll passes `knocked=False`: its `attack_parts` already
        take the knockdown's -2 ('They will suffer -2 to appropriate checks': once per check)."""
        parts = []
        if x.res["hold"] == y.id and not self.is_type(y, "tinman"):
            parts.append(("hold", max(self.mod["hold_bonus_min"], self.body_mod(x))))
        piles = sum(1 for o in state.combatants
                    if o.team == x.team and o.id != x.id and not o.down and y.id in o.res["grapple"])
        if piles:
            parts.append(("dogpile", piles * self.mod["dogpile_per_ally"]))
        if knocked and "knocked" in x.conditions:
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
        if self.rollless(w, t, option):
            ok, ev = self.hurry(state, a, dice, "attack")
            evs += ev
            if not ok:
                return evs
        return evs + self.attack(state, a, t, w, option, dice, self.turn_mods(state))

    @staticmethod
    def rollless(w: Weapon, t: Combatant, option: str) -> bool:
        """An attack with no skill roll of the attacker's: static wave and contact charge, the genius
        gun ('The missile makes checks for you'), and the automatic hit on a fallen target in melee."""
        return w.no_roll or w.kind == "genius" or (t.down and w.kind in ("melee", "special") and option != "throw")

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
        evs: list[Event] = []
        sname, sk = self.attack_skill(a, w, t, throw, state, evs)
        ref = self.stat(a, "ref")
        acc = 0 if throw else w.accuracy
        parts = self.attack_parts(state, a, t, w, option, turn, melee=False, throw=throw, at=at, evs=evs)
        base = ref + sk + acc + sum(v for _, v in parts)
        label = f"attack with {w.name}" + (f" ({option})" if option else "")
        pool = f"REF {ref} + {sname} {sk}" + (f" + accuracy {acc}" if acc else "") + self._pool(parts)
        c = first_die(dice, base, label, call=d10_call(a.id, "attack", label, pool, parts, difficulty=diff))
        c, cevs = self.settle_crit(state, a, dice, c, label, diff, True, full)
        evs += cevs
        evs += [self.roll_event(a, "attack", label, pool, c, parts, difficulty=diff, **dparts)]
        hit = c.total >= diff
        if c.crit == "failure":
            evs += self.mishap(state, a, w, c.second, throw)
        if w.blanket and not throw:
            return evs + self.blanket(state, a, t, w, c, diff, dice, head=option == "called:head")
        head = option == "called:head"
        if hit:
            evs.append(self.attack_event(a, t, w, "hit", c, diff, option))
            if full:
                evs += self.burst(state, a, t, w, c.total - diff, dice, head, c.two_damage_dice)
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

    def roll_event(self, a: Combatant, check: str, purpose: str, pool: str, c: Check, parts: list[Part] = (),
                   **extra: Any) -> Event:
        """The roll event of a d10 check: `check` its stable key, `parts` its named modifiers."""
        ev = roll_ev(a.id, check, purpose, [list(f) for f in c.faces], c.total, parts, pool=pool + " + 1d10",
                     **extra)
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
              head: bool, two_dice: bool = False) -> list[Event]:
        """seed 004, Full automatic: each point over adds 1 to the damage die; past 10 a second hit starts.
        A critical success that takes two damage dice keeps the higher, then adds the margin."""
        call = RollCall(a.id, f"damage DC{w.dc} (full auto, +{margin})", "damage", "d10", (10,),
                        modifiers=calls.mods(modifiers([("full auto margin", margin)])), label="damage (full auto)")
        dice.announce(call)
        r = dice.roll(10, "damage (full auto)")
        rolled = [[10, r]]
        if two_dice:
            dice.announce(crit_call(call, "damage (full auto, critical: two dice, keep the higher)"))
            r2 = dice.roll(10, "damage (full auto, critical: two dice, keep the higher)")
            rolled.append([10, r2])
            r = max(r, r2)
        value = r + margin
        faces = []
        v = value
        while v > 10:
            faces.append(10)
            v -= 10
        faces.append(v)
        evs = [roll_ev(a.id, "damage", f"damage DC{w.dc} (full auto, +{margin})", rolled, value,
                       [("full auto margin", margin)], hits=faces)]
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
