"""The parts of a Cortex attack's target number, for its roll event (`difficulty_parts`),
so the log line reads "= 17 vs 17 (innate defence 9 + medium cover 8)" (#33: roll lines show
every modifier). Read off the defence events the attack produced; nothing is rolled."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from rules.grid import COVER_NAMES


def difficulty_parts(events: Iterable[Mapping[str, Any]], diff: int, cover_table: Mapping[int, int] | Any,
                     extra: Iterable[tuple[str, int]] = ()) -> list[dict[str, Any]] | None:
    """[{source, value}] summing to `diff`: the defence (its mode) without the cover, the cover
    by its level's name, and `extra` (a called shot's Difficulty); None when the last defence
    event does not account for `diff` (then the line gives the total alone)."""
    dev = None
    for e in events:
        if e.get("type") == "defence":
            dev = e
    if dev is None:
        return None
    cb = int(dev.get("cover_bonus") or 0)
    base = int(dev["difficulty"]) - cb
    parts = [{"source": f"{dev.get('mode', 'defence')} defence", "value": base}]
    if cb:
        levels = cover_table.items() if isinstance(cover_table, Mapping) else enumerate(cover_table)
        level = next((int(k) for k, v in levels if int(v) == cb and int(k) > 0), None)
        name = COVER_NAMES[level] if level is not None and level < len(COVER_NAMES) else ""
        parts.append({"source": f"{name} cover".strip(), "value": cb})
    parts += [{"source": s, "value": int(v)} for s, v in extra if v]
    return parts if sum(p["value"] for p in parts) == diff else None
