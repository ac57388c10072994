"""The choices seed 003 gives a figure are the figure's decisions (issue #32, rules/choices.py,
rules/systems/metalface/choices.py).

Each test quotes the seed 003 sentence (/work/shared/seeds/003_*.txt) and plays a replay
with `questions: ask`: the figure asked answers in a step of its own, with the dice rolled
after the question, differently from the default, and the outcome differs. Before #32 the
engine chose by itself: no question went out and the `choose` steps were refused. Helpers
(tests/metalface_setup.py) and conventions as in tests/test_metalface_*.py (1 m squares,
`initiative: fixed`, strict replays).
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from rules.actions import Action
from rules.grid import Grid
from rules.systems.metalface import paths
from rules.systems.metalface.geometry import NAMES, STEPS, bearing
from tests.metalface_setup import (DATA, RS, act, attack, dummy, econ, evs, fig, move, only, open_map, play,
                                   rolls, scen, shooter, who)

ASSUMPTIONS = {a["key"]: a for a in DATA["assumptions"]}
BODY = ("seed 003, Body Attacks: 'The defender must also roll to defend. Dodging is done in the same way, "
        "but uses the AGL value.'")
MOVE = "seed 003, Move: 'Turning or changing direction counts as one meter per 90 degrees.'"
REPAIR = ("seed 003, Repairing / Healing: 'Status for metalface can be repaired by Tekkers or by any character "
          "with the robotics or healing skill and a Repair Kit.'")


def choose(actor: str, option: str, dice: list[int] = ()) -> dict:
    return act(actor, "choose", dice, option=option)


def choices(b, key: str) -> list[str]:
    return [e["choice"] for e in evs(b, "choice", key=key)]


# ---------------------------------------------------------------------------------------
# defence: block or dodge

def _duel() -> dict:
    """m (STR 3, knife +2) attacks t (STR 2, AGL 3, dodge 1): dodging is t's better roll."""
    return scen(open_map(), [fig("m", (1, 1), str_=3, weapons=("knife",))],
                [dummy(at=(2, 1), str_=2, agl=3, skills={"dodge": 1})])


def test_the_defender_chooses_to_block_or_dodge():
    """BODY: the defender rolls to defend, blocking with STR or dodging with AGL - its choice,
    made after the attack roll. The attack rolls 5 + knife 2 = 7. Dodging (AGL 3 + dodge 1)
    with 6s gives 7, a tie, a miss; blocking (STR 2, no melee) with 6s gives 6: a hit for
    (3 + 2) - 2 = 3."""
    at = attack("m", "t", "knife", [3, 5, 2])
    b = play(_duel(), [at], questions="ask")
    q = b.question
    assert (q.figure, q.key, q.options, q.default) == ("t", "defence", ("block", "dodge"), "dodge")
    assert b.state.actor.id == "t" and "attack roll 7" in q.text    # the fight waits before the roll's event
    dodge = play(_duel(), [at, choose("t", "dodge", [6, 6, 6])], questions="ask")
    block = play(_duel(), [at, choose("t", "block", [6, 6])], questions="ask")
    assert only(rolls(dodge, "dodge"))["total"] == 7 and only(evs(dodge, "attack"))["result"] == "miss"
    r = only(rolls(block, "block"))
    assert (r["check"], r["pool"], r["total"], r["actor"]) == ("block", "STR 2", 6, "t")
    assert only(evs(block, "attack"))["result"] == "hit" and who(block, "t").res["damage"] == 3
    assert who(dodge, "t").res["damage"] == 0
    assert choices(block, "defence") == ["block"] and block.state.actor.id == "m"


def test_without_an_answer_the_defence_is_the_better_expected_roll():
    """assumption body_attack_rolls: the default answer (what the scripted policies give) is
    the better expected total, as before #32; the log shows the choice."""
    b = play(_duel(), [attack("m", "t", "knife", [3, 5, 2, 6, 6, 6])])
    assert choices(b, "defence") == ["dodge"] and only(rolls(b, "dodge"))["total"] == 7
    assert "defender chooses" in ASSUMPTIONS["body_attack_rolls"]["value"]


# ---------------------------------------------------------------------------------------
# end_facing: which of equally cheap paths

def _detour() -> dict:
    """m at (0, 1) facing east, an enemy at (1, 1): (2, 1) is 4.5 m round it by the north or
    by the south."""
    return scen(open_map(6, 3), [fig("m", (0, 1), agl=3, facing="e")], [dummy("t", (1, 1)), dummy("u", (5, 2))])


def test_the_mover_chooses_among_equally_cheap_paths_and_so_its_facing():
    """MOVE: both ways round the enemy cost 0.5 + 1.5 + 1 + 1.5 = 4.5 m; which one, and so
    whether the figure ends facing north-east or south-east, is the figure's choice (the
    engine's was north-east: the last step nearest the bearing, then the lower heading)."""
    b = play(_detour(), [move("m", 2, 1)], questions="ask")
    q = b.question
    assert (q.figure, q.key, q.options, q.default) == ("m", "end_facing", ("ne", "se"), "ne")
    b = play(_detour(), [move("m", 2, 1), choose("m", "se")], questions="ask")
    e = only(evs(b, "move"))
    assert e["path"] == [[0, 1], [1, 0], [2, 1]] and e["facing"] == "se" and e["metres"] == 4.5
    assert who(b, "m").res["facing"] == NAMES.index("se") and econ(b)["move_m_used"] == 4.5
    assert choices(b, "end_facing") == ["se"]
    d = play(_detour(), [move("m", 2, 1)])
    assert only(evs(d, "move"))["facing"] == "ne" and choices(d, "end_facing") == ["ne"]


def test_a_move_with_one_cheapest_path_asks_nothing():
    """MOVE: straight ahead there is one cheapest path: no question, no choice event."""
    s = scen(open_map(6, 3), [fig("m", (0, 1), agl=3, facing="e")], [dummy("u", (5, 2))])
    b = play(s, [move("m", 2, 1)], questions="ask")
    assert b.question is None and not evs(b, "choice") and only(evs(b, "move"))["facing"] == "e"


def test_end_headings_are_those_of_every_cheapest_path():
    """The headings `end_headings` offers are exactly the last steps of the cheapest paths a
    plain Dijkstra over (square, heading) finds, and `path_to` follows each at that cost
    (random maps with walls, cover and difficult ground, blockers; 1 m and 1.5 m squares)."""
    rng = np.random.default_rng(33)
    for trial in range(10):
        rows = ["".join(rng.choice(list("......#h,"), 9)) for _ in range(7)]
        cell_m = (1.0, 1.5)[trial % 2]
        g = Grid(rows, cell_m=cell_m)
        free = [i for i in range(g.n) if g.passable[i]]
        start = int(rng.choice(free))
        facing = int(rng.integers(8))
        blockers = [int(x) for x in rng.choice(free, 3) if x != start]
        budget = float(rng.integers(2, 13))
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
        got = paths.moves(g, start, facing, budget, 0.5, blockers)
        for c, (m, h0) in got.items():
            want = {h for (cc, h), d in dist.items() if cc == c and abs(d - m) < 1e-9}
            hs = paths.end_headings(g, start, facing, c, budget, 0.5, blockers)
            assert hs[0] == h0 and set(hs) == want and len(hs) == len(set(hs))
            for h in hs:
                path, pm, ph = paths.path_to(g, start, facing, c, budget, 0.5, blockers, heading=h)
                turns = [facing] + [bearing(g, p, q) for p, q in zip(path, path[1:])]
                cost = paths.walked_m(g, path) + 0.5 * sum(STEPS[x][y] for x, y in zip(turns, turns[1:]))
                assert path[0] == start and path[-1] == c and not set(path) & set(blockers)
                assert abs(cost - m) < 1e-6 and ph == h == turns[-1]


# ---------------------------------------------------------------------------------------
# face_turn: how far to turn towards a target outside the front arc

def _behind() -> dict:
    """s (AGL 2: walks 2 m) faces north; its target is due south, out of its front arc."""
    return scen(open_map(3, 9), [shooter("s", (1, 0), agl=2, facing="n")], [dummy(at=(1, 8))])


def test_the_attacker_chooses_how_far_it_turns_to_face_its_target():
    """MOVE: turning counts 1 m per 90 degrees, and how far the figure turns is its own:
    turning to face the target (south, 2 m) or only until the target is in its front arc
    (east or west, 1 m; assumption front_arc). Turning east leaves 1 m of the walk."""
    at = attack("s", "t", "pistol")
    b = play(_behind(), [at], questions="ask")
    q = b.question
    assert (q.figure, q.key, q.default) == ("s", "face_turn", "s") and q.options == ("s", "e", "w", "se", "sw")
    full = play(_behind(), [at, choose("s", "s", [6, 6, 6])], questions="ask")
    part = play(_behind(), [at, choose("s", "e", [6, 6, 6])], questions="ask")
    assert only(evs(full, "effect", target="s"))["metres"] == 2 and econ(full)["move_m_left"] == 0
    assert only(evs(part, "effect", target="s"))["metres"] == 1 and econ(part)["move_m_left"] == 1
    assert who(part, "s").res["facing"] == NAMES.index("e") and who(full, "s").res["facing"] == NAMES.index("s")
    assert only(evs(part, "attack"))["result"] == "hit" and choices(part, "face_turn") == ["e"]
    assert RS.face_options(who(play(_behind()), "s"), NAMES.index("se")) == (3, 1, 2)


# ---------------------------------------------------------------------------------------
# repair_method

def _garage() -> dict:
    """A Tekker (tekker 1) with robotics 3 and a Repair Kit next to a damaged metalface."""
    tek = fig("tek", (0, 1), skills={"tekker": 1, "robotics": 3}, items=["repair_kit"])
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=5)
    return scen(open_map(), [tek, mf], [dummy(at=(9, 1))])


def test_the_healer_chooses_its_repair_method():
    """REPAIR: a Tekker repairs 10 a minute per level (1 in a 6-second turn at level 1);
    robotics 3 with a Repair Kit 3 x 3 = 9 a minute (0.9 a turn: nothing yet, carried over).
    The engine used the faster; the healer may pick either."""
    h = act("tek", "heal", target="mf")
    b = play(_garage(), [h], questions="ask")
    q = b.question
    assert (q.figure, q.key, q.options, q.default) == ("tek", "repair_method", ("tekker", "kit"), "tekker")
    tek = play(_garage(), [h, choose("tek", "tekker")], questions="ask")
    kit = play(_garage(), [h, choose("tek", "kit")], questions="ask")
    assert who(tek, "mf").res["damage"] == 4 and who(kit, "mf").res["damage"] == 5
    assert only(evs(kit, "effect", healer="tek"))["method"] == "repair kit"
    assert who(kit, "mf").res["repair_acc"] == 540 * 6
    assert choices(kit, "repair_method") == ["kit"]


# ---------------------------------------------------------------------------------------
# the vocabulary

@pytest.mark.parametrize("build", [_duel, _detour, _behind, _garage])
def test_every_question_answers_from_the_rulesets_answers(build):
    """The envs' answer block reads `answers`: every option asked is in it."""
    first = {_duel: attack("m", "t", "knife", [3, 5, 2]), _detour: move("m", 2, 1),
             _behind: attack("s", "t", "pistol"), _garage: act("tek", "heal", target="mf")}[build]
    b = play(build(), [first], questions="ask")
    assert set(b.question.options) <= set(RS.answers)
    assert b.legal_actions() == [Action("choose", option=o) for o in b.question.options]
    assert RS.may_ask(play(build()).state, Action.from_dict(first["action"], b.state.grid.width))
