"""What the autopilot's terminal tests share (tests/test_autopilot_terminal.py,
tests/test_table_terminal.py): a short standoff scenario (`SMALL`) and a driver of a real
`tactica autopilot` process in a pseudo-terminal (`Driver`, the prompts it waits for,
`dice_sides`, `ANSI`). Like those tests, it is skipped without pexpect."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

SMALL = {
    "name": "test/standoff", "ruleset": "cortex", "round_limit": 4,
    "description": "A short standoff in a yard for the autopilot tests.",
    "map": {"cell_m": 1.5, "rows": ["........", "..m.....", "........", ".....l..", "........"]},
    "teams": [
        {"name": "crew", "pc": True, "combatants": [{"id": "mal", "name": "Mal", "template": "gunslinger", "at": [1, 3],
                                                   "life_points": 80,
                                                   # rolls innate defence as the default does, unasked
                                                   # (the choice is not these tests' subject)
                                                   "decline_innate": "never"}]},
        {"name": "outlaws", "combatants": [
            {"id": "jubal", "name": "Jubal", "template": "gunslinger", "at": [6, 1], "life_points": 30},
            {"id": "dobson", "name": "Dobson", "template": "mercenary", "at": [7, 3], "life_points": 30}]},
    ],
}
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")

PROMPTS = [r"npc (\w+)> ", r"pc (\w+)> ", r"dice> ", r"over> "]


class Driver:
    """Drives one `tactica autopilot` process; keeps its whole output."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        env = dict(os.environ, NO_COLOR="1", TERM="xterm", COLUMNS="200", LINES="80", PYTHONUNBUFFERED="1")
        self.p = pexpect.spawn(sys.executable, ["-m", "tactica", "autopilot", *args], cwd=str(cwd), env=env,
                               dimensions=(80, 200), encoding="utf-8", timeout=60)
        self.out = ""

    def next(self) -> tuple[int, str]:
        i = self.p.expect(PROMPTS)
        self.out += ANSI.sub("", self.p.before) + self.p.after
        return i, ANSI.sub("", self.p.before)

    def send(self, line: str) -> None:
        self.p.sendline(line)
        self.out += line + "\n"


def dice_sides(text: str) -> list[int]:
    m = re.findall(r"enter \d+ dic?e? \(((?:d\d+ ?)+)\), or r to roll", text.replace("\n", " "))
    assert m, text[-500:]
    return [int(x) for x in re.findall(r"d(\d+)", m[-1])]
