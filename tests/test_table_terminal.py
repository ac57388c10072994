"""Issue #33 at a real terminal: 'a pexpect test of a mixed-dice autopilot fight'. The GM
plays the crew and rolls its dice by hand (`--dice crew=manual`); the engine rolls the
outlaws'. Every dice prompt is a crew roll, the typed faces are the ones the log shows, an
override and its undo work at the prompt, and the save replays event for event."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
import yaml

from rules.replay import play_replay
from tactica.table import read_save, replay_from_save

pexpect = pytest.importorskip("pexpect")

from tests.autopilot_setup import ANSI, SMALL, Driver, dice_sides  # noqa: E402


def test_mixed_dice_fight_in_a_terminal(tmp_path: Path):
    scen = tmp_path / "standoff.yaml"
    scen.write_text(yaml.safe_dump(SMALL, sort_keys=False))
    save = tmp_path / "fight.json"
    d = Driver([str(scen), "--dice", "crew=manual", "--save", str(save), "--seed", "7", "--no-confirm"], tmp_path)
    asked: list[str] = []
    typed: list[int] = []
    pc_turns = 0
    overruled = False
    while pc_turns < 4:
        i, before = d.next()
        if i == 3:
            break
        if i == 2:  # a hand roll: always one of the crew's (Mal's)
            ask = [ln for ln in before.splitlines() if " - enter " in ln][-1]
            assert ask.startswith("Mal rolls "), ask        # never an outlaw's roll
            asked.append(ask)
            faces = [max(1, s // 2) for s in dice_sides(before)]
            typed += faces
            d.send(" ".join(map(str, faces)))
            continue
        if i == 1:  # Mal's turn: overrule once, undo it, then attack or end
            if not overruled:
                d.send("set jubal stun 3")
                i, before = d.next()
                assert "GM: Jubal's stun 0 -> 3" in ANSI.sub("", before).replace("Stun", "stun"), before[-600:]
                d.send("undo")
                i, before = d.next()
                assert "undone: GM: set jubal stun 3" in before, before[-600:]
                overruled = True
                assert i == 1     # Mal's prompt again: now act
            pc_turns += 1
            d.send("attack jubal" if pc_turns % 2 else "end")
    d.send("quit")
    d.p.expect(pexpect.EOF)
    d.p.kill(signal.SIGKILL)
    assert asked, d.out[-2000:]
    sd = read_save(save)
    hist = sd["session"]["history"]
    assert sd["session"]["dice_by"] == {"crew": "manual"}
    assert not any("override" in h for h in hist)      # the override was undone
    # the typed faces are in the log, on Mal's rolls only
    mal_faces = [f for e in sd["events"] if e.get("type") == "roll" and e.get("actor") == "mal"
                 for _, f in e.get("dice", [])]
    assert typed and mal_faces[:len(typed)] == typed[:len(mal_faces)]
    # and the whole fight replays from the save, event for event
    assert play_replay(replay_from_save(save)).battle.events == sd["events"]
