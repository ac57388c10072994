"""Seeded procedural battle maps and teams, for training and for held-out evaluation.

`generate_scenario(ruleset, seed)` returns a scenario mapping that
`rules.scenario.load_scenario` accepts: a map of the given size (walls, clusters of
light/medium/heavy/total cover, patches of difficult ground, open lanes kept clear) and two
teams drawn from the ruleset's bestiary (`Ruleset.templates()`), starting at opposite
ends. Everything comes from `numpy.random.default_rng(seed)`, so a seed always gives the
same scenario, named `generated/{ruleset}/{seed}`.

Mirrored mode (the default) makes a fair fight: the map is point-symmetric through its
centre (cell (x, y) holds what (W-1-x, H-1-y) holds), the second team has the same
templates as the first, and each of its figures starts on the reflection of the matching
first-team figure's cell. Equal policies then win about half the time.

Seed ranges: training uses seeds below `HELDOUT_SEED` (1_000_000); held-out evaluation
maps use seeds at or above it (`heldout_seeds`), so no evaluation map is ever trained on.

This module needs only numpy and `rules/` (no gymnasium), so evaluation and GM tools can
use it without the RL extras.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from rules.errors import TacticaError
from rules.ruleset import get_ruleset

#: the first seed of the held-out range; training seeds are below it
HELDOUT_SEED = 1_000_000
#: map characters (rules/grid.py DEFAULT_LEGEND): cover levels light, medium, heavy, total
COVER_CHARS = ("l", "m", "h", "T")
COVER_WEIGHTS = (0.25, 0.35, 0.3, 0.1)
FLOOR, WALL, DIFFICULT = ".", "#", ","
SIZE_RANGE = ((12, 22), (10, 16))   # width, height drawn from these when not given
TEAM_NAMES = ("red", "blue")
#: team sizes drawn when `team_size` is not given: 1 to this
MAX_TEAM_SIZE = 4


def heldout_seeds(n: int, start: int = 0) -> list[int]:
    """The first `n` held-out seeds (from `HELDOUT_SEED + start`)."""
    return [HELDOUT_SEED + start + k for k in range(n)]


def check_seed(seed: int, split: str) -> None:
    """Raise unless `seed` belongs to `split` ('train': < HELDOUT_SEED, 'heldout': >= it)."""
    if split == "train" and not 0 <= seed < HELDOUT_SEED:
        raise TacticaError(f"seed {seed} is not a training seed", field="seed",
                           expected=f"0 <= seed < {HELDOUT_SEED} (held-out maps use the seeds above)")
    if split == "heldout" and seed < HELDOUT_SEED:
        raise TacticaError(f"seed {seed} is not a held-out seed", field="seed", expected=f"seed >= {HELDOUT_SEED}")
    if split not in ("train", "heldout"):
        raise TacticaError(f"unknown split {split!r}", field="split", expected="train or heldout")


# -- maps ----------------------------------------------------------------------------------
def generate_map(rng: np.random.Generator, width: int, height: int, mirrored: bool = True) -> list[str]:
    """Rows of a random map (not yet checked for connectivity)."""
    grid = [[FLOOR] * width for _ in range(height)]
    area = width * height
    # a mirrored map keeps only what lies in its first half: place twice as much
    scale = 2 if mirrored else 1
    # walls: short straight segments
    for _ in range(scale * int(rng.integers(1, 3 + area // 60))):
        length = int(rng.integers(2, 6))
        horizontal = bool(rng.integers(2))
        x, y = int(rng.integers(width)), int(rng.integers(height))
        for k in range(length):
            cx, cy = (x + k, y) if horizontal else (x, y + k)
            if 0 <= cx < width and 0 <= cy < height:
                grid[cy][cx] = WALL
    # cover clusters: blobs of one cover level
    for _ in range(scale * int(rng.integers(2 + area // 40, 3 + area // 18))):
        ch = COVER_CHARS[int(rng.choice(len(COVER_CHARS), p=COVER_WEIGHTS))]
        x, y = int(rng.integers(width)), int(rng.integers(height))
        for _ in range(int(rng.integers(1, 6))):
            grid[y][x] = ch
            dx, dy = ((1, 0), (-1, 0), (0, 1), (0, -1))[int(rng.integers(4))]
            x = min(width - 1, max(0, x + dx))
            y = min(height - 1, max(0, y + dy))
    # difficult ground: small rectangles
    for _ in range(scale * int(rng.integers(0, 2 + area // 90))):
        w, h = int(rng.integers(2, 4)), int(rng.integers(1, 3))
        x, y = int(rng.integers(width)), int(rng.integers(height))
        for cy in range(y, min(height, y + h)):
            for cx in range(x, min(width, x + w)):
                if grid[cy][cx] == FLOOR:
                    grid[cy][cx] = DIFFICULT
    if mirrored:
        n = area
        flat = [ch for row in grid for ch in row]
        for i in range(n // 2):
            flat[n - 1 - i] = flat[i]
        grid = [flat[r * width:(r + 1) * width] for r in range(height)]
    # open lanes: a row and a column kept clear (firing lines and ways through), and
    # their reflections on a mirrored map
    lane_y = int(rng.integers(height))
    lane_x = int(rng.integers(width))
    rows_clear = {lane_y, height - 1 - lane_y} if mirrored else {lane_y}
    cols_clear = {lane_x, width - 1 - lane_x} if mirrored else {lane_x}
    for cy in sorted(rows_clear):
        for cx in range(width):
            grid[cy][cx] = FLOOR
    for cx in sorted(cols_clear):
        for cy in range(height):
            grid[cy][cx] = FLOOR
    return ["".join(row) for row in grid]


def passable(ch: str) -> bool:
    return ch in (FLOOR, DIFFICULT)


def connected(rows: list[str], cells: list[tuple[int, int]]) -> bool:
    """Whether every cell in `cells` can reach the first one (8-way steps, no corner cutting)."""
    if not cells:
        return True
    h, w = len(rows), len(rows[0])
    seen = {cells[0]}
    todo = deque([cells[0]])
    while todo:
        x, y = todo.popleft()
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                nx, ny = x + dx, y + dy
                if (dx or dy) and 0 <= nx < w and 0 <= ny < h and (nx, ny) not in seen and passable(rows[ny][nx]):
                    if dx and dy and not (passable(rows[y][nx]) and passable(rows[ny][x])):
                        continue
                    seen.add((nx, ny))
                    todo.append((nx, ny))
    return all(c in seen for c in cells)


def _start_cells(rng: np.random.Generator, rows: list[str], k: int, vertical: bool) -> list[tuple[int, int]] | None:
    """k distinct free cells in the first team's end zone (left, or top when `vertical`)."""
    h, w = len(rows), len(rows[0])
    depth = max(2, (h if vertical else w) // 4)
    zone = [(x, y) for y in range(h) for x in range(w) if passable(rows[y][x])
            and ((y < depth) if vertical else (x < depth))]
    if len(zone) < k:
        return None
    idx = rng.choice(len(zone), size=k, replace=False)
    return [zone[int(i)] for i in sorted(idx)]


# -- teams ------------------------------------------------------------------------------------
def draw_team(rng: np.random.Generator, templates: list[str], size: int) -> list[str]:
    """`size` bestiary templates drawn with replacement."""
    return [templates[int(i)] for i in rng.integers(len(templates), size=size)]


def figure_ids(team_size: int | None = None) -> dict[str, str]:
    """Every figure id a generated scenario can hold (`team_size` figures a team, or up to
    `MAX_TEAM_SIZE`), with its team: the possible agents of a multi-agent env."""
    n = MAX_TEAM_SIZE if team_size is None else int(team_size)
    return {f"{name}{k + 1}": name for name in TEAM_NAMES for k in range(n)}


def _figure(template: str, team: int, k: int, at: tuple[int, int]) -> dict[str, Any]:
    """A figure of team `team` (its id as `figure_ids` lists it)."""
    label = template.replace("_", " ").title()
    return {"id": f"{TEAM_NAMES[team]}{k + 1}", "name": f"{label} ({TEAM_NAMES[team].title()} {k + 1})",
            "template": template, "at": [int(at[0]), int(at[1])]}


# -- scenarios --------------------------------------------------------------------------------
def generate_scenario(ruleset: str, seed: int, *, width: int | None = None, height: int | None = None,
                      team_size: int | None = None, mirrored: bool = True, round_limit: int = 20,
                      max_tries: int = 200) -> dict[str, Any]:
    """A scenario mapping for `load_scenario`, the same for the same arguments.

    `width`/`height`: map size in cells (drawn from `SIZE_RANGE` when None); `team_size`:
    figures per team (1-4 drawn when None; in unmirrored mode the second team's size is
    drawn separately); `mirrored`: point-symmetric map, same templates, reflected starts."""
    rs = get_ruleset(ruleset)
    templates = rs.templates()
    if not templates:
        raise TacticaError(f"ruleset {ruleset!r} has no bestiary templates", field="ruleset",
                           expected="a ruleset whose templates() is not empty")
    rng = np.random.default_rng([int(seed), 0x7AC71CA])
    if width is None:
        width = int(rng.integers(SIZE_RANGE[0][0], SIZE_RANGE[0][1] + 1))
    if height is None:
        height = int(rng.integers(SIZE_RANGE[1][0], SIZE_RANGE[1][1] + 1))
    if width < 4 or height < 4:
        raise TacticaError(f"map size {width}x{height} is too small", field="size", expected="at least 4x4 cells")
    size_a = team_size if team_size is not None else int(rng.integers(1, MAX_TEAM_SIZE + 1))
    size_b = size_a if (mirrored or team_size is not None) else int(rng.integers(1, MAX_TEAM_SIZE + 1))
    team_a = draw_team(rng, templates, size_a)
    team_b = list(team_a) if mirrored else draw_team(rng, templates, size_b)
    vertical = height > width
    for _ in range(max_tries):
        rows = generate_map(rng, width, height, mirrored)
        starts_a = _start_cells(rng, rows, size_a, vertical)
        if starts_a is None:
            continue
        if mirrored:
            starts_b = [(width - 1 - x, height - 1 - y) for x, y in starts_a]
        else:
            flipped = [r[::-1] for r in rows[::-1]]  # the far zone, seen from the other end
            sb = _start_cells(rng, flipped, size_b, vertical)
            if sb is None:
                continue
            starts_b = [(width - 1 - x, height - 1 - y) for x, y in sb]
        if set(starts_a) & set(starts_b) or not connected(rows, starts_a + starts_b):
            continue
        break
    else:  # pragma: no cover - tiny maps only
        raise TacticaError(f"no playable {width}x{height} map found for seed {seed}", field="seed",
                           expected="a larger map or another seed")
    kind = "mirrored" if mirrored else "random"
    return {
        "name": f"generated/{ruleset}/{seed}",
        "ruleset": ruleset,
        "description": f"Generated {kind} {width}x{height} map, {size_a} vs {size_b} (seed {seed}).",
        "round_limit": int(round_limit),
        "map": {"cell_m": float(rs.default_cell_m), "rows": rows},
        "teams": [
            {"name": TEAM_NAMES[0], "combatants": [_figure(t, 0, k, at) for k, (t, at) in enumerate(zip(team_a, starts_a))]},
            {"name": TEAM_NAMES[1], "combatants": [_figure(t, 1, k, at) for k, (t, at) in enumerate(zip(team_b, starts_b))]},
        ],
    }


def heldout_scenarios(ruleset: str, n: int, **kwargs: Any) -> list[dict[str, Any]]:
    """`n` held-out scenarios (mirrored by default), seeds `HELDOUT_SEED`, `HELDOUT_SEED + 1` ..."""
    kwargs.setdefault("mirrored", True)
    return [generate_scenario(ruleset, s, **kwargs) for s in heldout_seeds(n)]


def training_scenario(ruleset: str, seed: int, **kwargs: Any) -> dict[str, Any]:
    """A training scenario; `seed` must be below `HELDOUT_SEED`."""
    check_seed(seed, "train")
    return generate_scenario(ruleset, seed, **kwargs)
