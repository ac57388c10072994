"""Rule tests for the `cybergeneration` ruleset (seed 004, Cybergeneration house rules), forced dice:
the bestiary, the data file and what the environments see.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the order of the
dice in a step, the sources cited ("seed 004, <heading>", "assumption <key>") and the geometry
are in tests/cybergeneration_setup.py; the other topics in tests/test_cybergeneration_*.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.actions import Action
from rules.errors import IllegalActionError, ScenarioError, UnknownNameError
from rules.scenario import bundled_scenarios, load_scenario, new_battle
from tests.cybergeneration_setup import (DATA, RS, _standoff, act, brawler, fig, move, open_map, play, scen,
                                         shooter, who)


# ---------------------------------------------------------------------------------------
# The bestiary, the data file and what the environments see

def test_every_kind_the_seed_names_is_in_the_bestiary_or_left_out_with_a_reason():
    """seed 004 names juves, adults, Solos, Tribals, scanners, bolters, tinmen, 'Borgs and the
    cyber-evolved; tinkertots only as weapon fixers (left out, data.yaml kinds_left_out)."""
    types = {t for n in RS.templates() for t in RS.bestiary[n].get("types", [])}
    kinds = {RS.bestiary[n]["kind"] for n in RS.templates()}
    assert kinds == {"kid", "adult"}
    assert {"solo", "tribal", "scanner", "bolter", "tinman", "borg", "evolved"} <= types
    left = {x["kind"] for x in DATA["kinds_left_out"]}
    assert "tinkertot" in left and all(x["reason"] for x in DATA["kinds_left_out"])
    s = scen(open_map(16, 2), [{"id": n, "template": n, "at": [i, 0]} for i, n in enumerate(RS.templates())],
             [brawler("x", (15, 1))])
    b = play(s)
    assert len(b.state.combatants) == len(RS.templates()) + 1


def test_every_assumption_has_a_key_a_value_and_a_reason():
    """ARCHITECTURE.md: every value the seed does not give is in data.yaml under `assumptions`."""
    keys = [a["key"] for a in DATA["assumptions"]]
    assert len(keys) == len(set(keys))
    assert all(a.get("value") and a.get("reason") for a in DATA["assumptions"])
    for k in ("dc_table", "body_bands", "cover_scale", "range_bands", "stun_save", "melee_opposed", "held_actions",
              "suppression_check", "genius_missile", "shotgun_blanket", "grenades", "hold_damage", "dogpile"):
        assert k in keys


def test_bad_stat_blocks_are_clear_errors():
    """ARCHITECTURE.md, Conventions: bad input names the field and what was expected."""
    with pytest.raises(UnknownNameError, match="weapons\\[0\\]"):
        play(scen(open_map(), [fig("a", (0, 0), weapons=("laser_sword",))], [fig("b", (3, 0))]))
    with pytest.raises(ScenarioError, match="stats.ref"):
        play(scen(open_map(), [fig("a", (0, 0), ref="fast")], [fig("b", (3, 0))]))
    with pytest.raises(UnknownNameError, match="template"):
        play(scen(open_map(), [{"id": "a", "at": [0, 0], "template": "dragon"}], [fig("b", (3, 0))]))
    with pytest.raises(UnknownNameError, match="drawn"):
        play(scen(open_map(), [fig("a", (0, 0), drawn="smg")], [fig("b", (3, 0))]))
    with pytest.raises(IllegalActionError):
        play(scen(open_map(), [fig("a", (0, 0))], [fig("b", (3, 0))]), [act("a", "use", option="two_actions"),
                                                                       move("a", 1, 0)])


def test_the_economy_shows_the_move_the_action_and_held_actions():
    """The env's `economy` observation: the move-plus-action round and held actions (issue 7)."""
    names = set(RS.economy_features)
    assert {"move_used", "action_used", "two_action_mode", "held_action", "held_trigger_move", "held_trigger_attack",
            "held_trigger_draw", "steadied", "aiming_bonus", "stun_modifier"} <= names
    assert len(RS.economy_features) <= 32
    from envs.encoding import layout_for
    b = play(_standoff(), [act("s", "ready", weapon="light_pistol", option="draw"),
                           act("s", "delay", option="on_draw")])
    lay = layout_for(RS, 3, 14, 1, 0)
    obs = lay.observe(b.state, who(b, "s"), "a")
    e = dict(zip(lay.econ_names, obs["economy"]))
    assert e["held_action"] == 1.0 and e["held_trigger_draw"] == 1.0 and e["move_used"] == 1.0
    assert e["action_used"] == 1.0
    assert obs["units"][0][list(__import__("envs.encoding", fromlist=["UNIT_FEATURES"]).UNIT_FEATURES)
                           .index("holding_action")] == 1.0


def test_attack_odds_match_the_dice():
    """The odds policies use are the rules' own: a ranged hit needs 15 from 11 + d10 with criticals."""
    b = play(scen(open_map(), [shooter()], [fig("t", (4, 1))]))
    o = RS.attack_odds(b.state, who(b, "s"), Action("attack", target="t", weapon="light_pistol"))
    # faces 4..9 (0.6) + a natural 10 (0.1) + a natural 1 never: 0.7
    assert abs(o["p_hit"] - 0.7) < 1e-9
    assert abs(o["damage_if_hit"] - RS.weapons["light_pistol"].damage.mean) < 1e-9


def test_bundled_scenarios_use_full_auto_suppression_grapples_and_stun():
    """issue 7: at least three bundled cybergeneration scenarios with full auto, suppression, grapples and stun."""
    names = [s for s in bundled_scenarios() if s.startswith("cybergeneration/")]
    assert len(names) >= 3
    features = set()
    for n in names:
        spec, src = load_scenario(n)
        b = new_battle(spec, 0, src)
        for c in b.state.combatants:
            for w in c.weapons.values():
                features |= {"full_auto"} if w.full_auto else set()
                features |= {"stun"} if w.stun else set()
                features |= {"grapple"} if w.grapple_only else set()
    assert {"full_auto", "stun", "grapple"} <= features


def test_the_docs_page_explains_every_decision():
    """issue 7: docs/cybergeneration.md documents the dice, the DC table and every decision."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "cybergeneration.md").read_text(encoding="utf-8")
    missing = [a["key"] for a in DATA["assumptions"] if f"`{a['key']}`" not in text]
    assert missing == []
    for dc, row in RS.table.rows.items():
        assert f"| {dc} | " + " | ".join(str(v) for v in row) + " |" in text
