"""What a map character means: `Terrain`, the default legend, and a scenario's own legend
entries read and checked (`legend_from_spec`). `rules.grid` builds maps from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from rules.errors import ScenarioError

COVER_NAMES = ("none", "light", "medium", "heavy", "total")


@dataclass(frozen=True, slots=True)
class Terrain:
    """What one map character means."""

    name: str
    blocks_move: bool = False
    blocks_sight: bool = False
    cover: int = 0  # 0 none, 1 light, 2 medium, 3 heavy, 4 total
    difficult: bool = False
    sturdiness: int = 0  # how many dice of blast damage it absorbs before it breaks (0 = never)


DEFAULT_LEGEND: dict[str, Terrain] = {
    ".": Terrain("floor"),
    "#": Terrain("wall", blocks_move=True, blocks_sight=True, cover=3),
    "l": Terrain("light cover", blocks_move=True, cover=1),
    "m": Terrain("medium cover", blocks_move=True, cover=2),
    "h": Terrain("heavy cover", blocks_move=True, cover=3),
    "T": Terrain("total cover", blocks_move=True, cover=4),
    ",": Terrain("difficult ground", difficult=True),
}


def legend_from_spec(spec: Mapping[str, Mapping] | None, source: str | None = None) -> dict[str, Terrain]:
    """The default legend updated with a scenario's own characters."""
    legend = dict(DEFAULT_LEGEND)
    for ch, t in (spec or {}).items():
        if len(ch) != 1:
            raise ScenarioError(f"legend key {ch!r} is not one character", source=source,
                                field=f"map.legend.{ch}", expected="a single character")
        if not isinstance(t, Mapping):
            raise ScenarioError(f"{t!r}", source=source, field=f"map.legend.{ch}",
                                expected="a mapping of name, blocks_move, blocks_sight, cover, difficult, sturdiness")
        try:
            legend[ch] = Terrain(**dict(t))
        except TypeError as e:
            raise ScenarioError(str(e), source=source, field=f"map.legend.{ch}",
                                expected="name, blocks_move, blocks_sight, cover, difficult, sturdiness")
        _check_terrain(legend[ch], source, f"map.legend.{ch}")
    return legend


def _check_terrain(t: Terrain, source: str | None, field: str) -> None:
    """Each field of a legend entry of the type and range the rules read (a cover of 5 met a
    rule's table of cover levels 0-4 as a KeyError mid-fight; found by fuzzing)."""
    if not isinstance(t.name, str) or not t.name:
        raise ScenarioError(f"name {t.name!r}", source=source, field=f"{field}.name", expected="a non-empty name")
    for k in ("blocks_move", "blocks_sight", "difficult"):
        if not isinstance(getattr(t, k), bool):
            raise ScenarioError(f"{getattr(t, k)!r}", source=source, field=f"{field}.{k}", expected="true or false")
    for k, hi, what in (("cover", 4, "0 none, 1 light, 2 medium, 3 heavy, 4 total"),
                        ("sturdiness", 100, "dice of blast damage it absorbs, 0 = never breaks")):
        v = getattr(t, k)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= hi:
            raise ScenarioError(f"{v!r}", source=source, field=f"{field}.{k}", expected=f"a whole number from 0 to {hi}: {what}")

