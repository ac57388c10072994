"""Rule tests for the `metalface` ruleset (seed 003, METALFACE: RPG), with forced dice.

Every rule test drives the engine through `rules.replay.run_replay` with an inline scenario
(`initiative: fixed` unless the test is about turn order). Replay steps are strict: a
step's `dice` must be exactly the rolls it makes, so the dice lists pin down which rolls
happen. A roll is as many d6 as the value used (the highest is kept): a PER 3 targeting
roll takes three dice, a STR 2 body attack two.

Sources cited in docstrings: "seed 003, <heading>" is /work/shared/seeds/003_*.txt (its
headings: Combat, Combat Actions, Move, Ready Weapons, Body Attacks, Ranged Weapon
Attacks, Targeting, Targeting Roll, Targeting Modifiers, Damage, Status Levels and
Effects, Repairing / Healing), "RULES-NOTES metalface" is the metalface section of
RULES-NOTES.md, and "assumption <key>" is an entry of the `assumptions` list in
rules/systems/metalface/data.yaml.

Geometry: 1 m squares; an orthogonal step is 1 m and a diagonal 1.5 m (rules/grid.py);
figures without a `facing` face the nearest enemy when the fight starts.
"""

from __future__ import annotations

import os
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from agents.base import make_policy
from rules.actions import KIND_TARGET, Action
from rules.dice import Dice
from rules.errors import DiceError, IllegalActionError, ScenarioError, UnknownNameError
from rules.replay import run_replay
from rules.ruleset import available_rulesets, get_ruleset
from rules.scenario import bundled_scenarios, load_scenario, new_battle
from rules.systems.metalface.model import p_at_least, p_beats, total_pmf

RS = get_ruleset("metalface")
DATA = yaml.safe_load((Path(__file__).resolve().parents[1] / "rules/systems/metalface/data.yaml")
                      .read_text(encoding="utf-8"))
ASSUMPTIONS = {a["key"]: a for a in DATA["assumptions"]}
MY_SCENARIOS = [s for s in bundled_scenarios() if s.startswith("metalface/")]


# ---------------------------------------------------------------------------------------
# helpers

def fig(id: str, at: tuple[int, int], kind: str = "human", str_: int = 3, agl: int = 3, end: int = 2,
        per: int = 3, int_: int = 2, wil: int = 2, skills: dict | None = None, weapons: tuple = (),
        **extra: Any) -> dict:
    """A full stat block (Status 10 + 5 x END = 20 at END 2)."""
    return {"id": id, "at": list(at), "name": id, "kind": kind,
            "values": {"str": str_, "agl": agl, "end": end, "per": per, "int": int_, "wil": wil},
            "skills": dict(skills or {}), "weapons": list(weapons), **extra}


def shooter(id: str = "s", at: tuple[int, int] = (0, 1), **kw: Any) -> dict:
    """PER 3, firearms 1, a pistol (damage 7, 12 rounds, 3 clips)."""
    kw.setdefault("skills", {"firearms": 1})
    kw.setdefault("weapons", ("pistol",))
    return fig(id, at, **kw)


def dummy(id: str = "t", at: tuple[int, int] = (5, 1), **kw: Any) -> dict:
    """END 2, no armour, Status 20 unless given."""
    return fig(id, at, **kw)


def scen(rows: list[str], a: list[dict], b: list[dict], *, initiative: str = "fixed", cell_m: float | None = None,
         round_limit: int = 20) -> dict:
    m: dict[str, Any] = {"rows": list(rows)}
    if cell_m is not None:
        m["cell_m"] = cell_m
    return {"name": "test/metalface", "ruleset": "metalface", "initiative": initiative,
            "round_limit": round_limit, "map": m,
            "teams": [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]}


def open_map(w: int = 12, h: int = 3) -> list[str]:
    return ["." * w] * h


def step(actor: str, action: Any, dice: list[int] = ()) -> dict:
    return {"actor": actor, "action": action, "dice": list(dice)}


def attack(actor: str, target: str, weapon: str, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "attack", "target": target, "weapon": weapon}, dice)


def end(actor: str, dice: list[int] = ()) -> dict:
    return step(actor, "end_turn", dice)


def move(actor: str, x: int, y: int, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "move", "cell": [x, y]}, dice)


def act(actor: str, kind: str, dice: list[int] = (), **kw: Any) -> dict:
    return step(actor, {"type": kind, **kw}, dice)


def play(scenario: dict, steps: list[dict] = (), start_dice: list[int] = (), questions: str = "default"):
    """A strict replay: start_dice and every step's dice must be used exactly. The choices
    the rules give a figure take their defaults unless `questions="ask"` (then each answer
    is a step of the figure asked, with the dice rolled after the question)."""
    return run_replay({"scenario": scenario, "start_dice": list(start_dice), "steps": list(steps),
                       "questions": questions})


def evs(b, type_: str, **match: Any) -> list[dict]:
    return [e for e in b.events if e["type"] == type_ and all(e.get(k) == v for k, v in match.items())]


def rolls(b, purpose: str, actor: str | None = None) -> list[dict]:
    return [e for e in b.events if e["type"] == "roll" and e["purpose"] == purpose
            and (actor is None or e["actor"] == actor)]


def mods(r: dict) -> dict[str, int]:
    """A roll event's modifiers by source (common.md: a list of {source, value})."""
    return {m["source"]: m["value"] for m in r["modifiers"]}


def n_dice(r: dict) -> int:
    return len(r["dice"])


def who(b, id: str):
    return b.state.by_id[id]


def pos(b, id: str) -> tuple[int, int]:
    return b.state.grid.xy(who(b, id).pos)


def legal(b) -> list[Action]:
    return b.legal_actions()


def can(b, kind: str, **kw: Any) -> bool:
    cell = kw.pop("cell", None)
    if cell is not None:
        kw["cell"] = b.state.grid.index(*cell)
    return Action(kind, **kw) in legal(b)


def can_attack(b, target: str, weapon: str) -> bool:
    return can(b, "attack", target=target, weapon=weapon)


def econ(b) -> dict[str, float]:
    return RS.economy(b.state)


def only(items: list) -> Any:
    assert len(items) == 1, items
    return items[0]


# ---------------------------------------------------------------------------------------
# registry, data file and the roll

def test_registered_and_declared():
    """The ruleset is registered as `metalface` with 1 m cells and declares only shared kinds."""
    assert "metalface" in available_rulesets()
    assert RS.default_cell_m == 1.0
    assert set(RS.supported_actions) <= set(KIND_TARGET) | {"end_turn", "move", "attack", "reload", "ready",
                                                             "turn", "posture", "use", "delay"}
    assert len(RS.economy_features) <= 32
    for f in ("half_turns_used", "half_turns_left", "move_m_left", "facing", "posture", "moved_this_round",
              "charges"):
        assert f in RS.economy_features


def test_every_assumption_has_a_value_and_a_reason():
    """ARCHITECTURE.md: every value the seed does not give is marked with its reason."""
    keys = [a["key"] for a in DATA["assumptions"]]
    assert len(keys) == len(set(keys)) >= 30
    for a in DATA["assumptions"]:
        assert a.get("value") and a.get("reason"), a
    for key in ("dice", "status_formula", "ranged_damage", "initiative", "turn_order_choice", "turn_seconds",
                "full_cover", "no_death", "body_attack_rolls", "energy_actions", "targeting_difficulty"):
        assert key in ASSUMPTIONS


def test_difficulty_ladder():
    """RULES-NOTES metalface: Easy 4, Normal 5, Hard 6, Extreme 8, Insane 12."""
    assert RS.diff == {"easy": 4, "normal": 5, "hard": 6, "extreme": 8, "insane": 12}
    assert RS.target_difficulty == 8   # assumption targeting_difficulty


def test_roll_keeps_the_highest_die_and_adds_skill():
    """RULES-NOTES metalface: roll as many d6 as the value, keep the single highest, add skill
    levels; equal to the Difficulty succeeds. seed 003, Targeting: the targeting roll is a
    PER roll (here PER 3, firearms 1, short +1, both stationary +1 +1: 5 + 4 = 9 >= 8)."""
    b = play(scen(open_map(), [shooter()], [dummy()]), [attack("s", "t", "pistol", [2, 5, 3])])
    r = only(rolls(b, "targeting"))
    assert r["dice"] == [[6, 2], [6, 5], [6, 3]]
    assert r["kept"] == 5 and r["total"] == 9 and r["difficulty"] == 8
    assert mods(r) == {"skill": 1, "range": 1, "attacker": 1, "target": 1}
    assert only(evs(b, "attack"))["result"] == "hit"


def test_roll_equal_to_difficulty_hits_one_below_misses():
    """seed 003, Targeting: the targeting roll against its Difficulty; RULES-NOTES metalface: 'equal
    to or higher than the difficulty' succeeds."""
    b = play(scen(open_map(), [shooter()], [dummy()]),
             [attack("s", "t", "pistol", [4, 1, 2]), attack("s", "t", "pistol", [3, 3, 2])])
    assert [e["total"] for e in rolls(b, "targeting")] == [8, 7]
    assert [e["result"] for e in evs(b, "attack")] == ["hit", "miss"]


def test_odds_are_exact():
    """model.py: the distribution of a keep-the-highest roll and an opposed roll."""
    pmf = dict(total_pmf(3, 0))
    assert pmf[6] == pytest.approx(1 - (5 / 6) ** 3)
    assert pmf[1] == pytest.approx((1 / 6) ** 3)
    assert p_at_least(3, 4, 8) == pytest.approx(1 - (3 / 6) ** 3)
    assert p_at_least(-1, 0, 1) == pytest.approx(4 / 6)    # value -1: 1d6 - 2, so -1 .. 4
    assert dict(total_pmf(-1, 0)) == {t - 2: pytest.approx(1 / 6) for t in range(1, 7)}
    # opposed: 1 die against 1 die, the attacker must roll higher
    assert p_beats(1, 0, 1, 0) == pytest.approx(15 / 36)


def test_attack_odds_match_the_roll():
    """seed 003, Targeting Roll: attack_odds mirrors the resolution: P(hit) and damage if it hits."""
    b = play(scen(open_map(), [shooter()], [dummy()]))
    o = RS.attack_odds(b.state, who(b, "s"), Action("attack", target="t", weapon="pistol"))
    assert o["p_hit"] == pytest.approx(1 - (3 / 6) ** 3)
    assert o["damage_if_hit"] == 5 and o["exp_damage"] == pytest.approx(5 * o["p_hit"])


# ---------------------------------------------------------------------------------------
# seed 003, Combat: turn order

def _agl_teams(agls: tuple[int, int, int, int], **kw):
    p, q, r, s = agls
    return ([fig("p", (0, 0), agl=p, **kw), fig("q", (0, 2), agl=q, **kw)],
            [fig("r", (11, 0), agl=r, **kw), fig("s", (11, 2), agl=s, **kw)])


def test_turn_order_highest_agility_first_no_rolls_without_ties():
    """seed 003, Combat: the character with the highest AGL acts first (or chooses later);
    assumption initiative: the rest from the highest to the lowest AGL."""
    a, bt = _agl_teams((2, 4, 3, 5))
    b = play(scen(open_map(), a, bt, initiative="roll"))
    init = only(evs(b, "initiative"))
    assert init["order"] == ["s", "q", "r", "p"] and init["chooser"] == "s"
    assert rolls(b, "initiative tie") == []
    assert b.state.actor.id == "s"


def test_turn_order_ties_roll_agility_then_scenario_order():
    """seed 003, Combat (turn order by AGL); assumption initiative: figures tied on AGL roll AGL,
    the higher goes first; equal rolls keep the scenario order."""
    a, bt = _agl_teams((3, 3, 4, 3))
    # tied at AGL 3, rolling in scenario order: p 3, q 6, s 3
    b = play(scen(open_map(), a, bt, initiative="roll"), start_dice=[1, 2, 3, 6, 1, 1, 3, 3, 1])
    assert [r["actor"] for r in rolls(b, "initiative tie")] == ["p", "q", "s"]
    assert all(n_dice(r) == 3 for r in rolls(b, "initiative tie"))
    assert only(evs(b, "initiative"))["order"] == ["r", "q", "p", "s"]


def test_turn_order_is_set_again_each_round_with_status_modifiers():
    """seed 003, Combat Rounds and Status Levels: AGL at Weakening is 2 lower, so a hurt
    figure drops in the order of the next round (assumption modified_values)."""
    a = [fig("p", (0, 0), agl=4), fig("q", (0, 2), agl=3)]
    bt = [fig("r", (11, 1), agl=1, per=1, weapons=("pistol",), skills={"firearms": 5})]
    s = scen(open_map(), a, bt, initiative="roll")
    # round 1: p (4), q (3), r (1). r shoots p 11 m away: PER 1 -> 1 die, medium range:
    # 6 + firearms 5 + stationary 1 + stationary 1 = 13; pistol 7 - END 2 = 5 damage
    b = play(s, [end("p"), end("q"), attack("r", "p", "pistol", [6]), end("r")])
    assert evs(b, "initiative")[0]["order"] == ["p", "q", "r"]
    assert who(b, "p").res["level"] == "weakening"
    assert evs(b, "initiative")[1]["order"] == ["q", "p", "r"]   # p: AGL 4 - 2 = 2


def test_down_figures_come_last_and_are_skipped():
    """assumption initiative: down figures come last in scenario order; seed 003, Damage: a
    down figure cannot act (Battle skips it)."""
    a = [fig("p", (0, 0), agl=5, damage=20), fig("q", (0, 2), agl=2)]
    b = play(scen(open_map(), a, [fig("r", (11, 1), agl=3)], initiative="roll"))
    assert only(evs(b, "initiative"))["order"] == ["r", "q", "p"]
    assert who(b, "p").down and "incapacitated" in who(b, "p").conditions
    b2 = play(scen(open_map(), a, [fig("r", (11, 1), agl=3)], initiative="roll"), [end("r"), end("q")])
    assert b2.state.round == 2 and [e["actor"] for e in evs(b2, "turn_start")].count("p") == 0


def test_the_first_figure_chooses_to_act_later():
    """seed 003, Combat: the highest-AGL character may act first or choose to act later;
    assumption turn_order_choice: `delay` lets the next figure go first and puts the
    chooser right after it, again and again until it is last."""
    s = scen(open_map(), [fig("a1", (0, 0), agl=5), fig("a2", (0, 2), agl=2)], [fig("b1", (11, 1), agl=3)],
             initiative="roll")
    b = play(s, [act("a1", "delay")])
    assert b.state.actor.id == "b1" and b.state.order == ["a1", "b1", "a1", "a2"]
    assert not can(b, "delay")                    # only the chooser may
    b = play(s, [act("a1", "delay"), end("b1"), act("a1", "delay"), end("a2")])
    assert b.state.actor.id == "a1" and b.state.round == 1
    assert not can(b, "delay")                    # last in the round: nobody left to go first
    assert [e["after"] for e in evs(b, "effect") if "after" in e] == ["b1", "a2"]
    b = play(s, [act("a1", "delay"), end("b1"), act("a1", "delay"), end("a2"), end("a1")])
    assert b.state.round == 2 and b.state.actor.id == "a1"


def test_the_choice_is_made_before_acting():
    """seed 003, Combat: the highest-AGL figure chooses to act first or later; assumption
    turn_order_choice: the chooser delays before doing anything in its turn."""
    s = scen(open_map(), [fig("a1", (0, 0), agl=5)], [fig("b1", (11, 1), agl=3)], initiative="roll")
    b = play(s)
    assert can(b, "delay")
    b = play(s, [act("a1", "turn", option="s")])
    assert not can(b, "delay")


def test_fixed_initiative_keeps_the_scenario_order_and_its_first_chooses():
    """seed 003, Combat (turn order); assumption initiative: `initiative: fixed` is the scenario
    order with no rolls; its first figure has the choice."""
    s = scen(open_map(), [fig("p", (0, 0), agl=1)], [fig("r", (11, 1), agl=6)])
    b = play(s)
    assert only(evs(b, "initiative"))["order"] == ["p", "r"] and b.state.actor.id == "p"
    assert can(b, "delay")


# ---------------------------------------------------------------------------------------
# seed 003, Combat Actions: two half turns

def test_two_halves_fire_twice_then_nothing():
    """seed 003, Combat Actions: fire weapon takes a half turn; a turn holds two halves."""
    b = play(scen(open_map(), [shooter()], [dummy()]),
             [attack("s", "t", "pistol", [2, 2, 2]), attack("s", "t", "pistol", [2, 2, 2])])
    assert not can_attack(b, "t", "pistol")
    assert [a.kind for a in legal(b)] == ["end_turn"]
    e = econ(b)
    assert e["half_turns_used"] == 2 and e["half_turns_left"] == 0 and e["move_m_left"] == 0


def test_walk_then_fire():
    """seed 003, Combat Actions: walk AGL metres is a half turn; fire weapon the other half."""
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))]),
             [move("s", 3, 1), attack("s", "t", "pistol", [2, 2, 2])])
    assert only(evs(b, "move"))["mode"] == "walk"
    assert mods(only(rolls(b, "targeting")))["attacker"] == 0   # walking
    assert [a.kind for a in legal(b)] == ["end_turn"]


def test_fire_then_walk_only_agility_metres():
    """seed 003, Combat Actions: after a half-turn action only a walk (AGL m) is left."""
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(11, 1))]), [attack("s", "t", "pistol", [2, 2, 2])])
    assert can(b, "move", cell=(3, 1)) and not can(b, "move", cell=(4, 1))
    assert econ(b)["move_m_left"] == 3


def test_run_twice_agility_takes_the_full_turn():
    """seed 003, Combat Actions: run 2 x AGL metres is a full turn - no attack afterwards."""
    s = scen(open_map(), [shooter(agl=3)], [dummy(at=(11, 1))])
    b = play(s)
    assert can(b, "move", cell=(6, 1)) and not can(b, "move", cell=(7, 1))
    b = play(s, [move("s", 4, 1)])
    assert only(evs(b, "move"))["mode"] == "run"
    assert not can_attack(b, "t", "pistol")
    assert econ(b)["ran"] == 1 and econ(b)["half_turns_left"] == 0
    assert can(b, "move", cell=(6, 1))          # the run's metres may be used in pieces
    assert who(b, "s").res["moved"] == "running"


def test_walk_pieces_add_up_to_a_run():
    """seed 003, Combat Actions: walk AGL m (half), run 2 x AGL m (full); assumption walk_in_pieces:
    the metres of a turn add up; over AGL it is a run."""
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(11, 1))]), [move("s", 2, 1)])
    assert can_attack(b, "t", "pistol")
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(11, 1))]), [move("s", 2, 1), move("s", 4, 1)])
    assert not can_attack(b, "t", "pistol") and who(b, "s").res["moved"] == "running"


def test_ready_weapon_takes_a_half_turn():
    """seed 003, Combat Actions: ready weapon is a half turn (here: loading an empty pistol)."""
    b = play(scen(open_map(), [shooter(empty=["pistol"])], [dummy()]))
    assert not can_attack(b, "t", "pistol") and can(b, "reload", weapon="pistol")
    b = play(scen(open_map(), [shooter(empty=["pistol"])], [dummy()]),
             [act("s", "reload", weapon="pistol"), attack("s", "t", "pistol", [2, 2, 2])])
    assert [a.kind for a in legal(b)] == ["end_turn"]


def test_body_attack_takes_a_half_turn():
    """seed 003, Combat Actions: body attack is a half turn - two a turn."""
    s = scen(open_map(), [fig("m", (0, 1), weapons=("knife",))], [dummy(at=(1, 1))])
    b = play(s, [attack("m", "t", "knife", [1, 1, 1, 6, 6, 6])] * 2)
    assert not can_attack(b, "t", "knife") and not can_attack(b, "t", "unarmed")


def test_heal_takes_the_full_turn():
    """seed 003, Combat Actions: heal/repair is a full turn - not after a half action, and
    it ends the turn."""
    tek = fig("tek", (0, 1), skills={"tekker": 1, "firearms": 1}, weapons=("pistol",))
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=5)
    s = scen(open_map(), [tek, mf], [dummy(at=(9, 1))])
    b = play(s)
    assert can(b, "heal", target="mf")
    b = play(s, [attack("tek", "t", "pistol", [2, 2, 2])])
    assert not can(b, "heal", target="mf")
    b = play(s, [act("tek", "heal", target="mf")])
    assert b.state.actor.id == "mf"


def test_activate_device_is_instant_and_works_next_turn():
    """seed 003, Combat Actions: activate device is instant and takes effect on the next
    turn (charging a beam weapon: assumption device_activation)."""
    mf = fig("mf", (0, 1), kind="metalface", skills={"beam": 1}, weapons=("beam_pistol",), empty=["beam_pistol"])
    b = play(scen(open_map(), [mf], [dummy()]), [act("mf", "reload", weapon="beam_pistol")])
    assert econ(b)["half_turns_used"] == 0 and econ(b)["device_used"] == 1 and econ(b)["charging"] == 1
    assert not can_attack(b, "t", "beam_pistol")
    assert not can(b, "reload", weapon="beam_pistol")
    b = play(scen(open_map(), [mf], [dummy()]), [act("mf", "reload", weapon="beam_pistol"), end("mf"), end("t")])
    assert who(b, "mf").res["ammo"]["beam_pistol"] == 3 and can_attack(b, "t", "beam_pistol")
    assert any(e.get("charged") for e in evs(b, "effect", target="mf"))


def test_one_device_activation_a_turn():
    """seed 003, Combat Actions: activate one charged device; assumption device_activation: at most
    one activation a turn (a charge or the shield)."""
    mf = fig("mf", (0, 1), kind="metalface", weapons=("beam_pistol",), empty=["beam_pistol"],
             items=["shield_generator"])
    b = play(scen(open_map(), [mf], [dummy()]))
    assert can(b, "use", option="shield") and can(b, "reload", weapon="beam_pistol")
    b = play(scen(open_map(), [mf], [dummy()]), [act("mf", "reload", weapon="beam_pistol")])
    assert not can(b, "use", option="shield")


# ---------------------------------------------------------------------------------------
# seed 003, Move: facing and turning

def test_turning_costs_a_metre_per_90_degrees():
    """seed 003, Move: turning counts as one metre per 90 degrees (assumption facings: 0.5 m
    per 45)."""
    s = scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))])
    b = play(s, [act("s", "turn", option="right")])
    assert who(b, "s").res["facing"] == 4 and econ(b)["move_m_used"] == 1    # east -> south
    b = play(s, [act("s", "turn", option="about")])
    assert who(b, "s").res["facing"] == 6 and econ(b)["move_m_used"] == 2
    b = play(s, [act("s", "turn", option="ne")])
    assert econ(b)["move_m_used"] == 0.5
    assert only(evs(b, "effect", target="s"))["metres"] == 0.5


def test_turning_is_movement_within_the_halves():
    """seed 003, Move: turning is movement - after firing twice there is none left; after
    one shot only a walk's worth."""
    s = scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))])
    b = play(s, [attack("s", "t", "pistol", [2, 2, 2])] * 2)
    assert not any(a.kind == "turn" for a in legal(b))
    b = play(s, [attack("s", "t", "pistol", [2, 2, 2]), act("s", "turn", option="about"),
                 act("s", "turn", option="left")])
    assert econ(b)["move_m_used"] == 3 and econ(b)["move_m_left"] == 0


def test_moving_first_turns_towards_the_destination():
    """seed 003, Move: changing direction counts as 1 m per 90 degrees; assumption
    path_turns: a straight path pays only the first turn away from the facing and leaves
    the figure facing its last step."""
    s = scen(open_map(), [shooter("s", (5, 1), agl=3)], [dummy(at=(11, 1))])
    b = play(s)                                  # facing east, towards t
    assert can(b, "move", cell=(1, 1))          # 4 m + about-turn 2 m = 6 m (a run)
    assert not can(b, "move", cell=(0, 1))      # 5 m + 2 m = 7 m
    assert can(b, "move", cell=(10, 1))         # straight on: 5 m
    b = play(s, [move("s", 1, 1)])
    e = only(evs(b, "move"))
    assert e["metres"] == 6 and e["facing"] == "w" and who(b, "s").res["facing"] == 6


def test_attacking_outside_the_front_arc_turns_first():
    """seed 003, Move: turning counts as 1 m per 90 degrees; assumption front_arc: a target more
    than 90 degrees off the facing makes the attacker turn to face it, paid as movement (1 m per 90
    degrees), so it is no longer stationary."""
    s = scen(open_map(), [shooter("s", (5, 1), facing="w")], [dummy(at=(10, 1))])
    b = play(s, [attack("s", "t", "pistol", [2, 2, 2])])
    turn = only(evs(b, "effect", target="s"))
    assert turn["facing"] == "e" and turn["metres"] == 2
    assert mods(only(rolls(b, "targeting")))["attacker"] == 0
    assert not can_attack(b, "t", "pistol") and econ(b)["move_m_left"] == 1   # the rest of the walk


def test_turning_to_attack_needs_the_half_turn_budget():
    """seed 003, Move and Combat Actions: turning is movement; assumption front_arc: the turn is
    movement; after one shot (one half) the walk half plus another shot would make three halves."""
    s = scen(open_map(12, 3), [shooter("s", (5, 1), facing="w")], [dummy("w1", (1, 1)), dummy("e1", (10, 1))])
    b = play(s)
    assert can_attack(b, "w1", "pistol") and can_attack(b, "e1", "pistol")
    b = play(s, [attack("s", "w1", "pistol", [2, 2, 2])])
    assert can_attack(b, "w1", "pistol") and not can_attack(b, "e1", "pistol")


def test_figures_face_the_nearest_enemy_unless_told():
    """seed 003, Move: figures have a facing; assumption facings: figures without `facing` face the
    nearest enemy at the start."""
    b = play(scen(open_map(12, 5), [shooter("s", (0, 0)), shooter("u", (5, 4), facing="n")],
                  [dummy(at=(5, 0))]))
    assert who(b, "s").res["facing"] == 2    # east
    assert who(b, "u").res["facing"] == 0    # as told
    assert who(b, "t").res["facing"] == 4    # south, towards u (4 m away) rather than s (5 m)


def test_body_attack_from_behind_defender_rolls_one_die_fewer():
    """seed 003, Body Attacks: the defender rolls to defend; assumption rear_defence: a defender
    attacked from outside its front arc rolls one die fewer (here dodging with AGL 3 -> 2 dice)."""
    att = fig("m", (1, 1), str_=3, skills={"melee": 1}, weapons=("knife",))
    front = dummy(at=(2, 1), agl=3, str_=1, skills={"dodge": 1})
    back = dummy(at=(2, 1), agl=3, str_=1, skills={"dodge": 1}, facing="e")
    b = play(scen(open_map(), [att], [front]), [attack("m", "t", "knife", [1, 2, 3, 4, 5, 6])])
    assert n_dice(only(rolls(b, "dodge"))) == 3
    b = play(scen(open_map(), [att], [back]), [attack("m", "t", "knife", [1, 2, 3, 4, 5])])
    r = only(rolls(b, "dodge"))
    assert n_dice(r) == 2 and r["rear"] is True


# ---------------------------------------------------------------------------------------
# seed 003, Move: personal elevation

def test_posture_steps_cost_a_metre_each():
    """seed 003, Move: standing to kneeling 1 m, to sitting 2 m, to lying 3 m."""
    s = scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))])
    for p, m in (("kneel", 1), ("sit", 2), ("lie", 3)):
        b = play(s, [act("s", "posture", option=p)])
        assert econ(b)["move_m_used"] == m and who(b, "s").res["posture"] == p
        assert only(evs(b, "stance"))["metres"] == m
    b = play(s, [act("s", "posture", option="lie")])
    assert "prone" in who(b, "s").conditions
    # 3 m to lie down + 3 m to stand up again = 6 m: the whole turn (a run)
    b = play(s, [act("s", "posture", option="lie"), act("s", "posture", option="stand")])
    assert econ(b)["ran"] == 1 and not can_attack(b, "t", "pistol")
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))]),
             [act("s", "posture", option="kneel"), act("s", "posture", option="stand")])
    assert econ(b)["move_m_used"] == 2 and "prone" not in who(b, "s").conditions


def test_only_standing_figures_walk():
    """seed 003, Move: personal elevation; assumption posture_effects: a kneeling, sitting or lying
    figure must stand to move."""
    s = scen(open_map(), [shooter(agl=3, posture="kneel")], [dummy(at=(9, 1))])
    b = play(s)
    assert not any(a.kind == "move" for a in legal(b))
    b = play(s, [act("s", "posture", option="stand")])
    assert econ(b)["move_m_used"] == 1
    assert can(b, "move", cell=(5, 1)) and not can(b, "move", cell=(6, 1))   # 1 m + 5 m = the run


def test_lying_target_counts_as_partially_covered():
    """seed 003, Move (elevation) and Targeting Modifiers (partially covered); assumption
    posture_effects: a lying figure is partially covered against fire (one die fewer: PER 3 -> 2
    dice)."""
    b = play(scen(open_map(), [shooter()], [dummy(posture="lie")]), [attack("s", "t", "pistol", [2, 2])])
    r = only(rolls(b, "targeting"))
    assert n_dice(r) == 2 and r["cover"] == "lying"


def test_lying_attacker_and_defender_in_body_combat():
    """seed 003, Move (elevation) and Body Attacks; assumption posture_effects: lying rolls one die
    fewer in body combat."""
    att = fig("m", (1, 1), str_=3, weapons=("knife",), posture="lie")
    d = dummy(at=(2, 1), str_=1, agl=3, posture="lie")
    b = play(scen(open_map(), [att], [d]), [attack("m", "t", "knife", [1, 2, 3, 4])])
    assert n_dice(only(rolls(b, "body attack"))) == 2 and n_dice(only(rolls(b, "dodge"))) == 2


# ---------------------------------------------------------------------------------------
# seed 003, Ready Weapons

def test_reloading_a_clip_weapon():
    """seed 003, Ready Weapons: reloading takes a Ready Weapon action (a half); a spare clip
    fills the magazine."""
    b = play(scen(open_map(), [shooter(empty=["pistol"])], [dummy()]), [act("s", "reload", weapon="pistol")])
    r = who(b, "s").res
    assert r["ammo"]["pistol"] == 12 and r["spare"]["pistol"] == 2 and econ(b)["half_turns_used"] == 1
    b = play(scen(open_map(), [shooter()], [dummy()]))
    assert not can(b, "reload", weapon="pistol")          # already full


def test_clip_runs_dry_and_no_spares_means_no_reload():
    """seed 003, Ranged Weapon Attacks: clip weapons fire their rounds; with no spare clip
    left the weapon cannot be loaded."""
    sh = shooter(empty=["pistol"])
    b = play(scen(open_map(), [sh], [dummy()]))
    b.state.actor.res["spare"]["pistol"] = 0
    assert not RS.can_reload(b.state, b.state.actor, RS.weapons["pistol"])
    b = play(scen(open_map(), [shooter()], [dummy()]), [attack("s", "t", "pistol", [2, 2, 2])])
    assert who(b, "s").res["ammo"]["pistol"] == 11


def test_loading_a_projectile_weapon():
    """seed 003, Ready Weapons: loading a projectile weapon (shotgun: 2 loaded, 8 spare)."""
    th = fig("th", (0, 1), skills={"firearms": 1}, weapons=("shotgun",))
    s = scen(open_map(), [th], [dummy(status=99)])
    b = play(s, [attack("th", "t", "shotgun", [2, 2, 2])] * 2 + [end("th"), end("t")])
    assert who(b, "th").res["ammo"]["shotgun"] == 0 and not can_attack(b, "t", "shotgun")
    b = play(s, [attack("th", "t", "shotgun", [2, 2, 2])] * 2 + [end("th"), end("t"),
                                                               act("th", "reload", weapon="shotgun")])
    assert who(b, "th").res["ammo"]["shotgun"] == 2 and who(b, "th").res["spare"]["shotgun"] == 6


def test_jam_on_all_ones_and_unjam_with_ready():
    """seed 003, Ready Weapons: unjamming projectile weapons is a Ready Weapon action;
    assumption jams: a clip or projectile weapon jams when every die shows 1."""
    s = scen(open_map(), [shooter()], [dummy()])
    b = play(s, [attack("s", "t", "pistol", [1, 1, 1])])
    assert "pistol" in who(b, "s").res["jammed"] and not can_attack(b, "t", "pistol")
    assert any("jams" in e["effect"] for e in evs(b, "effect"))
    assert can(b, "ready", weapon="pistol") and not can(b, "reload", weapon="pistol")
    b = play(s, [attack("s", "t", "pistol", [1, 1, 1]), end("s"), end("t"), act("s", "ready", weapon="pistol")])
    assert "pistol" not in who(b, "s").res["jammed"] and can_attack(b, "t", "pistol")
    assert econ(b)["half_turns_used"] == 1


def test_beam_weapons_do_not_jam():
    """seed 003, Ready Weapons: unjamming projectile weapons; assumption jams: only clip and
    projectile weapons jam."""
    mf = fig("mf", (0, 1), kind="metalface", weapons=("beam_pistol",))
    b = play(scen(open_map(), [mf], [dummy()]), [attack("mf", "t", "beam_pistol", [1, 1, 1])])
    assert not who(b, "mf").res["jammed"] and can_attack(b, "t", "beam_pistol")


def test_packed_weapon_must_be_unpacked():
    """seed 003, Ready Weapons: a weapon that must be unpacked needs a Ready Weapon action
    (a half turn) before it fires (the rocket launcher is packed: data.yaml)."""
    s = scen(open_map(), [{"id": "boom", "at": [0, 1], "template": "rocketeer"}], [dummy(status=99)])
    b = play(s)
    assert not can_attack(b, "t", "rocket_launcher") and can(b, "ready", weapon="rocket_launcher")
    b = play(s, [act("boom", "ready", weapon="rocket_launcher")])
    assert can_attack(b, "t", "rocket_launcher") and econ(b)["half_turns_used"] == 1


@pytest.mark.parametrize("kind,biotech,halves", [("metalface", 3, 0), ("metalface", 4, 0), ("metalface", 2, 1),
                                                 ("human", 3, 1)])
def test_metalface_with_biotech_3_unpacks_quickly(kind, biotech, halves):
    """seed 003, Ready Weapons: metalface characters install and unpack quickly with biotech
    3 or higher (assumption quick_install: no half turn)."""
    mf = fig("mf", (0, 1), kind=kind, skills={"biotech": biotech, "beam": 1}, weapons=("beam_cannon",))
    b = play(scen(open_map(), [mf], [dummy(status=99)]), [act("mf", "ready", weapon="beam_cannon")])
    assert econ(b)["half_turns_used"] == halves
    assert can_attack(b, "t", "beam_cannon")


# ---------------------------------------------------------------------------------------
# seed 003, Body Attacks

def test_body_attack_str_against_dodge_and_damage():
    """seed 003, Body Attacks: the attacker rolls STR and adds weapon and modifiers (5 + melee 1
    + knife 2 = 8), the defender dodges with AGL (4 + dodge 1 = 5); damage (STR + modifiers) -
    (END + modifiers): knife +2 -> (3 + 2) - 2 = 3 (assumption body_attack_rolls: block STR +
    melee or dodge AGL + dodge)."""
    att = fig("m", (1, 1), str_=3, skills={"melee": 1}, weapons=("knife",))
    d = dummy(at=(2, 1), str_=2, agl=3, skills={"dodge": 1})
    b = play(scen(open_map(), [att], [d]), [attack("m", "t", "knife", [3, 5, 2, 4, 2, 1])])
    ra, rd = only(rolls(b, "body attack")), only(rolls(b, "dodge"))
    assert (ra["total"], rd["total"]) == (8, 5) and ra["pool"] == "STR 3" and rd["pool"] == "AGL 3"
    assert only(evs(b, "attack"))["result"] == "hit"
    assert only(evs(b, "damage"))["wound"] == 3 and who(b, "t").res["damage"] == 3


def test_defender_blocks_with_str_when_it_is_better():
    """seed 003, Body Attacks: the defender must also roll to defend; assumption body_attack_rolls:
    the defender uses the better expected total (STR 5 + melee 1 beats AGL 2)."""
    att = fig("m", (1, 1), str_=3, weapons=("knife",))
    d = dummy(at=(2, 1), str_=5, agl=2, skills={"melee": 1})
    b = play(scen(open_map(), [att], [d]), [attack("m", "t", "knife", [1, 1, 1, 1, 1, 1, 1, 1])])
    assert only(rolls(b, "block"))["pool"] == "STR 5"


def test_body_attack_tie_misses():
    """seed 003, Body Attacks: 'If attacker value is higher' - a tie is a miss."""
    att = fig("m", (1, 1), str_=1)
    d = dummy(at=(2, 1), str_=1, agl=1)
    b = play(scen(open_map(), [att], [d]), [attack("m", "t", "unarmed", [4, 4])])
    assert only(evs(b, "attack"))["result"] == "miss" and evs(b, "damage") == []


def test_body_attack_reach():
    """seed 003, Body Attacks: within a 1 m radius (the next squares, diagonals included);
    certain melee weapons extend it (shock staff: two squares)."""
    s = scen(open_map(6, 4), [fig("m", (1, 1), weapons=("shock_staff",))],
             [dummy("d1", (2, 2)), dummy("d2", (3, 1)), dummy("d3", (4, 3))])
    b = play(s)
    assert can_attack(b, "d1", "unarmed") and can_attack(b, "d1", "shock_staff")
    assert not can_attack(b, "d2", "unarmed") and can_attack(b, "d2", "shock_staff")
    assert not can_attack(b, "d3", "shock_staff")


# ---------------------------------------------------------------------------------------
# seed 003, Ranged Weapon Attacks

def test_no_firing_closer_than_one_metre():
    """seed 003, Ranged Weapon Attacks: not at a target closer than 1 m (assumption
    range_measure: touching squares), but a body attack is possible."""
    b = play(scen(open_map(), [shooter("s", (1, 1))], [dummy(at=(2, 2))]))
    assert not can_attack(b, "t", "pistol") and can_attack(b, "t", "unarmed")


def test_ranged_damage_is_weapon_minus_end_and_armour():
    """seed 003, Ranged Weapon Attacks; assumption ranged_damage / armour: pistol 7 - (END 2 + flak
    vest 1) = 4."""
    b = play(scen(open_map(), [shooter()], [dummy(armour="flak_vest")]), [attack("s", "t", "pistol", [6, 1, 1])])
    assert only(evs(b, "damage"))["wound"] == 4


def test_charged_beam_weapon_fires_its_charge_then_recharges():
    """seed 003, Ranged Weapon Attacks: most weapons must be charged with energy before
    being fired (beam pistol: 3 shots a charge, 4 power cells); recharging is the instant
    Activate Device action, ready at the start of the next turn (assumption ready_kinds)."""
    mf = fig("mf", (0, 1), kind="metalface", skills={"beam": 1}, weapons=("beam_pistol",))
    s = scen(open_map(), [mf], [dummy(status=99)])
    shots = [attack("mf", "t", "beam_pistol", [2, 2, 2])] * 2 + [end("mf"), end("t"),
                                                                  attack("mf", "t", "beam_pistol", [2, 2, 2])]
    b = play(s, shots)
    assert who(b, "mf").res["ammo"]["beam_pistol"] == 0 and not can_attack(b, "t", "beam_pistol")
    assert can(b, "reload", weapon="beam_pistol") and econ(b)["charges"] == 0
    b = play(s, shots + [act("mf", "reload", weapon="beam_pistol")])
    assert econ(b)["half_turns_used"] == 1 and who(b, "mf").res["spare"]["beam_pistol"] == 3
    assert not can_attack(b, "t", "beam_pistol")
    b = play(s, shots + [act("mf", "reload", weapon="beam_pistol"), end("mf"), end("t")])
    assert who(b, "mf").res["ammo"]["beam_pistol"] == 3 and can_attack(b, "t", "beam_pistol")


def test_no_power_cells_no_charge():
    """seed 003, Ranged Weapon Attacks: a beam weapon with no charge left cannot fire."""
    mf = fig("mf", (0, 1), kind="metalface", weapons=("beam_pistol",), empty=["beam_pistol"])
    b = play(scen(open_map(), [mf], [dummy()]))
    b.state.actor.res["spare"]["beam_pistol"] = 0
    assert not RS.can_reload(b.state, b.state.actor, RS.weapons["beam_pistol"])
    assert not RS.can_attack(b.state, b.state.actor, who(b, "t"), RS.weapons["beam_pistol"])


def test_line_of_sight_and_full_cover():
    """seed 003, Targeting Modifiers: fully covered - no damage (assumption full_cover: no
    attack at all; total map cover is full cover); heavy cover is only partial; a wall
    blocks sight."""
    for ch, ok in (("T", False), ("h", True), ("#", False)):
        rows = ["........", f"....{ch}...", "........"]
        b = play(scen(rows, [shooter("s", (1, 1))], [dummy("t", (5, 1))]))
        assert can_attack(b, "t", "pistol") == ok, ch
    b = play(scen(["........", "....T...", "........"], [shooter("s", (1, 1))], [dummy("t", (5, 1))]))
    assert b.state.grid.los(who(b, "s").pos, who(b, "t").pos)      # seen, but fully covered


# ---------------------------------------------------------------------------------------
# seed 003, Targeting Roll and Targeting Modifiers

def test_range_bands():
    """seed 003, Targeting Roll: short (PER x 10 m) +1, medium (PER x 100) 0, long (PER x 200)
    -1, out of range -2 (assumption out_of_range: still allowed). PER 2, 10 m squares."""
    a = [fig("s1", (0, 0), per=2, skills={"firearms": 0}, weapons=("pistol",)),
         fig("s2", (0, 1), per=2, skills={"firearms": 0}, weapons=("pistol",))]
    bt = [dummy("t20", (2, 0)), dummy("t200", (20, 0)), dummy("t400", (40, 1)), dummy("t440", (44, 1))]
    s = scen(open_map(45, 2), a, bt, cell_m=10.0)
    b = play(s, [attack("s1", "t20", "pistol", [2, 2]), attack("s1", "t200", "pistol", [2, 2]), end("s1"),
                 attack("s2", "t400", "pistol", [2, 2]), attack("s2", "t440", "pistol", [2, 2])])
    got = [(r["band"], mods(r)["range"]) for r in rolls(b, "targeting")]
    assert got == [("short", 1), ("medium", 0), ("long", -1), ("out_of_range", -2)]


@pytest.mark.parametrize("how,mod", [("stand", 1), ("walk", 0), ("fly", -2)])
def test_attacker_movement_modifier(how, mod):
    """seed 003, Targeting Modifiers, attacker: stationary +1, walking 0, flying -2
    (assumption movement_status; running takes the whole turn, so it cannot fire)."""
    sh = shooter(flies=(how == "fly"))
    steps = [] if how == "stand" else [move("s", 1, 1)]
    b = play(scen(open_map(), [sh], [dummy(at=(8, 1))]), steps + [attack("s", "t", "pistol", [2, 2, 2])])
    assert mods(only(rolls(b, "targeting")))["attacker"] == mod


@pytest.mark.parametrize("how,mod", [("still", 1), ("walk", 0), ("run", -1), ("fly", -2)])
def test_target_movement_modifier(how, mod):
    """seed 003, Targeting Modifiers, target: stationary +1, walking 0, running -1, flying -2,
    by how the target moved in its latest turn (assumption movement_status)."""
    t = dummy(at=(9, 0), flies=(how == "fly"), agl=3)       # faces west, towards s
    steps = [end("s")]
    if how == "walk":
        steps.append(move("t", 7, 0))                        # 2 m: a walk
    elif how in ("run", "fly"):
        steps.append(move("t", 5, 0))                        # 4 m: a run (or a flight)
    steps += [end("t"), attack("s", "t", "pistol", [2, 2, 2])]
    b = play(scen(open_map(12, 2), [shooter("s", (0, 0))], [t]), steps)
    assert mods(only(rolls(b, "targeting")))["target"] == mod
    assert only(rolls(b, "targeting"))["target_moved"] == {"still": "stationary", "walk": "walking",
                                                            "run": "running", "fly": "flying"}[how]


def test_movement_status_resets_when_the_figure_next_acts():
    """seed 003, Targeting Modifiers (movement of target or player); assumption movement_status: a
    figure is stationary again when its turn starts."""
    t = dummy(at=(9, 0))
    b = play(scen(open_map(12, 2), [shooter("s", (0, 0))], [t]), [end("s"), move("t", 7, 0), end("t")])
    assert who(b, "t").res["moved"] == "walking"
    b = play(scen(open_map(12, 2), [shooter("s", (0, 0))], [t]), [end("s"), move("t", 7, 0), end("t"), end("s")])
    assert who(b, "t").res["moved"] == "stationary" and econ(b)["moved_this_round"] == 0


def test_partial_cover_rolls_one_die_fewer():
    """seed 003, Targeting Modifiers: partially covered -(1d) - one die fewer (PER 3 -> 2
    dice) (assumption cover_levels: light, medium and heavy map cover are partial)."""
    for ch in "lmh":
        rows = ["........", f"....{ch}...", "........"]
        b = play(scen(rows, [shooter("s", (1, 1))], [dummy("t", (5, 1))]), [attack("s", "t", "pistol", [2, 2])])
        r = only(rolls(b, "targeting"))
        assert n_dice(r) == 2 and r["cover"] == "cover" and r["pool"] == "PER 3 -1d"


def test_partial_cover_sources_do_not_add_up():
    """seed 003, Targeting Modifiers: partially covered -(1d); assumption cover_levels: a lying
    target behind cover still loses only one die."""
    rows = ["........", "....m...", "........"]
    b = play(scen(rows, [shooter("s", (1, 1))], [dummy("t", (5, 1), posture="lie")]),
             [attack("s", "t", "pistol", [2, 2])])
    assert n_dice(only(rolls(b, "targeting"))) == 2


def test_shield_device_gives_partial_cover_from_the_next_turn():
    """seed 003, Combat Actions: Activate Device is instant and takes effect next turn
    (assumption shield_device: partial cover until the start of the turn after)."""
    t = dummy("t", (5, 1), items=["shield_generator"])
    s = scen(open_map(), [shooter("s", (0, 1))], [t])
    base = [end("s"), act("t", "use", option="shield"), end("t")]
    b = play(s, base + [attack("s", "t", "pistol", [2, 2, 2])])
    assert who(b, "t").res["shield"] == "pending" and only(rolls(b, "targeting"))["cover"] is None
    b = play(s, base + [end("s"), end("t"), attack("s", "t", "pistol", [2, 2])])
    assert who(b, "t").res["shield"] == "on" and only(rolls(b, "targeting"))["cover"] == "shield"
    assert who(b, "t").res["uses"]["shield_generator"] == 1
    b = play(s, base + [end("s"), end("t"), end("s"), end("t"), attack("s", "t", "pistol", [2, 2, 2])])
    assert who(b, "t").res["shield"] == "off"


# ---------------------------------------------------------------------------------------
# seed 003, Damage; Status Levels and Effects

def test_status_formula_and_health():
    """seed 003, Damage (max Status); assumption status_formula: max Status = 10 + 5 x END unless
    the stat block gives it."""
    b = play(scen(open_map(), [shooter(end=3), dummy("u", (0, 2), status=33)], [dummy()]))
    assert RS.health(who(b, "s")) == (25.0, 25.0)
    assert RS.health(who(b, "u")) == (33.0, 33.0)
    assert RS.health(who(b, "t")) == (20.0, 20.0)


@pytest.mark.parametrize("damage,level", [(0, "perfect"), (4, "perfect"), (5, "weakening"), (9, "weakening"),
                                          (10, "suffering"), (15, "critical"), (19, "critical"),
                                          (20, "non_responsive")])
def test_status_levels_at_75_50_25_and_0_percent(damage, level):
    """seed 003, Status Levels and Effects: Weakening at 75% or less, Suffering at 50%,
    Critical at 25%, Non-Responsive at 0% (Status 20)."""
    b = play(scen(open_map(), [shooter()], [dummy(damage=damage)]))
    t = who(b, "t")
    assert t.res["level"] == level
    assert (level in t.conditions) == (level != "perfect")


@pytest.mark.parametrize("damage,body,mind", [(0, 0, 0), (5, -2, 0), (10, -4, -2), (15, -4, -4)])
def test_status_level_modifiers_on_body_and_mind_values(damage, body, mind):
    """seed 003, Status Levels: Weakening -2 to body values, Suffering -4 body -2 mind,
    Critical -4 to all (assumption body_and_mind_values: STR/AGL/END body, PER/INT/WIL mind)."""
    six = shooter(str_=6, agl=6, end=6, per=6, int_=6, wil=6, status=20, damage=damage)
    b = play(scen(open_map(), [six], [dummy()]))
    c = who(b, "s")
    assert [RS.val(c, v) - 6 for v in ("str", "agl", "end")] == [body] * 3
    assert [RS.val(c, v) - 6 for v in ("per", "int", "wil")] == [mind] * 3


def test_weakening_rolls_fewer_dice_and_walks_shorter():
    """seed 003, Status Levels: Weakening -2 to body values - STR 4 rolls 2 dice, AGL 3
    walks 1 m (assumption modified_values)."""
    att = fig("m", (1, 1), str_=4, agl=3, weapons=("knife",), damage=5)
    b = play(scen(open_map(), [att], [dummy(at=(2, 1), agl=1, str_=1)]))
    assert econ(b)["walk_m"] == 1
    b = play(scen(open_map(), [att], [dummy(at=(2, 1), agl=1, str_=1)]), [attack("m", "t", "knife", [6, 1, 1])])
    assert n_dice(only(rolls(b, "body attack"))) == 2


def test_suffering_takes_two_dice_off_per():
    """seed 003, Status Levels: Suffering -2 to mind values (PER 4 -> 2 dice)."""
    b = play(scen(open_map(), [shooter(per=4, damage=10)], [dummy()]), [attack("s", "t", "pistol", [2, 2])])
    assert n_dice(only(rolls(b, "targeting"))) == 2


def test_critical_value_below_one_rolls_one_die_minus_the_shortfall():
    """seed 003, Status Levels: Critical -4 to all values; assumption pool_floor: PER 3 - 4 =
    -1 rolls one die and subtracts 2."""
    b = play(scen(open_map(), [shooter(per=3, damage=15)], [dummy()]), [attack("s", "t", "pistol", [6])])
    r = only(rolls(b, "targeting"))
    assert n_dice(r) == 1 and r["total"] == 6 - 2 + 4


def test_damage_applies_at_once_and_changes_later_hits():
    """seed 003, Combat: damage is resolved as attacks land and modified values apply at once
    - after the first hit the target is Weakening (END 2 - 2), so the second hit is harder."""
    b = play(scen(open_map(), [shooter()], [dummy()]),
             [attack("s", "t", "pistol", [6, 1, 1]), attack("s", "t", "pistol", [6, 1, 1])])
    assert [e["wound"] for e in evs(b, "damage")] == [5, 7]
    assert who(b, "t").res["level"] == "suffering"


def test_down_at_max_status_cannot_act_or_be_targeted():
    """seed 003, Damage: damage equal to or higher than max Status takes the figure down; it
    cannot act. assumption no_death: damage stops at max Status."""
    s = scen(open_map(), [shooter(), shooter("u", (0, 2))], [dummy(damage=18), dummy("v", (6, 2))])
    b = play(s, [attack("s", "t", "pistol", [6, 1, 1])])
    t = who(b, "t")
    assert t.down and t.res["damage"] == 20 and only(evs(b, "damage"))["wound"] == 2
    assert only(evs(b, "down"))["target"] == "t" and not t.dead
    assert not can_attack(b, "t", "pistol")
    b = play(s, [attack("s", "t", "pistol", [6, 1, 1]), end("s"), end("u")])
    assert b.state.actor.id == "v"                              # t is skipped


def test_last_figure_down_ends_the_fight():
    """seed 003, Damage: a side with every figure down has lost."""
    b = play(scen(open_map(), [shooter()], [dummy(damage=18)]), [attack("s", "t", "pistol", [6, 1, 1])])
    assert b.state.over and b.state.winner == "a"


# ---------------------------------------------------------------------------------------
# seed 003, Repairing / Healing

def _repair_scene(healer: dict, patient: dict, enemy_at=(11, 1)):
    return scen(open_map(), [healer, patient], [dummy("e", enemy_at, status=99)])


def test_tekker_repairs_ten_per_level_per_minute():
    """seed 003, Repairing / Healing: a Tekker restores 10 points per level per minute;
    assumption turn_seconds: a 6-second turn restores a tenth of that (tekker 2 -> 2)."""
    tek = fig("tek", (0, 1), skills={"tekker": 2})
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=10)
    b = play(_repair_scene(tek, mf), [act("tek", "heal", target="mf")])
    assert who(b, "mf").res["damage"] == 8
    e = only([e for e in evs(b, "effect") if "healed" in e])
    assert e["healed"] == 2 and e["method"] == "tekker"
    assert RS.repair_rate_per_minute(who(b, "tek"), who(b, "mf")) == 20


def test_robotics_with_repair_kit_three_per_level_per_minute_fractions_carry():
    """seed 003, Repairing / Healing: robotics + Repair Kit, 3 per level per minute: 0.6 a
    turn at level 2, so the first turn restores 0 and the second 1 (assumption turn_seconds)."""
    mech = fig("mech", (0, 1), kind="metalface", skills={"robotics": 2}, items=["repair_kit"])
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=10)
    s = _repair_scene(mech, mf)
    b = play(s, [act("mech", "heal", target="mf"), end("mf"), end("e")])
    assert who(b, "mf").res["damage"] == 10 and who(b, "mf").res["repair_acc"] == 2160
    b = play(s, [act("mech", "heal", target="mf"), end("mf"), end("e"), act("mech", "heal", target="mf")])
    assert who(b, "mf").res["damage"] == 9
    assert RS.repair_rate_per_minute(who(b, "mech"), who(b, "mf")) == 6


def test_humans_only_by_medic_or_healing():
    """seed 003, Repairing / Healing: humans only by medic or healing (with a MediKit for the
    kit rate); a Tekker or robotics cannot; medic cannot repair a metalface."""
    hurt = fig("h", (1, 1), damage=5)
    for healer, ok in ((fig("x", (0, 1), skills={"tekker": 3, "robotics": 3}, items=["repair_kit"]), False),
                       (fig("x", (0, 1), skills={"medic": 1}, items=["medikit"]), True),
                       (fig("x", (0, 1), skills={"healing": 1}), True)):
        b = play(_repair_scene(healer, hurt))
        assert can(b, "heal", target="h") == ok
    b = play(_repair_scene(fig("x", (0, 1), skills={"medic": 3}, items=["medikit"]),
                           fig("mf", (1, 1), kind="metalface", damage=5)))
    assert not can(b, "heal", target="mf")


def test_medikit_rate_and_no_kit_rate():
    """seed 003, Repairing / Healing: 3 per level per minute with a kit, 1 per level per five
    minutes without (assumption repair_rates)."""
    b = play(_repair_scene(fig("x", (0, 1), skills={"medic": 2}, items=["medikit"]), fig("h", (1, 1), damage=5)))
    x, h = who(b, "x"), who(b, "h")
    assert RS.repair_rate_per_minute(x, h) == 6 and RS.repair_per_turn(x, h) == pytest.approx(0.6)
    b = play(_repair_scene(fig("x", (0, 1), skills={"medic": 2}), fig("h", (1, 1), damage=5)))
    assert RS.repair_rate_per_minute(who(b, "x"), who(b, "h")) == pytest.approx(0.4)


def test_between_fights_treatment_by_the_minute():
    """seed 003, Repairing / Healing: the per-minute rates as rules-API functions between
    fights: 1 per level per 5 minutes without a kit -> 10 minutes at level 1 restore 2."""
    b = play(_repair_scene(fig("x", (0, 1), skills={"healing": 1}), fig("h", (1, 1), damage=12)))
    x, h = who(b, "x"), who(b, "h")
    assert RS.minutes_to_repair(x, h, 2) == pytest.approx(10.0)
    pts, ev = RS.treat(x, h, 10)
    assert pts == 2 and h.res["damage"] == 10
    assert h.res["level"] == "suffering"
    assert RS.minutes_to_repair(x, h) == pytest.approx(50.0)
    tek = fig("tek", (0, 1), skills={"tekker": 1})
    b = play(_repair_scene(tek, fig("mf", (1, 1), kind="metalface", end=4, damage=30)))
    pts, _ = RS.treat(who(b, "tek"), who(b, "mf"), 3)
    assert pts == 30 and not who(b, "mf").down and who(b, "mf").res["level"] == "perfect"


def test_repair_to_a_quarter_brings_a_down_figure_back():
    """seed 003, Damage: down until repaired to at least 25% of max Status (metalface Status
    30: 7.5 -> 8 points; a Tekker 3 restores 3 a turn)."""
    tek = fig("tek", (0, 1), skills={"tekker": 3})
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=30)
    s = _repair_scene(tek, mf)
    heal = [act("tek", "heal", target="mf"), end("e")]
    b = play(s, heal * 2)
    assert who(b, "mf").down and who(b, "mf").res["damage"] == 24   # 6 left: under 25%
    assert b.state.actor.id == "tek"
    b = play(s, heal * 2 + [act("tek", "heal", target="mf")])
    assert not who(b, "mf").down and who(b, "mf").res["damage"] == 21
    assert b.state.actor.id == "mf"                  # back up: it acts in its place


def test_heal_needs_an_adjacent_hurt_patient():
    """seed 003, Repairing / Healing; assumption repair_reach: next to the patient; nothing to
    repair, no action."""
    tek = fig("tek", (0, 1), skills={"tekker": 1})
    b = play(_repair_scene(tek, fig("mf", (2, 1), kind="metalface", damage=5)))
    assert not can(b, "heal", target="mf")
    b = play(_repair_scene(tek, fig("mf", (1, 2), kind="metalface")))
    assert not can(b, "heal", target="mf")


def test_heal_self():
    """seed 003, Repairing / Healing; assumption repair_reach: a figure may treat itself (`use:
    heal_self`, a full turn)."""
    x = fig("x", (0, 1), skills={"medic": 3}, items=["medikit"], damage=6)
    b = play(_repair_scene(x, fig("y", (0, 2))), [act("x", "use", option="heal_self")])
    assert who(b, "x").res["repair_acc"] == 540 * 6 % 3600 and b.state.actor.id == "y"
    assert who(b, "x").res["damage"] == 6 - (540 * 6) // 3600


# ---------------------------------------------------------------------------------------
# economy, views and the bestiary

def test_economy_shows_the_half_turns():
    """seed 003, Combat Actions: The half-turn economy in `economy` (what the env observes)."""
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))]))
    e = econ(b)
    assert set(e) == set(RS.economy_features)
    assert (e["half_turns_used"], e["half_turns_left"], e["walk_m"], e["run_m"], e["move_m_left"]) == (0, 2, 3, 6, 6)
    assert (e["facing"], e["posture"], e["standing"], e["charges"], e["ammo_frac"]) == (2, 0, 1, 12, 1)
    b = play(scen(open_map(), [shooter(agl=3)], [dummy(at=(9, 1))]), [move("s", 2, 1)])
    e = econ(b)
    assert (e["half_turns_used"], e["move_m_used"], e["move_m_left"], e["moved_this_round"]) == (1, 2, 4, 1)


def test_views_for_policies_and_envs():
    """seed 003, Ranged Weapon Attacks and Body Attacks (reach): reach_m, ammo_frac and weapon_slots
    feed the generic policies and the env."""
    b = play(scen(open_map(), [shooter()], [fig("m", (5, 1), weapons=("shock_staff",))]))
    s, m = who(b, "s"), who(b, "m")
    assert RS.weapon_slots(s) == ["pistol", "unarmed"]
    assert RS.reach_m(s) == 600 and RS.reach_m(m) == 2.5
    assert RS.ammo_frac(s) == 1 and RS.ammo_frac(m) == 1
    s.res["ammo"]["pistol"] = 3
    assert RS.ammo_frac(s) == 0.25
    s.res["jammed"].add("pistol")
    assert RS.reach_m(s) == 1.5                       # only fists now
    assert RS.validate_object("medikit") and RS.validate_object("pistol") and not RS.validate_object("laser")
    assert "Status" in RS.describe(s)


def test_bestiary_humans_and_metalfaces_with_every_weapon_kind():
    """seed 003: humans and metalfaces as distinct kinds; beam, clip, projectile and melee
    weapons; Tekkers; repair kits and medikits."""
    kinds = Counter(t["kind"] for t in DATA["bestiary"].values())
    assert kinds["human"] >= 4 and kinds["metalface"] >= 4
    wkinds = {RS.weapons[w].kind for t in DATA["bestiary"].values() for w in t["weapons"]}
    assert wkinds == {"beam", "clip", "projectile", "melee"}
    assert any(t.get("skills", {}).get("tekker") for t in DATA["bestiary"].values())
    items = {i for t in DATA["bestiary"].values() for i in t.get("items", [])}
    assert {"repair_kit", "medikit"} <= items
    for name in RS.templates():
        b = play(scen(open_map(), [{"id": "x", "at": [0, 1], "template": name}], [dummy()]))
        assert RS.health(who(b, "x"))[1] > 0


@pytest.mark.parametrize("change,field,expected", [
    ({"template": "dragon"}, "template", "metalface_trooper"),
    ({"weapons": ["laser"]}, "weapons[0]", "beam_rifle"),
    ({"values": {"per": 0}}, "values.per", ">= 1"),
    ({"kind": "robot"}, "kind", "human or metalface"),
    ({"facing": "up"}, "facing", "ne"),
    ({"posture": "crouch"}, "posture", "kneel"),
    ({"skills": {"hacking": 1}}, "skills.hacking", "biotech"),
    ({"items": ["bazooka"]}, "items[0]", "medikit"),
    ({"armour": "tin"}, "armour", "metal_plating"),
    ({"packed": ["knife"]}, "packed[0]", "pistol"),
    ({"damage": 50}, "damage", "0 .. 20"),
    ({"status": 0}, "status", ">= 1"),
    ({"wings": True}, "combatants[0]", "template"),
])
def test_bad_stat_blocks_name_the_field(change, field, expected):
    """Bad input names the field and what was expected (ARCHITECTURE.md, Conventions)."""
    base = shooter("s", (0, 1))
    if "template" in change:
        base = {"id": "s", "at": [0, 1]}
    if "values" in change:
        change = {"values": {**base["values"], **change["values"]}}
    base.update(change)
    with pytest.raises((ScenarioError, UnknownNameError)) as ei:
        play(scen(open_map(), [base], [dummy()]))
    err = ei.value
    assert field in (err.field or "") and expected in (err.expected or ""), str(err)


def test_unknown_settings_are_named():
    """Bad input names the field: metalface takes no scenario settings."""
    sc = scen(open_map(), [shooter()], [dummy()])
    sc["settings"] = {"plot_points": {"a": 2}}
    with pytest.raises(ScenarioError) as ei:
        play(sc)
    # inline scenarios in a replay are named by their place in the replay file
    assert ei.value.field == "scenario.settings.plot_points" and "no settings" in ei.value.expected


def test_strict_replays_catch_wrong_dice_counts():
    """seed 003, Targeting (a PER roll); The forced-dice replays are exact: a PER 3 roll needs
    exactly three dice."""
    s = scen(open_map(), [shooter()], [dummy()])
    with pytest.raises(DiceError):
        play(s, [attack("s", "t", "pistol", [2, 2])])
    with pytest.raises(DiceError):
        play(s, [attack("s", "t", "pistol", [2, 2, 2, 2])])
    with pytest.raises(IllegalActionError):
        play(s, [act("s", "heal", target="t")])


# ---------------------------------------------------------------------------------------
# bundled scenarios

def test_at_least_three_bundled_scenarios_use_the_rules():
    """seed 003 (Move, Ranged Weapon Attacks, Targeting Modifiers, Repairing / Healing); The issue:
    three `metalface/...` scenarios (1 m cells) that use facing, charged weapons, movement modifiers
    (fliers) and repairs."""
    assert len(MY_SCENARIOS) >= 3
    uses = Counter()
    for name in MY_SCENARIOS:
        spec, src = load_scenario(name)
        assert spec.ruleset == "metalface" and (spec.map.cell_m or 1.0) == 1.0
        battle = new_battle(spec, Dice(0), src)
        battle.start()
        cs = battle.state.combatants
        if any(c.stats["facing"] for c in cs) or any(c.res["facing"] != cs[0].res["facing"] for c in cs):
            uses["facing"] += 1
        if any(w.kind == "beam" for c in cs for w in c.weapons.values()):
            uses["charged"] += 1
        if any(c.stats["flies"] for c in cs):
            uses["flying"] += 1
        if any(RS.heal_method(h, p)[0] > 0 for h in cs for p in cs if h.team == p.team):
            uses["repairs"] += 1
    assert uses["facing"] >= 3 and uses["charged"] >= 3 and uses["repairs"] >= 3 and uses["flying"] >= 2


# ---------------------------------------------------------------------------------------
# robustness: random against random over the bundled scenarios

ROBUST_FIGHTS = int(os.environ.get("TACTICA_METALFACE_FIGHTS", "1000"))


@lru_cache(maxsize=None)
def _spec(scenario: str):
    return load_scenario(scenario)


def _fight(scenario: str, index: int, seed: int = 3003) -> int:
    """One random-vs-random fight with the invariants checked after every action:
    no two standing figures share a cell, every figure on a passable cell of the map,
    nobody acts while down, damage bookkeeping adds up (damage - healing), the fight ends by
    its round limit with `battle_end` last (tests/test_robustness.py also validates every
    event of these scenarios)."""
    spec, src = _spec(scenario)
    ss = np.random.SeedSequence([seed, index]).spawn(1 + len(spec.teams))
    battle = new_battle(spec, Dice(np.random.default_rng(ss[0])), src, record=False)
    log: list[dict] = []
    battle.on_event = log.append
    pols = {t.name: make_policy("random", ss[1 + i]) for i, t in enumerate(spec.teams)}
    s = battle.state
    g = s.grid
    dealt: Counter = Counter()
    battle.start()
    n = 0
    cap = (s.round_limit + 1) * len(s.combatants) * 41
    where = f"{scenario} fight {index}"
    while not s.over:
        assert n < cap, f"{where}: no end after {n} actions"
        actor = s.actor
        assert actor is not None and not actor.down, f"{where}: {actor and actor.id} asked to act while down"
        action = pols[actor.team].act(s, actor)
        battle.step(action, check=False)
        n += 1
        for e in log:
            if e["type"] == "damage":
                dealt[e["target"]] += e["wound"]
            elif e["type"] == "effect" and "healed" in e:
                dealt[e["target"]] -= e["healed"]
            elif e["type"] in ("attack", "move"):
                assert e["actor"] == actor.id, f"{where}: {e}"
        ends = [e for e in log if e["type"] == "battle_end"]
        assert not ends or ends[-1] is log[-1], f"{where}: events after battle_end"
        log.clear()
        seen: set[int] = set()
        for c in s.combatants:
            assert 0 <= c.pos < g.n and g.passable[c.pos], f"{where}: {c.id} off the map or in a wall"
            if not c.down:
                assert c.pos not in seen, f"{where}: two standing figures share {g.xy(c.pos)}"
                seen.add(c.pos)
            assert dealt[c.id] + c.stats["damage"] == c.res["damage"], f"{where}: {c.id} damage bookkeeping"
            assert 0 <= c.res["damage"] <= c.stats["status"]
    assert 1 <= s.round <= s.round_limit
    return n


def _run_chunk(args: tuple[list[str], range]) -> int:
    scenarios, idx = args
    return sum(_fight(scenarios[i % len(scenarios)], i) for i in idx)


def test_random_fights_keep_the_invariants():
    """seed 003, Combat (rounds end, down figures do not act); 1,000 random-against-random fights
    over the bundled metalface scenarios (set TACTICA_METALFACE_FIGHTS to change the count), split
    over worker processes."""
    import concurrent.futures as cf
    import multiprocessing as mp

    workers = max(1, min(8, os.cpu_count() or 1))
    if "fork" not in mp.get_all_start_methods():
        workers = 1
    chunks = [(MY_SCENARIOS, range(k, ROBUST_FIGHTS, workers)) for k in range(workers)]
    if workers == 1:
        total = sum(_run_chunk(c) for c in chunks)
    else:
        with cf.ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as ex:
            total = sum(ex.map(_run_chunk, chunks))
    assert total > ROBUST_FIGHTS


def test_legal_attacks_agree_with_can_attack():
    """seed 003, Body Attacks and Ranged Weapon Attacks: `legal_actions` (the env mask) lists
    exactly the attacks `can_attack` allows, in random fights (the fast path and the rule agree)."""
    spec, src = load_scenario(MY_SCENARIOS[0])
    for i in range(3):
        battle = new_battle(spec, Dice(i), src, record=False)
        battle.start()
        pol = make_policy("random", i)
        s = battle.state
        k = 0
        while not s.over and k < 400:
            a = s.actor
            got = {(x.target, x.weapon) for x in battle.legal_actions() if x.kind == "attack"}
            want = {(t.id, w.name) for t in s.combatants for w in a.weapons.values()
                    if RS.can_attack(s, a, t, w)}
            assert got == want
            battle.step(pol.act(s, a), check=False)
            k += 1
