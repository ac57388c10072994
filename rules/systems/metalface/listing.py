"""The legal actions of the acting figure (seed 003, Combat Actions): moves, attacks,
reloads, readying, turns, posture steps, treatment, the shield and the turn-order choice.

`ListingMixin` of `MetalfaceRuleset` (moved out of ruleset.py unchanged)."""

from __future__ import annotations

from rules.actions import END_TURN, Action
from rules.state import BattleState, Combatant
from rules.systems.metalface.geometry import NAMES
from rules.systems.metalface.model import Weapon
from rules.systems.metalface.paths import moves as path_moves

EPS = 1e-6


class ListingMixin:
    """`legal_actions`, `legal_attacks` and the tests they make, for `MetalfaceRuleset`."""

    def move_options(self, state: BattleState, a: Combatant) -> dict[int, float]:
        """Free cells the actor may move to now -> metres of the cheapest path, every turn
        along it included (seed 003, Move; assumptions path_turns, posture_effects: only a
        standing figure moves)."""
        entry = self._move_entry(state, a)
        return entry[1] if entry is not None else {}

    def move_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        """The legal move actions in cell order."""
        entry = self._move_entry(state, a)
        return entry[2] if entry is not None else []

    def _move_entry(self, state: BattleState, a: Combatant) -> tuple | None:
        """(cell -> (metres, facing after), cell -> metres, move actions) for the acting
        figure now, all in cell order."""
        if a.res["posture"] != "stand":
            return None
        left = self.move_left(a, state.economy)
        if left <= EPS:
            return None
        g = state.grid
        blockers, occs = state.blockers_and_occupied(a.team)
        reach = path_moves(g, a.pos, a.res["facing"], left, self.turn_m_per_45, blockers, cap=2 * self.walk_m(a))
        out = {c: m for c, (m, _) in reach.items() if c not in occs}
        mv = g.move_actions
        return reach, out, [mv[c] for c in out]

    def shield_device(self, a: Combatant) -> str | None:
        """The first device the figure carries with a use left (a shield: the only device the
        rules know, assumption shield_device)."""
        return next((k for k, n in a.res["uses"].items() if n > 0), None)

    def turn_facing(self, f: int, option: str) -> int:
        if option == "left":
            return (f - 2) % 8
        if option == "right":
            return (f + 2) % 8
        if option == "about":
            return (f + 4) % 8
        return NAMES.index(option)

    def can_reload(self, state: BattleState, a: Combatant, w: Weapon, half_ok: bool | None = None) -> bool:
        """Ready Weapon (clip/projectile: a half turn) or Activate Device (beam: instant)."""
        if not w.ranged:
            return False
        r = a.res
        e = state.economy
        if w.name in r["packed"] or w.name in r["jammed"] or r["spare"].get(w.name, 0) <= 0:
            return False
        if r["ammo"].get(w.name, 0) >= w.capacity:
            return False
        if w.kind == "beam":
            return not e["activated"] and w.name not in r["charging"]
        return self.can_spend_half(a, e) if half_ok is None else half_ok

    def quick_installer(self, a: Combatant) -> bool:
        """seed 003, Ready Weapons: metalface with biotech 3 or more (assumption quick_install)."""
        return a.stats["kind"] == "metalface" and int(a.stats["skills"].get("biotech", 0)) >= self.quick_biotech

    def can_ready(self, state: BattleState, a: Combatant, w: Weapon, half_ok: bool | None = None) -> bool:
        r = a.res
        if half_ok is None:
            half_ok = self.can_spend_half(a, state.economy)
        if w.name in r["jammed"]:
            return half_ok
        if w.name in r["packed"]:
            return self.quick_installer(a) or half_ok
        return False

    def can_treat(self, state: BattleState, a: Combatant, patient: Combatant) -> bool:
        """seed 003, Repairing / Healing: a full turn next to a damaged patient."""
        e = state.economy
        if e["halves"] or e["move_m"] > EPS or patient.res["damage"] <= 0:
            return False
        if patient is not a and state.grid.chebyshev(a.pos, patient.pos) > 1:
            return False
        return self.heal_method(a, patient)[0] > 0

    def can_delay(self, state: BattleState, a: Combatant) -> bool:
        """assumption turn_order_choice: the round's first figure, before it does anything."""
        if a.res["chooser"] != state.round or state.economy["acted"]:
            return False
        return self._next_up(state) is not None

    def _next_up(self, state: BattleState) -> int | None:
        for j in range(state.turn_index + 1, len(state.order)):
            if not state.by_id[state.order[j]].down:
                return j
        return None

    def legal_actions(self, state: BattleState) -> list[Action]:
        a = state.actor
        e = state.economy
        acts = [END_TURN]
        if a is None or a.down or not e or e.get("turn_over"):
            return acts
        acts.extend(self.move_actions(state, a))
        A = self.action
        ws = list(a.weapons.values())
        acts.extend(self.attack_actions(state, a, ws))
        r = a.res
        half_ok = self.can_spend_half(a, e)
        for w in ws:
            if w.ranged and self.can_reload(state, a, w, half_ok):
                acts.append(A("reload", weapon=w.name))
        if r["jammed"] or r["packed"]:
            for w in ws:
                if self.can_ready(state, a, w, half_ok):
                    acts.append(A("ready", weapon=w.name))
        left = self.move_left(a, e)
        if left > EPS:
            lim = left + EPS
            acts.extend(act for _, _, m, act in self._turns[r["facing"]] if m <= lim)
            pi = self.postures.index(r["posture"])
            for i, p in enumerate(self.postures):
                if i != pi and abs(i - pi) * self.posture_m <= lim:
                    acts.append(A("posture", option=p))
        if not e["halves"] and e["move_m"] <= EPS:
            for t in state.combatants:
                if t.team == a.team and t is not a and self.can_treat(state, a, t):
                    acts.append(A("heal", target=t.id))
        if not e["activated"] and r["shield"] == "off" and self.shield_device(a) is not None:
            acts.append(A("use", option="shield"))
        if r["damage"] > 0 and self.can_treat(state, a, a):
            acts.append(A("use", option="heal_self"))
        if r["chooser"] == state.round and self.can_delay(state, a):
            acts.append(A("delay"))
        return acts

    def legal_attacks(self, state: BattleState, target: str | None = None) -> list[Action]:
        """The attack-like legal actions, as `legal_actions` lists them (its other branches skipped)."""
        a = state.actor
        e = state.economy
        if a is None or a.down or not e or e.get("turn_over"):
            return []
        return [x for x in self.attack_actions(state, a, list(a.weapons.values()), target)
                if x.kind in ("attack", "grapple") and (target is None or x.target == target)]


__all__ = ["ListingMixin"]
