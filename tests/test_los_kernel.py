"""The compiled line-of-sight walk (rules/los_kernel.py, rules/_los_numba.py) builds the same
table as numpy's (`geometry.los_table_numpy`, held equal to the cell-by-cell walk in
tests/test_grid_tables.py) on every pair of bundled, generated and random maps, with and
without blocked edges; and a process switches to it only when asked or after a few tables."""

from __future__ import annotations

import numpy as np
import pytest

from rules import los_kernel
from rules.geometry import los_table, los_table_numpy

numba = pytest.importorskip("numba")


@pytest.fixture(scope="module")
def compiled():
    fn = los_kernel.compile_kernel()
    assert fn is not None, "numba is installed but the walk did not compile"
    return fn


def _tables(fn, opaque: np.ndarray, w: int, east=None, south=None) -> tuple[np.ndarray, np.ndarray]:
    srcs = np.arange(opaque.size, dtype=np.int64)
    empty = np.zeros(0, dtype=bool)
    got = fn(opaque, w, srcs, empty if east is None else east, empty if south is None else south, east is not None)
    return got, los_table_numpy(opaque, w, srcs, east, south)


def test_the_compiled_walk_equals_numpy_on_bundled_and_generated_maps(compiled) -> None:
    from tests.test_grid_tables import MAPS
    for name, g in MAPS:
        got, want = _tables(compiled, g._opaque_np, g.width)
        assert got.shape == want.shape and np.array_equal(got, want), name


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
    monkeypatch.setattr(los_kernel, "_state", {"calls": 0, "kernel": None, "tried": False})
    monkeypatch.delenv("TACTICA_NUMBA", raising=False)
    assert los_kernel.los_block(opaque, 3, srcs, None, None) is None   # numpy builds the first ones
    los_kernel._state["calls"] = los_kernel.COMPILE_AFTER - 18     # as after many tables
    assert los_kernel.los_block(opaque, 3, srcs, None, None) is None   # 2 sources x 9 cells: at the bound
    got = los_kernel.los_block(opaque, 3, srcs, None, None)
    assert got is not None and np.array_equal(got, want)
    assert np.array_equal(los_table(opaque, 3, srcs), want)

    monkeypatch.setattr(los_kernel, "_state", {"calls": 0, "kernel": None, "tried": False})
    monkeypatch.setenv("TACTICA_NUMBA", "0")
    for _ in range(3):
        los_kernel._state["calls"] = 10 * los_kernel.COMPILE_AFTER
        assert los_kernel.los_block(opaque, 3, srcs, None, None) is None
    monkeypatch.setenv("TACTICA_NUMBA", "1")
    got = los_kernel.los_block(opaque, 3, srcs, None, None)
    assert got is not None and np.array_equal(got, want)


def test_without_numba_numpy_builds_every_table(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import rules
    monkeypatch.setattr(los_kernel, "_state", {"calls": 0, "kernel": None, "tried": False})
    monkeypatch.setenv("TACTICA_NUMBA", "1")
    monkeypatch.setitem(sys.modules, "rules._los_numba", None)   # as if numba were missing
    monkeypatch.delattr(rules, "_los_numba", raising=False)
    assert los_kernel.compile_kernel() is None
    opaque = np.zeros(9, dtype=bool)
    assert los_kernel.los_block(opaque, 3, np.array([0], dtype=np.int64), None, None) is None
    assert los_table(opaque, 3, np.array([0], dtype=np.int64)).all()
