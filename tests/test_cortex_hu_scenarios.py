"""Rule tests for the `cortex_hu` ruleset (seed 002, a Hungarian Cortex combat summary):
the common Cortex base (shared with `cortex` through rules/systems/cortex_common), the views
the environments and policies use, and the bundled scenarios (which use the rules; policies
and environments play them).

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 002, <rule>", "assumption <key>") and the geometry are in
tests/cortex_hu_setup.py; the other topics in tests/test_cortex_hu_*.py.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.ruleset import get_ruleset
from rules.scenario import load_scenario, new_battle
from tests.cortex_hu_setup import (RS, act, attack, dummy, econ, end, evs, fencer, fig, move, open_map, play,
                                   rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# the common Cortex base (shared with `cortex` through rules/systems/cortex_common)

def test_cortex_hu_shares_the_cortex_base_as_common_code():
    """RULES-NOTES cortex base: die steps, Difficulty ladder, Life Points, damage types and the
    Basic split, armour, unconsciousness and dying are one implementation for both rulesets."""
    from rules.systems.cortex_common.mechanics import CortexBase
    cortex = get_ruleset("cortex")
    for name in ("apply_damage", "split", "absorb_armour", "endurance", "innate_defence", "health",
                 "base_attr_steps", "rolled_order", "dying_upkeep", "drop_object"):
        assert getattr(type(RS), name) is getattr(CortexBase, name) is getattr(type(cortex), name), name
    assert RS.diff == cortex.diff == {"easy": 3, "average": 7, "hard": 11, "formidable": 15, "heroic": 19,
                                      "incredible": 23, "ridiculous": 27, "impossible": 31}
    keys = {a["key"] for a in RS.data["assumptions"]}
    assert {"basic_split", "unconscious", "dying", "life_points", "multiple_actions", "run"} <= keys
    assert "called:arm" not in RS.supported_actions["attack"] and "use" not in RS.supported_actions
    assert "pick_up" not in RS.supported_actions


def test_life_points_basic_split_armour_and_unconsciousness():
    """RULES-NOTES cortex: Life Points = Vitality max + Willpower max; the margin is Basic
    (half Stun, half Wound, the odd point Stun); armour per type; an Endurance roll at 7
    when Stun + Wound reach Life Points (assumptions basic_split, armour, unconscious)."""
    t = fig("t", (1, 1), vit="d4", wil="d4", decline_innate="always", reactions="never", armour="leather_coat")
    s = scen(open_map(), [fencer("f", (0, 1), skills={"melee_weapons/swords": "d12"})], [t])
    assert RS.health(play(s).state.by_id["t"]) == (8.0, 8.0)
    b = play(s, [attack("f", "t", "sabre", [6, 12, 4])])                     # margin 15, d4 = 4
    dmg = evs(b, "damage", target="t")[0]
    # Basic 15: 8 Stun, 7 Wound; + 4 W = 11 Wound; leather 1/1: 7 Stun, 10 Wound -> Stun capped
    assert dmg["absorbed"] == 2 and who(b, "t").res["wound"] >= 8
    assert "dying" in who(b, "t").conditions


# ---------------------------------------------------------------------------------------
# the views the environments and policies use

def test_views_economy_odds_reach_ammo_slots_health_objects():
    """docs/ruleset-guide.md, the contract: economy_features, attack_odds, reach_m, ammo_frac,
    weapon_slots, health, validate_object."""
    shooter = fig("s", (0, 1), agi="d8", skills={"guns/pistols": "d8", "melee_weapons": "d6"},
                  weapons=("pistol", "knife"))
    s = scen(open_map(12), [shooter], [dummy("t", (4, 1))])
    b = play(s, [attack("s", "t", "pistol", [1, 1])])
    e = econ(b)
    assert list(e) == list(RS.economy_features) and len(RS.economy_features) <= 32
    assert e["actions_used"] == 1 and e["next_action_steps"] == -1 and e["shots_left"] == 2
    s_ = who(b, "s")
    assert RS.weapon_slots(s_) == ["pistol", "knife", "unarmed"] and RS.reach_m(s_) == 90
    assert RS.ammo_frac(s_) == pytest.approx(14 / 15)
    odds = RS.attack_odds(b.state, s_, Action("attack", target="t", weapon="pistol"))
    assert 0 < odds["p_hit"] <= 1 and odds["exp_damage"] > 0
    called = RS.attack_odds(b.state, s_, Action("attack", target="t", weapon="pistol", option="called:head"))
    assert called["p_hit"] < odds["p_hit"] and called["damage_if_hit"] > odds["damage_if_hit"]
    assert RS.attack_odds(b.state, s_, Action("defend", option="dodge")) is None
    assert RS.validate_object("sabre") and not RS.validate_object("capoeira")
    assert RS.health(who(b, "t")) == (99.0, 99.0)


def test_attack_odds_match_the_rolled_defence():
    """The odds mirror the resolution: a dummy (Easy 3) hit by d6 + d6 at 3 or more: 35/36."""
    s = scen(open_map(), [fig("f", (0, 1), skills={"melee_weapons": "d6"}, weapons=("knife",))],
             [dummy("t", (1, 1))])
    b = play(s)
    o = RS.attack_odds(b.state, who(b, "f"), Action("attack", target="t", weapon="knife"))
    assert o["p_hit"] == pytest.approx(35 / 36)


# ---------------------------------------------------------------------------------------
# bundled scenarios use the rules; policies and environments play them

def bundled(name: str) -> dict:
    """A bundled scenario with `initiative: fixed`, for exact replays."""
    from rules.scenario import resolve_scenario
    doc, _ = resolve_scenario(name)
    return {**doc, "initiative": "fixed"}


def test_the_csarda_scenario_feints_and_grapples():
    """cortex_hu/csarda: the wrestler jogs in, feints (seed 002, Csel) and grapples the fooled
    betyár (seed 002, Megragadás), who may use only innate defence against it."""
    b = play(bundled("cortex_hu/csarda"), [
        end("lajos"), move("bence", 6, 6),
        act("bence", "feint", target="sandor", dice=[6, 4, 1, 1]),
        act("bence", "grapple", target="sandor", dice=[8, 6, 1])])
    assert rolls(b, "grapple", "bence")[0]["steps"] == -2
    assert evs(b, "defence", actor="sandor")[0]["mode"] == "innate only (feinted)"
    assert "grappled" in who(b, "sandor").conditions


def test_the_magtar_scenario_aims_and_calls_a_shot():
    """cortex_hu/magtar: the sharpshooter aims a round (seed 002, Célzás), then shoots a
    mercenary's leg (seed 002, Célzott lövés): +1 aim -1 leg; the mercenary dodges by reaction."""
    b = play(bundled("cortex_hu/magtar"), [
        act("marton", "aim"), end("marton"), end("gyula"), end("z1"), end("z2"), end("z3"),
        attack("marton", "z1", "rifle", [2, 1, 1, 1, 1, 1, 1], option="called:leg")])
    atk = rolls(b, "attack with rifle")[0]
    assert atk["steps"] == 0 and sides(atk) == [10, 10]
    assert rolls(b, "dodge (reaction)", "z1")
    assert "leg_useless" in who(b, "z1").conditions


def test_the_les_scenario_starts_with_a_surprised_escort():
    """cortex_hu/les: `settings.surprised` (seed 002, Meglepetésből támadás)."""
    b = play(bundled("cortex_hu/les"))                 # imre's turn has begun: he is no longer surprised
    assert evs(b, "condition", target="imre", condition="surprised", on=True)
    assert "surprised" not in who(b, "imre").conditions
    assert all("surprised" in who(b, i).conditions for i in ("nova", "geza"))
    assert not any("surprised" in who(b, i).conditions for i in ("csaba", "barna", "otto"))


@pytest.mark.parametrize("policy", ["random", "aggressive", "cautious", "tactical"])
def test_policies_play_cortex_hu_to_the_end(policy):
    """Every scripted policy plays cortex_hu through the generic Ruleset interface (the planner
    too, but it takes seconds a fight, so it is left to the envs and evaluation suites)."""
    from agents.base import make_policy
    spec, src = load_scenario("cortex_hu/les")
    for seed in range(2):
        b = new_battle(spec, seed, src)
        b.run({t.name: make_policy(policy, seed * 3 + i) for i, t in enumerate(spec.teams)})
        assert b.state.over and 1 <= b.state.round <= spec.round_limit


def _attack_actions_by_the_rule(state, a) -> list[Action]:
    """Every (target, weapon, option) `can_attack` allows, in `attack_actions`' order."""
    return [RS.action("attack", target=t.id, weapon=w.name, option=o or None)
            for t in state.combatants if t.team != a.team and not t.down
            for w in RS.usable_weapons(a) for o in RS.attack_options if RS.can_attack(state, a, t, w, o)]


def test_the_fast_attack_enumeration_is_exactly_can_attack():
    """`attack_actions` checks target, reach, ammunition and range once per target and weapon
    (the env's hot path); it must list exactly what `can_attack` - the rule - allows. Random and
    aggressive fights over the bundled scenarios and generated maps, compared for every standing
    figure at every decision, with every option kind seen (called shots, disarm, throw, choke)."""
    import numpy as np

    from agents.base import make_policy
    from envs.generators import generate_scenario
    from rules.dice import Dice
    from rules.scenario import bundled_scenarios

    specs = [load_scenario(n) for n in bundled_scenarios() if n.startswith("cortex_hu/")]
    specs += [load_scenario(generate_scenario("cortex_hu", seed)) for seed in range(8)]
    seen: set = set()
    decisions = 0
    for k, (spec, src) in enumerate(specs):
        for seed in range(2):
            b = new_battle(spec, Dice(np.random.default_rng([k, seed])), src, record=False)
            pols = {t.name: make_policy("random" if (k + seed) % 2 else "aggressive", 10 * seed + i)
                    for i, t in enumerate(spec.teams)}
            s = b.state
            b.start()
            while not s.over and decisions < 20_000:
                for c in s.combatants:
                    if not c.down:
                        fast = RS.attack_actions(s, c)
                        assert fast == _attack_actions_by_the_rule(s, c), (src, seed, s.round, c.id)
                        seen.update(x.option for x in fast)
                b.step(pols[s.actor.team].act(s, s.actor), check=True)
                decisions += 1
    assert decisions > 500
    assert {None, "all_out", "called:leg", "called:knee_waive", "disarm", "throw", "choke"} <= seen


def test_pettingzoo_api_on_cortex_hu():
    import warnings

    from pettingzoo.test import api_test

    from envs.multiagent import SkirmishAEC
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(SkirmishAEC(scenario="cortex_hu/csarda"), num_cycles=40)


@pytest.mark.parametrize("change,field", [
    (lambda d: d["settings"].update(surprised=["nobody"]), "settings.surprised[0]"),
    (lambda d: d["settings"].update(surprised="b"), "settings.surprised"),
    (lambda d: d["teams"][1]["combatants"][0].update(traits=["clumsy"]), "teams[1].combatants[0].traits"),
    (lambda d: d["teams"][1]["combatants"][0].update(reactions="sometimes"), "teams[1].combatants[0].reactions"),
    (lambda d: d["teams"][1]["combatants"][0].update(initiative_steps="lots"),
     "teams[1].combatants[0].initiative_steps"),
])
def test_bad_cortex_hu_scenarios_get_one_line_that_names_the_file_and_field(tmp_path, change, field):
    """ARCHITECTURE.md, Conventions: bad input gets a clear error naming what is wrong (exit 2)."""
    import yaml
    from typer.testing import CliRunner

    from tactica.cli import app
    doc = scen(open_map(), [fencer("f", (0, 1))], [dummy("t", (5, 1))])
    change(doc)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    r = CliRunner().invoke(app, ["validate", str(path)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and field in lines[0] and "expected" in lines[0]
