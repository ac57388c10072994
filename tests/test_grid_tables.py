"""The map's tables (issue 30) give what the cell-by-cell rules of `rules/grid.py` give.

Line of sight, cover and reachable cells are built per map with numpy or a faster search;
these tests hold them equal to the reference walk (`Grid._compute_los`), the reference cover
rule (`Grid.cover_source`) and a plain Dijkstra over every pair of cells of bundled and
generated maps.
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from envs.generators import generate_scenario
from rules.grid import Grid
from rules.scenario import build_state, bundled_scenarios, load_scenario


def _maps() -> list[tuple[str, Grid]]:
    out = []
    for name in bundled_scenarios():
        spec, src = load_scenario(name)
        out.append((name, build_state(spec, src).grid))
    for rs in ("cortex", "cortex_hu", "metalface", "cybergeneration"):
        for seed in (1, 2):
            spec, src = load_scenario(generate_scenario(rs, seed))
            out.append((f"generated {rs} {seed}", build_state(spec, src).grid))
    out.append(("pillars", Grid(["........", ".#.#.#..", "..#.#...", ".#.#.#..", "........"])))
    return out


MAPS = _maps()


@pytest.mark.parametrize("name,g", MAPS, ids=[m[0] for m in MAPS])
def test_line_of_sight_table_equals_the_walk_on_every_pair(name: str, g: Grid) -> None:
    for a in range(g.n):
        want = [g._compute_los(a, b) for b in range(g.n)]
        assert [g.los(a, b) for b in range(g.n)] == want, (name, a)
        assert g.visible_row(a).tolist() == want


@pytest.mark.parametrize("name,g", MAPS, ids=[m[0] for m in MAPS])
def test_cover_table_equals_the_cover_rule_on_every_pair(name: str, g: Grid) -> None:
    for d in range(g.n):
        assert [g.cover(d, a) for a in range(g.n)] == [g.cover_source(d, a)[0] for a in range(g.n)], (name, d)


def _dijkstra(g: Grid, start: int, budget: int, blockers: set[int]) -> dict[int, int]:
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        c, i = heapq.heappop(heap)
        if c > dist[i]:
            continue
        for j, step in g._adj[i]:
            nc = c + step
            if nc <= budget and j not in blockers and nc < dist.get(j, 1 << 30):
                dist[j] = nc
                heapq.heappush(heap, (nc, j))
    return dict(sorted(dist.items()))


def _reference(g: Grid, start: int, budget: int, blockers: list[int]) -> dict[int, int]:
    """What `reachable` gave before the tables: a blocker counts only when a free path
    within budget reaches it at a lower cost (so one at exactly the budget is listed)."""
    free = _dijkstra(g, start, budget, set())
    blk = {b for b in blockers if b != start and free.get(b, 1 << 30) < budget}
    return _dijkstra(g, start, budget, blk) if blk else free


@pytest.mark.parametrize("name,g", MAPS[::2], ids=[m[0] for m in MAPS[::2]])
def test_reachable_cells_equal_a_plain_dijkstra(name: str, g: Grid) -> None:
    rng = np.random.default_rng(7)
    open_cells = [i for i in range(g.n) if g.passable[i]]
    for _ in range(300):
        start = int(rng.choice(open_cells))
        budget = int(rng.integers(1, 70))
        blockers = [int(b) for b in rng.choice(open_cells, size=int(rng.integers(0, 9)))]
        got = g.reachable(start, budget, blockers)
        assert list(got) == sorted(got)
        assert got == _reference(g, start, budget, blockers), (name, start, budget, blockers)
