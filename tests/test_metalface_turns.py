"""Rule tests for the `metalface` ruleset (seed 003, METALFACE: RPG), with forced dice:
Combat (turn order), Combat Actions (two half turns), Move (facing and turning; personal
elevation).

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, how many dice a
roll takes, the sources cited ("seed 003, <heading>", "RULES-NOTES metalface", "assumption
<key>") and the geometry are in tests/metalface_setup.py; the other topics in
tests/test_metalface_*.py.
"""

from __future__ import annotations


from tests.metalface_setup import (act, attack, can, can_attack, dummy, econ, end, evs, fig, legal, mods,
                                   move, n_dice, only, open_map, play, rolls, scen, shooter, who)


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
