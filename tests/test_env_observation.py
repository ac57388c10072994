"""The observation written over per-map tables (envs/observation.py) says what the map and
the state say, cell by cell: checked against the grid's own answers (line of sight, terrain,
the legal moves) on padded, exact and cropped layouts, and the tables are built once per
map and go away with it."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from envs.encoding import GRID_CHANNELS, layout_for
from envs.observation import _TABLES, map_tables
from envs.skirmish import SkirmishEnv
from rules.grid import Grid

CH = {name: i for i, name in enumerate(GRID_CHANNELS)}


def _states(env: SkirmishEnv, seed: int, steps: int = 40):
    """(state, actor, legal actions, observation) at the agent's decisions of a seeded rollout."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        s = env.battle.state
        if not s.over and s.actor is not None and s.actor.team == env.agent_team:
            yield s, s.actor, env.rs.legal_actions(s), obs
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if term or trunc:
            obs, _ = env.reset(seed=int(rng.integers(1 << 30)))


@pytest.mark.parametrize("map_size", [None, (24, 30), (9, 13)], ids=["exact", "padded", "cropped"])
def test_grid_channels_say_what_the_map_says(map_size):
    env = SkirmishEnv(scenario="cortex/warehouse", opponent="random", map_size=map_size)
    H, W = env.layout.height, env.layout.width
    seen = 0
    for s, actor, legal, obs in _states(env, 3):
        g = s.grid
        grid = obs["grid"]
        moves = {a.cell for a in legal if a.kind == "move"}
        for y in range(H):
            for x in range(W):
                inside = x < g.width and y < g.height
                cell = g.index(x, y) if inside else None
                assert grid[CH["in_map"], y, x] == float(inside)
                assert grid[CH["impassable"], y, x] == (float(g.terrain[cell].blocks_move) if inside else 1.0)
                assert grid[CH["cover"], y, x] == np.float32(g.terrain[cell].cover / 4.0 if inside else 0.0)
                assert grid[CH["line_of_sight"], y, x] == float(inside and g.los(actor.pos, cell))
                assert grid[CH["reachable"], y, x] == float(inside and cell in moves)
                assert grid[CH["actor"], y, x] == float(inside and actor.pos == cell)
        seen += 1
    assert seen > 5


def test_the_move_block_and_the_reachable_cells_give_the_same_observation():
    env = SkirmishEnv(scenario="metalface/foundry", opponent="random", map_size=(24, 30))
    lay = env.layout
    for s, actor, legal, _ in _states(env, 5, 30):
        by_cells = lay.observe(s, actor, actor.team, [a.cell for a in legal if a.kind == "move"])
        by_mask = lay.observe(s, actor, actor.team, moves=lay.move_block(lay.mask(lay.legal_map(s, actor, legal))))
        for k in by_cells:
            assert by_cells[k].tobytes() == by_mask[k].tobytes(), k


def test_tables_are_built_once_per_map_and_go_with_it():
    rows = ["....", ".##.", "...."]
    g = Grid(rows)
    t = map_tables(g, 5, 6)
    assert map_tables(g, 5, 6) is t
    assert map_tables(g, 3, 4) is not t
    assert t.static.shape == (5, 5, 6) and not t.static.flags.writeable
    assert t.pos[g.index(3, 2)] == 2 * 6 + 3
    assert map_tables(g, 2, 2).pos[g.index(3, 2)] == -1   # cropped away
    held = len(_TABLES)
    ref = weakref.ref(g)
    del g, t
    gc.collect()
    assert ref() is None and len(_TABLES) == held - 1


def test_the_mask_is_computed_once_a_decision_and_copied_out():
    env = SkirmishEnv(scenario="cortex/duel", opponent="random")
    _, info = env.reset(seed=1)
    m = env.action_masks()
    assert m.dtype == bool and np.array_equal(m, info["action_mask"].astype(bool))
    info["action_mask"][:] = 0     # a caller's copy: the env's mask stays
    m[:] = False
    assert env.action_masks().any()
    assert layout_for(env.rs, *env.map_size, env.layout.n_enemy, env.layout.n_ally) is env.layout
