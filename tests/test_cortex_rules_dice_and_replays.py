"""Rule tests for the `cortex` ruleset (seed 000 on Cortex Classic), with forced dice:
the Bestiary, Victory, the dice and pools (pure helpers), and the replay files
(tests/replays/cortex/*.yaml), each of which states one case as a file.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES cortex", "assumption <key>") and the
geometry are in tests/cortex_rules_setup.py; the other topics in tests/test_cortex_rules_*.py.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rules.dice import D0, D2, D4, D6, D8, D10, D12, Dice, Step, roll_steps
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from rules.systems.cortex.model import make_pool
from tests.cortex_rules_setup import (CORTEX_REPLAYS, REPLAYS, attack, dummy, end, evs, fig, only, open_map,
                                      play, pos, rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# Bestiary

def test_bestiary_has_at_least_six_armed_templates_and_armour():
    """Issue: the bestiary has at least six templates with weapons and armour
    (data.yaml bestiary); every template builds with Life Points and loaded guns."""
    rs = get_ruleset("cortex")
    names = rs.templates()
    armed = [n for n in names if [w for w in rs.bestiary[n]["weapons"] if w != "unarmed"]]
    assert len(armed) >= 6
    armoured = 0
    for i, name in enumerate(names):
        c = rs.build_combatant({"template": name}, id=f"x{i}", team="a", pos=0, order=i,
                               source=None, field="x")
        assert c.stats["life"] > 0
        for w in c.weapons.values():
            if w.ranged and w.magazine:
                assert c.res["ammo"][w.name] == w.magazine
        armoured += bool(c.armour)
    assert armoured >= 2


# ---------------------------------------------------------------------------------------
# Victory

def test_round_limit_is_a_draw():
    """rules/battle.py: past the round limit the fight is a draw (winner None)."""
    s = scen(open_map(), [fig("p", (0, 0))], [fig("q", (11, 2))], round_limit=1)
    b = play(s, [end("p"), end("q")])
    assert b.state.over and b.state.winner is None
    assert b.state.end_reason == "round limit"
    assert only(evs(b, "battle_end"))["reason"] == "round limit"


def test_fight_goes_on_while_two_teams_stand():
    """rules/battle.py: the fight ends only when one team is left standing."""
    s = scen(open_map(), [fig("p", (0, 0))], [fig("q", (11, 2))], round_limit=3)
    b = play(s, [end("p"), end("q")])
    assert not b.state.over and b.state.round == 2 and b.state.actor.id == "p"


# ---------------------------------------------------------------------------------------
# Dice and pools (pure helpers)

def test_die_step_ladder():
    """RULES-NOTES cortex: traits are die types on a ladder d2 ... d12, d12+d2 ...;
    assumption step_above_d12: d12+dX is rolled as two dice."""
    assert Step.parse("d8") - 2 == D4
    assert D2 - 1 == D0 and not D0
    assert D12 + 1 == Step.parse("d12+d2")
    assert Step.parse("d12+d2").dice == (12, 2)
    assert Step.parse("d12+d2").maximum == 14
    d = Dice(0)
    d.force([12, 2], strict=True)
    r = roll_steps(d, [Step.parse("d12+d2")])
    assert (r.faces, r.total) == (((12, 12), (2, 2)), 14)


def test_botch_is_every_die_a_one():
    """RULES-NOTES cortex: a botch is every die showing 1."""
    d = Dice(0)
    d.force([1, 1, 1, 2], strict=True)
    assert roll_steps(d, [D8, D6]).botch
    assert not roll_steps(d, [D8, D6]).botch


def test_d12_plus_d2_attribute_rolls_two_dice_in_an_attack():
    """assumption step_above_d12 and roll_order: a d12+d2 attribute rolls two dice, then
    the skill die."""
    s = scen(open_map(), [fig("s", (0, 1), agi="d12+d2", skills={"guns": "d4"}, weapons=("pistol",))],
             [dummy("t", (5, 1))])
    b = play(s, [attack("s", "t", "pistol", [1, 1, 1])])
    assert only(rolls(b, "attack"))["dice"] == [[12, 1], [2, 1], [4, 1]]


@pytest.mark.parametrize("attr,skill,steps,expected", [
    (D8, D6, 0, (D8, D6)),
    (D8, D6, -1, (D8, D4)),
    (D8, D6, 2, (D8, D10)),
    (D8, D2, -1, (D8, D0)),
    (D8, D2, -2, (D6, D0)),
    (D4, D2, -3, None),
    (D2, D0, -1, None),
])
def test_make_pool_steps_skill_then_attribute(attr, skill, steps, expected):
    """assumption multiple_actions: steps go to the skill die, the excess to the attribute
    die; below d2 the action cannot be tried."""
    c = SimpleNamespace(stats={"attributes": {"agility": attr}})
    assert make_pool(c, "agility", skill, steps) == expected


# ---------------------------------------------------------------------------------------
# Replay files (tests/replays/cortex/*.yaml): each states one case as a file

def test_replay_bare_handed_block_disarm():
    """seed 000, Defense, Melee Combat (bare-handed block disarms and grabs) and Melee
    Combat, Unarmed (the weapon's damage still lands)."""
    b = run_replay(CORTEX_REPLAYS / "bare_handed_block_disarm.yaml")
    assert who(b, "zoe").res["gained"] == ["knife"]
    assert who(b, "thug").res["lost"] == ["knife"]
    assert (who(b, "zoe").res["stun"], who(b, "zoe").res["wound"]) == (0, 1)
    assert b.state.actor.id == "zoe"


def test_replay_dodge_behind_cover():
    """seed 000, Defense, Ranged Combat: a dodge to heavy cover 10 ft away (near, -2 steps);
    the dodge roll is the Difficulty, the dodger ends behind the cover."""
    b = run_replay(CORTEX_REPLAYS / "dodge_behind_cover.yaml")
    assert pos(b, "zoe") == (5, 2)
    assert [(d["mode"], d["difficulty"]) for d in evs(b, "defence")] == [("dodge", 11), ("dodge", 6)]
    assert [e["result"] for e in evs(b, "attack")] == ["miss", "hit"]
    # the second shot meets the same stance from cover: no move, no range-to-cover penalty,
    # but the stance's second roll is one step lower (assumption defence_stance)
    assert [sides(r) for r in rolls(b, "dodge to cover")] == [[8, 4], [8, 6]]


def test_replay_knockout_ends_the_fight():
    """assumption unconscious and rules/battle.py: a failed Endurance roll at Life Points
    knocks the last enemy out and its team loses."""
    b = run_replay(CORTEX_REPLAYS / "knockout_ends_fight.yaml")
    assert b.state.over and b.state.winner == "crew"
    assert "unconscious" in who(b, "jubal").conditions


@pytest.mark.parametrize("path", sorted(REPLAYS.rglob("*.yaml")), ids=lambda p: p.name)
def test_every_replay_file_runs_with_exact_dice(path):
    """rules/replay.py: every replay file plays with exactly the dice it gives."""
    b = run_replay(path)
    assert b.events
