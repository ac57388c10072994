"""Seeded fights' states for tests that compare a shortcut with the long way on every decision."""

from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from agents.base import make_policy
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle


def decisions(scenario: str, seed: int, policies: tuple[str, str], n: int = 150,
              make: Callable | None = None) -> Iterator[tuple]:
    """(ruleset, state) before each of the first `n` decisions of one seeded fight, the teams
    played in turn by `policies`; `make(ruleset, name, seed)` builds a policy
    (default: `agents.base.make_policy(name, seed)`)."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    pols = {tm.name: make(b.ruleset, policies[i % 2], seed + i) if make else make_policy(policies[i % 2], seed + i)
            for i, tm in enumerate(spec.teams)}
    b.start()
    for _ in range(n):
        s = b.state
        if s.over:
            return
        yield b.ruleset, s
        b.step(pols[s.actor.team].act(s, s.actor), check=False)


def as_actor(s, c):
    """A copy of `s` in which `c` takes the turn (the economy as it is)."""
    t = s.clone()
    t.turn_index = t.order.index(c.id)
    return t
