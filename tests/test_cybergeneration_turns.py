"""Rule tests for the `cybergeneration` ruleset (seed 004, Cybergeneration house rules), forced dice:
Facedown (initiative) and Your Turn (one move and one action; delaying, and held actions as
interrupts).

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the order of the
dice in a step, the sources cited ("seed 004, <heading>", "assumption <key>") and the geometry
are in tests/cybergeneration_setup.py; the other topics in tests/test_cybergeneration_*.py.
"""

from __future__ import annotations

import pytest

from tests.cybergeneration_setup import (RS, _standoff, act, attack, can, can_move, econ, end, evs, fig,
                                         legal, move, only, open_map, play, rolls, scen, shooter, who, wounds)


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
