"""Delaying, held actions (interrupts) and the suppression check (seed 004, Your Turn, Suppression).

seed 004: "You can opt to delay your action (or part of your action) to any point later in
the same round (including as an interrupt, so for example you can use your move to draw a
pistol on someone and say 'if he draws, I will fire', so if he uses his move action to
draw his own weapon, you can take your firing action first)."

- `delay` (no option): the rest of the turn comes back right after the next figure in the
  order; `delay end_of_round`: after everyone. The saved economy is restored then.
- `delay on_draw | on_attack | on_move`: the action is held as one attack with the drawn
  weapon (a melee weapon, a loaded gun, a grenade, a genius gun with the charge for a blast;
  bare hands if none), with the plain attack's option (a genius gun: blast:N, `held_option`);
  the figure may still use its move. When an enemy in sight
  and reach takes a matching action, the engine resolves the held attack inside that
  enemy's action: before it (on_draw, on_attack - a downed enemy's action is lost), or for
  on_move at the destination when the mover can be attacked there, else where it started.
  The hold lapses at the end of the round (data.yaml assumptions delay, held_actions).
"""

from __future__ import annotations

from typing import Any

from rules.actions import Action
from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import Part, d10_call, roll_ev, skill_check

TRIGGER_OF_KIND = {"attack": "on_attack", "suppress": "on_attack", "grapple": "on_attack", "ready": "on_draw",
                   "pick_up": "on_draw", "move": "on_move"}


class TimingMixin:
    """Delays, held actions, hurried actions and suppression checks for `CybergenerationRuleset`."""

    # -- spending the action ----------------------------------------------------------------
    def action_parts(self, state: BattleState) -> list[Part]:
        """Modifiers of every skill roll the acting figure makes for its current action: -5 in a
        two-action round (seed 004: 'both at -5 to all skill rolls')."""
        e = state.economy
        parts = [("two actions", self.mod["two_actions"])] if e.get("two") else []
        if e.get("grapple_other"):  # seed 004: 'the regular check with a -2 penalty'
            parts.append(("in a grapple", self.mod["grapple_other"]))
        return parts

    def take_action(self, state: BattleState, a: Combatant, dice: Dice, what: str) -> tuple[bool, list[Event]]:
        """Spend an action that has no skill roll of its own: (carried out?, events)."""
        state.economy["actions"] += 1
        return self.hurry(state, a, dice, what)

    def hurry(self, state: BattleState, a: Combatant, dice: Dice, what: str) -> tuple[bool, list[Event]]:
        """seed 004: 'If your other action does not usually require a skill check it will require an
        appropriate stat check as you try to hurry it': in the two-action round, REF + 1d10 against
        Easy (assumption two_actions); a failure loses the action. (True, []) outside that round."""
        if not state.economy["two"]:
            return True, []
        ref = self.stat(a, "ref")
        diff = self.chk["hurried_stat"]
        dice.announce(d10_call(a.id, "hurried_action", f"hurried {what} (REF check)", f"REF {ref}", difficulty=diff,
                               label=f"hurried {what}"))
        r = dice.roll(10, f"hurried {what}")
        ok = ref + r >= diff
        evs = [roll_ev(a.id, "hurried_action", f"hurried {what} (REF check)", [[10, r]], ref + r,
                       pool=f"REF {ref} + 1d10", difficulty=diff, success=ok)]
        if not ok:
            evs.append(event("effect", target=a.id, effect=f"fumbles the hurried {what}: the action is lost"))
        return ok, evs

    def spend_for(self, state: BattleState, a: Combatant, action: Action) -> None:
        """An action that did not happen is still spent (a held shot came first, or the grapple
        partner twisted the grapple): the action, the move, or both, as the action would."""
        e = state.economy
        k = action.kind
        w = self.has_weapon(a, action.weapon) if k == "reload" else None
        if (k == "first_aid" and action.option == "wake") or (
                w is not None and w.reload == "clip" and w.name not in a.res["ammo_ready"]):
            e["move"] = "used"
            e["actions"] = e["max_actions"]
        elif k in ("attack", "suppress", "grapple", "defend", "aim", "first_aid") or (
                k == "ready" and action.option in ("change", "unjam")) or (w is not None and w.reload != "clip"):
            e["actions"] = min(e["max_actions"], e["actions"] + 1)
        elif k in ("ready", "pick_up", "stand", "reload"):
            e["move"] = "used"

    def still_possible(self, state: BattleState, a: Combatant, action: Action) -> bool:
        """After an interrupt: can the action still be carried out as chosen?"""
        if action.kind in ("attack", "suppress", "grapple") and action.target:
            t = state.by_id[action.target]
            if t.dead or (t.down and action.kind != "attack"):
                return False
        return True

    # -- legal actions ----------------------------------------------------------------------
    def delay_actions(self, state: BattleState, a: Combatant, can_hold: bool, allow_triggers: bool,
                      cap: int | None = None) -> list[Action]:
        """`cap`: `move_cap`'s answer, when the caller has it."""
        fixed = self._fixed   # choices.py: the `action`s with only a kind and an option
        e = state.economy
        out: list[Action] = []
        left = e["move"] in ("", "walk") and not e["two"] and (self.move_cap(state, a) if cap is None else cap) > 0 \
            or e["actions"] < e["max_actions"]
        i = state.turn_index
        if (left and a.res["delays"] < int(self.mv["max_delays_per_round"]) and 0 <= i < len(state.order)
                and i + 1 < len(state.order)):
            out.append(fixed["delay", None])
            if i + 2 < len(state.order):
                out.append(fixed["delay", "end_of_round"])
        if allow_triggers and can_hold and a.res["trigger"] is None and not self.in_grapple(a):
            for trig in ("on_move", "on_attack", "on_draw"):
                out.append(fixed["delay", trig])
        return out

    def delay(self, state: BattleState, a: Combatant, option: str) -> list[Event]:
        e = state.economy
        if option in ("", "end_of_round"):
            order = state.order
            i = state.turn_index
            pos = len(order) if option == "end_of_round" else i + 2
            after = order[pos - 1]
            order.insert(pos, a.id)
            a.res["delays"] += 1
            a.res["resume"] = {"round": state.round,
                               "economy": {k: v for k, v in e.items() if k not in ("turn_over", "resumed")}}
            e["turn_over"] = True
            return [event("effect", target=a.id, effect=f"delays the rest of its turn until after {after}",
                          delay=option or "after_next")]
        w = self.held_weapon(a)
        a.res["trigger"] = {"on": option, "weapon": w.name, "steady": e["steady"] == w.name, "aim": e["aim"],
                            "round": state.round}
        e["actions"] = e["max_actions"]
        a.conditions.add("holding_action")
        opt = self.held_option(a, w)
        return [event("effect", target=a.id, effect=f"holds its action: {option.replace('_', ' ')} it attacks with "
                      f"the {w.name}" + (f" ({opt})" if opt else ""), trigger=option, weapon=w.name),
                event("condition", target=a.id, condition="holding_action", on=True)]

    def held_weapon(self, a: Combatant):
        """The weapon a held action attacks with: the drawn one when it could attack now (a melee
        weapon, a loaded gun, a grenade in hand, a genius gun with the charge for a blast), else
        bare hands (assumption held_actions)."""
        w = self.has_weapon(a, a.res["drawn"])
        if w is not None and not w.grapple_only and (w.melee or (w.kind in ("ranged", "grenade") and self.loaded(a, w))
                                                     or (w.kind == "genius" and self.held_option(a, w))):
            return w
        return self.weapons["unarmed"]

    def held_option(self, a: Combatant, w) -> str:
        """The option a held attack with `w` fires with (assumption held_actions): the plain attack
        ("") for guns, grenades and melee weapons, as `attack_actions` lists it; a genius gun needs a
        blast, and fires blast:N at the DC of the weapon table (genius_gun dc 5; kept within
        blast_min..blast_max), or at the largest blast its charge still covers; "" when the charge
        covers no blast (the gun cannot fire: `held_weapon` takes bare hands instead)."""
        if w.kind != "genius":
            return ""
        lo = int(w.x("blast_min", 3))
        n = min(max(w.dc, lo), int(w.x("blast_max", 7)), a.res["ammo"].get(w.name, 0))
        return f"blast:{n}" if n >= lo else ""

    def clear_trigger(self, c: Combatant, why: str) -> list[Event]:
        c.res["trigger"] = None
        if "holding_action" in c.conditions:
            c.conditions.discard("holding_action")
            return [event("condition", target=c.id, condition="holding_action", on=False, cause=why)]
        return []

    # -- firing -----------------------------------------------------------------------------
    def holders(self, state: BattleState, actor: Combatant, trig: str) -> list[Combatant]:
        return [h for h in state.combatants
                if h.res["trigger"] is not None and h.res["trigger"]["on"] == trig and h.team != actor.team
                and h is not actor and not h.down and not self.in_grapple(h) and h.res["held_by"] is None]

    def can_fire_at(self, state: BattleState, h: Combatant, t: Combatant, at: int) -> bool:
        w = self.has_weapon(h, h.res["trigger"]["weapon"]) or self.weapons["unarmed"]
        g = state.grid
        if w.melee:
            return g.adjacent(h.pos, at)
        if not self.loaded(h, w) or (w.kind == "genius" and not self.held_option(h, w)):
            return False
        return self.difficulty(state, h, t, w, at=at) is not None

    def fire_triggers(self, state: BattleState, actor: Combatant, action: Action, dice: Dice) -> list[Event]:
        """Held actions that fire before `action` (on_draw: drawing, changing or picking up a weapon;
        on_attack: attacking, suppressing, grappling, throwing)."""
        trig = TRIGGER_OF_KIND.get(action.kind)
        if trig is None or trig == "on_move":
            return []
        if action.kind == "ready" and action.option not in ("draw", "change"):
            return []
        if action.kind == "pick_up" and action.weapon not in self.weapons:
            return []
        if action.kind == "grapple" and action.option not in ("", None):
            return []
        evs: list[Event] = []
        for h in self.holders(state, actor, trig):
            if actor.down or state.over:
                break
            if self.can_fire_at(state, h, actor, actor.pos):
                verb = "draws" if trig == "on_draw" else "attacks"
                evs += self.fire_held(state, h, actor, dice, f"{actor.id} {verb}")
        return evs

    def move_trigger_plan(self, state: BattleState, m: Combatant, frm: int, to: int
                          ) -> tuple[list[Combatant], list[Combatant]]:
        """(holders firing before the move, holders firing after it) for an on_move hold."""
        before, after = [], []
        for h in self.holders(state, m, "on_move"):
            # the destination is judged with the mover there (cover from its new cell)
            old = m.pos
            m.pos = to
            ok_to = self.can_fire_at(state, h, m, to)
            m.pos = old
            if ok_to:
                after.append(h)
            elif self.can_fire_at(state, h, m, frm):
                before.append(h)
        return before, after

    def fire_move_triggers(self, state: BattleState, m: Combatant, holders: list[Combatant], dice: Dice
                           ) -> list[Event]:
        evs: list[Event] = []
        for h in holders:
            if m.down or state.over or h.down or h.res["trigger"] is None:
                continue
            evs += self.fire_held(state, h, m, dice, f"{m.id} moves")
        return evs

    def fire_held(self, state: BattleState, h: Combatant, t: Combatant, dice: Dice, why: str) -> list[Event]:
        evs: list[Event] = []
        if not self.held_shot_wanted(state, h, t, evs):
            return evs  # the holder keeps holding for another figure (asks.py held_fire)
        trig = h.res["trigger"]
        w = self.has_weapon(h, trig["weapon"]) or self.weapons["unarmed"]
        turn: dict[str, Any] = {"steady": w.name if trig["steady"] else None, "aim": trig["aim"], "held": True}
        evs.append(event("effect", target=h.id, effect=f"held action fires: {why}", trigger=trig["on"], at=t.id))
        evs += self.clear_trigger(h, "fires")
        return evs + self.attack(state, h, t, w, self.held_option(h, w), dice, turn)

    # -- suppression ----------------------------------------------------------------------
    def suppression_check(self, state: BattleState, a: Combatant, dice: Dice) -> list[Event]:
        """seed 004: the suppressed must make a COOL + fearless leader roll to do anything but take cover."""
        e = state.economy
        cool, fl = self.stat(a, "cool"), self.skill(a, "fearless_leader")
        diff = self.chk["suppression_cool"]
        r = skill_check(dice, cool + fl, "keep cool under suppression",
                        call=d10_call(a.id, "suppression_cool", "COOL under suppression",
                                      f"COOL {cool} + fearless leader {fl}", difficulty=diff,
                                      label="keep cool under suppression"))
        ok = r.total >= diff
        pen = max((state.by_id[s].res["zone"] or {}).get("penalty", 0) for s in a.res["suppressed_by"])
        e["suppress"] = "pass" if ok else "fail"
        e["suppress_pen"] = pen
        ev = self.roll_event(a, "suppression_cool", "COOL under suppression", f"COOL {cool} + fearless leader {fl}", r,
                             difficulty=diff, success=ok)
        text = (f"keeps its cool: {-pen} on attacks that expose it" if ok else
                "pinned down: it may only move into cover, drop prone or wait")
        return [ev, event("effect", target=a.id, effect=text)]
