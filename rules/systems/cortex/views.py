"""What an observation reads of many figures at once (issue 30): their reach and ammunition.

`unit_numbers` answers `reach_m` and `ammo_frac` (ruleset.py) for each figure from one look
at its weapons: one `weapons_of` and one `arms_usable` per figure instead of three and one.
tests/test_env_shortcuts.py checks it against the two calls on many states.
"""

from __future__ import annotations

from rules.grid import FEET
from rules.state import Combatant


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
