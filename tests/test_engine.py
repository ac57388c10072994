"""Unit tests of the engine pieces: dice (`rules.dice`) and the battle map (`rules.grid`).

The geometry rules checked here are the ones `rules/grid.py` documents in its module
docstring (line of sight centre to centre with the corner rule, cover from the
defender's neighbours towards the attacker, 5-10-5 movement in half-cell units).
The dice rules are those of ARCHITECTURE.md, rules/dice.py: one seeded source, a record
of every roll, a queue of forced results, and Cortex die steps as a value type.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rules.dice import D0, D2, D4, D6, D8, D10, D12, Dice, Step, roll_steps
from rules.errors import DiceError, ScenarioError, TacticaError
from rules.grid import Grid

# ---------------------------------------------------------------------------------------
# Dice


def _rolls(d: Dice, sides: int = 6, n: int = 200) -> list[int]:
    return [d.roll(sides) for _ in range(n)]


def test_same_seed_gives_same_rolls() -> None:
    a, b = Dice(1234), Dice(1234)
    mixed = (4, 6, 8, 10, 12, 100, 2)
    assert [a.roll(mixed[i % 7]) for i in range(500)] == [b.roll(mixed[i % 7]) for i in range(500)]


def test_different_seeds_give_different_rolls() -> None:
    assert _rolls(Dice(1)) != _rolls(Dice(2))


def test_rolls_stay_on_the_die_and_show_every_face() -> None:
    d = Dice(7)
    for sides in (2, 4, 6, 8, 10, 12):
        faces = [d.roll(sides) for _ in range(600)]
        assert set(faces) == set(range(1, sides + 1))


def test_forced_results_come_out_in_queue_order_then_the_generator_resumes() -> None:
    d = Dice(5)
    d.force([3, 1, 6])
    assert [d.roll(6), d.roll(6), d.roll(8)] == [3, 1, 6]
    assert d.forced_left == 0
    # not strict: further rolls come from the generator
    assert 1 <= d.roll(6) <= 6


def test_force_appends_to_the_queue() -> None:
    d = Dice(0)
    d.force([2])
    d.force([5, 4])
    assert [d.roll(6) for _ in range(3)] == [2, 5, 4]


def test_forcing_a_face_the_die_cannot_show_is_an_error() -> None:
    d = Dice(0)
    d.force([7])
    with pytest.raises(DiceError) as info:
        d.roll(6)
    assert "7" in str(info.value) and "d6" in str(info.value)
    assert info.value.expected == "1..6"


@pytest.mark.parametrize("face", [0, -1, 13])
def test_forced_faces_outside_1_to_sides_are_errors(face: int) -> None:
    d = Dice(0)
    d.force([face])
    with pytest.raises(DiceError):
        d.roll(12)


@pytest.mark.parametrize("bad", [2.5, "3", True, None])
def test_forcing_something_that_is_not_a_whole_number_is_an_error(bad) -> None:
    with pytest.raises(DiceError):
        Dice(0).force([bad])


def test_strict_forced_results_running_out_is_an_error() -> None:
    d = Dice(0)
    d.force([4, 4], strict=True)
    assert d.roll(6) == 4 and d.roll(6) == 4
    with pytest.raises(DiceError) as info:
        d.roll(8, "damage")
    assert "ran out" in str(info.value) and "d8" in str(info.value)


def test_clear_forced_ends_strict_mode() -> None:
    d = Dice(0)
    d.force([1], strict=True)
    d.clear_forced()
    assert d.forced_left == 0 and not d.strict
    assert 1 <= d.roll(6) <= 6


def test_record_holds_every_roll_as_sides_and_result() -> None:
    d = Dice(3)
    d.force([2, 9])
    r1 = d.roll(4)
    r2 = d.roll(10)
    r3 = d.roll(12)
    assert d.record == [(4, r1), (10, r2), (12, r3)]
    assert d.record[:2] == [(4, 2), (10, 9)]


def test_state_round_trip_replays_the_same_rolls() -> None:
    d = Dice(99)
    _rolls(d, 6, 37)  # leave the batch buffer part-used
    saved = d.get_state()
    first = _rolls(d, 10, 50)
    d.set_state(saved)
    assert _rolls(d, 10, 50) == first


def test_roll_steps_rolls_every_die_of_every_step() -> None:
    d = Dice(0)
    d.force([12, 2, 5, 1])
    r = roll_steps(d, (Step.parse("d12+d2"), D0, D6, D2))
    assert r.faces == ((12, 12), (2, 2), (6, 5), (2, 1))
    assert r.total == 20
    assert not r.botch


def test_a_pool_of_all_ones_is_a_botch() -> None:
    d = Dice(0)
    d.force([1, 1])
    assert roll_steps(d, (D8, D6)).botch
    assert not roll_steps(Dice(0), ()).botch  # no dice is no botch


# ---------------------------------------------------------------------------------------
# Step


@pytest.mark.parametrize("text,index,dice", [
    ("d0", 0, ()), ("-", 0, ()), ("d2", 1, (2,)), ("d4", 2, (4,)), ("d6", 3, (6,)),
    ("d8", 4, (8,)), ("d10", 5, (10,)), ("d12", 6, (12,)), ("d12+d2", 7, (12, 2)),
    ("d12+d4", 8, (12, 4)), ("D12 + d6", 9, (12, 6)), ("d12+d12", 12, (12, 12)),
])
def test_step_parse(text: str, index: int, dice: tuple) -> None:
    s = Step.parse(text)
    assert s == Step(index)
    assert s.dice == dice
    assert s.maximum == sum(dice)


@pytest.mark.parametrize("bad", ["d7", "d3", "d14", "x", "d8+d2", "d12+d3", "d12+d2+d2", "dd6", "6d"])
def test_step_parse_rejects_what_is_not_a_step(bad: str) -> None:
    with pytest.raises(ValueError):
        Step.parse(bad)


def test_step_arithmetic() -> None:
    assert Step.parse("d8") - 2 == D4
    assert D4 + 2 == D8
    assert D12 + 1 == Step.parse("d12+d2")
    assert Step.parse("d12+d2") - 1 == D12
    assert D10 + 3 == Step.parse("d12+d4")


def test_step_arithmetic_floors_at_d0() -> None:
    assert D4 - 5 == D0
    assert D0 - 1 == D0
    assert Step(-3) == D0
    assert not D0 and bool(D2)


def test_steps_above_d12_add_dice() -> None:
    assert Step(12).dice == (12, 12)
    assert Step(13).dice == (12, 12, 2)
    assert Step(19).dice == (12, 12, 12, 2)
    assert str(Step(7)) == "d12+d2"
    assert str(D0) == "d0"


def test_step_order_follows_the_ladder() -> None:
    ladder = [D0, D2, D4, D6, D8, D10, D12, Step.parse("d12+d2")]
    assert ladder == sorted(ladder)
    means = [s.mean for s in ladder]
    assert means == sorted(means) and len(set(means)) == len(means)


@pytest.mark.parametrize("index", range(0, 15))
def test_step_text_round_trips(index: int) -> None:
    """What `str(step)` writes, `Step.parse` reads back (a GM may copy it into a file)."""
    s = Step(index)
    assert Step.parse(str(s)) == s


@given(st.integers(min_value=0, max_value=40), st.integers(min_value=-40, max_value=40))
def test_adding_then_subtracting_n_steps_is_identity(index: int, n: int) -> None:
    s = Step(index)
    assume(index + n >= 0)  # no floor hit on the way
    assert (s + n) - n == s
    assert (s - (-n)) + (-n) == s


@given(st.integers(min_value=0, max_value=40))
def test_step_dice_are_real_dice(index: int) -> None:
    s = Step(index)
    assert all(d in (2, 4, 6, 8, 10, 12) for d in s.dice)
    assert s.maximum == sum(s.dice)
    assert (len(s.dice) == 0) == (index == 0)


# ---------------------------------------------------------------------------------------
# Grid: line of sight


def _c(g: Grid, x: int, y: int) -> int:
    return g.index(x, y)


def test_walls_block_line_of_sight() -> None:
    g = Grid([".....",
              "..#..",
              "....."])
    assert not g.los(_c(g, 0, 1), _c(g, 4, 1))
    assert not g.los(_c(g, 4, 1), _c(g, 0, 1))  # symmetric
    assert g.los(_c(g, 0, 0), _c(g, 4, 0))       # the row above is clear


def test_cover_objects_do_not_block_line_of_sight() -> None:
    g = Grid(["..........",
              "...lmhT...",
              ".........."])
    assert g.los(_c(g, 0, 1), _c(g, 9, 1))


def test_line_of_sight_diagonal_through_a_wall_cell_is_blocked() -> None:
    g = Grid([".....",
              ".#...",
              "....."])
    assert not g.los(_c(g, 0, 0), _c(g, 2, 2))


def test_corner_blocks_sight_only_when_both_cells_beside_it_block() -> None:
    both = Grid([".#..",
                 "#...",
                 "...."])
    assert not both.los(_c(both, 0, 0), _c(both, 1, 1))
    one = Grid([".#..",
                "....",
                "...."])
    assert one.los(_c(one, 0, 0), _c(one, 1, 1))
    assert one.los(_c(one, 0, 0), _c(one, 2, 2))
    other = Grid(["....",
                  "#...",
                  "...."])
    assert other.los(_c(other, 0, 0), _c(other, 1, 1))


def test_end_cells_never_block_their_own_sight() -> None:
    g = Grid(["#.#"])
    assert g.los(0, 2)
    assert g.los(0, 0)


# ---------------------------------------------------------------------------------------
# Grid: cover


def test_crate_next_to_the_defender_towards_the_attacker_gives_its_cover() -> None:
    g = Grid(["........",
              "....m...",
              "........"])
    assert g.cover(_c(g, 5, 1), _c(g, 0, 1)) == 2  # medium


def test_cover_from_a_diagonal_neighbour_within_45_degrees() -> None:
    g = Grid(["....h...",
              "........",
              "........"])
    assert g.cover(_c(g, 5, 1), _c(g, 0, 1)) == 3  # heavy


def test_no_cover_from_behind_or_beside() -> None:
    behind = Grid(["........",
                   "......m.",
                   "........"])
    assert behind.cover(_c(behind, 5, 1), _c(behind, 0, 1)) == 0
    side = Grid([".....m..",
                 "........",
                 "........"])
    assert side.cover(_c(side, 5, 1), _c(side, 0, 1)) == 0


def test_no_cover_from_a_crate_next_to_the_attacker() -> None:
    far = Grid(["........",
                ".m......",
                "........"])
    assert far.cover(_c(far, 5, 1), _c(far, 0, 1)) == 0
    # a crate beside both figures is the attacker's own cover too, so it does not count
    between = Grid(["........",
                    "..m.....",
                    "........"])
    assert between.cover(_c(between, 3, 1), _c(between, 1, 1)) == 0
    # ... but from further away the same crate protects the defender
    assert between.cover(_c(between, 3, 1), _c(between, 0, 1)) == 2


def test_best_cover_counts_and_walls_give_heavy_cover() -> None:
    g = Grid(["...l....",
              "...#....",
              "...m...."])
    assert g.cover(_c(g, 4, 1), _c(g, 0, 1)) == 3
    assert g.cover(_c(g, 4, 1), _c(g, 4, 1)) == 0


# ---------------------------------------------------------------------------------------
# Grid: distances


def test_distances_are_in_metres() -> None:
    g = Grid(["." * 6] * 6)              # default cell 1.5 m
    assert g.distance_m(_c(g, 0, 0), _c(g, 3, 4)) == pytest.approx(7.5)
    assert g.distance_m(_c(g, 2, 2), _c(g, 2, 2)) == 0
    one = Grid(["." * 6] * 6, cell_m=1.0)
    assert one.distance_m(_c(one, 0, 0), _c(one, 3, 4)) == pytest.approx(5.0)
    assert one.distance_m(_c(one, 0, 0), _c(one, 1, 1)) == pytest.approx(2 ** 0.5)


def test_budget_units_are_half_cells() -> None:
    g = Grid(["...."])
    assert g.budget_units(1.5) == 2
    assert g.budget_units(4.572) == 6   # 15 ft
    assert g.units_to_m(3) == pytest.approx(2.25)


# ---------------------------------------------------------------------------------------
# Grid: movement


def _costs(g: Grid, start: tuple[int, int], budget: int, blockers=()) -> dict[tuple[int, int], int]:
    r = g.reachable(g.index(*start), budget, [g.index(*b) for b in blockers])
    return {g.xy(c): u for c, u in r.items() if u <= budget}


def test_orthogonal_steps_cost_one_cell_diagonals_one_and_a_half() -> None:
    g = Grid(["....."] * 3)
    c = _costs(g, (0, 0), 100)
    assert c[(0, 0)] == 0
    assert c[(1, 0)] == 2 and c[(4, 0)] == 8
    assert c[(1, 1)] == 3            # one diagonal: 1.5 cells
    assert c[(2, 2)] == 6            # two diagonals
    assert c[(3, 2)] == 8            # two diagonals and one straight


def test_budget_limits_the_reachable_cells() -> None:
    g = Grid(["....."] * 3)
    c = _costs(g, (0, 0), 4)
    assert set(c) == {(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (0, 2)}


def test_the_reach_caches_of_all_maps_are_bounded_together(monkeypatch) -> None:
    """Reach searches are cached per map; a planner's rollouts on a generated
    cybergeneration map stored 1.9 million cells (a worker grew past 3 GB over a long
    evaluation). All maps' caches together now hold at most REACH_CELL_BUDGET cells
    (plus the search just made), and a search after a clear gives the same answer."""
    import rules.grid as G

    monkeypatch.setattr(G, "REACH_CELL_BUDGET", 500)
    maps = [Grid(["." * 12] * 10), Grid(["." * 9] * 9)]
    first = {}
    for g in maps:
        for start in range(g.n):
            for budget in (4, 8):
                first[(id(g), start, budget)] = dict(g.reachable(start, budget))
                stored = sum(len(d) for m in maps for d in m._reach.values())
                assert stored <= 500 + g.n
    for g in maps:
        for start in range(0, g.n, 7):
            assert g.reachable(start, 8) == first[(id(g), start, 8)]


def test_difficult_ground_costs_double_to_enter() -> None:
    g = Grid([".,...",
              ".....",
              ".,..."])
    c = _costs(g, (0, 0), 100)
    assert c[(1, 0)] == 4            # orthogonal into difficult: 2 x 2
    c2 = _costs(g, (0, 1), 100)
    assert c2[(1, 2)] == 6           # diagonal into difficult: 3 x 2
    assert c2[(1, 1)] == 2           # leaving difficult ground costs nothing extra


def test_diagonals_may_not_cut_the_corner_of_a_blocking_cell() -> None:
    g = Grid([".#...",
              ".....",
              "....."])
    c = _costs(g, (0, 0), 100)
    assert (1, 0) not in c
    assert c[(1, 1)] == 4            # not 3: the diagonal would cut the wall's corner
    crate = Grid([".m...",
                  ".....",
                  "....."])
    assert _costs(crate, (0, 0), 100)[(1, 1)] == 4   # cover objects block movement too


def test_blockers_may_not_be_entered_or_crossed() -> None:
    g = Grid(["...",
              "...",
              "..."])
    free = _costs(g, (1, 0), 100)
    assert free[(1, 2)] == 4
    c = _costs(g, (0, 1), 100, blockers=[(1, 1)])
    assert (1, 1) not in c
    assert c[(2, 1)] == 6            # around the blocker, not through it (would be 4)
    corridor = Grid([".......",
                     "#######"])
    c = _costs(corridor, (0, 0), 100, blockers=[(3, 0)])
    assert set(c) == {(0, 0), (1, 0), (2, 0)}


def test_path_follows_the_cheapest_route() -> None:
    g = Grid(["....",
              ".##.",
              "...."])
    p = g.path(g.index(0, 1), g.index(3, 1), 100)
    assert p[0] == g.index(0, 1) and p[-1] == g.index(3, 1)
    assert all(g.passable[c] for c in p)
    assert all(g.adjacent(a, b) for a, b in zip(p, p[1:]))
    assert g.path(g.index(0, 1), g.index(3, 1), 2) == []


# ---------------------------------------------------------------------------------------
# Grid: bad maps


def test_a_row_of_the_wrong_length_names_the_row() -> None:
    with pytest.raises(ScenarioError) as info:
        Grid(["....", "...", "...."], source="enc.yaml")
    e = info.value
    assert e.field == "map.rows[1]"
    assert "row 1" in str(e) and "enc.yaml" in str(e)
    assert "4 characters" in e.line()


def test_an_unknown_map_character_names_the_row() -> None:
    with pytest.raises(ScenarioError) as info:
        Grid(["....", "....", "..?."])
    assert info.value.field == "map.rows[2]"
    assert "'?'" in str(info.value)


@pytest.mark.parametrize("rows,cell_m,field", [([], 1.5, "map.rows"), (["..."], 0, "map.cell_m"),
                                               (["..."], -1.0, "map.cell_m")])
def test_empty_maps_and_bad_cell_sizes_are_errors(rows, cell_m, field) -> None:
    with pytest.raises(ScenarioError) as info:
        Grid(rows, cell_m=cell_m)
    assert info.value.field == field
    assert isinstance(info.value, TacticaError)
