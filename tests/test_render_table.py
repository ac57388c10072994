"""The figures' table a GM reads at the table (tactica/render.py `figures_table`), in a plain 80-column terminal."""

from __future__ import annotations

import io

from rich.console import Console

from rules.ruleset import get_ruleset
from tactica.render import figures_table
from tactica.table import Session


def _lines(scenario: str, pc: str) -> list[str]:
    s = Session.new(scenario, pc=[pc], seed=3)
    s.begin()
    buf = io.StringIO()
    team = pc.split("=")[0]
    table = figures_table(s.state, get_ruleset(s.state.ruleset), [team], roles={team: "PC"})   # as the autopilot shows it
    Console(file=buf, width=80, color_system=None).print(table)
    return buf.getvalue().splitlines()


def test_each_figure_is_one_line_with_its_ammunition_whole():
    """cybergeneration/alley_brawl in 80 columns: every figure on one line, "heavy pistol 8" and
    "dart gun 10" whole (they came out as "heavy_pist" / "dart_gun:..." with the team on two lines);
    the weapons told as words, as the log tells them (they were keys, "heavy_pistol:8")."""
    lines = _lines("cybergeneration/alley_brawl", "evolved=tactical")
    assert len(lines) == 1 + 6, lines
    text = "\n".join(lines)
    assert "heavy pistol 8" in text and "dart gun 10" in text and "_" not in text
    assert all(len(x) <= 80 for x in lines)


def test_metalface_figures_fit_one_line_each_with_the_pc_mark():
    """metalface/scrapyard's runners (PC) and their beam pistols in 80 columns, one line each."""
    lines = _lines("metalface/scrapyard", "runners=tactical")
    assert len(lines) == 1 + 6 and sum("runners (PC)" in x for x in lines) == 3
    assert sum("beam pistol 3" in x for x in lines) == 2


def test_a_long_ammunition_list_folds_but_loses_nothing():
    lines = _lines("metalface/foundry", "cell=tactical")
    text = "".join(x.rstrip() for x in lines).replace(" ", "")
    for word in ("assaultrifle30", "rocketlauncher1", "beamrifle2"):
        assert word in text, word


def test_each_weapons_count_is_whole_on_its_own_line():
    """cybergeneration/mall_raid in 80 columns: the troopers' "assault_rifle:30" came out as
    "assault_rifle:3" with "0" on the next line; each weapon's count now has a line of its own, whole
    ("assault rifle 30"), and the header "conditions" is not folded either."""
    lines = _lines("cybergeneration/mall_raid", "juves=tactical")
    assert all(len(x) <= 80 for x in lines)
    assert "conditions" in lines[0] and "ammo" in lines[0]
    text = "\n".join(lines)
    assert text.count("assault rifle 30\n") + text.endswith("assault rifle 30") == 2, text
    assert text.count("frag grenade 2") == 2 and "light pistol 12" in text and "smg 50" in text, text
    assert all(x.split()[-1] != "0" for x in lines[1:])


def test_conditions_one_a_line_and_no_word_split():
    """A cybergeneration figure in shock has four conditions; "impaired, incapacitated, prone,
    stunned" in 80 columns came out with "incapacitat" over "ed". One a line now, each whole."""
    s = Session.new("cybergeneration/mall_raid", pc=["juves=tactical"], seed=3)
    s.begin()
    s.state.by_id["pixel"].conditions |= {"impaired", "incapacitated", "prone", "stunned"}
    buf = io.StringIO()
    Console(file=buf, width=80, color_system=None).print(
        figures_table(s.state, get_ruleset(s.state.ruleset), ["juves"], roles={"juves": "PC"}))
    lines = buf.getvalue().splitlines()
    words = [w for x in lines for w in x.split()]
    for k in ("impaired", "incapacitated", "prone", "stunned"):
        assert k in words, (k, lines)
    assert all(len(x) <= 80 for x in lines)
    assert "11,10" in words          # the cell as `move 11,10` takes it


def test_conditions_are_told_as_words():
    """"non_responsive" in the table while the log says "Jinx is now non responsive.": the table tells a
    condition as the log does, one a line, whole in 80 columns (seed 003's Non-Responsive status level)."""
    s = Session.new("metalface/foundry", pc=["cell=tactical"], seed=3)
    s.begin()
    s.state.combatants[0].conditions.add("non_responsive")
    s.state.combatants[1].conditions.update({"prone", "knocked_out"})
    buf = io.StringIO()
    Console(file=buf, width=80, color_system=None).print(
        figures_table(s.state, get_ruleset(s.state.ruleset), ["cell"], roles={"cell": "PC"}))
    lines = buf.getvalue().splitlines()
    assert any("non responsive" in x for x in lines) and any("knocked out" in x for x in lines), lines
    assert "non_responsive" not in buf.getvalue() and all(len(x) <= 80 for x in lines)
