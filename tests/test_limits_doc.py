"""docs/limits.md states every bound of rules/limits.py with its value (issue #34: "docs/limits.md:
every limit, its value and why"), and the bounds are the ones the code enforces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules import limits
from rules.errors import ScenarioError

DOC = Path(__file__).parent.parent / "docs" / "limits.md"


def _shown(v) -> str:
    return f"{v:,}" if isinstance(v, int) else str(v)


@pytest.mark.parametrize("name,value,why", limits.TABLE, ids=[t[0] for t in limits.TABLE])
def test_the_doc_states_each_limit_with_its_value(name, value, why):
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith(f"| `{name}` |")]
    assert rows, f"docs/limits.md has no row for {name}"
    assert re.search(rf"\| {re.escape(_shown(value))}\b", rows[0]), f"{name}: {rows[0]} does not say {_shown(value)}"


def test_every_constant_of_the_module_is_in_the_table():
    consts = {k for k, v in vars(limits).items() if k.isupper() and isinstance(v, (int, float)) and k != "TABLE"}
    assert consts == {t[0] for t in limits.TABLE}


@pytest.mark.parametrize("cell_m,ok", [(limits.CELL_M_MIN, True), (limits.CELL_M_MAX, True), (1.5, True),
                                       (limits.CELL_M_MIN / 2, False), (limits.CELL_M_MAX * 1.01, False),
                                       (1e-300, False), (float("inf"), False)])
def test_the_cell_size_bounds_are_inclusive(cell_m, ok):
    from rules.grid import Grid
    if ok:
        assert Grid(["...."], cell_m=cell_m).cell_m == cell_m
    else:
        with pytest.raises(ScenarioError, match="map.cell_m"):
            Grid(["...."], cell_m=cell_m)


def test_the_map_bounds_take_the_largest_map_and_refuse_one_more_row():
    from rules.grid import Grid
    side = limits.MAX_MAP_SIDE
    assert Grid(["." * side] * side).n == limits.MAX_MAP_CELLS
    with pytest.raises(ScenarioError, match="map.rows"):
        Grid(["." * side] * (side + 1))


def test_workers_are_capped_at_the_cores_and_the_work():
    import os
    cores = len(os.sched_getaffinity(0))
    assert limits.cap_workers(200, 4) == min(4, cores)
    assert limits.cap_workers(200, 10 ** 6) == cores
    assert limits.cap_workers(1, 10 ** 6) == 1


def test_a_pool_starts_no_more_processes_than_chunks():
    from evaluation.parallel import FightPool
    pool = FightPool(200)
    assert pool.requested == 200 and pool.workers <= len(__import__("os").sched_getaffinity(0))
