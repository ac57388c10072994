"""The replay's final state shows everything the rules track (issue #32: "The final state
shows everything the rules track: life or status points and their thresholds, weapons
carried, held and dropped, objects on the ground, every condition with its duration, the
turn economy (actions used, metres moved, aim steps, prepared defences), jams and
breakage, grapple partners, held actions").

The generic part (`rules.final_state.state_summary`) is the same for every ruleset; what a
ruleset tracks beyond it comes from `Ruleset.tracked(state, c)` under `combatants[id].rules`
(the ruleset helpers implement it; here a stand-in checks the plumbing).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.base import make_policy
from rules.dice import Dice
from rules.replay import run_replay, state_summary
from rules.ruleset import Ruleset, get_ruleset
from rules.scenario import bundled_scenarios, load_scenario, new_battle
from rules.schema import problems

REPO = Path(__file__).resolve().parents[1]
PISTOL_HIT = REPO / "tests" / "replays" / "cortex_pistol_hit.yaml"


def played(scenario: str, actions: int = 12, seed: int = 3):
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(seed), src)
    b.start()
    pol = make_policy("aggressive", 1)
    for _ in range(actions):
        if b.state.over:
            break
        b.step(pol.act(b.state, b.state.actor), check=False)
    return b


def test_the_old_keys_stay() -> None:
    """tactica/server.py and the autopilot tests read these."""
    d = state_summary(run_replay(PISTOL_HIT).state)
    assert {"round", "over", "winner", "actor", "combatants"} <= set(d)
    t = d["combatants"]["target"]
    assert (t["team"], t["pos"], t["conditions"], t["stun"], t["wound"]) == ("b", [6, 1], [], 3, 5)
    assert d["combatants"]["shooter"]["ammo"] == {"revolver": 5}


def test_the_generic_part_holds_the_economy_and_every_json_able_resource() -> None:
    b = run_replay(PISTOL_HIT)
    d = state_summary(b.state)
    assert d["actor"] == "shooter" and d["round"] == 1 and d["end_reason"] == ""
    assert d["economy"]["shots"] == {"revolver": 1}        # the acting figure's turn so far
    assert d["economy"] == json.loads(json.dumps(b.state.economy))
    s = d["combatants"]["shooter"]
    assert s["held"] == "revolver" and s["grappling"] is None      # not only numbers any more
    # the ruleset's own account (cortex: Life Points and thresholds, weapons, the turn ...)
    assert s["rules"] == json.loads(json.dumps(b.ruleset.tracked(b.state, b.state.by_id["shooter"])))
    assert s["rules"]
    assert problems("final_state", d) == []


def test_sets_show_as_sorted_lists() -> None:
    """metalface keeps jammed, packed and charging weapons as sets."""
    b = played("metalface/foundry")
    c = b.state.combatants[0]
    c.res["jammed"] = {"beam_rifle", "arm_blade"}
    d = state_summary(b.state)
    assert d["combatants"][c.id]["jammed"] == ["arm_blade", "beam_rifle"]
    assert problems("final_state", d) == []


def test_objects_on_the_ground_by_cell() -> None:
    b = played("cortex/saloon", actions=0)
    d = state_summary(b.state)
    g = b.state.grid
    want = [{"at": list(g.xy(cell)), "items": list(items)} for cell, items in sorted(b.state.objects.items())]
    assert d["objects"] == want and want
    assert all(isinstance(o["items"][0], str) for o in d["objects"])


def test_once_over_nobody_acts_and_the_economy_is_empty() -> None:
    b = run_replay(REPO / "tests" / "replays" / "cortex" / "knockout_ends_fight.yaml")
    d = state_summary(b.state)
    assert d["over"] and d["winner"] == "crew" and d["end_reason"] == "last team standing"
    assert d["actor"] is None and d["economy"] == {}
    assert d["combatants"]["jubal"]["conditions"] == ["unconscious"]


def test_what_the_ruleset_tracks_shows_under_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ruleset's `tracked` dict (here a stand-in) is the figure's `rules`, as JSON."""
    rs = get_ruleset("cortex")

    def tracked(self, state, c):
        out = {"life_points": 12, "wound": c.res["wound"], "stun": c.res["stun"],
               "thresholds": {"knocked_out": 12}, "weapons": {"carried": sorted(c.weapons), "held": c.res["held"]},
               "conditions": {"stunned": {"rounds": 2}}, "aim_steps": frozenset({1})}
        if state.actor is c:
            out["economy"] = {"actions_used": 2 - state.economy["actions"]}
        return out

    monkeypatch.setattr(type(rs), "tracked", tracked)
    d = state_summary(run_replay(PISTOL_HIT).state)
    s, t = d["combatants"]["shooter"]["rules"], d["combatants"]["target"]["rules"]
    assert s["weapons"] == {"carried": ["revolver", "unarmed"], "held": "revolver"}
    assert s["economy"] == {"actions_used": 1} and "economy" not in t
    assert (t["wound"], t["stun"]) == (5, 3) and t["conditions"] == {"stunned": {"rounds": 2}}
    assert s["aim_steps"] == [1]
    assert problems("final_state", d) == []


def test_a_tracked_value_that_is_not_json_is_the_rulesets_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    rs = get_ruleset("cortex")
    monkeypatch.setattr(type(rs), "tracked", lambda self, state, c: {"weapon": object()})
    with pytest.raises(TypeError, match=r"cortex: Ruleset.tracked\(shooter\).*weapon"):
        state_summary(run_replay(PISTOL_HIT).state)


def test_the_base_ruleset_tracks_nothing_and_says_what_rulesets_put_there() -> None:
    assert Ruleset.tracked.__doc__ and "thresholds" in Ruleset.tracked.__doc__
    b = run_replay(PISTOL_HIT)
    assert Ruleset.tracked(b.ruleset, b.state, b.state.combatants[0]) == {}


@pytest.mark.parametrize("scenario", bundled_scenarios())
def test_every_bundled_fight_state_fits_the_final_state_schema(scenario: str) -> None:
    b = played(scenario)
    d = state_summary(b.state)
    assert json.loads(json.dumps(d)) == d
    assert problems("final_state", d) == []
