"""GM autopilot (issue 9) at the terminal: the `Terminal` loop driven by a script (cancel and
undo at the dice prompt, an NPC's plan confirmed, replaced by an alternative or overridden,
`confirm off`), and an end-to-end run of a real `tactica autopilot` process in a
pseudo-terminal whose final state must equal that of the same actions replayed with
`tactica replay`. The scenario and the process driver are in tests/autopilot_setup.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agents.base import default_policy
from agents.best import best_name
from rules.replay import state_summary
from rules.serialize import battle_from_dict
from tactica.table import Session, read_save

pexpect = pytest.importorskip("pexpect")

from tests.autopilot_setup import SMALL, Driver, dice_sides  # noqa: E402


@pytest.fixture
def small(tmp_path: Path) -> Path:
    p = tmp_path / "standoff.yaml"
    p.write_text(yaml.safe_dump(SMALL, sort_keys=False))
    return p


# ---------------------------------------------------------------------------------------
# the terminal loop without a terminal


def run_terminal(session, script):
    """Drive `Terminal` with (expected prompt, answer) pairs; returns the printed text."""
    import io

    from rich.console import Console

    from tactica.table import Terminal

    buf = io.StringIO()
    steps = list(script)

    def answer(prompt: str) -> str:
        assert steps, f"unexpected prompt {prompt!r}:\n{buf.getvalue()[-2000:]}"
        want, text = steps.pop(0)
        assert prompt.startswith(want), f"prompt {prompt!r}, expected {want!r}:\n{buf.getvalue()[-2000:]}"
        buf.write(prompt + text + "\n")
        return text

    Terminal(session, Console(file=buf, width=400, color_system=None), answer).run()
    assert not steps, steps
    return buf.getvalue()


def test_terminal_cancel_and_undo_at_the_dice_prompt(tmp_path):
    doc = dict(SMALL, initiative="fixed")  # mal, jubal, dobson: no initiative rolls
    s = Session.new(doc, seed=1, dice_mode="manual", save_path=tmp_path / "s.json")
    out = run_terminal(s, [
        ("pc mal> ", "attack jubal"),
        ("dice> ", "11 1"),          # a d10 cannot show 11: refused, asked again
        ("dice> ", "-3 4"),          # a negative face is refused as a face, not read as a command
        ("dice> ", "cancel"),        # nothing resolved
        ("pc mal> ", "prone"),
        ("pc mal> ", "atack jubal"),  # typo: a suggestion
        ("pc mal> ", "attack jubal"),
        ("dice> ", "status jubal"),  # commands work at the dice prompt
        ("dice> ", "undo"),          # drops the pending attack and undoes `prone`
        ("pc mal> ", "quit"),
    ])
    assert "a d10 cannot show 11" in out
    assert "'-3' is not a die face" in out and "unknown command '-3" not in out
    assert "cancelled: nothing was resolved" in out
    assert "did you mean 'attack'" in out
    assert f"Jubal (jubal) [outlaws, NPC {default_policy('cortex')}]" in out   # the default NPC: best, where fast
    assert "undone: Mal: drop prone  [prone]" in out
    assert "Mal rolls attack with revolver: Agility d10" in out and "against Jubal's defence" in out
    assert s.history == [] and "prone" not in s.state.by_id["mal"].conditions
    assert read_save(tmp_path / "s.json")["session"]["history"] == []


def test_terminal_npc_plan_confirm_override_and_no_confirm(tmp_path):
    doc = dict(SMALL, initiative="fixed")
    s = Session.new(doc, seed=1, save_path=tmp_path / "s.json")
    out = run_terminal(s, [
        ("pc mal> ", "end"),
        ("npc jubal> ", ""),         # accept the plan
        ("npc jubal> ", "1"),        # the first alternative (the network's next candidate)
        ("npc jubal> ", "end"),      # a typed override
        ("npc dobson> ", "confirm off"),
        ("npc dobson> ", ""),        # from now on the NPCs act without asking
        ("pc mal> ", "quit"),
    ])
    by = [h["by"] for h in s.history]
    assert by[:4] == ["gm", "plan", "alternative", "gm"]
    assert "policy" in by[4:]
    npc = default_policy("cortex")   # best (as planner-net), where it decides fast enough
    tag = f"best ({best_name('cortex')}): " if npc == "best" else ""
    assert f"Jubal's plan ({npc})" in out and f"why: {tag}" in out
    assert s.confirm is False
    if npc == "best":   # the header says which player `best` is in this fight
        assert f": NPC best (plays as {best_name('cortex')})" in out


# ---------------------------------------------------------------------------------------
# end to end: a real `tactica autopilot` in a pseudo-terminal


def test_end_to_end_autopilot_in_a_terminal(small: Path, tmp_path: Path):
    save = tmp_path / "fight.json"
    d = Driver([str(small), "--dice", "manual", "--save", str(save), "--seed", "11"], tmp_path)
    typed: list[int] = []
    manual_left = 2        # rolls typed in by hand; the others with r
    npc_prompts = 0
    resolved = 0
    undone = False
    at_undo = 0
    typo_checked = False
    while True:
        i, before = d.next()
        resolved += len(re.findall(r"^> \w", before, re.M))
        if i == 2:  # dice
            sides = dice_sides(before)
            if not typed:  # an impossible value first: refused with the reason
                d.send(" ".join(str(s + 1) for s in sides))
                i, before = d.next()
                assert i == 2 and f"a d{sides[0]} cannot show {sides[0] + 1}" in before
            if manual_left > 0:
                faces = [max(1, s // 2) for s in sides]
                typed += faces
                manual_left -= 1
                d.send(" ".join(map(str, faces)))
            else:
                d.send("r")
            continue
        if i == 3:
            pytest.fail("the fight ended before the test could undo and save:\n" + d.out[-3000:])
        if npc_prompts >= 3 and not undone:  # the third NPC decision was resolved: take it back
            d.send("undo")
            undone = True
            i, before = d.next()
            assert "undone:" in before, before
            resolved -= 1
            at_undo = resolved
            assert i in (0, 1)
        elif undone and resolved > at_undo:  # one more action after the undo: save and kill
            d.send("save")
            i, before = d.next()
            assert "saved to" in before
            break
        if i == 0:  # an NPC's plan: confirm the first, override the second with an alternative
            npc_prompts += 1
            d.send("" if npc_prompts != 2 else "1")
        elif i == 1:  # the GM's PC
            if not typo_checked:
                d.send("atack dobson")
                i, before = d.next()
                assert "did you mean 'attack'" in before, before
                typo_checked = True
            d.send("end")
    # killed at a prompt: nothing resolved is lost
    d.p.kill(signal.SIGKILL)
    d.p.wait()
    sd = read_save(save)
    hist = sd["session"]["history"]
    assert len(hist) == resolved
    assert sd["session"]["start_dice"][:len(typed)] == typed[:len(sd["session"]["start_dice"])]
    assert any(h["by"] == "alternative" for h in hist) and any(h["by"] == "plan" for h in hist)
    assert sum(1 for h in hist if h["dice"]) >= 0

    # resume and play to the end (engine dice now, the GM ending Mal's turns or attacking)
    d2 = Driver(["--resume", str(save), "--dice", "engine"], tmp_path)
    attacked = False
    steps = 0
    while True:
        i, before = d2.next()
        steps += 1
        assert steps < 400, d2.out[-3000:]
        if i == 3:
            break
        if i == 0:
            d2.send("")
        elif i == 1:
            if attacked and not re.search(r"^> Mal", before, re.M):
                d2.send("end")
                attacked = False
            else:
                d2.send("attack jubal" if steps % 2 else "attack dobson")
                attacked = True
        else:
            d2.send("r")
    replay = tmp_path / "fight.yaml"
    d2.send(f"export {replay}")
    i, before = d2.next()
    assert i == 3 and "replay written" in before
    d2.send("quit")
    d2.p.expect(pexpect.EOF)
    if os.environ.get("TACTICA_E2E_LOG"):
        Path(os.environ["TACTICA_E2E_LOG"]).write_text(d.out + "\n=== resumed ===\n" + d2.out)

    final = read_save(save)
    assert final["over"]
    # the same actions and dice replayed with `tactica replay` give the same fight
    r = subprocess.run([sys.executable, "-m", "tactica", "replay", str(replay), "--json"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    battle = battle_from_dict(final, source=str(save))
    assert rep["final_state"] == json.loads(json.dumps(state_summary(battle.state)))
    assert rep["events"] == final["events"]
    steps_doc = yaml.safe_load(replay.read_text())["steps"]
    assert [s["dice"] for s in steps_doc[:len(hist)]] == [h["dice"] for h in hist]
