"""Issue #33, "NPCs that show their numbers": "Reasons in words a GM checks: hit odds, expected
damage, the cover it gains or loses, why not the obvious alternative; scores only as a
tie-break. Suggested moves give the path's real length and say when a move is a run or ends
the turn." and "Options that cannot succeed (0% to hit) are listed last or hidden, never
focused first" (`agents.reasons.succeeds`, for the table's ranking).

The scenarios are the cortex rules tests' (tests/cortex_rules_setup.py); the numbers are the
ruleset's own (`attack_odds`), the moves tried on a copy of the state.
"""

from __future__ import annotations

import pytest

from agents import reasons as R
from agents.base import make_policy
from agents.tactical import Choice
from rules.actions import END_TURN, Action
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
from tests import cortex_rules_setup as C
from tests import metalface_setup as M

#: heavy cover (h) at x=6 between a figure at (0, 1) and the gunslinger at (11, 1)
ROWS = ["." * 12, "." * 6 + "h" + "." * 5, "." * 12]


def clumsy():
    """A figure with Agility d2 and no Guns skill facing the bestiary gunslinger (Agility d10):
    its plain shot needs the gunslinger's innate roll to come low; any called shot, at
    Difficulty +4 or more, is beyond the 2 its d2 can show (seed 000, Called Shots)."""
    s = C.scen(ROWS, [C.fig("A", (0, 1), agi="d2", weapons=("revolver",))], [C.gunslinger("g", (11, 1))])
    b = C.play(s)
    return b.state, b.state.actor


def test_succeeds_is_false_at_zero_percent_and_none_for_non_attacks():
    st, me = clumsy()
    plain = Action("attack", target="g", weapon="revolver")
    head = Action("attack", target="g", weapon="revolver", option="called:head")
    assert R.succeeds(st, me, plain) is True
    assert R.succeeds(st, me, head) is False
    assert R.succeeds(st, me, END_TURN) is None
    assert R.succeeds(st, me, Action("move", cell=st.grid.index(1, 1))) is None


def test_attack_words_give_odds_expected_damage_in_the_track_and_the_cover():
    st, me = clumsy()
    head = Action("attack", target="g", weapon="revolver", option="called:head")
    assert R.attack_words(st, me, head) == (
        "fires at Gunslinger with the revolver (called head): 0% to hit (cannot succeed), 0.0 Stun and"
        " Wound expected (6.0 if it hits, of 12 left); Gunslinger has no cover against it")


def test_metalface_attack_words_count_status():
    """seed 003: damage comes off Status (Status 10 + 5 x END = 20 at END 2)."""
    b = M.play(M.scen(M.open_map(), [M.shooter()], [M.dummy()]))
    st, me = b.state, b.state.actor
    line = R.attack_words(st, me, Action("attack", target="t", weapon="pistol"))
    assert "Status expected" in line and "of 20 left" in line and "Stun" not in line, line


def test_move_words_give_the_path_the_pace_the_turn_and_the_cover_gained():
    """seed 000, Movement: 7.5 m (5 squares of 1.5 m) is a hustle for this figure and leaves the
    turn going ("Hustle ... counts as 1 action"), with no attack open after it: the attack was open before, but
    this figure's shot (Agility d2, no skill), stepped down for a second action, has no dice left. 12.8 m is a run
    that ends it. The heavy cover at x=6 shields x=5 from x=11."""
    st, me = clumsy()
    assert R.move_words(st, me, Action("move", cell=st.grid.index(5, 1))) == (
        "moves to [5, 1]: 7.5 m, a hustle, the turn goes on, no attack after it; gains heavy cover (had no) against"
        " Gunslinger")
    assert R.move_words(st, me, Action("move", cell=st.grid.index(8, 2))) == (
        "moves to [8, 2]: 12.8 m, a run, ends the turn; keeps no cover against Gunslinger")


def test_explain_names_the_alternative_and_the_scores_only_when_close():
    st, me = clumsy()
    cover = Action("move", cell=st.grid.index(5, 1))
    shot = Action("attack", target="g", weapon="revolver")
    own = "moves to [5, 1] (heavy cover vs 1 enemy) to wait"
    far = [Choice(cover, 1.0, own), Choice(shot, 0.5, "fires")]
    line = R.explain(st, me, cover, far, own)
    assert line == ("A moves to [5, 1]: 7.5 m, a hustle, the turn goes on, no attack after it; gains heavy cover"
                    " (had no) against Gunslinger - to wait; rather than: fires at Gunslinger with the revolver: 10%"
                    " to hit, 0.4 Stun and Wound expected (4.0 if it hits, of 12 left); Gunslinger has no cover"
                    " against it")
    close = [Choice(cover, 1.0, own), Choice(shot, 0.98, "fires")]
    assert R.explain(st, me, cover, close, own).endswith("(a close call: score 1.00 against 0.98)")


@pytest.mark.parametrize("own, purpose", [
    ("moves to [16, 7] (heavy cover (dumpster) vs 1 enemy), Gunner in light cover from there",
     "Gunner in light cover from there"),
    ("moves to [5, 1] (medium cover (crates) vs 2 enemies) to fire at Jubal: 60% to hit",
     "to fire at Jubal: 60% to hit"),
    ("moves to [5, 1] (out of every enemy's sight)", ""),
])
def test_a_named_cover_source_leaves_the_purpose_whole(own: str, purpose: str):
    """The cover's source has its own brackets inside the move's ("heavy cover (dumpster)"): the purpose is what
    follows the whole bracket, not a dangling "vs 1 enemy), ..." (seen at the table, cybergeneration/mall_raid)."""
    st, me = clumsy()
    line = R.explain(st, me, Action("move", cell=st.grid.index(5, 1)), [], own).split("; rather than")[0]
    assert line.endswith(f"Gunslinger - {purpose}" if purpose else "Gunslinger"), line


def test_a_policy_without_scores_names_the_obvious_attack():
    st, me = clumsy()
    line = R.explain(st, me, Action("move", cell=st.grid.index(5, 1)), (), "takes cover")
    assert line.endswith("- takes cover; rather than: fires at Gunslinger with the revolver: 10% to hit, 0.4 Stun"
                         " and Wound expected (4.0 if it hits, of 12 left); Gunslinger has no cover against it")


@pytest.mark.parametrize("policy", ["tactical", "cautious", "aggressive", "planner"])
def test_explain_changes_nothing_a_policy_does(policy: str):
    """`explain` must not change what a policy does: the same seed gives the same actions
    whether or not each one is explained (and every line is one line)."""
    runs = []
    for explaining in (False, True):
        spec, src = load_scenario("cortex/warehouse")
        b = new_battle(spec, Dice(5), src, record=True)
        b.start()
        s = b.state
        pols = {t: make_policy(policy, 7 + i) for i, t in enumerate(s.teams)}
        acts = []
        for _ in range(10 if policy == "planner" else 25):
            if s.over:
                break
            p = pols[s.actor.team]
            a = p.act(s, s.actor)
            if explaining:
                line = p.explain(s, s.actor, a)
                assert line.strip() and "\n" not in line
            acts.append(a)
            b.step(a)
        runs.append(acts)
    assert runs[0] == runs[1]


def test_a_stance_that_saves_nothing_says_so():
    """At the table tactical's alternatives said "Rust drops prone: the enemies' next attacks lose 0.0 expected
    damage"; a stance that saves nothing says that, and one that draws more fire says it gains."""
    from agents.reasons import guard_words as _guard_words

    assert _guard_words(1.24) == "the enemies' next attacks lose 1.2 expected damage"
    assert _guard_words(0.01) == _guard_words(-0.04) == "the enemies' next attacks would lose nothing by it"
    assert _guard_words(-0.5) == "the enemies' next attacks gain 0.5 expected damage"


def test_a_run_that_spends_the_attack_says_so():
    """seed 003 (METALFACE): "Run | Move 2x(AGL) meters | Full Turn". At metalface/rooftop, seed 11, Kestrel's plan
    was a 7.5 m hover, "the turn goes on", and a GM waited for the shot that could not come: the words now say "no
    attack after it"; a short hover, after which the beam pistol can still fire, does not."""
    from tactica.table import Session
    from tactica.table.words import describe_action

    s = Session.new("metalface/rooftop", pc=["metalfaces=tactical"], seed=11, confirm=False)
    s.begin()
    st, g = s.state, s.state.grid
    far, near = Action("move", cell=g.index(3, 5)), Action("move", cell=g.index(1, 8))
    assert far in s.legal() and near in s.legal()
    assert "7.5 m, a hover, the turn goes on, no attack after it;" in R.move_words(st, st.actor, far)
    told = describe_action(st, far, with_odds=False)
    assert told.startswith("move to [3, 5] (7.5 m path, a hover, no attack after it"), told
    assert "no attack" not in R.move_words(st, st.actor, near) and "no attack" not in describe_action(st, near)
