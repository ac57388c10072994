"""The legal actions of the acting figure (seed 003, Combat Actions): moves, attacks,
reloads, readying, turns, posture steps, treatment, the shield and the turn-order choice.

`ListingMixin` of `MetalfaceRuleset` (moved out of ruleset.py unchanged)."""

from __future__ import annotations

from rules.actions import END_TURN, Action
from rules.grid import Grid
from rules.state import DOWN_CONDITIONS, BattleState, Combatant
from rules.systems.metalface.geometry import NAMES
from rules.systems.metalface.model import Weapon
from rules.systems.metalface.paths import move_listing, moves as path_moves


def touching(g: Grid, a: int, b: int) -> bool:
    """Whether figures on cells `a` and `b` are next to each other for a repair or first aid: the same
    cell (a figure may stand over a fallen one) or the next one with no wall between (`Grid.adjacent`,
    assumption doors)."""
    return a == b or g.adjacent(a, b)

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
        if patient is not a and not touching(state.grid, a.pos, patient.pos):
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
        """End turn; moves (cell order); attacks; reloads; readying; turns; posture steps;
        treating allies; the shield; treating oneself; the turn-order choice.

        The tests of `move_actions`, `can_reload`, `can_ready`, `can_treat`, `can_delay` and
        `shield_device`, made here with the walk, the halves and the metres left worked out
        once (`walk_m`, `halves_used`, `move_left` give the same numbers), and the moves read
        off `paths.move_listing`. tests/test_metalface_listing.py holds the long way."""
        a = state.actor
        e = state.economy
        acts = [END_TURN]
        if a is None or not DOWN_CONDITIONS.isdisjoint(a.conditions) or not e or e.get("turn_over"):   # `a.down`
            return acts
        r = a.res
        h = int(e["halves"])
        mm = e["move_m"]
        walk = self.walk_m(a)
        # move_left: the allowance (2 x walk, walk with one half spent) less the metres moved
        left = max(0.0, (0.0 if h >= 2 else walk * (2 - h)) - mm)
        if left > EPS and r["posture"] == "stand":
            blockers, occs = state.blockers_and_occupied(a.team)
            acts.extend(move_listing(state.grid, a.pos, r["facing"], left, self.turn_m_per_45, blockers,
                                     2 * walk, occs))
        A = self.action
        ws = list(a.weapons.values())
        acts.extend(self.attack_actions(state, a, ws, walk=walk))
        # can_spend_half: the halves spent, the movement's (0 none, 1 a walk, 2 a run), one more
        half_ok = h + (0 if mm <= EPS else (1 if mm <= walk + EPS else 2)) + 1 <= 2
        packed = r["packed"]
        jammed = r["jammed"]
        spare = r["spare"]
        ammo = r["ammo"]
        for w in ws:
            if w.kind == "melee":
                continue
            n = w.name
            if n in packed or n in jammed or spare.get(n, 0) <= 0 or ammo.get(n, 0) >= w.capacity:
                continue
            if (not e["activated"] and n not in r["charging"]) if w.kind == "beam" else half_ok:
                acts.append(A("reload", weapon=n))
        if jammed or packed:
            for w in ws:
                n = w.name
                if (half_ok if n in jammed else (n in packed and (self.quick_installer(a) or half_ok))):
                    acts.append(A("ready", weapon=n))
        if left > EPS:
            lim = left + EPS
            if lim >= self._turn_most:   # every turn is within reach: the whole list
                acts.extend(self._turn_actions[r["facing"]])
            else:
                acts.extend([act for _, _, m, act in self._turns[r["facing"]] if m <= lim])
            acts.extend([act for m, act in self._posture_steps[r["posture"]] if m <= lim])
        if not h and mm <= EPS:
            # can_treat with its economy test passed: a damaged patient next to the figure
            team = a.team
            g = state.grid
            for t in state.combatants:
                if (t.team == team and t is not a and t.res["damage"] > 0 and touching(g, a.pos, t.pos)
                        and self.heal_method(a, t)[0] > 0):
                    acts.append(A("heal", target=t.id))
        if r["uses"] and not e["activated"] and r["shield"] == "off" and self.shield_device(a) is not None:
            acts.append(A("use", option="shield"))
        if r["damage"] > 0 and not h and mm <= EPS and self.heal_method(a, a)[0] > 0:
            acts.append(A("use", option="heal_self"))
        if r["chooser"] == state.round and not e["acted"] and self._next_up(state) is not None:
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
