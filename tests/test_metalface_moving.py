"""`moving.move_path` (one look-up for a move's path and its end_facing question) against
the long way: `end_headings` in full, `decide`, then `path_to` (issue 30).

At every decision of seeded metalface fights (bundled and generated maps, mixed scripted
policies), every legal move is planned both ways, with no asker (the default is taken:
only whether a second heading ties is worked out) and with an asker whose decider picks
the last heading offered (the full list is needed): the same path, metres, facing and
choice event. The ties must occur, or the check proves nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from agents.base import make_policy
from envs.generators import generate_scenario
from rules.choices import Asker, decide
from rules.dice import Dice
from rules.events import event
from rules.grid import Grid
from rules.scenario import load_scenario, new_battle
from rules.state import BattleState
from rules.systems.metalface import paths
from rules.systems.metalface.geometry import NAMES
from rules.systems.metalface.moving import move_path

FIGHTS = [("metalface/scrapyard", ("tactical", "bold"), 3), ("metalface/foundry", ("random", "tactical"), 4),
          ("metalface/rooftop", ("cautious", "aggressive"), 5), ("metalface/scrapyard", ("random", "random"), 6)]


class Last:
    """A decider that answers every question with its last option."""

    def choose(self, state, q):
        return q.options[-1]


def decisions(scenario, pols: tuple[str, str], seed: int, n: int = 80) -> Iterator[tuple[object, BattleState]]:
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    by_team = {tm.name: make_policy(pols[i % 2], seed) for i, tm in enumerate(spec.teams)}
    b.start()
    for _ in range(n):
        if b.state.over:
            return
        yield b.ruleset, b.state
        b.step(by_team[b.state.actor.team].act(b.state, b.state.actor), check=False)


def long_way(rs, state: BattleState, a, cell: int):
    g = state.grid
    blockers, _ = state.blockers_and_occupied(a.team)
    left = rs.move_left(a, state.economy)
    hs = paths.end_headings(g, a.pos, a.res["facing"], cell, left, rs.turn_m_per_45, blockers, cap=2 * rs.walk_m(a))
    h, evs = None, []
    if len(hs) >= 2:
        way = decide(state, a, "end_facing", tuple(NAMES[x] for x in hs), NAMES[hs[0]], "")
        h, evs = NAMES.index(way), [event("choice", actor=a.id, key="end_facing", choice=way)]
    path, m, b = paths.path_to(g, a.pos, a.res["facing"], cell, left, rs.turn_m_per_45, blockers,
                               cap=2 * rs.walk_m(a), heading=h)
    return path, m, b, evs


def test_move_path_is_the_long_way() -> None:
    ties = picked = moves = 0
    fights = FIGHTS + [(generate_scenario("metalface", 3000 + k), ("tactical", "bold"), 7 + k) for k in range(3)]
    for scen, pols, seed in fights:
        for rs, s in decisions(scen, pols, seed):
            a = s.actor
            for mv in (x for x in rs.legal_actions(s) if x.kind == "move"):
                moves += 1
                assert s.asking is None
                got = move_path(rs, s, a, mv.cell)
                assert got == long_way(rs, s, a, mv.cell), (scen, seed, s.round, a.id, mv)
                ties += bool(got[3])
                assert bool(got[3]) == rs.may_ask(s, mv)
                s.asking = Asker([], {a.team: Last()})
                try:
                    asked = move_path(rs, s, a, mv.cell)
                    s.asking = Asker([], {a.team: Last()})
                    assert asked == long_way(rs, s, a, mv.cell), (scen, seed, s.round, a.id, mv)
                finally:
                    s.asking = None
                picked += asked[2] != got[2]
    assert moves > 2000 and ties > 20 and picked > 5, (moves, ties, picked)


def test_headings_in_stops_at_enough() -> None:
    """The first `enough` headings are the full list's first ones (random maps with walls,
    difficult ground and blockers, 1 m and 1.5 m squares, with two- and three-way ties)."""
    rng = np.random.default_rng(34)
    ties = Counter()
    for trial in range(200):
        g = Grid(["".join(rng.choice(list("......#h,"), 9)) for _ in range(7)], cell_m=(1.0, 1.5)[trial % 2])
        free = [i for i in range(g.n) if g.passable[i]]
        start = int(rng.choice(free))
        blockers = [int(x) for x in rng.choice(free, 3) if x != start]
        args = (g, start, int(rng.integers(8)))
        budget = float(rng.integers(2, 13))
        for c in paths.moves(*args, budget, 0.5, blockers):
            full = paths.end_headings(*args, c, budget, 0.5, blockers)
            for k in (1, 2, 3):
                assert paths.end_headings(*args, c, budget, 0.5, blockers, enough=k) == full[:k]
            ties[len(full)] += 1
    assert ties[2] > 20 and ties[3] > 0, ties   # three-way ties are rare: 1 in 200 maps
