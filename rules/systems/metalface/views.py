"""What an observation reads of many figures at once (issue 30): their reach and ammunition;
what a move costs the turn, for policies pricing many moves (`move_price`); and which figures
a move changes, for policies trying moves on copies (`move_touches`).

`unit_numbers` answers `reach_m` and `ammo_frac` (ruleset.py) for each figure from one look
at its weapons, with the long range's factor read once. tests/test_env_shortcuts.py checks
it against the two calls on many states.
"""

from __future__ import annotations

from rules.actions import Action
from rules.state import BattleState, Combatant
from rules.systems.metalface.paths import EPS, moves as path_moves  # EPS: ruleset.py's 1e-6


class UnitNumbersMixin:
    """`unit_numbers` for `MetalfaceRuleset`."""

    def unit_numbers(self, figures: list[Combatant]) -> list[tuple[float, float]]:
        """(`reach_m(c)`, `ammo_frac(c)`) of each figure: the same loops, fused."""
        per_x = float(self.bands[-1]["per_x"])
        out = []
        for c in figures:
            best = 0.0
            main = None                                   # ammo_frac: `main_ranged`, the first ranged weapon
            for w in c.weapons.values():
                if w.ranged:
                    if main is None:
                        main = w
                    if self.weapon_ready(c, w):
                        best = max(best, max(1, self.val(c, "per")) * per_x)
                else:
                    best = max(best, w.reach_m + 0.5)
            if main is None or main.capacity <= 0:
                out.append((best, 1.0))
            else:
                out.append((best, c.res["ammo"].get(main.name, 0) / main.capacity))
        return out


class MovePriceMixin:
    """`move_price` for `MetalfaceRuleset`."""

    def move_price(self, state: BattleState, action: Action) -> tuple[float, bool] | None:
        """(`actions_left`, `turn_over`) after the move, as `_move` then `economy` give them.

        Exact: `_move` rolls no die; its one question (end_facing) is answered by default on
        a copy (no asker) and picks among equally cheap paths, so it changes no metres. Its
        metres are `path_to`'s, the same search as `_move_entry`'s reach (same budget,
        blockers and cap); the move sets no `turn_over`."""
        a = state.actor
        e = state.economy
        got = None
        # `_move_entry`'s reach (its first part: the same checks and search), without the
        # move list it builds from it
        if a.res["posture"] == "stand":
            left = self.move_left(a, e)
            if left > EPS:
                blockers, _ = state.blockers_and_occupied(a.team)
                got = path_moves(state.grid, a.pos, a.res["facing"], left, self.turn_m_per_45, blockers,
                                 cap=2 * self.walk_m(a)).get(action.cell)
        if got is None:
            return None              # not a move `_move` prices this way: try it
        move_m = round(e["move_m"] + got[0], 6)            # `_spend_move`
        used = int(e["halves"]) + self.move_halves(a, move_m)  # `halves_used`
        return float(max(0, 2 - used)), bool(e.get("turn_over"))

    def move_touches(self, state: BattleState, action: Action) -> set[str] | None:
        """{the mover}: `_move` changes the economy (`move_m`, `acted`, `flew`) and the mover
        alone (its cell, `facing` and `moved`), rolls no die, and asks its one question
        (end_facing) only of an asker. None while an action is being answered (`asking`) or a
        question is open, and for anything but a move of the acting figure
        (tests/test_offence_query.py tries every such move both ways)."""
        a = state.actor
        if a is None or action.kind != "move" or state.asking is not None or state.pending is not None:
            return None
        return {a.id}
