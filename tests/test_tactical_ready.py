"""`tactical`'s `ready` choices in cybergeneration, where only the drawn weapon attacks.

seed 004, Your Turn: "With your movement you can: ... Draw a weapon from a holster or sheath;
Steady a weapon you have drawn for +1 to hit"; "You may do one action eg: ... Changing weapons".
Seen at the table (cybergeneration/mall_raid, seed 5): a juve with nothing to shoot at changed
to its baseball bat (the action) and drew its heavy pistol back (the move) in the same turn, two
rounds running; figures steadied an aim that no shot of the turn used. Both spend a turn on
nothing."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from agents.base import make_policy
from agents.tactical import TacticalPolicy
from evaluation.simulate import fight_streams
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
from tests.cybergeneration_setup import fig, scen

# a wall between the two sides: nobody sees anybody, nothing is worth attacking
ROWS = ["......#.......", "......#.......", "......#......."]


def decide(me: dict) -> list:
    spec, src = load_scenario(scen(ROWS, [me], [fig("b", (12, 1), weapons=("light_pistol",))]))
    b = new_battle(spec, Dice(np.random.default_rng(0)), src, record=False)
    b.start()
    s = b.state
    assert s.actor.id == "a"
    return TacticalPolicy(seed=0).rank(s, s.actor)


def score(ranked: list, option: str, weapon: str) -> float:
    return next(c.score for c in ranked if c.action.kind == "ready" and c.action.option == option
                and c.action.weapon == weapon)


def test_holding_the_pistol_it_neither_changes_to_the_bat_nor_steadies_an_aim_it_will_not_use():
    ranked = decide(fig("a", (1, 1), weapons=("heavy_pistol", "baseball_bat"), drawn="heavy_pistol"))
    assert ranked[0].action.kind != "ready"
    assert score(ranked, "change", "baseball_bat") < 0      # reaches 2.2 m, the pistol farther
    assert score(ranked, "steady", "heavy_pistol") < 0      # +1 to hit this turn: no shot this turn


def test_holding_the_bat_it_draws_the_pistol_and_nothing_draws_the_bat_back():
    ranked = decide(fig("a", (1, 1), weapons=("heavy_pistol", "baseball_bat"), drawn="baseball_bat"))
    assert score(ranked, "draw", "heavy_pistol") > 0
    assert ranked[0].action.kind == "ready" and ranked[0].action.weapon == "heavy_pistol"


def test_with_nothing_drawn_it_draws_the_weapon_that_reaches_farthest():
    ranked = decide(fig("a", (1, 1), weapons=("knife", "heavy_pistol"), drawn="none"))
    readies = [c for c in ranked if c.action.kind == "ready" and c.action.option == "draw"]
    assert {c.action.weapon for c in readies} == {"knife", "heavy_pistol"}
    assert readies[0].action.weapon == "heavy_pistol" and readies[0].score > readies[1].score > 0


@pytest.mark.parametrize("scenario", ["cybergeneration/mall_raid", "cybergeneration/alley_brawl",
                                      "cybergeneration/rooftop_standoff"])
def test_no_turn_readies_two_weapons_or_steadies_for_no_shot(scenario: str):
    """Before the fix, 26 of 772 turns of 18 such fights readied two weapons (one, then another
    back) and 35 steadied without a shot."""
    spec, src = load_scenario(scenario)
    turns: dict = collections.defaultdict(list)
    for i in range(4):
        teams = [t.name for t in spec.teams]
        dss, pss = fight_streams(1, i, len(teams))
        b = new_battle(spec, Dice(np.random.default_rng(dss)), src, record=False)
        pols = {t: make_policy("tactical", pss[k]) for k, t in enumerate(teams)}
        for p in pols.values():
            act = p.act
            p.act = lambda state, actor, _a=act, _i=i: turns[(_i, state.round, actor.id)].append(_a(state, actor)) \
                or turns[(_i, state.round, actor.id)][-1]
        b.run(pols)
    swapped = [k for k, acts in turns.items()
               if len({a.weapon for a in acts if a.kind == "ready" and a.option in ("draw", "change")}) > 1]
    idle = [k for k, acts in turns.items() if any(a.kind == "ready" and a.option == "steady" for a in acts)
            and not any(a.kind == "attack" for a in acts)]
    assert len(turns) > 50 and swapped == [] and idle == []
