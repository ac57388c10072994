"""The README's autopilot transcript is what the autopilot prints.

The README shows a turn of Jubal (NPC) against the GM's Mal with the GM's own dice. It had gone stale twice (the
question before the attack roll was told, a weapon's key in the lines): this plays the README's command with the
README's answers and checks that every line the README shows is in the output, in order.
"""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from tactica.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"
#: the initiative rolls the README leaves out ("the initiative rolls ... are left out here"): both rolled
INITIATIVE = ["r", "r"]


def _transcript() -> tuple[list[str], list[str], list[str]]:
    """(the command's arguments, the GM's answers, the lines shown) of the README's block."""
    text = README.read_text(encoding="utf-8")
    start = text.index("$ tactica autopilot cortex/duel")
    block = text[start:text.index("```", start)].splitlines()
    argv = block[0].split()[2:]
    answers, shown = [], []
    for line in block[1:]:
        m = re.match(r"^(npc \w+|pc \w+|dice)> ?(.*)$", line)
        if m:
            answers.append(m.group(2))
        elif line.strip() and line.strip() != "...":
            shown.append(line.strip())
    return argv, answers, shown


def test_the_readmes_autopilot_transcript_is_what_the_autopilot_prints(tmp_path, monkeypatch) -> None:
    argv, answers, shown = _transcript()
    assert argv[:2] == ["autopilot", "cortex/duel"] and "--dice" in argv and len(answers) == 8 and len(shown) > 20
    argv = [tmp_path / "s.json" if a == "duel-night.json" else a for a in argv]
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(app, [str(a) for a in argv], input="\n".join(INITIATIVE + answers + ["quit"]) + "\n",
                           env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    at = 0
    for line in shown:
        want = " ".join(line.split())
        i = out.find(want, at)
        assert i >= 0, f"README line not printed (in order): {line!r}"
        at = i + len(want)
