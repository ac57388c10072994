"""metalface (seed 003) held to the seed's words: issue #32's deviations, with forced dice.

Each test quotes the sentence of /work/shared/seeds/003_*.txt it checks and failed on the
engine before issue #32's fix. Helpers (tests/metalface_setup.py) and conventions as in
tests/test_metalface_*.py (1 m squares unless a test says otherwise, `initiative: fixed`,
strict replays).
"""

from __future__ import annotations

import json

import pytest

from rules.actions import Action
from rules.errors import ScenarioError
from tests.metalface_setup import (DATA, RS, attack, can, can_attack, dummy, econ, evs, fig, move, only,
                                   open_map, play, rolls, scen, shooter, who)

ASSUMPTIONS = {a["key"]: a for a in DATA["assumptions"]}


# ---------------------------------------------------------------------------------------
# seed 003, Move: "Turning or changing direction counts as one meter per 90 degrees."

def test_every_bend_of_a_path_costs_its_turn():
    """seed 003, Move: "Turning or changing direction counts as one meter per 90 degrees" -
    every change of direction along the path, not one turn towards the destination.
    East, east, then south-east to (3, 1): 1 + 1 + 0.5 (the 45-degree bend) + 1.5 = 4 m
    (the old rule charged 3.5 m: the grid's 3.5 m path and no turn to the bearing); the
    figure ends facing its last step (assumption path_turns)."""
    s = scen(open_map(8, 3), [fig("m", (0, 0), agl=2, facing="e")], [dummy(at=(7, 2))])
    b = play(s, [move("m", 3, 1)])
    e = only(evs(b, "move"))
    assert e["metres"] == 4 and e["turn_m"] == 0.5
    assert e["path"] == [[0, 0], [1, 0], [2, 0], [3, 1]]
    assert e["facing"] == "se" and who(b, "m").res["facing"] == 3
    assert econ(b)["move_m_used"] == 4 and econ(b)["move_m_left"] == 0


def test_a_path_round_a_wall_pays_every_turn():
    """seed 003, Move: "Turning or changing direction counts as one meter per 90 degrees".
    Facing south at (0, 0) with a wall below, (0, 2) is reached east, south and west:
    1 m to turn east + 2 m + 1 m to turn south + 2 m + 1 m to turn west + 2 m = 9 m. With
    AGL 3 (a run of 6 m) it is out of reach (the old rule: 6 m of path, no turn, legal);
    with AGL 5 (10 m) the figure gets there facing west."""
    rows = ["...#....", "##.#....", "...#...."]
    s3 = scen(rows, [fig("m", (0, 0), agl=3, facing="s")], [dummy(at=(6, 1))])
    assert not can(play(s3), "move", cell=(0, 2))
    s5 = scen(rows, [fig("m", (0, 0), agl=5, facing="s")], [dummy(at=(6, 1))])
    b = play(s5, [move("m", 0, 2)])
    e = only(evs(b, "move"))
    assert e["metres"] == 9 and e["turn_m"] == 3 and e["facing"] == "w"
    assert e["path"] == [[0, 0], [1, 0], [2, 0], [2, 1], [2, 2], [1, 2], [0, 2]]
    st = play(s5).state
    assert RS.move_options(st, st.actor)[st.grid.index(0, 2)] == 9


def test_turns_are_metres_on_larger_squares():
    """seed 003, Move: turning costs metres, not squares: on 1.5 m squares east, east and
    south-east to (3, 1) is 1.5 + 1.5 + 0.5 + 2.25 = 5.75 m (the old rule: 5.25 m)."""
    s = scen(open_map(8, 3), [fig("m", (0, 0), agl=3, facing="e")], [dummy(at=(7, 2))], cell_m=1.5)
    b = play(s, [move("m", 3, 1)])
    e = only(evs(b, "move"))
    assert e["metres"] == 5.75 and e["turn_m"] == 0.5 and e["mode"] == "run"


def test_enemies_block_the_path_and_the_detour_pays_its_turns():
    """seed 003, Move: every change of direction counts; enemy figures block passage (the
    grid's rule). Facing east at (0, 1) with an enemy at (1, 1), (2, 1) is reached round
    it: 0.5 m to turn north-east + 1.5 + 1 m to turn south-east + 1.5 = 4.5 m, or the
    mirror image by the south. Equally cheap ways in: the last step nearest the bearing
    to the destination (east), then the lower heading - north-east (assumption path_turns)."""
    s = scen(open_map(6, 3), [fig("m", (0, 1), agl=3, facing="e")], [dummy("t", (1, 1)), dummy("u", (5, 2))])
    b = play(s, [move("m", 2, 1)])
    e = only(evs(b, "move"))
    assert e["metres"] == 4.5 and e["turn_m"] == 1.5
    assert e["path"] == [[0, 1], [1, 2], [2, 1]] and e["facing"] == "ne"


def test_path_turns_assumption_is_recorded():
    """The reading of "one meter per 90 degrees" for the grid's 45-degree bends is an
    assumption with its reason (data.yaml)."""
    a = ASSUMPTIONS["path_turns"]
    assert "45" in a["value"] and a["reason"]
    assert "move_facing" not in ASSUMPTIONS


# ---------------------------------------------------------------------------------------
# seed 003, Ranged Weapon Attacks: "A weapon may not be fired at a target closer than 1m."

def test_closer_than_one_metre_is_measured_in_metres():
    """seed 003, Ranged Weapon Attacks: "A weapon may not be fired at a target closer than
    1m." On 1.5 m squares a figure in the next square (diagonal or not) is 1.5 m away: it
    may be fired at (the old rule refused any touching square, whatever its size)."""
    s = scen(open_map(6, 3), [shooter("s", (1, 1))], [dummy(at=(2, 2))], cell_m=1.5)
    b = play(s)
    assert can_attack(b, "t", "pistol")
    b = play(s, [attack("s", "t", "pistol", [6, 1, 1])])
    assert only(evs(b, "attack"))["result"] == "hit" and who(b, "t").res["damage"] == 5


def test_half_metre_squares_two_away_are_still_too_close():
    """seed 003, Ranged Weapon Attacks: "closer than 1m" on 0.5 m squares: a target two
    squares away is within 1 m and cannot be fired at (the old rule allowed it); three
    squares away (1.5 m) it can (assumption range_measure)."""
    b = play(scen(open_map(8, 3), [shooter("s", (1, 1))], [dummy("t", (3, 1)), dummy("u", (4, 2))], cell_m=0.5))
    assert not can_attack(b, "t", "pistol") and can_attack(b, "u", "pistol")
    assert "range_measure" in ASSUMPTIONS


# ---------------------------------------------------------------------------------------
# seed 003, Body Attacks

def test_body_attack_no_damage_at_zero_or_below():
    """seed 003, Body Attacks: "attacker deals damage equal to (STR + modifiers) - defenders
    (END + modifiers)" - STR 2 bare-handed against END 4 + metal plating 2 is -4: the hit
    does nothing (the old rule dealt a minimum of 1)."""
    att = fig("m", (1, 1), str_=2)
    d = dummy(at=(2, 1), kind="metalface", end=4, agl=1, str_=1, armour="metal_plating")
    b = play(scen(open_map(), [att], [d]), [attack("m", "t", "unarmed", [6, 1, 1])])
    assert only(evs(b, "attack"))["result"] == "hit"
    assert only(evs(b, "damage"))["wound"] == 0 and who(b, "t").res["damage"] == 0
    assert who(b, "t").res["level"] == "perfect"


def test_body_attack_weapon_counts_on_the_attack_roll():
    """seed 003, Body Attacks: "To make a body attack the attacker must roll STR and add any
    weapons or modifiers." STR 2 with a knife (+2): the kept 3 + knife 2 = 5 beats the
    dodge's 4 (the old roll, 3, missed); the roll names the knife as a modifier."""
    att = fig("m", (1, 1), str_=2, weapons=("knife",))
    d = dummy(at=(2, 1), str_=1, agl=1)
    b = play(scen(open_map(), [att], [d]), [attack("m", "t", "knife", [3, 1, 4])])
    r = only(rolls(b, "body attack"))
    assert r["total"] == 5 and {"source": "weapon", "value": 2} in r["modifiers"]
    assert only(evs(b, "attack"))["result"] == "hit"
    assert who(b, "t").res["damage"] == (2 + 2) - 2


def test_body_attack_odds_count_the_weapon():
    """seed 003, Body Attacks: the weapon is on the attack roll, so the odds a policy sees
    count it too (STR 1 + knife 2 against AGL 1: 3-8 against 1-6)."""
    att = fig("m", (1, 1), str_=1, weapons=("knife",))
    d = dummy(at=(2, 1), str_=1, agl=1)
    b = play(scen(open_map(), [att], [d]))
    odds = RS.attack_odds(b.state, b.state.actor, Action("attack", target="t", weapon="knife"))
    assert abs(odds["p_hit"] - 26 / 36) < 1e-9


# ---------------------------------------------------------------------------------------
# common.md 1: every roll names what it is for and its modifiers

def test_every_roll_event_has_check_and_modifiers():
    """Every metalface roll event carries `check` (a snake_case key), `modifiers` (a list
    of {source, value}: total = kept die + their sum) and `dice_modifiers` (changes to the
    number of dice): initiative ties, body attack, block and targeting. m is Weakening (6
    of 20 damage: -2 to body values), so its STR 3 and AGL 3 roll one die each."""
    m = fig("m", (1, 1), agl=3, skills={"melee": 1}, weapons=("knife", "pistol"), damage=6)
    t = dummy("t", (2, 1), agl=1, str_=5, skills={"melee": 1})
    s = scen(open_map(8, 3), [m], [t, dummy("u", (6, 2), agl=1)], initiative="roll")
    b = play(s, [attack("m", "t", "knife", [5, 1, 1, 1, 1, 1]), attack("m", "u", "pistol", [2, 2, 2])],
             start_dice=[6, 1, 1])
    by = {r["check"]: r for r in evs(b, "roll")}
    assert set(by) == {"initiative", "body_attack", "block", "targeting"}
    for r in evs(b, "roll"):
        assert isinstance(r["modifiers"], list) and isinstance(r["dice_modifiers"], list)
        assert all(set(x) == {"source", "value"} for x in r["modifiers"] + r["dice_modifiers"])
        assert r["total"] == r["kept"] + sum(x["value"] for x in r["modifiers"])
    assert by["body_attack"]["modifiers"] == [{"source": "skill", "value": 1}, {"source": "weapon", "value": 2}]
    assert by["body_attack"]["dice_modifiers"] == [{"source": "status weakening", "value": -2}]
    assert by["body_attack"]["total"] == 8 and by["block"]["total"] == 2
    assert [x["source"] for x in by["targeting"]["modifiers"]] == ["skill", "range", "attacker", "target"]


# ---------------------------------------------------------------------------------------
# common.md 2: starting state and inline gear in scenarios

def test_a_figure_starts_prone_and_suffering_with_no_setup_moves():
    """seed 003, Status Levels ("Suffering: 50% or less: -4 to all body values, -2 to all mind
    values") and Move (lying is a body position): a figure written `conditions: [prone,
    suffering]` starts lying with the least damage that makes it Suffering (10 of 20), so
    the first shot at it rolls one die fewer (partial cover: lying) and its own PER 3 rolls
    one die (3 - 2)."""
    t = dummy(at=(5, 1), per=3, skills={"firearms": 0}, weapons=("pistol",), conditions=["prone", "suffering"])
    s = scen(open_map(), [shooter()], [t])
    tt = who(play(s), "t")
    assert tt.res["posture"] == "lie" and tt.conditions == {"prone", "suffering"} and tt.res["damage"] == 10
    assert RS.val(tt, "per") == 1 and RS.val(tt, "end") == -2
    b = play(s, [attack("s", "t", "pistol", [6, 1])])
    r = only(rolls(b, "targeting"))
    assert len(r["dice"]) == 2 and {"source": "partial cover (lying)", "value": -1} in r["dice_modifiers"]
    assert only(evs(b, "damage"))["wound"] == 7 - (2 - 4)


def test_starting_state_values():
    """common.md 2: `state` sets what the rules track - an empty pistol (no shot until a
    reload), a target that ran in its latest turn (seed 003, Targeting Modifiers: target
    running/sprinting -1), damage taken."""
    s = scen(open_map(), [shooter(state={"ammo": {"pistol": 0}})], [dummy(state={"moved": "running", "damage": 3})])
    b = play(s)
    assert not can_attack(b, "t", "pistol") and can(b, "reload", weapon="pistol")
    assert who(b, "t").res["damage"] == 3
    s = scen(open_map(), [shooter()], [dummy(state={"moved": "running"})])
    b = play(s, [attack("s", "t", "pistol", [2, 2, 2])])
    assert {"source": "target", "value": -1} in only(rolls(b, "targeting"))["modifiers"]


def test_inline_weapon_and_armour():
    """common.md 2: a weapon and armour written out in the scenario. An armour of 3 points
    (none in the table has 3 but heavy plating) and a beam 'zapper' of damage 8 with one
    charged shot: 8 - (END 2 + 3) = 3 (assumption ranged_damage)."""
    zap = {"name": "zapper", "kind": "beam", "damage": 8, "capacity": 1, "cells": 1, "skill": "beam"}
    s = scen(open_map(), [fig("z", (0, 1), weapons=(zap,), skills={"beam": 1})],
             [dummy(armour={"name": "vest", "points": 3})])
    b = play(s, [attack("z", "t", "zapper", [6, 1, 1])])
    assert only(evs(b, "damage"))["wound"] == 3
    assert who(b, "z").res["ammo"]["zapper"] == 0 and can(b, "reload", weapon="zapper")
    tr = RS.tracked(b.state, who(b, "t"))
    assert tr["armour"] == {"name": "vest", "points": 3}


def test_inline_kit_repairs_at_the_kit_rate():
    """seed 003, Repairing / Healing: "Restore three (3) point of Status for each skill level
    per minute that the skill is applied with a kit" - an inline kit that treats metalfaces."""
    mech = fig("k", (0, 1), skills={"robotics": 2}, items=[{"name": "toolkit", "kind": "kit", "treats": "metalface"}])
    pat = fig("p", (1, 1), kind="metalface", damage=5)
    b = play(scen(open_map(), [mech, pat], [dummy(at=(9, 1))]))
    assert RS.repair_rate_per_minute(who(b, "k"), who(b, "p")) == 6


@pytest.mark.parametrize("extra, field", [
    ({"state": {"wounds": 2}}, "state"),
    ({"state": {"ammo": {"pistol": 13}}}, "state.ammo.pistol"),
    ({"state": {"ammo": {"knife": 1}}}, "state.ammo.knife"),
    ({"conditions": [{"name": "prone", "rounds": 2}]}, "conditions[0].rounds"),
    ({"conditions": ["stunned"]}, "conditions[0]"),
    ({"conditions": ["critical"], "damage": 1}, "conditions"),
    ({"armour": {"name": "vest"}}, "armour.points"),
    ({"weapons": [{"name": "zap", "kind": "laser", "damage": 1}]}, "weapons[0].kind"),
])
def test_bad_starting_state_names_the_field(extra, field):
    """Bad input gets a ScenarioError naming the field path and what was expected."""
    s = scen(open_map(), [shooter(**extra)], [dummy()])
    with pytest.raises(ScenarioError) as e:
        play(s)
    assert field in str(e.value) and "expected" in str(e.value).lower()


# ---------------------------------------------------------------------------------------
# common.md 3: tracked()

def test_tracked_reports_what_the_rules_track():
    """common.md 3: Status and its thresholds, conditions, weapons, the turn economy."""
    s = scen(open_map(), [shooter(state={"damage": 6})], [dummy()])
    b = play(s, [attack("s", "t", "pistol", [2, 2, 2]), move("s", 1, 1)])
    tr = RS.tracked(b.state, who(b, "s"))
    assert (tr["status"], tr["max_status"], tr["level"]) == (14, 20, "weakening")
    assert tr["level_thresholds"] == {"weakening": 15, "suffering": 10, "critical": 5, "non_responsive": 0}
    assert tr["back_up_at"] == 5 and tr["conditions"] == [{"name": "weakening", "rounds": None}]
    assert tr["weapons"]["pistol"]["ammo"] == 11 and tr["weapons"]["pistol"]["spare"] == 3
    assert tr["turn"]["half_turns_used"] == 2 and tr["turn"]["move_m"] == 1
    assert tr["facing"] == "e" and "turn" not in RS.tracked(b.state, who(b, "t"))
    json.dumps(tr)


def test_path_search_matches_a_plain_search_over_headings():
    """The pruned search in paths.py gives every cell the cost a plain Dijkstra over (square,
    heading) gives, blockers included, and its path costs what it says (random maps with
    walls, cover and difficult ground; 1 m and 1.5 m squares)."""
    import heapq

    import numpy as np

    from rules.grid import Grid
    from rules.systems.metalface import paths
    from rules.systems.metalface.geometry import STEPS, bearing

    rng = np.random.default_rng(32)
    for trial in range(12):
        rows = ["".join(rng.choice(list("......#h,"), 9)) for _ in range(7)]
        cell_m = (1.0, 1.5)[trial % 2]
        g = Grid(rows, cell_m=cell_m)
        free = [i for i in range(g.n) if g.passable[i]]
        start = int(rng.choice(free))
        facing = int(rng.integers(8))
        blockers = [int(x) for x in rng.choice(free, 3) if x != start]
        budget = float(rng.integers(2, 13))
        got = paths.moves(g, start, facing, budget, 0.5, blockers)
        dist = {(start, facing): 0.0}
        heap = [(0.0, start, facing)]
        while heap:
            d, c, h = heapq.heappop(heap)
            if d > dist[(c, h)]:
                continue
            for j, units in g.neighbours(c):
                hs = bearing(g, c, j)
                nd = d + STEPS[h][hs] * 0.5 + units * cell_m / 2
                if j in blockers or nd > budget + 1e-9 or nd >= dist.get((j, hs), 1e9):
                    continue
                dist[(j, hs)] = nd
                heapq.heappush(heap, (nd, j, hs))
        want: dict[int, float] = {}
        for (c, _), d in dist.items():
            if c != start:
                want[c] = min(d, want.get(c, 1e9))
        assert {c: round(v[0], 6) for c, v in got.items()} == {c: round(v, 6) for c, v in want.items()}
        for c, (m, h) in got.items():
            path, pm, ph = paths.path_to(g, start, facing, c, budget, 0.5, blockers)
            assert path[0] == start and path[-1] == c and not set(path) & set(blockers)
            turns = [facing] + [bearing(g, p, q) for p, q in zip(path, path[1:])]
            cost = paths.walked_m(g, path) + 0.5 * sum(STEPS[x][y] for x, y in zip(turns, turns[1:]))
            assert abs(cost - m) < 1e-6 and ph == turns[-1] == h
