"""GM autopilot (issue 9): the command parser, manual dice, the session (undo, atomic save,
resume, damaged saves), `tactica suggest`, and an end-to-end run of a real
`tactica autopilot` process in a pseudo-terminal whose final state must equal that of the
same actions replayed with `tactica replay`.
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
from typer.testing import CliRunner

from agents.base import default_policy
from agents.best import best_name
from rules.actions import Action
from rules.errors import DiceError
from rules.replay import run_replay, state_summary
from rules.serialize import battle_from_dict
from tactica.table import (CommandError, Session, SessionError, next_dice_request, parse_command,
                               parse_faces, read_save, replay_from_save, suggest)
from tactica.cli import app

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


@pytest.fixture
def small(tmp_path: Path) -> Path:
    p = tmp_path / "standoff.yaml"
    p.write_text(yaml.safe_dump(SMALL, sort_keys=False))
    return p


def duel_state():
    s = Session.new("cortex/duel", seed=1)
    s.begin()
    return s


# ---------------------------------------------------------------------------------------
# the command syntax


def test_parse_moves_attacks_and_options():
    s = duel_state()
    st = s.state
    # make it Mal's decision whatever the initiative said
    while st.actor.id != "mal":
        s.resolve(Action("end_turn"))
        st = s.state
    legal = s.legal()
    a = parse_command("move 2 9", st, legal).action
    assert a == Action("move", cell=st.grid.index(2, 9))
    assert parse_command("m 2,9", st, legal).action == a
    assert parse_command("attack jubal", st, legal).action == Action("attack", target="jubal", weapon="revolver")
    assert parse_command("Attack JUBAL revolver", st, legal).action.option is None
    head = Action("attack", target="jubal", weapon="revolver", option="called:head")
    assert parse_command("attack jubal revolver called:head", st, legal).action == head
    assert parse_command("attack jubal revolver called head", st, legal).action == head
    assert parse_command("attack jub rev head", st, legal).action == head
    assert parse_command("defend block", st, legal).action == Action("defend", option="block")
    assert parse_command("dodge", st, legal).action == Action("defend", option="dodge")
    assert parse_command("defend all out dodge", st, legal).action == Action("defend", option="all_out_dodge")
    assert parse_command("prone", st, legal).action == Action("drop_prone")
    assert parse_command("end", st, legal).action == Action("end_turn")
    assert parse_command('{"type": "attack", "target": "jubal", "weapon": "revolver"}', st, legal).action.kind == "attack"
    assert parse_command("3", st, legal).kind == "pick" and parse_command("3", st, legal).number == 3
    c = parse_command("status Jubal", st, legal)
    assert (c.kind, c.name, c.args) == ("meta", "status", ["Jubal"])
    assert parse_command("", st, legal).kind == "empty"
    assert parse_command("?", st, legal).name == "help"


@pytest.mark.parametrize("line,words", [
    ("atack jubal", ["did you mean", "attack"]),
    ("attack jubl", ["did you mean", "jubal"]),
    ("attack jubal revolver called:nose", ["not a target, weapon or option"]),
    ("move 99 99", ["off the"]),
    ("move 3", ["two numbers"]),
    ("reload", ["cannot reload now"]),
    ("stand", ["cannot stand now"]),
    ("mvoe 3 4", ["did you mean", "move"]),
    ("pp x", ["pp N"]),
])
def test_parse_errors_say_what_was_expected(line, words):
    s = duel_state()
    with pytest.raises(CommandError) as ei:
        parse_command(line, s.state, s.legal())
    msg = ei.value.line()
    for w in words:
        assert w in msg, msg


def test_parse_faces_refuses_impossible_values():
    assert parse_faces("5 3", [8, 6]) == [5, 3]
    assert parse_faces("5,3", [8, 6]) == [5, 3]
    with pytest.raises(CommandError, match="a d6 cannot show 7"):
        parse_faces("5 7", [8, 6])
    with pytest.raises(CommandError, match="1 value"):
        parse_faces("5", [8, 6])
    with pytest.raises(CommandError, match="cannot show 0"):
        parse_faces("0", [8])


# ---------------------------------------------------------------------------------------
# manual dice


def test_manual_dice_prompt_names_who_rolls_what_against_what_and_uses_the_faces():
    s = Session.new("cortex/duel", seed=2, dice_mode="manual")
    asked = []

    def provider(req):
        asked.append(req)
        return [min(s_, 3) for s_ in req.sides]

    s.begin(provider)
    assert [r.purpose for r in asked] == ["initiative", "initiative"]
    assert "Mal rolls initiative: Agility d10 + Alertness d8" in asked[0].text()
    assert s.battle.events[2]["dice"] == [[10, 3], [8, 3]]
    while s.state.actor.id != "mal":
        s.resolve(Action("end_turn"), provider)
    asked.clear()
    s.resolve(Action("attack", target="jubal", weapon="revolver"), provider)
    first = asked[0].text()
    assert first.startswith("Mal rolls attack with revolver: Agility d10 + Guns")
    assert "against Jubal's defence" in first and "or r to roll" in first
    if len(asked) > 1:
        assert asked[1].roller == "Jubal" and "against Mal's attack of" in asked[1].text()
    rolls = [e for e in s.battle.events if e["type"] == "roll" and e["purpose"].startswith("attack")]
    assert [f for _, f in rolls[-1]["dice"]] == [3, 3]
    # every die typed in is in the history of that step, so a replay can force them
    assert s.history[-1]["dice"][:2] == [3, 3]


def test_manual_dice_r_is_the_engine_roll():
    """Typing r for every roll gives the same fight as engine dice."""
    a = Session.new("cortex/duel", seed=4)
    b = Session.new("cortex/duel", seed=4, dice_mode="manual")
    a.begin()
    b.begin(lambda req: None)
    for _ in range(8):
        if a.state.over:
            break
        act = a.plan().action
        a.resolve(act)
        b.resolve(act, lambda req: None)
    assert a.battle.events == b.battle.events


def test_session_refuses_impossible_provider_dice_and_changes_nothing():
    s = Session.new("cortex/duel", seed=2, dice_mode="manual")
    s.begin(lambda req: None)
    before = json.dumps(state_summary(s.state))
    n = len(s.battle.events)
    act = next(a for a in s.legal() if a.kind == "attack")
    with pytest.raises(DiceError):
        s.resolve(act, lambda req: [99] * len(req.sides))
    assert json.dumps(state_summary(s.state)) == before and len(s.battle.events) == n and not s.history


def test_dice_request_none_when_no_roll_is_needed():
    s = Session.new("cortex/duel", seed=2)
    s.begin()
    mv = next(a for a in s.legal() if a.kind == "move")
    assert next_dice_request(s.battle, lambda b: b.step(mv, check=False), []) is None


# ---------------------------------------------------------------------------------------
# the session: plans, undo, save, resume


def test_plan_has_a_reason_and_at_least_three_alternatives():
    s = Session.new("cortex/warehouse", seed=3)
    s.begin()
    p = s.plan()
    assert p.reason and p.action in s.legal()
    assert len(p.alternatives) >= 3
    assert all(alt.action != p.action and alt.action in s.legal() and alt.reason for alt in p.alternatives)
    assert s.plan() is p  # cached for this decision


def test_undo_restores_state_events_and_history(tmp_path):
    s = Session.new("cortex/warehouse", seed=5, save_path=tmp_path / "s.json")
    s.begin()
    for _ in range(3):
        s.resolve(s.plan().action, by="plan")
    before = (json.dumps(state_summary(s.state)), list(s.battle.events), s.battle.dice.get_state(), len(s.history))
    act = s.plan().alternatives[0].action
    s.resolve(act, by="alternative")
    assert len(s.history) == 4
    undone = s.undo()
    assert undone["by"] == "alternative"
    after = (json.dumps(state_summary(s.state)), list(s.battle.events), s.battle.dice.get_state(), len(s.history))
    assert after == before
    # and the save file says the same
    d = read_save(tmp_path / "s.json")
    assert len(d["session"]["history"]) == 3
    assert d["events"] == s.battle.events


def test_save_is_atomic_and_resume_continues_exactly(tmp_path):
    """A session saved and resumed half-way plays on exactly like one that never stopped."""
    path = tmp_path / "s.json"
    a = Session.new("cortex/warehouse", seed=7)
    a.begin()
    b = Session.new("cortex/warehouse", seed=7, save_path=path)
    b.begin()
    for _ in range(6):
        a.resolve(a.plan().action)
        b.resolve(b.plan().action)
    assert not list(tmp_path.glob(".*tmp*"))  # no temporary files left behind (.NAME.tmp-PID-RANDOM)
    b = Session.resume(path)
    for _ in range(10):
        if a.state.over:
            break
        pa, pb = a.plan(), b.plan()
        assert pa.action == pb.action
        a.resolve(pa.action)
        b.resolve(pb.action)
    assert a.battle.events == b.battle.events
    assert state_summary(a.state) == state_summary(b.state)


def test_export_replays_to_the_same_state(tmp_path):
    s = Session.new("cortex/duel", seed=9, save_path=tmp_path / "s.json", dice_mode="manual")
    faces = iter(range(10_000))
    s.begin(lambda req: [1 + next(faces) % sd for sd in req.sides])
    for i in range(12):
        if s.state.over:
            break
        p = s.plan()
        s.resolve(p.action if i % 3 else p.alternatives[0].action,
                  (lambda req: [1 + next(faces) % sd for sd in req.sides]) if i % 2 else (lambda req: None))
    s.export(tmp_path / "r.yaml")
    b = run_replay(tmp_path / "r.yaml")
    assert b.events == s.battle.events
    assert state_summary(b.state) == state_summary(s.state)
    assert replay_from_save(tmp_path / "s.json")["steps"] == yaml.safe_load((tmp_path / "r.yaml").read_text())["steps"]


@pytest.mark.parametrize("content,words", [
    ("{not json", "not valid JSON"),
    ("", "file is empty"),
    ('{"hello": 1}', "not a Tactica state file"),
    ("[1, 2]", "not a Tactica state file"),
])
def test_damaged_or_foreign_save_is_a_clear_error_and_never_overwritten(tmp_path, content, words):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(SessionError, match=words):
        Session.resume(p)
    r = CliRunner().invoke(app, ["autopilot", "--resume", str(p)])
    assert r.exit_code == 2
    assert words in r.stderr and "Traceback" not in r.stderr
    assert p.read_text() == content
    # nor is a foreign file used as a new session's save file
    r = CliRunner().invoke(app, ["autopilot", "cortex/duel", "--save", str(p)])
    assert r.exit_code == 2 and "already exists" in r.stderr
    assert p.read_text() == content


def test_damaged_session_section_and_state(tmp_path):
    s = Session.new("cortex/duel", seed=1, save_path=tmp_path / "s.json")
    s.begin()
    s.resolve(s.plan().action)
    d = json.loads((tmp_path / "s.json").read_text())
    d["session"]["history"][0]["dice"] = "many"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(d))
    with pytest.raises(SessionError, match="history"):
        Session.resume(bad)
    d = json.loads((tmp_path / "s.json").read_text())
    d["combatants"]["mal"]["pos"] = "here"
    bad.write_text(json.dumps(d))
    with pytest.raises(Exception) as ei:
        Session.resume(bad)
    assert "damaged" in str(ei.value)
    text = (tmp_path / "s.json").read_text()
    (tmp_path / "s.json").write_text(text[: len(text) // 2])  # cut off, as a crash of another writer would
    with pytest.raises(SessionError, match="not valid JSON"):
        Session.resume(tmp_path / "s.json")


def test_roles_from_options():
    s = Session.new("cortex/warehouse", npc=["syndicate=aggressive"], pc=["crew=random"])
    assert s.roles["syndicate"].policy == "aggressive" and s.roles["crew"].role == "pc"
    assert s.roles["crew"].policy == "random"
    with pytest.raises(SessionError, match="no team"):
        Session.new("cortex/warehouse", npc=["pirates=tactical"])
    with pytest.raises(SessionError, match="unknown policy"):
        Session.new("cortex/warehouse", npc=["syndicate=genius"])


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
        ("dice> ", "cancel"),        # nothing resolved
        ("pc mal> ", "prone"),
        ("pc mal> ", "atack jubal"),  # typo: a suggestion
        ("pc mal> ", "attack jubal"),
        ("dice> ", "status jubal"),  # commands work at the dice prompt
        ("dice> ", "undo"),          # drops the pending attack and undoes `prone`
        ("pc mal> ", "quit"),
    ])
    assert "a d10 cannot show 11" in out
    assert "cancelled: nothing was resolved" in out
    assert "did you mean 'attack'" in out
    assert f"Jubal (jubal) [outlaws, NPC {default_policy('cortex')}]" in out   # the default NPC: best, where fast
    assert "undone: mal prone" in out
    assert "Mal rolls attack with revolver: Agility d10" in out and "against Jubal's defence" in out
    assert s.history == [] and "prone" not in s.state.by_id["mal"].conditions
    assert read_save(tmp_path / "s.json")["session"]["history"] == []


def test_terminal_npc_plan_confirm_override_and_no_confirm(tmp_path):
    doc = dict(SMALL, initiative="fixed")
    s = Session.new(doc, seed=1, save_path=tmp_path / "s.json")
    out = run_terminal(s, [
        ("pc mal> ", "end"),
        ("npc jubal> ", ""),         # accept the plan
        ("npc jubal> ", "2"),        # the second alternative
        ("npc jubal> ", "end"),      # a typed override
        ("npc dobson> ", "confirm off"),
        ("npc dobson> ", ""),        # from now on the NPCs act without asking
        ("pc mal> ", "quit"),
    ])
    by = [h["by"] for h in s.history]
    assert by[:4] == ["gm", "plan", "alternative", "gm"]
    assert "policy" in by[4:]
    npc = default_policy("cortex")   # best (as the planner), where it decides fast enough
    tag = f"best ({best_name('cortex')}): " if npc == "best" else ""
    assert f"Jubal's plan ({npc})" in out and f"why: {tag}Jubal" in out
    assert s.confirm is False


# ---------------------------------------------------------------------------------------
# suggest


def test_suggest_function_and_command(tmp_path):
    s = Session.new("cortex/warehouse", seed=2, save_path=tmp_path / "s.json")
    s.begin()
    p = suggest(s.state, None, "tactical")
    assert p.actor == s.state.actor.id and len(p.alternatives) >= 3
    other = next(c.id for c in s.state.combatants if c.id != s.state.actor.id)
    assert suggest(s.state, other, "aggressive").hypothetical
    r = CliRunner().invoke(app, ["suggest", str(tmp_path / "s.json"), "--actor", s.state.actor.id, "--json"])
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert set(d) >= {"actor", "action", "reason", "alternatives"}
    assert Action.from_dict({k: v for k, v in d["action"].items() if k != "at"}) in s.legal()
    assert all({"action", "reason"} <= set(a) for a in d["alternatives"]) and len(d["alternatives"]) >= 3
    r = CliRunner().invoke(app, ["suggest", str(tmp_path / "s.json")])
    assert r.exit_code == 0 and "why:" in r.stdout
    r = CliRunner().invoke(app, ["suggest", str(tmp_path / "s.json"), "--actor", "nobody"])
    assert r.exit_code == 2 and "no figure 'nobody'" in r.stderr


# ---------------------------------------------------------------------------------------
# end to end: a real `tactica autopilot` in a pseudo-terminal

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
