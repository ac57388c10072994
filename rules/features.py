"""`Feature`: one named number of an observation, with what it means, how it is scaled and its range.

The envs' encoding (envs/features.py: grid channels, unit features) and each ruleset's
action economy (`Ruleset.economy_table`) are tables of these rows; the encoder reads its
names and their order from the same tables, and docs/observations.md is rendered from them
(`python -m envs.describe`), so the names, the docs and the numbers cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Feature:
    """One named number: `meaning` in words, `scaling` (how the game's value becomes the
    number), and its range `low` .. `high` (None: no fixed bound on that side)."""

    name: str
    meaning: str
    scaling: str = "0/1 flag"
    low: float | None = 0.0
    high: float | None = 1.0

    def span(self) -> str:
        """The range in words: `0 .. 1`, `0 .. (no fixed bound)`."""
        lo = "(no fixed bound)" if self.low is None else f"{self.low:g}"
        hi = "(no fixed bound)" if self.high is None else f"{self.high:g}"
        return f"{lo} .. {hi}"


def flag(name: str, meaning: str) -> Feature:
    """A 0/1 feature."""
    return Feature(name, meaning)


def feature_names(table: Iterable[Feature]) -> tuple[str, ...]:
    """The names of a table's rows, in order."""
    return tuple(f.name for f in table)


def count(name: str, meaning: str) -> Feature:
    """A count (0 or more, no fixed upper bound)."""
    return Feature(name, meaning, "count", 0.0, None)


def metres(name: str, meaning: str) -> Feature:
    """A distance in metres (0 or more)."""
    return Feature(name, meaning, "metres", 0.0, None)


def share(name: str, meaning: str, scaling: str) -> Feature:
    """A fraction from 0 to 1."""
    return Feature(name, meaning, scaling, 0.0, 1.0)
