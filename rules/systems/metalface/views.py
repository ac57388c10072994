"""What an observation reads of many figures at once (issue 30): their reach and ammunition.

`unit_numbers` answers `reach_m` and `ammo_frac` (ruleset.py) for each figure from one look
at its weapons, with the long range's factor read once. tests/test_env_shortcuts.py checks
it against the two calls on many states.
"""

from __future__ import annotations

from rules.state import Combatant


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
