"""Issue #33, 'NPCs that show their numbers': 'Suggested moves give the path's real length
and say when a move is a run or ends the turn; the map shows walk and run reach in different
colours.' The words are checked against what the rules then do with the move."""

from __future__ import annotations

import re

import pytest

from tactica.table import Session, describe_action
from tactica.table.words import move_facts
from tactica.web.board import overlays

SCENARIOS = ["cortex/warehouse", "cortex_hu/csarda", "metalface/scrapyard", "cybergeneration/mall_raid"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_move_words_are_what_the_move_then_does(scenario):
    s = Session.new(scenario, seed=2)
    s.begin()
    moves = [a for a in s.legal() if a.kind == "move"]
    assert moves
    for a in moves[::max(1, len(moves) // 8)]:
        text = describe_action(s.state, a)
        m = re.search(r"\(([\d.]+) m path, an? (\w+)( that ends the turn)?", text)
        assert m, text
        b = s.battle.clone()
        b.deciders = {}
        evs = b.step(a)
        mv = [e for e in evs if e["type"] == "move" and e["actor"] == s.state.actor.id]
        assert mv, evs
        assert float(m.group(1)) == pytest.approx(sum(e["metres"] for e in mv), abs=0.051)
        assert m.group(2) == mv[-1]["mode"]
        ended = b.state.actor is None or b.state.actor.id != s.state.actor.id or b.state.turn_index != s.state.turn_index
        if m.group(3):
            assert ended, text      # 'ends the turn' and the turn did end


def test_a_cortex_run_says_it_ends_the_turn():
    s = Session.new("cortex/warehouse", seed=1)
    s.begin()
    facts = [move_facts(s.state, a) for a in s.legal() if a.kind == "move"]
    modes = {(f["mode"], f["ends_turn"]) for f in facts}
    assert ("run", True) in modes and ("walk", False) in modes


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_map_colours_reach_by_how_it_is_reached(scenario):
    s = Session.new(scenario, seed=3)
    s.begin()
    ov = overlays(s.state, s.rs, s.legal())
    assert len(ov["reach_mode"]) == len(ov["reach"])
    g = s.state.grid
    by_cell = {}
    for a in s.legal():
        if a.kind == "move":
            f = move_facts(s.state, a)
            by_cell.setdefault(tuple(g.xy(a.cell)), set()).add(f["mode"] + ("!" if f["ends_turn"] else ""))
    for c, mode in zip(ov["reach"], ov["reach_mode"]):
        assert mode in by_cell[tuple(c)]


def test_options_that_cannot_succeed_come_last_and_are_never_suggested():
    """'Options that cannot succeed (0% to hit) are listed last or hidden, never focused first.'"""
    import io

    from rich.console import Console

    from tactica.table import Terminal
    from tactica.table.words import cannot_succeed

    s = Session.new("cortex/warehouse", seed=0)
    s.begin()
    st = s.state
    zero = [a for a in s.legal() if cannot_succeed(st, a)]
    assert zero, "the opening of warehouse seed 0 has attacks with no chance (the test's premise)"
    buf = io.StringIO()
    t = Terminal(s, Console(file=buf, width=300, color_system=None), lambda p: "quit")
    t.show_actions()
    attacks = [a for a in t.numbered if a.kind == "attack"]
    flags = [cannot_succeed(st, a) for a in attacks]
    assert flags == sorted(flags) and flags[-1] and not flags[0]    # every 0% attack after every other
    for _ in range(4):
        p = s.plan()
        assert not any(cannot_succeed(s.state, alt.action) for alt in p.alternatives)
        s.resolve(p.action, by="npc")


def test_alternatives_give_numbers_not_scores():
    """'Reasons in words a GM checks: hit odds, expected damage, the cover it gains or loses,
    why not the obvious alternative; scores only as a tie-break.'"""
    s = Session.new("cortex/duel", seed=3, npc=["crew", "outlaws"])
    s.begin()
    seen = set()
    for _ in range(8):
        if s.state.over:
            break
        p = s.plan()
        for alt in p.alternatives:
            if alt.action.kind == "attack":
                assert re.search(r"\d+% to hit, [\d.]+ Stun and Wound expected", alt.reason), alt.reason
                seen.add("attack")
            elif alt.action.kind == "move":
                assert re.search(r"[\d.]+ m, ", alt.reason) and "cover" in alt.reason, alt.reason
                seen.add("move")
        s.resolve(p.action)
    assert seen == {"attack", "move"}


def test_alternatives_without_numbers_keep_the_policys_words_not_the_kind():
    """An alternative with no odds or path to show (end the turn, aim, delay) is said in words
    of the figure: tactical's "Rust takes aim", never the raw kind "Rust aim" / "Rust end_turn"."""
    s = Session.new("cybergeneration/alley_brawl", pc=["evolved=tactical"], seed=3)
    s.begin()
    plain = 0
    for _ in range(2):  # Rust's run and its end of turn: both list plain actions
        p = s.plan()
        for alt in p.alternatives:
            assert alt.reason.startswith(s.state.actor.name), alt.reason
            if alt.action.kind in ("end_turn", "aim", "delay", "drop_prone"):
                plain += 1
                assert "_" not in alt.reason and alt.reason != f"{s.state.actor.name} {alt.action.kind}", alt.reason
        s.resolve(p.action)
    assert plain >= 3


def test_options_read_as_words_and_commands_stay_typeable():
    """The plan's headline said "attack Ferenc with the revolver (called:head)" and "(all_out)"; the
    command beside it is what a GM types, so it keeps the option as the rules name it."""
    from rules.actions import Action
    from tactica.table.commands import command_for

    s = Session.new("cortex_hu/csarda", seed=4)
    s.begin()
    st = s.state
    enemy = next(c for c in st.combatants if c.team != st.actor.team)
    weapon = next(iter(st.actor.weapons))
    for option, said in (("called:head", "(called head)"), ("all_out", "(all out)")):
        a = Action("attack", target=enemy.id, weapon=weapon, option=option)
        assert said in describe_action(st, a, with_odds=False)
        assert command_for(st, a).endswith(option)


def test_a_readied_or_reloaded_weapon_is_the_verbs_object_in_the_plan_and_the_reasons():
    """The plan's headline read "ready with the rocket_launcher" (metalface/rooftop) while the reasons
    said "ready the rocket_launcher": both say "ready the ...", and an attack keeps "with the"."""
    from agents.reasons import label
    from rules.actions import Action

    s = Session.new("cortex_hu/csarda", seed=4)
    s.begin()
    st = s.state
    weapon = next(iter(st.actor.weapons))
    enemy = next(c for c in st.combatants if c.team != st.actor.team)
    for kind in ("ready", "reload", "pick_up", "drop"):
        a = Action(kind, weapon=weapon)
        assert describe_action(st, a, with_odds=False).endswith(f" the {weapon}"), kind
        assert f"with the {weapon}" not in describe_action(st, a, with_odds=False) + label(st, a)
    shot = Action("attack", target=enemy.id, weapon=weapon)
    assert describe_action(st, shot, with_odds=False).endswith(f"with the {weapon}")


@pytest.mark.parametrize("ruleset,scenario", [("cortex", "cortex/saloon"), ("cortex_hu", "cortex_hu/csarda"),
                                              ("cybergeneration", "cybergeneration/alley_brawl")])
def test_a_defence_in_the_lists_says_what_it_does(ruleset, scenario):
    """The GM's list showed "defend all_out_block" with nothing beside it; every defence of a
    ruleset now says in a few words what it does (its data file's assumption, in short): in the
    numbered list (within the 80-column terminal), in the plan's headline and in the API's label."""
    from rules.ruleset import get_ruleset
    from tactica.table.words import action_note

    rs = get_ruleset(ruleset)
    options = rs.supported_actions["defend"]
    assert options and set(rs.defend_words) == set(options)
    assert all(0 < len(w) <= 39 for w in rs.defend_words.values())   # "  NN. " + 34 + " " + 39 = 80
    s = Session.new(scenario, seed=2)
    s.begin(None)
    seen = set()
    for _ in range(40):
        if s.state.over:
            break
        for a in s.legal():
            if a.kind == "defend":
                assert action_note(s.state, a) == rs.defend_words[a.option]
                assert describe_action(s.state, a).endswith(" - " + rs.defend_words[a.option])
                seen.add(a.option)
        s.resolve(s.plan().action)
    assert seen
    if ruleset == "cortex":   # seed 000's all-out defence: "+2 steps on defence rolls, no other action"
        assert rs.defend_words["all_out_dodge"] == "the dodge at +2 steps, no other action"
    if ruleset == "cybergeneration":   # seed 004: "Adding 2 to all difficulties to hit" (4 with 10+ REF)
        assert "+2" in rs.defend_words["dodge"] and "REF 10+: +4" in rs.defend_words["dodge"]
