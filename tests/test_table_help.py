"""The autopilot's `help` in the fight's own rules (tactica/table/helptext.py), and every action the
table lists can be typed back as it is written.

A metalface GM was shown cortex's help: `defend block|dodge`, `pp N` Plot Points, `attack jubal
revolver called:head`; metalface has no defence actions and no Plot Points, but turns and postures.
The help now lists the ruleset's own action commands (`Ruleset.supported_actions`) with its options,
and its examples are commands of the fight at hand, which these tests type back."""

from __future__ import annotations

import io
import random
import re

import pytest

from tactica.table import Session
from tactica.table.commands import parse_command
from tactica.table.helptext import SYNTAX, help_text
from tactica.table.overrule import parse_override
from tactica.table.words import command_for

SCENARIOS = ["cortex/warehouse", "cortex_hu/csarda", "metalface/foundry", "cybergeneration/mall_raid"]


def _opening(scenario: str, seed: int = 0) -> Session:
    s = Session.new(scenario, seed=seed)
    s.begin()
    return s


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_help_lists_the_rulesets_commands_and_no_other(scenario):
    s = _opening(scenario)
    text = help_text(s.rs, s.state, s.legal())
    assert f"under {s.rs.name} rules" in text
    shown = {k for k, (syntax, _) in SYNTAX.items() if re.search(rf"^  {re.escape(syntax)}( |$)", text, re.M)}
    assert shown == {k for k in SYNTAX if k in s.rs.supported_actions}
    for kind, opts in s.rs.supported_actions.items():    # every option, as it is typed
        for o in opts:
            if o and not o.startswith("plot_points:"):
                assert re.search(rf"[ ,]{re.escape(o)}[,;( \n]", text), (kind, o)
    has_pp = any(o.startswith("plot_points:") for o in s.rs.supported_actions.get("use", ()))
    assert ("Plot Points" in text) == has_pp
    assert "jubal" not in text.lower()           # no Serenity names outside a Serenity fight's figures


def test_metalface_help_has_turns_and_postures_not_defences():
    s = _opening("metalface/foundry")
    text = help_text(s.rs, s.state, s.legal())
    assert "turn DIRECTION" in text and "posture POSTURE" in text and "kneel" in text
    assert "defend" not in text and "pp N" not in text and "block" not in text


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_help_examples_are_legal_commands_now(scenario):
    s = _opening(scenario)
    legal = s.legal()
    text = help_text(s.rs, s.state, legal)
    examples = re.findall(r"now e\.g\. `([^`]+)`", text.replace("\n" + " " * 21, " "))
    assert len(examples) >= 2, text
    for ex in examples:
        cmd = parse_command(ex, s.state, legal)
        assert cmd.kind == "action" and cmd.action in legal, ex


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_help_override_examples_work(scenario):
    s = _opening(scenario)
    text = help_text(s.rs, s.state, s.legal())
    for word in ("set", "cond"):
        line = re.search(rf"^  {word} [A-Z].*?  ({word} [\w-]+ [\w+-]+(?: \d+)?)", text, re.M)
        assert line, text
        words = line.group(1).split()
        spec = parse_override(words[0], words[1:], s.state)
        s.override(spec)                               # the rules accept it
        s.undo()


def test_help_at_the_prompt_is_the_fights(tmp_path):
    from rich.console import Console

    from tactica.table import Terminal

    s = Session.new("metalface/foundry", seed=0, save_path=tmp_path / "t.json")
    s.begin()
    buf = io.StringIO()
    feed = ["help"]
    Terminal(s, Console(file=buf, width=300, color_system=None), lambda p: feed.pop(0) if feed else "quit").run()
    out = buf.getvalue()
    assert "Command syntax under metalface rules" in out and "turn DIRECTION" in out
    assert "Plot Points" not in out


@pytest.mark.parametrize("scenario", SCENARIOS + ["cortex_hu/les", "cybergeneration/alley_brawl"])
def test_every_listed_action_types_back_as_written(scenario):
    """What the table lists (`command_for`) is what the GM types: each legal action's command
    parses to that action, over random play (cortex_hu's `drop pistol` read as dropping prone)."""
    s = _opening(scenario, seed=1)
    rng = random.Random(1)
    kinds = set()
    for _ in range(40):
        if s.state.over:
            break
        legal = s.legal()
        for a in legal:
            assert parse_command(command_for(s.state, a), s.state, legal).action == a, command_for(s.state, a)
            kinds.add(a.kind)
        s.resolve(rng.choice(legal), by="npc")
    assert {"move", "attack", "end_turn"} <= kinds


def test_cortex_hu_drop_a_weapon_and_drop_prone():
    """cortex_hu has both a weapon drop (`drop pistol`) and dropping prone (`prone`, `drop` alone)."""
    s = _opening("cortex_hu/csarda")
    rng = random.Random(0)
    for _ in range(200):
        legal = s.legal()
        drops = [a for a in legal if a.kind == "drop"]
        if drops and any(a.kind == "drop_prone" for a in legal):
            a = drops[0]
            assert parse_command(f"drop {a.weapon}", s.state, legal).action == a
            assert parse_command("drop", s.state, legal).action.kind == "drop_prone"
            assert parse_command("prone", s.state, legal).action.kind == "drop_prone"
            return
        s.resolve(rng.choice(legal), by="npc")
    pytest.fail("no state with both drops in 200 random actions")


def test_an_unknown_word_lists_this_figures_actions():
    """The error for a word that is no command names what the acting figure can do in this
    ruleset (it named cortex's defend and stand in a metalface fight)."""
    from tactica.table.base import CommandError

    s = _opening("metalface/foundry")
    with pytest.raises(CommandError) as e:
        parse_command("r", s.state, s.legal())
    msg = str(e.value)
    assert "turn" in msg and "posture" in msg and "attack" in msg
    assert "defend" not in msg and "stand," not in msg


def test_a_command_the_figure_cannot_do_now_lists_what_it_can_as_typed():
    """`reload` with nothing to reload, `pp 2` without Plot Points to spend: the error lists the acting figure's
    actions as they are typed (`prone`, `end`), not the vocabulary's kinds (`drop_prone`, `end_turn`)."""
    from tactica.table.base import CommandError

    s = _opening("cortex/duel")
    legal = s.legal()
    assert not any(a.kind == "use" for a in legal) and not any(a.kind == "reload" for a in legal)
    for typed, says in (("pp 2", "cannot spend Plot Points now"), ("reload", "cannot reload now")):
        with pytest.raises(CommandError) as e:
            parse_command(typed, s.state, legal)
        msg = str(e.value)
        assert says in msg and "end" in msg and "prone" in msg, msg
        assert "drop_prone" not in msg and "end_turn" not in msg, msg
    s = _opening("cybergeneration/mall_raid")
    assert not any(a.kind == "first_aid" for a in s.legal())
    with pytest.raises(CommandError) as e:
        parse_command("first_aid", s.state, s.legal())
    assert "cannot give first aid now" in str(e.value)


@pytest.mark.parametrize("scenario", ["metalface/foundry", "cybergeneration/alley_brawl", "cortex_hu/csarda"])
def test_names_as_the_table_shows_them_can_be_typed(scenario):
    """The plans say 'Goon 1 attacks Rust' and the help says names may be typed, but `attack goon 1` was read
    as a cell (`1 number(s)`) and `beam rifle` as two unknown words. A name of two or three words (a figure's
    name, a weapon or option with its underscores as spaces) is one name now."""
    s = _opening(scenario, seed=1)
    rng = random.Random(2)
    tried = 0
    for _ in range(60):
        if s.state.over:
            break
        legal = s.legal()
        for a in legal:
            if a.target is None or a.weapon is None:
                continue
            name = s.state.by_id[a.target].name
            typed = f"{a.kind} {name} {a.weapon.replace('_', ' ')}" + (f" {a.option}" if a.option else "")
            assert parse_command(typed, s.state, legal).action == a, typed
            tried += 1
        s.resolve(rng.choice(legal), by="npc")
    assert tried >= 10


def test_a_figure_that_is_no_target_now_is_named_in_the_error():
    from tactica.table.base import CommandError

    s = _opening("metalface/foundry")
    legal = s.legal()
    out_of_reach = next(c for c in s.state.combatants if c.team != s.state.actor.team
                        and not any(a.target == c.id for a in legal))
    with pytest.raises(CommandError) as e:
        parse_command(f"attack {out_of_reach.name}", s.state, legal)
    assert f"{out_of_reach.name!r} is not a target" in str(e.value)
