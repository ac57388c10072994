"""Enemies' threat profiles kept over a fight, by the enemy figure they read (issue #30).

`assess.incoming` starts an enemy's turn on a copy of a state and asks the threat query how
much its best attack would take off the victim. `tactical` asks it for every cell it refines
and every stance it weighs, up to three enemies each, on states that differ only in where
the victim stands or in its stance; the enemy is the same figure in all of them, and in the
decisions after them until it changes. Most of the query's work depends on the enemy alone:
starting its turn, its weapons, their options and pools. Where the ruleset splits the query
(`Ruleset.threat_profile`: that work once, then a function of the victim figure that reads
nothing else of the state but the attacker, its fresh turn economy and the map), the memo
keeps that function per enemy *version*: a number given to each distinct figure seen (all of
it: position, conditions, resources, the stat block, weapons, armour and traits its copies
share), found by comparing with a deep copy of the figures already seen; and per round too
where the ruleset's turn start depends on the round (`Ruleset.threat_profile_by_round`).

Exact: the profile is made on the enemy's turn started on a copy of the state as
`incoming` starts it, and an equal enemy figure starts an equal turn, so the function gives
what the threat query would on any of those states. `incoming` uses the memo only where the
ruleset says the turn start rolls no dice (`Ruleset.start_turn_rolls`), so not starting it
again leaves the probe dice drawing as before. The copies hold only plain values (numbers,
strings, containers of them); a figure holding anything else is not versioned (the long
way). The memo belongs to one policy and forgets everything when the ruleset or the map
changes (another fight). tests/test_threat_profile.py checks it on every call of seeded fights.
"""

from __future__ import annotations

from typing import Any, Callable

from rules.dice import Dice
from rules.ruleset import Ruleset
from rules.snapshot import NOT_PLAIN, plain_copy
from rules.state import BattleState, Combatant

from agents.acting import acting_view

#: versions kept per figure id (the newest first), and profiles kept before starting afresh
_VERSIONS = 8
_PROFILES = 512


class _Seen:
    """A figure as it was: what `Combatant.clone` copies, deep, and what it shares."""

    __slots__ = ("name", "team", "template", "pos", "stats", "weapons", "armour", "traits", "conditions",
                 "res", "order", "version")

    def __init__(self, c: Combatant, res: dict, version: int) -> None:
        self.name, self.team, self.template, self.pos = c.name, c.team, c.template, c.pos
        self.stats, self.weapons, self.armour, self.traits = c.stats, c.weapons, c.armour, c.traits
        self.conditions = frozenset(c.conditions)
        self.res = res
        self.order = c.order
        self.version = version

    def same(self, c: Combatant) -> bool:
        """Whether `c` equals the figure as it was."""
        return (c.pos == self.pos and c.conditions == self.conditions and c.res == self.res
                and c.stats is self.stats and c.weapons is self.weapons and c.armour is self.armour
                and c.traits is self.traits and c.team == self.team and c.template == self.template
                and c.order == self.order and c.name == self.name)


class ThreatMemo:
    """Threat profiles of enemies over the decisions of one fight (see the module docstring)."""

    __slots__ = ("rs", "grid", "seen", "profiles", "_next")

    def __init__(self) -> None:
        self.rs: Ruleset | None = None
        self.grid: Any = None
        self.seen: dict[str, list[_Seen]] = {}
        self.profiles: dict[Any, Callable[[Combatant], float | None] | None] = {}
        self._next = 0

    def profile(self, rs: Ruleset, state: BattleState, enemy: Combatant, dice: Dice
                ) -> Callable[[Combatant], float | None] | None:
        """The threat profile of `enemy` (a figure of `state`, whose turn start rolls no dice)
        on a fresh turn of its own, `None` where there is none (the ruleset does not split the
        query, or the figure is not versioned): then the caller goes the long way."""
        if rs is not self.rs or state.grid is not self.grid:
            self.rs, self.grid = rs, state.grid
            self.seen.clear()
            self.profiles.clear()
        v = self._version(enemy)
        if v is None:
            return None
        if rs.threat_profile_by_round:
            v = (v, state.round)
        prof = self.profiles.get(v, self.profiles)
        if prof is self.profiles:
            s2 = acting_view(rs, state, enemy.id, dice)  # rolls nothing (the caller checked)
            prof = _nothing if s2 is None else rs.threat_profile(s2, s2.by_id[enemy.id])
            if len(self.profiles) >= _PROFILES:
                self.profiles.clear()
            self.profiles[v] = prof
        return prof

    def _version(self, c: Combatant) -> int | None:
        """The number of the figure as `c` is now."""
        seen = self.seen.get(c.id)
        if seen is None:
            seen = self.seen[c.id] = []
        for s in seen:
            if s.same(c):
                return s.version
        res = plain_copy(c.res)
        if res is NOT_PLAIN or any(type(x) is not str for x in c.conditions):
            return None
        self._next += 1
        seen.insert(0, _Seen(c, res, self._next))
        del seen[_VERSIONS:]
        return self._next


def _nothing(t: Combatant) -> float:
    """The threat of an enemy whose turn would not start (down, or out by its turn start)."""
    return 0.0


__all__ = ["ThreatMemo"]
