"""Grappling and holds (seed 004, Grapple and Holds).

A successful grapple attack (an opposed roll) does DC 1 as the two scuffle and leaves both
"grappling" (no advantage either way); scanners and bolters add their static wave or
contact charge. In a grapple a figure may carry on, attack with bare hands, a small weapon
or an implant at -2, try for a hold, break free, make a special attack (knockdown,
disarm, cybercrush with an opposed roll; static wave, contact charge with none), or try
anything else after winning an opposed roll (then at -2, no point-blank bonus): any attack
it could make outside a grapple, with the same options (called shots, full auto, throws,
grenades, the genius gun). A hold
(opposed) does hold damage and gives the holder +3 or its body-type damage bonus on
opposed rolls (nothing against a tinman); the held figure can only try to escape (a
failure takes hold damage) or, as a scanner or bolter, use its attack. Allies piling in
get dogpile bonuses. Decided numbers: data.yaml assumptions grapple, holds, hold_damage,
hold_bonus, dogpile, break_grapple, grapple_other_attack, grapple_attack_options.
"""

from __future__ import annotations

from rules.actions import Action
from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import d10_call, finish, first_die, skill_check
from rules.systems.cybergeneration.model import Weapon


#: kinds a grappling figure may "attempt" after an opposed roll (seed 004: "Attempt another action")
ANOTHER_ACTION = frozenset({"defend", "aim", "ready", "reload", "stand", "pick_up", "first_aid", "suppress"})


class GrappleMixin:
    """Grapples and holds for `CybergenerationRuleset`."""

    # -- legal actions ----------------------------------------------------------------------
    def grapple_start_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        g = state.grid
        return [self.action("grapple", target=t.id) for t in state.combatants
                if t.team != a.team and not t.down and g.adjacent(a.pos, t.pos)]

    def grapple_round_actions(self, state: BattleState, a: Combatant, carried: list | None = None) -> list[Action]:
        """What a grappling (not held) figure may do besides carrying on (`carried`: `weapons_of(a)`).

        Attacks: every attack `attack_actions` lists outside a grapple (the same options, built
        there: called shots, full auto, throws, grenades, the genius gun's blasts and scribble, on
        partners and on figures outside the grapple), each behind the preliminary opposed roll
        where `needs_preliminary` asks for one (seed 004: 'To do anything else (for example shoot a
        pistol or use a larger melee weapon) requires a successful opposed roll to even attempt
        it'; assumption grapple_other_attack) and with the grapple's -2 and no point-blank bonus
        (`attack_parts`). Knockdown is the grapple's special attack (bare hands, on a partner);
        then cybercrush and the other grapple-only weapons, disarm, hold or squeeze, and break."""
        A = self.action
        if carried is None:
            carried = self.weapons_of(a)
        out = [x for x in self.attack_actions(state, a, carried) if x.option != "knockdown"]
        for t in self.partners(state, a):
            if t.team == a.team:
                continue
            for w in carried:
                if w.grapple_only and self.in_hand(a, w):
                    out.append(A("attack", target=t.id, weapon=w.name))
            out.append(A("attack", target=t.id, weapon="unarmed", option="knockdown"))
            held = self.has_weapon(t, t.res["drawn"])
            if held is not None and not held.implant:
                out.append(A("attack", target=t.id, weapon="unarmed", option="disarm"))
            if a.res["hold"] == t.id:
                if not self.is_type(t, "tinman"):   # a tinman's hold does no damage to squeeze out
                    out.append(A("grapple", target=t.id, option="squeeze"))
            elif a.res["hold"] is None and t.res["held_by"] is None:
                out.append(A("grapple", target=t.id, option="hold"))
            out.append(A("grapple", target=t.id, option="break"))
        return out

    def held_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        """seed 004: the victim of a hold can only try to escape; scanners and bolters may still attack."""
        if state.economy["actions"] >= state.economy["max_actions"]:
            return []
        h = state.by_id[a.res["held_by"]]
        out = [self.action("grapple", target=h.id, option="escape")]
        for w in self.weapons_of(a):
            if w.special in ("static_wave", "contact_charge"):
                out.append(self.action("attack", target=h.id, weapon=w.name))
        return out

    def needs_preliminary(self, state: BattleState, a: Combatant, t: Combatant, w: Weapon, option: str) -> bool:
        """seed 004: 'To do anything else ... requires a successful opposed roll to even attempt it'."""
        if option in ("knockdown", "disarm") or w.grapple_only:
            return False
        partner = t.id in a.res["grapple"]
        return not (partner and w.melee and (w.small or w.implant))

    # -- rolls ----------------------------------------------------------------------------
    def opposed(self, state: BattleState, x: Combatant, y: Combatant, dice: Dice, key: str, purpose: str,
                extra: list[tuple[str, int]] = ()) -> tuple[bool, list[Event]]:
        """An opposed REF + streetfighting + 1d10 roll of x against y (x must beat y); `key` names
        the roll (its `check`; the defender's is key + "_resist")."""
        sf = self.skill(x, "streetfighting")
        name = "streetfighting"
        if self.kid_vs_adult(x, y):
            sf //= 2
            name += " (halved: kid v adult)"
        parts = list(extra) + self.opposed_bonus(state, x, y)
        if state.actor is x and state.economy.get("two"):
            parts.append(("two actions", self.mod["two_actions"]))
        ref = self.stat(x, "ref")
        base = ref + sf + sum(v for _, v in parts)
        pool = f"REF {ref} + {name} {sf}" + self._pool(parts)
        c = first_die(dice, base, purpose,
                      call=d10_call(x.id, key, f"{purpose} (opposed)", pool, parts,
                                    against={"figure": y.id, "what": f"resist {purpose}", "total": None},
                                    label=purpose))
        dbase, dpool, dparts = self.defence_base(state, y, x, dodge=False)
        d = skill_check(dice, dbase, f"resist ({purpose})",
                        call=d10_call(y.id, key + "_resist", f"resist {purpose} (opposed)", dpool, dparts,
                                      against={"figure": x.id, "what": purpose, "total": None},
                                      label=f"resist ({purpose})"))
        c = finish(dice, c, purpose)
        ok = c.total > d.total
        evs = [self.roll_event(x, key, f"{purpose} (opposed)", pool, c, parts,
                               opposed=d.total, success=ok),
               self.roll_event(y, key + "_resist", f"resist {purpose} (opposed)", dpool, d, dparts, opposed=c.total,
                               success=not ok)]
        return ok, evs

    def preliminary(self, state: BattleState, a: Combatant, dice: Dice) -> tuple[bool, list[Event]]:
        p = self.partners(state, a)[0]
        ok, evs = self.opposed(state, a, p, dice, "grapple_free", "get a hand free in the grapple")
        if not ok:
            evs.append(event("effect", target=a.id, effect=f"{p.id} twists the grapple and stops the action"))
        return ok, evs

    # -- actions ----------------------------------------------------------------------------
    def another_action(self, state: BattleState, a: Combatant, action: Action, dice: Dice) -> list[Event]:
        """seed 004: 'To do anything else ... requires a successful opposed roll to even attempt it. If you
        succeed, you may make the regular check with a -2 penalty, if you fail your opponent has managed to
        twist the grapple sufficiently to prevent your action' (the action, or the move, is spent)."""
        ok, evs = self.preliminary(state, a, dice)
        if not ok:
            self.spend_for(state, a, action)
            return evs
        e = state.economy
        e["grapple_other"] = True
        try:
            return evs + self.resolve(state, a, action, dice)
        finally:
            e.pop("grapple_other", None)

    def grapple_action(self, state: BattleState, a: Combatant, t: Combatant, option: str, dice: Dice) -> list[Event]:
        e = state.economy
        e["actions"] += 1
        if option == "":
            return self.start_grapple(state, a, t, dice)
        if option == "hold":
            ok, evs = self.opposed(state, a, t, dice, "hold", "put on a hold")
            if not ok:
                return evs
            a.res["hold"] = t.id
            t.res["held_by"] = a.id
            t.conditions.add("grappled")
            evs.append(event("condition", target=t.id, condition="grappled", on=True, by=a.id, hold=True))
            return evs + self.hold_damage(state, a, t, dice)
        if option == "squeeze":
            ok, evs = self.opposed(state, a, t, dice, "squeeze", "hold damage")
            return evs + (self.hold_damage(state, a, t, dice) if ok else [])
        if option == "break":
            ok, evs = self.opposed(state, a, t, dice, "break_grapple", "break the grapple")
            if ok:
                evs += self.release_all(state, a)
                e["actions"] = e["max_actions"]  # seed 004: 'you cannot take another action (but you can move)'
            return evs
        # escape from a hold
        ok, evs = self.opposed(state, a, t, dice, "escape_hold", "escape the hold")
        if ok:
            return evs + self.release_all(state, a)
        evs.append(event("effect", target=a.id, effect="fails to escape and takes hold damage"))
        return evs + self.hold_damage(state, t, a, dice)

    def start_grapple(self, state: BattleState, a: Combatant, t: Combatant, dice: Dice) -> list[Event]:
        """seed 004, Grapple: a successful grapple attack inflicts DC 1 (and static wave / contact charge)."""
        extra = []
        if t.res["dodge"]:
            extra.append(("target dodging", -int(t.res["dodge"])))
        ok, evs = self.opposed(state, a, t, dice, "grapple", "grapple", extra)
        w = self.weapons["unarmed"]
        evs.append(event("attack", actor=a.id, target=t.id, weapon="grapple", result="hit" if ok else "miss"))
        if not ok:
            return evs
        for x, y in ((a, t), (t, a)):
            if y.id not in x.res["grapple"]:
                x.res["grapple"].append(y.id)
            if "grappling" not in x.conditions:
                x.conditions.add("grappling")
                evs.append(event("condition", target=x.id, condition="grappling", on=True, partner=y.id))
        evs += self.hit(state, a, t, w, dice, dc=1, ap=False, stun_weapon=False, label="scuffle")
        for sw in self.weapons_of(a):
            if sw.special in ("static_wave", "contact_charge") and not t.dead and not a.down:
                evs.append(event("attack", actor=a.id, target=t.id, weapon=sw.name, result="hit",
                                 note=f"{sw.name.replace('_', ' ')} with the grapple"))
                evs += self.hit(state, a, t, sw, dice, dc=sw.dc)
        return evs

    def hold_damage(self, state: BattleState, holder: Combatant, victim: Combatant, dice: Dice) -> list[Event]:
        """Hold damage: DC 2 + body type; a cyber hand crushes for DC 3 (assumption hold_damage). None
        to a tinman: "they are still restrained, but that is all a hold gives" (seed 004)."""
        if victim.dead:
            return []
        if self.is_type(victim, "tinman"):
            return [event("effect", target=victim.id, effect="the hold only restrains the tinman", by=holder.id)]
        hand = next((w for w in self.weapons_of(holder) if w.special == "cybercrush"), None)
        if hand is not None:
            return self.hit(state, holder, victim, hand, dice, dc=hand.dc, mod=self.melee_mod(holder, hand),
                            label="cybercrush hold")
        w = self.weapons["unarmed"]
        return self.hit(state, holder, victim, w, dice, dc=2, mod=self.body_mod(holder), ap=False,
                        stun_weapon=False, label="hold")

    def release_all(self, state: BattleState, c: Combatant) -> list[Event]:
        """c leaves every grapple it is in (holds included)."""
        evs: list[Event] = []
        for oid in list(c.res["grapple"]):
            o = state.by_id[oid]
            if c.id in o.res["grapple"]:
                o.res["grapple"].remove(c.id)
            if o.res["hold"] == c.id:
                o.res["hold"] = None
            if o.res["held_by"] == c.id:
                o.res["held_by"] = None
                o.conditions.discard("grappled")
                evs.append(event("condition", target=o.id, condition="grappled", on=False))
            if not o.res["grapple"] and "grappling" in o.conditions:
                o.conditions.discard("grappling")
                evs.append(event("condition", target=o.id, condition="grappling", on=False))
        c.res["grapple"] = []
        c.res["hold"] = None
        if c.res["held_by"] is not None:
            c.res["held_by"] = None
        if "grappled" in c.conditions:
            c.conditions.discard("grappled")
            evs.append(event("condition", target=c.id, condition="grappled", on=False))
        if "grappling" in c.conditions:
            c.conditions.discard("grappling")
            evs.append(event("condition", target=c.id, condition="grappling", on=False))
        return evs
