"""Names are printed as written (issue #34): Rich markup in a team or figure name is shown,
not parsed (`[/x]crew` raised MarkupError in simulate, difficulty and autopilot), and control
characters in names (ESC, BEL, C1, the U+202E bidi override) reach the terminal as visible
escapes, never raw (tactica/textsafe.py).

Encounter files refuse control characters in names (rules/limits.check_name), but a figure a
GM adds (`add` override) can carry them into a save, a replay and the table's screens.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

from tactica.cli import app
from tactica.table import Session
from tactica.textsafe import SafeConsole, one_line, safe, visible

runner = CliRunner()

MARKUP = {"scenario": "[red]duel[/x]", "team": "[/x]crew", "name": "[bold]x[/]", "id": "[i]mal"}
#: a window-title OSC, a screen clear, a C1 CSI, DEL and a bidi override
HOSTILE = "\x1b]0;pwn\x07\x1b[2J\x9b31m\x7f\u202eevil"
RAW = ("\x1b", "\x07", "\x9b", "\x7f", "\u202e")


def markup_scenario(tmp_path: Path) -> Path:
    doc = yaml.safe_load((Path(__file__).resolve().parents[1] / "tactica/scenarios/cortex/duel.yaml").read_text())
    doc["name"] = MARKUP["scenario"]
    crew = doc["teams"][0]
    crew["name"] = MARKUP["team"]
    crew["combatants"][0].update(name=MARKUP["name"], id=MARKUP["id"])
    p = tmp_path / "markup.yaml"
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    return p


def test_visible_and_safe():
    assert visible(HOSTILE) == "\\x1b]0;pwn\\x07\\x1b[2J\\x9b31m\\x7f\\u202eevil"
    assert visible("Zoë\tand\nMal") == "Zoë\tand\nMal"           # text, tabs and line breaks stay
    assert one_line("a\nb\tc") == "a\\nb\\tc"
    assert safe("[/x]crew") == "\\[/x]crew"
    for ch in map(chr, [*range(0x20), *range(0x7f, 0xa0), 0x202e, 0x2066, 0x200f]):
        if ch not in "\n\t":
            assert ch not in visible(f"a{ch}b"), repr(ch)


def test_safe_console_never_fails_on_markup_nor_writes_a_control_character():
    con = SafeConsole(record=True, width=120)
    con.print("[/x]crew and [bold]x[/] and [broken")        # bad markup: printed as written
    con.print(f"name {HOSTILE}")
    con.print(":smile:")                                      # no emoji from a name
    text = con.export_text()
    assert "[/x]crew and [bold]x[/] and [broken" in text
    assert not any(c in text for c in RAW) and "\\x1b]0;pwn\\x07" in text
    assert ":smile:" in text
    with pytest.raises(Exception):                          # a plain console fails: the net is needed
        Console(record=True).print("[/x]crew")


@pytest.mark.parametrize("argv", [["simulate", "-n", "3"], ["difficulty", "-n", "3"]])
def test_markup_names_in_simulate_and_difficulty(tmp_path, argv):
    scen = markup_scenario(tmp_path)
    r = runner.invoke(app, [argv[0], str(scen), *argv[1:]])
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    assert MARKUP["team"] in r.output and MARKUP["scenario"] in r.output
    if argv[0] == "difficulty":
        assert f"{MARKUP['name']} (PC)" in r.output and f"difficulty for {MARKUP['team']}" in r.output


def test_markup_names_at_the_autopilot(tmp_path):
    scen = markup_scenario(tmp_path)
    r = runner.invoke(app, ["autopilot", str(scen), "--save", str(tmp_path / "s.json")],
                      input=f"status {MARKUP['id']}\nquit\n", env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert (f"Round 1: {MARKUP['name']} ({MARKUP['id']}, {MARKUP['team']}, PC GM) to act" in r.output)
    assert f"{MARKUP['name']} ({MARKUP['id']}) [{MARKUP['team']}, PC GM]" in r.output   # status
    assert f"{MARKUP['team']}: PC GM" in r.output


def test_markup_names_in_validate_and_suggest(tmp_path):
    scen = markup_scenario(tmp_path)
    r = runner.invoke(app, ["validate", str(scen)])
    assert r.exit_code == 0 and "is a valid cortex scenario" in r.output
    s = Session.new(str(scen), seed=1, save_path=tmp_path / "s.json")
    s.begin()
    r = runner.invoke(app, ["suggest", str(tmp_path / "s.json")])
    assert r.exit_code == 0, r.output
    assert r.output.startswith(f"{MARKUP['name']} ({MARKUP['id']})")


def test_a_name_with_control_characters_is_refused_where_it_comes_in(tmp_path):
    """rules/limits.check_name: an added figure's name, and a save edited to hold one."""
    from rules.errors import OverrideError
    s = Session.new("cortex/duel", seed=1, save_path=tmp_path / "s.json")
    s.begin()
    with pytest.raises(OverrideError, match="control character"):
        s.override({"kind": "add", "template": "gunslinger", "team": "outlaws", "cell": [10, 1], "name": HOSTILE})


@pytest.fixture
def hostile_save(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """A save and a replay with a GM-added figure whose name holds escape sequences. Names
    with control characters are refused where they come in (rules/limits.check_name); the
    check is lifted here so that the output's own escaping is what is tested (a name from a
    path the checks miss must still print safely)."""
    import rules.overrides
    import rules.scenario
    import rules.state_check
    for mod in (rules.overrides, rules.scenario, rules.state_check):
        monkeypatch.setattr(mod, "check_name", lambda *a, **k: None)
    save = tmp_path / "s.json"
    s = Session.new("cortex/duel", seed=1, save_path=save)
    s.begin()
    s.override({"kind": "add", "template": "gunslinger", "team": "outlaws", "cell": [10, 1], "name": HOSTILE})
    s.resolve(s.plan().action)
    return save, s.export(tmp_path / "r.yaml")


def _clean(out: str) -> None:
    assert "Traceback" not in out
    for c in RAW:
        assert c not in out, f"raw {c!r} printed"
    assert "\\x1b]0;pwn\\x07\\x1b[2J" in out     # shown, as visible escapes


def test_escape_sequences_in_a_saved_name_at_the_table(hostile_save):
    save, _ = hostile_save
    r = runner.invoke(app, ["autopilot", "--resume", str(save)],
                      input="map\norder\nstatus gunslinger_1\nlog 40\nquit\n", env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    _clean(r.output)
    r = runner.invoke(app, ["suggest", str(save), "--actor", "gunslinger_1"])
    assert r.exit_code == 0, r.output
    _clean(r.output)


def test_escape_sequences_in_a_replayed_name(hostile_save):
    _, replay = hostile_save
    r = runner.invoke(app, ["replay", str(replay)])
    assert r.exit_code == 0, r.output
    _clean(r.output)


def test_escape_sequences_in_an_error_line(tmp_path):
    bad = tmp_path / "x\x1b]0;pwn\x07.yaml"
    r = runner.invoke(app, ["validate", str(bad)])
    assert r.exit_code == 2
    _clean_err = r.output
    assert "\x1b" not in _clean_err and "\x07" not in _clean_err and "\\x1b]0;pwn\\x07" in _clean_err
