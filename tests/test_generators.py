"""Procedural maps and teams (envs/generators.py; ARCHITECTURE.md, envs/: "seeded procedural
maps and teams for training and for held-out tests").

- the same seed gives the same scenario; another seed another one;
- mirrored scenarios are point-symmetric through the map's centre, and the two teams have
  the same templates on reflected cells;
- every generated scenario loads, places nobody in a wall, and plays to its end;
- held-out seeds start at 1_000_000 and training seeds stay below it;
- the module imports no gymnasium (evaluation and GM tools use it without the rl extra).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from envs import generators as G
from evaluation.simulate import play_fight
from rules.errors import TacticaError
from rules.ruleset import available_rulesets, get_ruleset
from rules.scenario import build_state, load_scenario

SEEDS = [0, 1, 2, 17, 999_999, G.HELDOUT_SEED, G.HELDOUT_SEED + 5]


def test_same_seed_same_scenario() -> None:
    assert G.generate_scenario("cortex", 42) == G.generate_scenario("cortex", 42)
    assert G.generate_scenario("cortex", 42, mirrored=False) == G.generate_scenario("cortex", 42, mirrored=False)
    assert G.generate_scenario("cortex", 42)["map"] != G.generate_scenario("cortex", 43)["map"]
    assert G.generate_scenario("cortex", 42)["name"] == "generated/cortex/42"


@pytest.mark.parametrize("seed", SEEDS)
def test_mirrored_maps_are_point_symmetric_and_teams_mirror(seed: int) -> None:
    d = G.generate_scenario("cortex", seed)
    rows = d["map"]["rows"]
    h, w = len(rows), len(rows[0])
    for y in range(h):
        for x in range(w):
            assert rows[y][x] == rows[h - 1 - y][w - 1 - x], (x, y)
    a, b = d["teams"]
    assert [c["template"] for c in a["combatants"]] == [c["template"] for c in b["combatants"]]
    for ca, cb in zip(a["combatants"], b["combatants"]):
        assert cb["at"] == [w - 1 - ca["at"][0], h - 1 - ca["at"][1]]


@pytest.mark.parametrize("mirrored", [True, False])
@pytest.mark.parametrize("seed", SEEDS)
def test_generated_scenarios_load_with_nobody_in_a_wall(seed: int, mirrored: bool) -> None:
    d = G.generate_scenario("cortex", seed, mirrored=mirrored)
    spec, src = load_scenario(d)
    state = build_state(spec, src)
    occupied = set()
    for c in state.combatants:
        assert state.grid.passable[c.pos], f"{c.id} stands in {state.grid.terrain[c.pos].name}"
        assert c.pos not in occupied
        occupied.add(c.pos)
    assert len(state.teams) == 2


@pytest.mark.parametrize("size", [(8, 6), (16, 12), (30, 20)])
def test_requested_sizes_and_team_sizes(size: tuple[int, int]) -> None:
    d = G.generate_scenario("cortex", 7, width=size[0], height=size[1], team_size=3)
    rows = d["map"]["rows"]
    assert (len(rows[0]), len(rows)) == size
    assert [len(t["combatants"]) for t in d["teams"]] == [3, 3]


@pytest.mark.parametrize("ruleset", available_rulesets())
def test_every_ruleset_gets_scenarios_from_its_own_bestiary(ruleset: str) -> None:
    templates = set(get_ruleset(ruleset).templates())
    if not templates:
        pytest.skip(f"{ruleset} has no bestiary")
    d = G.generate_scenario(ruleset, 3, team_size=2)
    assert {c["template"] for t in d["teams"] for c in t["combatants"]} <= templates
    spec, src = load_scenario(d)
    r = play_fight(spec, {"red": "aggressive", "blue": "aggressive"}, 0, 0, src)
    assert r.reason


@pytest.mark.parametrize("seed", [3, 4, G.HELDOUT_SEED + 1])
@pytest.mark.parametrize("policy", ["aggressive", "tactical"])
def test_generated_scenarios_play_to_the_end(seed: int, policy: str) -> None:
    d = G.generate_scenario("cortex", seed, team_size=2, width=14, height=10)
    spec, src = load_scenario(d)
    r = play_fight(spec, {"red": policy, "blue": policy}, 0, 0, src)
    assert r.reason in ("last team standing", "no one left standing", "round limit")
    assert r.rounds <= spec.round_limit


def test_equal_play_on_mirrored_maps_wins_about_half() -> None:
    red = n = 0
    for seed in range(12):
        spec, src = load_scenario(G.generate_scenario("cortex", seed, team_size=2, width=14, height=10))
        for i in range(4):
            r = play_fight(spec, {"red": "aggressive", "blue": "aggressive"}, 1, i, src)
            if r.winner is not None:
                n += 1
                red += r.winner == "red"
    assert n >= 30
    assert 0.25 <= red / n <= 0.75


def test_heldout_and_training_seed_ranges() -> None:
    assert G.heldout_seeds(3) == [1_000_000, 1_000_001, 1_000_002]
    assert [d["name"] for d in G.heldout_scenarios("cortex", 2)] == ["generated/cortex/1000000",
                                                                      "generated/cortex/1000001"]
    G.check_seed(999_999, "train")
    G.check_seed(1_000_000, "heldout")
    with pytest.raises(TacticaError):
        G.check_seed(1_000_000, "train")
    with pytest.raises(TacticaError):
        G.training_scenario("cortex", 1_000_123)
    with pytest.raises(TacticaError):
        G.check_seed(5, "heldout")
    assert G.training_scenario("cortex", 5) == G.generate_scenario("cortex", 5)


def test_unknown_ruleset_and_tiny_maps_are_clear_errors() -> None:
    with pytest.raises(TacticaError):
        G.generate_scenario("nope", 1)
    with pytest.raises(TacticaError):
        G.generate_scenario("cortex", 1, width=3, height=3)


def test_generators_import_no_gymnasium() -> None:
    tree = ast.parse(Path(G.__file__).read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    assert names <= {"__future__", "collections", "typing", "numpy", "rules"}, names
