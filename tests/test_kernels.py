"""The compiled kernels (rules/kernels.py, rules/_numba.py) build the same tables as numpy:
the line-of-sight walk as `geometry.los_table_numpy` (held equal to the cell-by-cell walk in
tests/test_grid_tables.py) on every pair of bundled, generated and random maps, with and
without blocked edges, and the cover rows as `Grid._build_cover`'s numpy pass on every
defender cell, and the path costs as `geometry.free_path_costs` from every cell; and a
process switches to them only when asked or after many tables."""

from __future__ import annotations

import numpy as np
import pytest

from rules import kernels
from rules.geometry import los_table, los_table_numpy

numba = pytest.importorskip("numba")


@pytest.fixture(scope="module")
def compiled():
    mod = kernels.compile_kernel()
    assert mod is not None, "numba is installed but the kernels did not compile"
    return mod


def _tables(fn, opaque: np.ndarray, w: int, east=None, south=None) -> tuple[np.ndarray, np.ndarray]:
    srcs = np.arange(opaque.size, dtype=np.int64)
    empty = np.zeros(0, dtype=bool)
    got = fn.los_block(opaque, w, srcs, empty if east is None else east, empty if south is None else south, east is not None)
    return got, los_table_numpy(opaque, w, srcs, east, south)


def test_the_compiled_walk_equals_numpy_on_bundled_and_generated_maps(compiled) -> None:
    from tests.test_grid_tables import MAPS
    for name, g in MAPS:
        got, want = _tables(compiled, g._opaque_np, g.width)
        assert got.shape == want.shape and np.array_equal(got, want), name


def test_the_compiled_cover_rows_equal_numpys_on_every_defender_cell(compiled, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_grid_tables import MAPS
    monkeypatch.setattr(kernels, "_state", {"calls": 0, "kernel": None, "tried": True})   # numpy
    covered = 0
    for name, g in MAPS:
        for d in range(g.n):
            g._cover_rows[d] = None
            want = g._build_cover(d)
            got = compiled.cover_row(g.width, g.n, d, np.array(g._ring[d], dtype=np.int64),
                                     np.array([g.cover_level[j] for j in g._ring[d]], dtype=np.int64)).tolist()
            assert got == want, (name, d)
            covered += any(want)
    assert covered > 100   # the maps give cover somewhere
    kernels._state.update(kernel=compiled)   # and through the grid, once switched
    g = MAPS[0][1]
    g._cover_rows[5] = None
    assert g._build_cover(5) == compiled.cover_row(g.width, g.n, 5, np.array(g._ring[5], dtype=np.int64),
                                                   np.array([g.cover_level[j] for j in g._ring[5]], dtype=np.int64)).tolist()


def test_the_compiled_path_costs_equal_the_bucket_search_from_every_cell(compiled, monkeypatch: pytest.MonkeyPatch) -> None:
    from rules.geometry import UNREACHABLE, free_path_costs
    from tests.test_grid_tables import MAPS
    costs = set()
    for name, g in MAPS:
        arrays = kernels.adjacency_arrays(g._adj)
        for start in range(g.n):
            want = free_path_costs(g._adj, start)
            got = compiled.path_costs(*arrays, start, UNREACHABLE).tolist()
            assert got == want, (name, start)
            costs.update(want)
    assert UNREACHABLE in costs and len(costs) > 30   # walls cut cells off; diagonal and difficult steps
    monkeypatch.setattr(kernels, "_state", {"calls": 0, "kernel": compiled, "tried": True})   # through the grid
    g = MAPS[0][1]
    g._free[3], g._free_lists[3] = None, None
    assert g.free_costs(3).tolist() == free_path_costs(g._adj, 3) and g._adj_arrays is not None


@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_walk_equals_numpy_on_random_walled_maps(compiled, seed: int) -> None:
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(3, 13)), int(rng.integers(3, 17))
    opaque = rng.random(h * w) < (0.1 + 0.05 * seed)
    got, want = _tables(compiled, opaque, w)
    assert np.array_equal(got, want)
    east, south = rng.random(h * w) < 0.15, rng.random(h * w) < 0.15
    east[w - 1::w] = False      # no edge east of the last column, none south of the last row
    south[(h - 1) * w:] = False
    got, want = _tables(compiled, opaque, w, east, south)
    assert np.array_equal(got, want)
    assert 0 < want.sum() < want.size   # the maps block some sight and leave some


def test_a_process_switches_after_a_few_tables_or_when_told(monkeypatch: pytest.MonkeyPatch) -> None:
    opaque = np.array([False, True, False, False, False, False, True, False, False], dtype=bool)
    srcs = np.array([0, 4], dtype=np.int64)
    want = los_table_numpy(opaque, 3, srcs)
    monkeypatch.setattr(kernels, "_state", {"calls": 0, "kernel": None, "tried": False})
    monkeypatch.delenv("TACTICA_NUMBA", raising=False)
    assert kernels.los_block(opaque, 3, srcs, None, None) is None   # numpy builds the first ones
    kernels._state["calls"] = kernels.COMPILE_AFTER - 18     # as after many tables
    assert kernels.los_block(opaque, 3, srcs, None, None) is None   # 2 sources x 9 cells: at the bound
    got = kernels.los_block(opaque, 3, srcs, None, None)
    assert got is not None and np.array_equal(got, want)
    assert np.array_equal(los_table(opaque, 3, srcs), want)

    monkeypatch.setattr(kernels, "_state", {"calls": 0, "kernel": None, "tried": False})
    monkeypatch.setenv("TACTICA_NUMBA", "0")
    for _ in range(3):
        kernels._state["calls"] = 10 * kernels.COMPILE_AFTER
        assert kernels.los_block(opaque, 3, srcs, None, None) is None
    monkeypatch.setenv("TACTICA_NUMBA", "1")
    got = kernels.los_block(opaque, 3, srcs, None, None)
    assert got is not None and np.array_equal(got, want)


def test_without_numba_numpy_builds_every_table(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import rules
    monkeypatch.setattr(kernels, "_state", {"calls": 0, "kernel": None, "tried": False})
    monkeypatch.setenv("TACTICA_NUMBA", "1")
    monkeypatch.setitem(sys.modules, "rules._numba", None)   # as if numba were missing
    monkeypatch.delattr(rules, "_numba", raising=False)
    assert kernels.compile_kernel() is None
    opaque = np.zeros(9, dtype=bool)
    assert kernels.los_block(opaque, 3, np.array([0], dtype=np.int64), None, None) is None
    assert los_table(opaque, 3, np.array([0], dtype=np.int64)).all()
