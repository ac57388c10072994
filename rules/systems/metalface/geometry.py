"""Facings on the square grid: 8 compass directions, bearings and turning steps.

Direction 0 is north (towards row 0), then clockwise: 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW
(data.yaml assumption `facings`). A bearing is the direction nearest to the line from one
cell to another (the 22.5-degree boundaries never fall on whole cells).
"""

from __future__ import annotations

import math
from functools import lru_cache

from rules.grid import COMPASS_NAMES, Grid

NAMES = COMPASS_NAMES
WORDS = ("north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")
VECTORS = tuple((math.sin(i * math.pi / 4), -math.cos(i * math.pi / 4)) for i in range(8))


@lru_cache(maxsize=None)
def bearing_dxdy(dx: int, dy: int) -> int:
    """The direction (0-7) nearest to the step (dx, dy); -1 for no step."""
    if dx == 0 and dy == 0:
        return -1
    ang = math.atan2(dx, -dy)
    return int(round(ang / (math.pi / 4))) % 8


def bearing(g: Grid, a: int, b: int) -> int:
    w = g.width
    return bearing_dxdy(b % w - a % w, b // w - a // w)


STEPS = tuple(tuple(min((f2 - f1) % 8, (f1 - f2) % 8) for f2 in range(8)) for f1 in range(8))


def turn_steps(f1: int, f2: int) -> int:
    """45-degree steps of the shorter turn from facing f1 to f2 (0-4)."""
    return STEPS[f1][f2]


__all__ = ["NAMES", "WORDS", "VECTORS", "bearing", "bearing_dxdy", "turn_steps"]
