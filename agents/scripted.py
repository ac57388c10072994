"""Scripted policies that need nothing but the rules: `random` and `aggressive`."""

from __future__ import annotations

from rules.actions import END_TURN, Action, weapon_phrase
from rules.state import BattleState, Combatant

from agents import reasons
from agents.base import Policy


class RandomPolicy(Policy):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, state: BattleState, actor: Combatant) -> Action:
        legal = self.ruleset(state).legal_actions(state)
        a = legal[int(self.uniform() * len(legal))]
        self.last_reason = f"picked at random among {len(legal)} legal actions"
        return a

    def choose(self, state: BattleState, question) -> str:
        """Uniform over the answers, like the actions."""
        return question.options[int(self.uniform() * len(question.options))]


class AggressivePolicy(Policy):
    """Nearest visible enemy: close in and attack it with the hardest-hitting weapon."""

    name = "aggressive"
    max_attacks = 2

    def __init__(self, seed=None) -> None:
        super().__init__(seed)
        self._turn: tuple = ()
        self._attacks = 0
        self._moved = False

    def act(self, state: BattleState, actor: Combatant) -> Action:
        rs = self.ruleset(state)
        key = (id(state), state.round, state.turn_index, actor.id)
        if key != self._turn:
            self._turn, self._attacks, self._moved = key, 0, False
        legal = rs.legal_actions(state)
        g = state.grid
        enemies = [e for e in state.combatants if e.team != actor.team and not e.down]
        if not enemies:
            return END_TURN
        visible = [e for e in enemies if g.los(actor.pos, e.pos)]
        pool = visible or enemies
        target = min(pool, key=lambda e: (g.distance_m(actor.pos, e.pos), e.order))
        if not self._moved and self._attacks == 0 and not g.adjacent(actor.pos, target.pos):
            moves = [a for a in legal if a.kind == "move"]
            here = g.distance_m(actor.pos, target.pos)
            if moves:
                best = min(moves, key=lambda a: (g.distance_m(a.cell, target.pos), a.cell))
                if g.distance_m(best.cell, target.pos) < here:
                    self._moved = True
                    self.last_reason = f"closes in on {target.id}"
                    return best
        if self._attacks < self.max_attacks:
            attacks = [a for a in legal if a.kind == "attack"]
            if attacks:
                on_target = [a for a in attacks if a.target == target.id] or attacks
                best = max(on_target, key=lambda a: (self._weapon_power(actor, a.weapon), a.weapon != "unarmed"))
                self._attacks += 1
                how = f" {weapon_phrase('attack', best.weapon)}" if best.weapon else ""
                self.last_reason = f"attacks the nearest enemy {best.target}{how}"
                return best
        if "prone" in actor.conditions:
            stand = [a for a in legal if a.kind == "stand"]
            if stand:
                self.last_reason = "gets up"
                return stand[0]
        if self._attacks == 0:
            reload = [a for a in legal if a.kind == "reload"]
            if reload:
                self.last_reason = f"reloads the {reload[0].weapon}"
                return reload[0]
        self.last_reason = "ends the turn"
        return END_TURN

    def explain(self, state: BattleState, actor: Combatant, action: Action) -> str:
        """The action's numbers and the obvious other attack (agents/reasons.py)."""
        return reasons.explain(state, actor, action, (), self.last_reason)

    @staticmethod
    def _weapon_power(actor: Combatant, name: str | None) -> float:
        w = actor.weapons.get(name) if name else None
        dmg = getattr(w, "damage", None)
        return float(getattr(dmg, "mean", 0.0)) if dmg is not None else 0.0
