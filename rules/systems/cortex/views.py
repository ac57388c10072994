"""What an observation reads of many figures at once (issue 30): their reach and ammunition;
and what a move costs the turn, for policies pricing many moves (`move_price`).

`unit_numbers` answers `reach_m` and `ammo_frac` (ruleset.py) for each figure from one look
at its weapons: one `weapons_of` and one `arms_usable` per figure instead of three and one.
tests/test_env_shortcuts.py checks it against the two calls on many states.
"""

from __future__ import annotations

from rules.grid import FEET
from rules.actions import Action
from rules.state import BattleState, Combatant


class UnitNumbersMixin:
    """`unit_numbers` for `CortexRuleset`."""

    def unit_numbers(self, figures: list[Combatant]) -> list[tuple[float, float]]:
        """(`reach_m(c)`, `ammo_frac(c)`) of each figure: the same loops, fused."""
        upto = self.bands[-1]["upto"]
        out = []
        for c in figures:
            res = c.res
            ammo = res["ammo"]
            arms = self.arms_usable(c)
            best = 0.0
            frac = None
            for w in self.weapons_of(c):
                kind = w.kind
                if frac is None and w.ranged and w.magazine:          # ammo_frac: the first ranged magazine
                    frac = ammo.get(w.name, 0) / max(1, w.magazine)
                if arms == 0 or w.hands > arms:                       # reach_m: over usable_weapons
                    continue
                if kind == "explosive":
                    if res["uses"].get(w.name, 0) <= 0:
                        continue
                    r = w.range_ft * upto * FEET
                elif w.ranged:
                    if w.magazine and ammo.get(w.name, 0) <= 0:
                        continue
                    r = w.range_ft * upto * FEET
                else:
                    r = 1.5 * 1.5  # next cell, diagonals included
                best = max(best, r)
            out.append((best, 1.0 if frac is None else frac))
        return out


class MovePriceMixin:
    """`move_price` for `CortexRuleset`."""

    def move_price(self, state: BattleState, action: Action) -> tuple[float, bool] | None:
        """(`actions_left`, `turn_over`) after the move, as `_move` then `economy` give them.

        Exact: `_move` rolls no die and asks nothing (`may_ask` is False for moves); its cost
        is `_reach_now`'s, its tiers and action count are `_move`'s own lines below."""
        self._pool_cache.clear()     # as `apply` does, so the per-call memo is left as trying leaves it
        a = state.actor
        e = state.economy
        found = self._reach_now(state, a)
        if found is None or action.cell in found[1] or action.cell not in found[0]:
            return None              # `_move` raises on it: try it
        walk, hustle, run, cfree, caction, crun = self.units(state, a)
        tiers = (cfree, caction, crun) if "prone" in a.conditions else (walk, hustle, run)
        total = e["move_units"] + found[0][action.cell]
        mode = "walk" if total <= tiers[0] else ("hustle" if total <= tiers[1] else "run")
        actions = e["actions"] + (1 if mode != "walk" and e["mode"] == "walk" else 0)
        return float(max(0, self.max_actions - actions)), mode == "run" or bool(e.get("turn_over"))

    def move_touches(self, state: BattleState, action: Action) -> set[str] | None:
        """`_move` changes the economy and the mover (its cell); a figure in a grapple also
        releases it, which changes the other figure too: None then (a full copy)."""
        a = state.actor
        if a is None or action.kind != "move" or a.res["grappling"] is not None or a.res["grappled_by"] is not None:
            return None
        return {a.id}


class OffenceMixin:
    """`priced_attacks` for `CortexRuleset` (rules/systems/cortex/offence.py)."""

    def priced_attacks(self, state: BattleState, actor: Combatant, plain_only: bool = False
                       ) -> list[tuple[Action, float, float, float]] | None:
        from rules.systems.cortex.offence import priced_attacks
        return priced_attacks(self, state, actor, plain_only)
