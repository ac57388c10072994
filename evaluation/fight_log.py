"""`tactica evaluate --fights-log FILE`: every fight's result written as it ends, so a stopped run resumes.

A table of search players on the issue's 3,200 fights takes hours of CPU (docs/results.md, "Every
player on the same fights"), longer than a session or a GM's evening. With a log, a run that is
stopped (Ctrl-C, a closed laptop, a session's end) is started again with the same command and plays
only the fights the log does not hold; its result is the same as one uninterrupted run's, number
for number, since every fight is seeded from its place in the plan alone (evaluation/tournament.py).

The file is JSON lines. The first line says which run it belongs to (`run_header`): the players,
the reference, the scenarios (names, and a digest of what they hold: maps, figures, settings), the
fights a pair plays, the seeds, the dice streams, the fight seeding and a digest of each policy
file. Each further line is one fight: its index in the plan, what it was (players, scenario, side,
seed, index) and the winning team (null for a draw). A run whose header differs is refused with
the field that differs, so one log never mixes two runs. A last line cut short (the process killed
while writing it) is dropped and that fight played again; any other unreadable line is an error
naming the file and the line.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Sequence

from rules.errors import TacticaError

#: the log format's version (the header's `tactica_fight_log`)
VERSION = 1


def _digest(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:16]


def _short(value: Any, width: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def run_header(scenarios: Sequence[tuple[Any, str]], policies: Sequence[str], episodes: int, seeds: Sequence[int],
               dice_streams: str, against: str | None, fight_seeds: str, n_fights: int) -> dict[str, Any]:
    """What makes two runs the same plan of fights: the log's first line."""
    files = {}
    for p in policies:
        path = Path(p.split(":", 1)[1] if p.startswith("selective:") else p)
        if path.is_file():
            files[p] = _digest(path.read_bytes())
    return {"tactica_fight_log": VERSION, "policies": list(policies), "against": against,
            "scenarios": [spec.name for spec, _ in scenarios],
            # the maps, figures and settings themselves (a generated map's source is only its name)
            "scenario_specs": _digest("\n\0".join(repr(spec) for spec, _ in scenarios)),
            "episodes": episodes, "seeds": list(seeds), "dice_streams": dice_streams, "fight_seeds": fight_seeds,
            "fights": n_fights, "policy_files": files}


def fights_held(path: str | Path) -> int:
    """How many fights' lines a log file holds (0 for none or no file), without checking them: what a
    resumed run says before it reads the log (`FightLog.load` checks it)."""
    try:
        with open(path, "rb") as f:
            return max(0, sum(1 for _ in f) - 1)
    except OSError:
        return 0


def fight_row(i: int, fight: Any, winner: str | None) -> dict[str, Any]:
    """One fight's line: its index in the plan, what it was, and who won (None: a draw)."""
    return {"i": i, "a": fight.a, "b": fight.b, "scenario": fight.scenario, "swapped": fight.swapped,
            "k": fight.k, "seed": fight.seed, "winner": winner}


class FightLog:
    """The log of one run (`header`) at `path`: `load()` the fights it holds, `append` new ones."""

    def __init__(self, path: str | Path, header: dict[str, Any], fights: Sequence[Any]) -> None:
        self.path = Path(path)
        self.header = header
        self.fights = fights

    def _error(self, what: str, field: str, expected: str) -> TacticaError:
        return TacticaError(what, source=str(self.path), field=field, expected=expected)

    def load(self) -> dict[int, str | None]:
        """{plan index: winner} of the fights the log holds (none for a new or empty file, which
        gets the header). Refuses a log of another run, naming the field that differs."""
        if self.path.is_dir():
            raise self._error("is a folder", "--fights-log", "a file path for the fights' log")
        if not self.path.exists() or self.path.stat().st_size == 0:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.path.write_text(json.dumps(self.header) + "\n", encoding="utf-8")
            except OSError as e:
                raise self._error(f"cannot write it: {e.strerror or e}", "--fights-log",
                                  "a writable file path") from None
            return {}
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        tail = lines.pop()   # b"" after a final newline; else a line whose write did not finish
        rows = []
        for n, line in enumerate(lines, start=1):
            try:
                rows.append(json.loads(line))
            except (ValueError, UnicodeDecodeError):
                raise self._error(f"line {n} is not JSON", "--fights-log",
                                  "the log `tactica evaluate --fights-log` writes (or a new file)") from None
        if not rows:   # only a header cut short: the run never started
            self.path.write_text(json.dumps(self.header) + "\n", encoding="utf-8")
            return {}
        self._check_header(rows[0])
        done: dict[int, str | None] = {}
        for n, row in enumerate(rows[1:], start=2):
            i = row.get("i") if isinstance(row, dict) else None
            if not isinstance(i, int) or not 0 <= i < len(self.fights) or row != fight_row(i, self.fights[i],
                                                                                           row.get("winner")):
                raise self._error(f"line {n} is not a fight of this run", "--fights-log",
                                  "the lines `tactica evaluate --fights-log` writes for this command")
            winner = row["winner"]
            if winner is not None and not isinstance(winner, str):
                raise self._error(f"line {n}: winner {winner!r}", "winner", "a team name or null")
            done[i] = winner
        if tail:   # dropped: that fight is played again
            with open(self.path, "r+b") as f:
                f.truncate(len(raw) - len(tail))
        return done

    def _check_header(self, head: Any) -> None:
        if not isinstance(head, dict) or head.get("tactica_fight_log") != VERSION:
            raise self._error("the first line is not a fight log's header", "tactica_fight_log",
                              f"the log of `tactica evaluate --fights-log`, version {VERSION}")
        for key, want in self.header.items():
            if head.get(key) != want:
                raise self._error(f"the log is of another run: {key} {_short(head.get(key))}", key,
                                  f"{_short(want)} as this command gives it (or a new --fights-log file)")

    def append(self, results: list[tuple[int, str | None]]) -> None:
        """Write finished fights (plan index, winner), flushed at once (a killed process loses none of
        them; not fsynced: a machine that crashes may lose the last ones, which are then played again)."""
        if not results:
            return
        text = "".join(json.dumps(fight_row(i, self.fights[i], w)) + "\n" for i, w in results)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(text)
