"""The `metalface` ruleset (seed 003), read a third time (2026-12-07): forced-dice tests of
each change, and checks of the new assumption entries (docs/metalface.md, "Seed read a third
time").

- down_targets: a down figure with Status left may be attacked; at 0 Status left it is no target.
- full_turn_instant: after Heal/Repair (a Full Turn) the figure may still Activate Device
  (Instant), as after a Run (also a Full Turn).
- attacker_running, sprint, best_shot: assumption entries only (no play change); the tests
  hold the engine to what the entries claim.

Helpers, dice counts and sources cited: tests/metalface_setup.py.
"""

from __future__ import annotations

from rules.actions import END_TURN, Action
from rules.scenario import load_scenario
from rules.systems.metalface.model import p_at_least
from tests.metalface_setup import (ASSUMPTIONS, DATA, MY_SCENARIOS, RS, act, attack, can_attack, econ, end, evs,
                                   fig, legal, mods, move, n_dice, only, open_map, play, rolls, scen, shooter, who)

SEED_DOWN = "\"Down\" means the character is unable to make actions of any kind"


# ---------------------------------------------------------------------------------------
# down_targets

def _repaired_down():
    """s (pistol) against t, a metalface down at 0 Status (max 20), whom the Tekker u (tekker 3:
    30 a minute, 3 a 6-second turn) repairs to 3 Status left - under 25% (5), so t stays down."""
    S = shooter("s", (0, 1), facing="e")
    T = fig("t", (6, 1), kind="metalface", end=2, damage=20, facing="w")
    U = fig("u", (7, 1), skills={"tekker": 3}, facing="w")
    return scen(open_map(), [S], [T, U]), [end("s"), act("u", "heal", target="t")]


def test_a_down_figure_with_status_left_can_be_shot():
    """seed 003, Damage: "When a character take damage equal to or higher than their max Status,
    that character goes down. 'Down' means the character is unable to make actions of any kind
    ... until they are repaired to at least 25% of their max Status" - it limits what the down
    figure does, not what is done to it (assumption down_targets). A shot at the repaired, still
    down t: PER 3 (3 dice) + firearms 1 + short +1 + stationary shooter +1 + stationary target +1
    = 6 + 4 = 10 >= Extreme 8, a hit; damage 7 - (END 2 - 4 critical) = 9, capped at the 3 left.
    Back at 0 Status left it is no target (assumption no_death: no damage can land)."""
    s, steps = _repaired_down()
    b = play(s, steps)
    t = who(b, "t")
    assert b.state.actor.id == "s" and t.down and t.res["damage"] == 17
    assert can_attack(b, "t", "pistol")
    assert Action("attack", target="t", weapon="pistol") in RS.legal_attacks(b.state, "t")
    b = play(s, steps + [attack("s", "t", "pistol", [6, 1, 1])])
    r = only(rolls(b, "targeting"))
    assert r["total"] == 10 and mods(r) == {"skill": 1, "range": 1, "attacker": 1, "target": 1}
    d = only(evs(b, "damage"))
    assert d["target"] == "t" and d["wound"] == 3 and d["status"] == 0
    assert who(b, "t").down and not evs(b, "down")          # it was down already: no second "down"
    assert not can_attack(b, "t", "pistol")                 # 0 Status left: no target


def test_threat_and_odds_price_the_down_target_as_the_listing_lists_it():
    """assumption down_targets: the threat query (threat.py) and the odds agree with the listing:
    the repaired down t is priced (p 5/6 ... x 3 Status left), the one at 0 Status left is not."""
    s, steps = _repaired_down()
    b = play(s, steps)
    st, a = b.state, b.state.actor
    acts = RS.legal_attacks(st, "t")
    odds = RS.attack_odds_many(st, a, acts)
    want = max(o["exp_damage"] for o in odds)
    assert odds[0]["damage_if_hit"] == 3.0 and want > 0
    assert RS.best_expected_damage(st, a, ["t"]) == {"t": want}
    assert RS.threat_profile(st, a)(who(b, "t")) == want
    b = play(s, steps + [attack("s", "t", "pistol", [6, 1, 1])])
    # s fired one half turn; the other is left, but t has no Status left
    assert RS.best_expected_damage(b.state, b.state.actor, ["t"]) == {"t": 0.0}
    assert RS.legal_attacks(b.state, "t") == []


def test_a_down_figure_with_status_left_can_be_struck_and_still_defends():
    """seed 003, Damage (down limits the down figure's own actions) and Body Attacks: "The
    defender must also roll to defend" (assumption down_targets: a down defender still rolls).
    k (STR 3, knife +2, melee 0) strikes the repaired t (STR 3 / AGL 3 - 4 critical: -1, one die
    and -2): attack 6 + 2 = 8 against the dodge 1 - 2 = -1; damage (3 + 2) - (2 - 4) = 7, capped
    at the 3 left."""
    K = fig("k", (5, 1), weapons=("knife",), facing="e")
    T = fig("t", (6, 1), kind="metalface", end=2, damage=20, facing="w")
    U = fig("u", (7, 1), skills={"tekker": 3}, facing="w")
    s = scen(open_map(), [K], [T, U])
    steps = [end("k"), act("u", "heal", target="t")]
    assert can_attack(play(s, steps), "t", "knife")
    b = play(s, steps + [attack("k", "t", "knife", [6, 1, 1, 1])])
    ra, rd = only(rolls(b, "body attack")), only(rolls(b, "dodge"))
    assert (ra["total"], n_dice(ra), rd["total"], n_dice(rd)) == (8, 3, -1, 1)
    assert only(evs(b, "damage"))["wound"] == 3 and who(b, "t").res["damage"] == 20


def test_down_figure_at_zero_status_is_no_target_but_one_brought_back_is():
    """seed 003, Damage; assumption down_targets: at 0 Status left the down t is no target, on
    any weapon; the repaired one (3 left) is, and a standing figure always was."""
    s, steps = _repaired_down()
    b0 = play(s, [end("s"), end("u")])            # u does not repair: t stays at 0 left
    assert who(b0, "t").down and who(b0, "t").res["damage"] == 20
    assert not can_attack(b0, "t", "pistol") and can_attack(b0, "u", "pistol")
    assert RS.best_expected_damage(b0.state, b0.state.actor, ["t"]) == {"t": 0.0}
    b1 = play(s, steps)
    assert can_attack(b1, "t", "pistol") and can_attack(b1, "u", "pistol")


def test_assumption_down_targets_quotes_the_seed():
    a = ASSUMPTIONS["down_targets"]
    assert SEED_DOWN in a["reason"] and "0 Status" in a["value"]


# ---------------------------------------------------------------------------------------
# full_turn_instant

def _kinds(b):
    return sorted({(a.kind, a.option, a.weapon) for a in legal(b) if a.kind != "move"}, key=str)


def _medic(**kw):
    x = fig("x", (0, 1), agl=3, skills={"medic": 2}, items=["medikit", "shield_generator"], **kw)
    y = fig("y", (0, 2), damage=6)
    return scen(open_map(), [x, y], [fig("e", (11, 1))])


def test_after_heal_the_figure_may_still_activate_a_device_as_after_a_run():
    """seed 003, Combat Actions: "Heal/Repair | Use skill and/or kit | Full Turn", "Run | Move
    2x(AGL) meters | Full Turn", "Activate Device | Activate one charged device | Instant (Takes
    effect on next turn)" (assumption full_turn_instant): after the heal the medic's turn stays
    open with only the shield and end_turn, as after a run; the shield is up from its next turn."""
    s = _medic()
    run = play(s, [move("x", 6, 1)])                 # 6 m: a run (2 x AGL 3)
    heal = play(s, [act("x", "heal", target="y")])
    want = [("end_turn", None, None), ("use", "shield", None)]
    assert _kinds(run) == want
    assert heal.state.actor.id == "x" and _kinds(heal) == want
    assert econ(heal)["half_turns_left"] == 0 and econ(run)["half_turns_left"] == 0
    b = play(s, [act("x", "heal", target="y"), act("x", "use", option="shield")])
    assert b.state.actor.id == "x" and legal(b) == [END_TURN]       # one activation a turn
    assert who(b, "x").res["shield"] == "pending"
    b = play(s, [act("x", "heal", target="y"), act("x", "use", option="shield"), end("x"), end("y"), end("e")])
    assert b.state.actor.id == "x" and who(b, "x").res["shield"] == "on"


def test_after_heal_a_beam_weapon_may_still_be_charged():
    """seed 003, Combat Actions, Activate Device (Instant); Ranged Weapon Attacks: "Most weapons
    must be charged with energy before being fired" (assumption ready_kinds: charging a beam
    weapon is Activate Device; assumption full_turn_instant): a mechanic with an empty beam
    pistol repairs, then charges it in the same turn."""
    mech = fig("m", (0, 1), kind="metalface", skills={"robotics": 2}, items=["repair_kit"],
               weapons=("beam_pistol",), empty=["beam_pistol"])
    mf = fig("mf", (1, 1), kind="metalface", end=4, damage=10)
    s = scen(open_map(), [mech, mf], [fig("e", (11, 1))])
    b = play(s, [act("m", "heal", target="mf")])
    assert b.state.actor.id == "m"
    assert _kinds(b) == [("end_turn", None, None), ("reload", None, "beam_pistol")]
    b = play(s, [act("m", "heal", target="mf"), act("m", "reload", weapon="beam_pistol"), end("m"), end("mf"),
                 end("e")])
    assert b.state.actor.id == "m" and who(b, "m").res["ammo"]["beam_pistol"] == 3


def test_heal_with_nothing_instant_left_still_ends_the_turn():
    """assumption full_turn_instant: with no device use left (here: activated before the heal)
    the heal ends the turn at once, as before."""
    s = _medic()
    b = play(s, [act("x", "use", option="shield"), act("x", "heal", target="y")])
    assert b.state.actor.id == "y"
    b = play(scen(open_map(), [fig("x", (0, 1), skills={"medic": 2}, items=["medikit"]), fig("y", (0, 2), damage=6)],
                  [fig("e", (11, 1))]), [act("x", "heal", target="y")])
    assert b.state.actor.id == "y"


# ---------------------------------------------------------------------------------------
# attacker_running, sprint, best_shot: assumption entries only

def test_attacker_running_row_never_applies():
    """seed 003, Combat Actions: "Run | Move 2x(AGL) meters | Full Turn", "Fire Weapon | ... |
    Half Turn" (assumption attacker_running): after a run no shot is legal; after a walk the
    shot's attacker modifier is walking (0); the target's running row still applies."""
    S = shooter("s", (0, 1), agl=3, per=3, facing="e")
    s = scen(open_map(), [S], [fig("t", (11, 1), facing="w")])
    assert not [a for a in legal(play(s, [move("s", 4, 1)])) if a.kind == "attack"]
    b = play(s, [move("s", 3, 1), attack("s", "t", "pistol", [6, 6, 6])])
    r = only(rolls(b, "targeting"))
    assert r["attacker_moved"] == "walking" and mods(r)["attacker"] == 0
    T = fig("t", (11, 1), facing="w", state={"moved": "running"})
    b = play(scen(open_map(), [S], [T]), [attack("s", "t", "pistol", [6, 6, 6])])
    assert mods(only(rolls(b, "targeting")))["target"] == -1
    a = ASSUMPTIONS["attacker_running"]
    assert "Run | Move 2x(AGL) meters | Full Turn" in a["reason"]


def test_sprint_is_not_a_move():
    """seed 003, Move: "Move (Walk, Run, Sprint)" gives Sprint no distance (assumption sprint):
    a figure moves at most 2 x AGL metres (a run)."""
    s = scen(open_map(), [fig("s", (0, 1), agl=3, facing="e")], [fig("t", (11, 1), facing="w")])
    assert econ(play(s))["run_m"] == 6
    assert not any(a.kind == "move" and a.cell == play(s).state.grid.index(7, 1) for a in legal(play(s)))
    assert "Move (Walk, Run, Sprint)" in ASSUMPTIONS["sprint"]["reason"]


def test_best_shot_bestiary_can_always_miss():
    """seed 003, Targeting: "Even the best shot occasionally misses" (assumption best_shot): read
    as flavour; the bundled figures (bestiary templates only) shoot with skill 2 or below, and at
    skill 3 or below the best shot (short range, both stationary: +3) can still miss Extreme 8;
    at skill 4 it cannot."""
    assert "Even the best shot occasionally misses" in ASSUMPTIONS["best_shot"]["reason"]
    weapons = DATA["weapons"]
    for name, blk in DATA["bestiary"].items():
        for w in blk["weapons"]:
            if weapons[w]["kind"] == "melee":
                continue
            sk = int(blk["skills"].get(weapons[w]["skill"], 0))
            assert sk <= 2, (name, w, sk)
            assert p_at_least(blk["values"]["per"], sk + 3, RS.target_difficulty) < 1.0, (name, w)
    for sc in MY_SCENARIOS:
        spec, _ = load_scenario(sc)
        for t in spec.teams:
            for c in t.combatants:
                assert set(c) <= {"id", "name", "template", "at", "facing", "posture"}, (sc, c)
    assert p_at_least(6, 3 + 3, 8) < 1.0 and p_at_least(1, 4 + 3, 8) == 1.0
