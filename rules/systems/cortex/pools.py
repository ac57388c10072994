"""An actor's attack pools on one unchanged state, built by step arithmetic (issue #30).

`CombatMixin.attack_pool` works out, for each (weapon, option, range band), the attack's
skill steps, the skill die, the attribute's trait-aware steps and then the pool. Within one
listing or threat query the state does not change, so `AttackPools` works out once per
(weapon, option) what does not depend on the band (the attribute, the skill die, the
steps less the band) and once per attribute its steps; each band's pool is then
`make_pool` on integer sums. Exact: `attack_steps` only adds the band to integers, so
(steps at band 0) + band is its sum at that band; the rest reads the same unchanged state.
Hold one only for one call: `apply` changes the state between pool reads.
"""

from __future__ import annotations

from typing import Any

from rules.state import BattleState, Combatant
from rules.systems.cortex_common.model import make_pool

_ATTACK = frozenset({"attack"})  # the context `attack_pool` asks attr_steps with


class AttackPools:
    """`rs.attack_pool(state, a, w, option, band)` for one state and actor, memoised."""

    __slots__ = ("rs", "state", "a", "_pools", "_bases", "_attrs")

    def __init__(self, rs: Any, state: BattleState, a: Combatant) -> None:
        self.rs, self.state, self.a = rs, state, a
        self._pools: dict[tuple, Any] = {}   # (weapon, option, band) -> attack dice or None
        self._bases: dict[tuple, tuple] = {}  # (weapon, option) -> what the band leaves alone
        self._attrs: dict[str, int] = {}     # attribute -> its steps on an attack

    def __call__(self, w: Any, option: str, band: int | None) -> tuple | None:
        """The attack dice (attribute name, die, skill name, die), None when the pool is
        empty or `band` is None (out of range, as `attack_dice` answers)."""
        if band is None:
            return None
        key = (w.name, option, band)
        pools = self._pools
        res = pools.get(key, pools)
        if res is not pools:
            return res
        base = self._bases.get(key[:2])
        if base is None:
            base = self._bases[key[:2]] = self._base(w, option)
        attr, sname, sk, steps, attr_steps = base
        p = make_pool(self.a, attr, sk, steps + band, attr_steps)  # attack_steps adds the band last
        res = pools[key] = None if p is None else (attr, p[0], sname, p[1])
        return res

    def _base(self, w: Any, option: str) -> tuple:
        rs, a = self.rs, self.a
        steps, attr = rs.attack_steps(self.state, a, w, option, 0)
        sname, sk = rs.weapon_skill(a, w, option)
        asteps = self._attrs.get(attr)
        if asteps is None:
            asteps = self._attrs[attr] = rs.attr_steps(a, attr, _ATTACK)
        return attr, sname, sk, steps, asteps


__all__ = ["AttackPools"]
