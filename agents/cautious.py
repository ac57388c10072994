"""`cautious`: cover first, shoot from cover, fall back when hurt.

Each turn the figure moves (without ending its turn) to the reachable cell with the best
cover against the enemies that can see it, among cells from which it still sees an enemy
it can reach; then makes up to two attacks, each the one with the highest expected damage
(`attack_odds`) that still has a fair chance to hit. Below half health it falls back
instead: to the reachable cell the enemies see least (heavy cover, or out of sight), away
from them, and takes the defensive stance that cuts their expected damage most. With no
enemy in sight from anywhere it can reach, it advances from cover to cover towards the
nearest enemy. Only the generic ruleset interface is used (see agents/assess.py).
"""

from __future__ import annotations


from rules.actions import END_TURN, Action, weapon_phrase, weapon_words
from rules.dice import Dice
from rules.state import BattleState, Combatant

from agents import assess as A
from agents import reasons
from agents.base import Policy


class CautiousPolicy(Policy):
    """Take cover, shoot from it, fall back when hurt."""

    name = "cautious"
    hurt = 0.5
    p_min = 0.2
    max_attacks = 2
    #: shared by a snapshot's copy (Policy.shared_memos): the decision's probe dice (set in
    #: `act`) and the move tiers (an exact memo)
    shared_memos = ("dice", "_tiers")
    history_memos = ("_tiers",)   # as `tactical`'s move tiers

    def __init__(self, seed=None) -> None:
        super().__init__(seed)
        self.dice: Dice | None = None
        self._turn: tuple = ()
        self._moved = False
        self._attacks = 0
        self._tiers: dict = {}

    def explain(self, state: BattleState, actor: Combatant, action: Action) -> str:
        """The action's numbers and the obvious other attack (agents/reasons.py)."""
        return reasons.explain(state, actor, action, (), self.last_reason)

    def act(self, state: BattleState, actor: Combatant) -> Action:
        rs = self.ruleset(state)
        key = (state.round, state.turn_index, actor.id)
        if key != self._turn:
            self._turn, self._moved, self._attacks = key, False, 0
        legal = rs.legal_actions(state)
        self.dice = A.probe_dice(state, actor, int(self._moved) + 2 * self._attacks)
        enemies = A.foes(state, actor)
        if not enemies:
            return self._end("has nobody left to fight")
        kinds: dict[str, list[Action]] = {}
        for a in legal:
            kinds.setdefault(a.kind, []).append(a)
        hurt = A.health_frac(rs, actor) < self.hurt
        if "reload" in kinds and rs.ammo_frac(actor) <= 0:
            a = kinds["reload"][0]
            self.last_reason = f"reloads the empty {weapon_words(a.weapon)}"
            return a
        if "stand" in kinds and not self._moved and self._attacks == 0:
            self.last_reason = "gets up to find cover"
            return kinds["stand"][0]
        moves = kinds.get("move", [])
        if moves and not self._moved and self._attacks == 0:
            m = self._fall_back(state, actor, enemies, moves) if hurt else self._take_cover(state, actor, enemies, moves)
            if m is not None:
                self._moved = True
                return m
        limit = 1 if hurt else self.max_attacks
        if self._attacks < limit:
            best = self._best_attack(rs, state, actor, legal, 0.45 if hurt else self.p_min)
            if best is not None:
                self._attacks += 1
                t = state.by_id[best.action.target]
                w = best.action.weapon
                how = f" {weapon_phrase('attack', w)}" if w else ""
                self.last_reason = (f"fires from cover at {t.name}{how}: "
                                    f"{best.p_hit:.0%} to hit, {best.exp_damage:.1f} expected damage")
                return best.action
        guard = self._guard(rs, state, actor, enemies, kinds.get("defend", []))
        if guard is not None:
            return guard
        if "reload" in kinds and rs.ammo_frac(actor) < 0.5:
            a = kinds["reload"][0]
            self.last_reason = f"reloads the {weapon_words(a.weapon)} behind cover"
            return a
        return self._end("waits in cover")

    def _end(self, why: str) -> Action:
        self.last_reason = f"{why} and ends the turn"
        return END_TURN

    # -- choices -------------------------------------------------------------------------
    def _best_attack(self, rs, state, actor, legal, p_min) -> A.Odds | None:
        best = None
        for o in A.attack_options(rs, state, actor, legal):
            if o.p_hit < p_min or o.action.option:
                continue
            if best is None or (o.exp_damage, o.p_hit) > (best.exp_damage, best.p_hit):
                best = o
        return best

    def _cover_key(self, state: BattleState, actor: Combatant, enemies: list[Combatant], cell: int,
                   reach: float) -> tuple:
        """(sees a target, worst cover vs the enemies that see the cell, -exposed count, -distance)."""
        g = state.grid
        seeing = [e for e in enemies if g.los(e.pos, cell)]
        target = any(g.distance_m(cell, e.pos) <= reach for e in seeing) if reach > A.MELEE_REACH_M else \
            any(g.chebyshev(cell, e.pos) <= 1 for e in enemies)
        worst = min((g.cover(cell, e.pos) for e in seeing), default=4)
        exposed = sum(1 for e in seeing if g.cover(cell, e.pos) == 0)
        near = min(g.distance_m(cell, e.pos) for e in enemies)
        return (target, worst, -exposed, -near)

    def _take_cover(self, state, actor, enemies, moves) -> Action | None:
        rs = self.ruleset(state)
        tiers = A.move_tiers(rs, state, moves, self.dice, self._tiers)
        reach = rs.reach_m(actor)
        g = state.grid
        options = [m for m in moves if not tiers[m.cell][1]]
        here = self._cover_key(state, actor, enemies, actor.pos, reach)
        best, best_key = None, here
        for m in options:
            k = self._cover_key(state, actor, enemies, m.cell, reach)
            # a move that costs an action must buy better cover, not just a closer cell
            if tiers[m.cell][0] > 0 and k[:2] <= here[:2]:
                continue
            if k > best_key:
                best, best_key = m, k
        if best is not None and best_key[0]:
            words = A.cover_words(state, best.cell, min(enemies, key=lambda e: g.distance_m(best.cell, e.pos)).pos)
            self.last_reason = f"moves into {words} with an enemy in sight"
            return best
        if here[0]:
            return None
        # nobody to shoot from anywhere near: advance from cover to cover
        pool = options or [m for m in moves]
        near0 = min(g.distance_m(actor.pos, e.pos) for e in enemies)
        cands = [m for m in pool if g.cover_near(m.cell)] or pool
        m = min(cands, key=lambda m: (min(g.distance_m(m.cell, e.pos) for e in enemies), m.cell))
        if min(g.distance_m(m.cell, e.pos) for e in enemies) < near0:
            self.last_reason = "advances towards the enemy, from cover to cover"
            return m
        return None

    def _fall_back(self, state, actor, enemies, moves) -> Action | None:
        g = state.grid

        def danger(cell: int) -> tuple:
            seen = sum(1.0 - A.protection(g.cover(cell, e.pos)) for e in enemies if g.los(e.pos, cell))
            melee = sum(1 for e in enemies if g.chebyshev(cell, e.pos) <= 1)
            near = min(g.distance_m(cell, e.pos) for e in enemies)
            return (-(seen + 2 * melee), near)

        here = danger(actor.pos)
        best = max(moves, key=lambda m: (danger(m.cell), -m.cell))
        if danger(best.cell) > here:
            self.last_reason = "is hurt and falls back out of the line of fire"
            return best
        return None

    def _guard(self, rs, state, actor, enemies, defends) -> Action | None:
        g = state.grid
        threats = [e for e in enemies if g.los(e.pos, actor.pos) or g.chebyshev(e.pos, actor.pos) <= 3][:3]
        if not defends or not threats:
            return None
        hp = A.hp_left(rs, actor)
        base = sum(A.incoming(rs, state, e, actor.id, self.dice) for e in threats)
        best, gain = None, 0.05 * hp
        for a in defends:
            s2 = A.after(rs, state, a, self.dice)
            v = base - sum(A.incoming(rs, s2, e, actor.id, self.dice) for e in threats)
            if v > gain:
                best, gain = a, v
        if best is not None:
            self.last_reason = f"braces ({best.option or 'defends'}): {gain:.1f} less expected damage from the enemies' next attacks"
        return best
