"""`status FIGURE` at the table shows the ruleset's own view of the figure (`Ruleset.tracked`, as
the API serves it), not the engine's bookkeeping: metalface's facing was `facing 5`, cortex showed
no stun or wound at all, cybergeneration showed `aim_round -1, turn_round 1`."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from tactica.table import Session, Terminal
from tactica.table.status import status_lines

SCENARIOS = ["cortex/warehouse", "cortex_hu/csarda", "metalface/foundry", "cybergeneration/mall_raid"]


def _status(s: Session, fig: str) -> str:
    buf = io.StringIO()
    feed = [f"status {fig}"]
    Terminal(s, Console(file=buf, width=400, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    out = buf.getvalue()
    return out[out.index(f"status {fig}") if f"status {fig}" in out else 0:]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_status_gives_every_plain_value_of_the_rulesets_view(scenario, tmp_path):
    s = Session.new(scenario, seed=0, save_path=tmp_path / "s.json")
    s.begin()
    other = next(c for c in s.state.combatants if c.id != s.state.actor.id)
    view = s.rs.tracked(s.state, other)
    text = _status(s, other.id)
    for k, v in view.items():
        if k in ("pos", "down") or isinstance(v, (dict, list)) or v is None or v is False:
            continue
        want = "yes" if v is True else (f"{v:g}" if isinstance(v, float) else str(v))
        assert f"{k.replace('_', ' ')} {want}" in text, (k, v, text)
    assert "this turn:" not in text            # another figure's turn: no economy
    assert "_round -1" not in text and "aim_round" not in text


def test_metalface_status_names_the_facing_and_follows_the_damage(tmp_path):
    s = Session.new("metalface/foundry", seed=0, save_path=tmp_path / "s.json")
    s.begin()
    sarge = s.state.by_id["sarge"]
    names = ("n", "ne", "e", "se", "s", "sw", "w", "nw")
    text = _status(s, "sarge")
    assert f"facing {names[sarge.res['facing']]}," in text and "facing 5" not in text
    s.override({"kind": "track", "figure": "sarge", "track": "status", "value": 10})
    lines = status_lines(s.rs.tracked(s.state, sarge), False)
    assert "status 10" in lines[0] and "damage 15" in lines[0], lines
    assert "level suffering" in lines[0], lines   # 10 left: at or below suffering's 12, above critical's 6


def test_cortex_status_shows_stun_and_wound_and_the_actors_turn(tmp_path):
    s = Session.new("cortex/warehouse", seed=0, save_path=tmp_path / "s.json")
    s.begin()
    me = s.state.actor
    text = _status(s, me.id)
    assert "stun 0" in text and "wound 0" in text and "life points" in text
    assert "this turn: actions used 0" in text
    assert "ammo: pistol 15" in text     # weapon ids as the commands type them


def test_status_alone_shows_the_figure_to_act(tmp_path):
    """A GM typing `status` at a prompt was told "status needs a figure"; alone it is the acting figure."""
    s = Session.new("cybergeneration/mall_raid", seed=0, save_path=tmp_path / "s.json")
    s.begin()
    me = s.state.actor
    buf = io.StringIO()
    feed = ["status"]
    Terminal(s, Console(file=buf, width=400, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    out = buf.getvalue()
    assert "needs a figure" not in out
    assert "this turn:" in out and me.name in out[out.rindex("> status") if "> status" in out else 0:]


def test_status_alone_between_rounds_asks_for_a_figure(tmp_path):
    """At the initiative dice of a new round no figure is acting: `status` alone crashed the table
    (found by a fuzz of typed lines); it now asks which figure."""
    s = Session.new("cybergeneration/mall_raid", seed=0, dice_mode="manual", save_path=tmp_path / "s.json")
    buf = io.StringIO()
    feed = ["status", "r", "r", "r", "r", "r", "r", "r"]
    Terminal(s, Console(file=buf, width=400, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    assert "status needs a figure: no figure is acting now" in buf.getvalue()


@pytest.mark.parametrize("word", ["hint", "list", "moves"])
def test_commands_of_the_acting_figure_at_the_initiative_dice_say_nobody_acts(tmp_path, word):
    """`hint` at a new round's initiative dice crashed the table ('NoneType' has no 'team'; found
    by a fuzz of typed lines): no figure acts until initiative is rolled."""
    s = Session.new("cybergeneration/mall_raid", seed=0, dice_mode="manual", save_path=tmp_path / "s.json")
    buf = io.StringIO()
    feed = [word] + ["r"] * 8
    Terminal(s, Console(file=buf, width=400, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    assert "no figure is acting now: the round's initiative is being rolled" in buf.getvalue()


def test_a_conditions_or_armours_key_is_told_as_words_and_a_weapon_keeps_its_id():
    """`status` said "conditions: (name non_responsive)" and "armour: name metal_plating" while the log says "non
    responsive": keys read as words; a weapon keeps the id the commands type (`reload beam_rifle`)."""
    from tactica.table import Session
    from tactica.table.status import status_lines

    s = Session.new("metalface/foundry", seed=3, confirm=False)
    s.begin()
    c = s.state.combatants[0]
    c.conditions.add("non_responsive")
    text = "\n".join(status_lines(s.rs.tracked(s.state, c), True, frozenset(s.rs.weapon_slots(c))))
    assert "non responsive" in text and "metal plating" in text and "non_responsive" not in text, text
    assert "beam_rifle (kind beam" in text, text
