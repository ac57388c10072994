"""Rule tests for the `metalface` ruleset (seed 003, METALFACE: RPG), with forced dice:
Ready Weapons, Body Attacks, Ranged Weapon Attacks, Targeting Roll and Targeting Modifiers.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, how many dice a
roll takes, the sources cited ("seed 003, <heading>", "RULES-NOTES metalface", "assumption
<key>") and the geometry are in tests/metalface_setup.py; the other topics in
tests/test_metalface_*.py.
"""

from __future__ import annotations

import pytest

from tests.metalface_setup import (RS, act, attack, can, can_attack, dummy, econ, end, evs, fig, mods, move,
                                   n_dice, only, open_map, play, rolls, scen, shooter, who)


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


def test_body_attack_not_through_a_wall_between_the_squares():
    """seed 003, Body Attacks: "Body attacks can only be made within a 1m radius"; assumptions
    body_reach and doors: a wall (or closed door) on the edge between two touching squares, or on
    both edges at a diagonal's corner, separates them, so no body attack crosses it, and the threat
    query (which prices what the listing offers) finds none either."""
    s = scen(open_map(), [fig("m", (1, 1), facing="e")], [dummy(at=(2, 1), facing="w")])
    assert can_attack(play(s), "t", "unarmed")
    s["map"]["walls"] = [[2, 0, 2, 3]]           # the whole edge between x=1 and x=2
    b = play(s)
    assert not b.state.grid.adjacent(b.state.grid.index(1, 1), b.state.grid.index(2, 1))
    assert not can_attack(b, "t", "unarmed")
    with pytest.raises(Exception, match="no attack action"):
        play(s, [attack("m", "t", "unarmed", [6, 6, 6, 1, 1, 1])])
    assert RS.best_expected_damage(b.state, b.state.actor, ("t",)) == {"t": 0.0}
    open_b = play(scen(open_map(), [fig("m", (1, 1), facing="e")], [dummy(at=(2, 1), facing="w")]))
    assert RS.best_expected_damage(open_b.state, open_b.state.actor, ("t",))["t"] > 0
    d = scen(open_map(6, 4), [fig("m", (1, 1), facing="se")], [dummy(at=(2, 2), facing="nw")])
    assert can_attack(play(d), "t", "unarmed")
    d["map"]["walls"] = [[2, 0, 2, 2], [0, 2, 2, 2]]   # both walls at the corner point (2, 2)
    assert not can_attack(play(d), "t", "unarmed")
    d["map"]["walls"] = [[2, 0, 2, 2]]                 # one wall: the diagonal passes its end
    assert can_attack(play(d), "t", "unarmed")


def test_the_shield_stays_up_for_a_figure_that_acts_later():
    """seed 003, Combat Actions: Activate Device "Instant (Takes effect on next turn)"; assumption
    shield_device: partial cover from the start of the figure's next turn until the start of the
    turn after. A figure that chooses to act later (turn_order_choice) takes up the same turn: its
    shield does not run out at the second start (it did, and the figure stood in the open for the
    rest of the round)."""
    a1 = fig("a1", (0, 1), items=["shield_generator"])
    s = scen(open_map(), [a1], [dummy("b1", (11, 0)), shooter("b2", (8, 1))])
    base = [act("a1", "use", option="shield"), end("a1"), end("b1"), end("b2")]
    b = play(s, base + [end("a1"), end("b1"), attack("b2", "a1", "pistol", [2, 2])])
    assert only(rolls(b, "targeting"))["cover"] == "shield"
    b = play(s, base + [act("a1", "delay"), end("b1"), end("a1"), attack("b2", "a1", "pistol", [2, 2])])
    assert b.state.round == 2 and who(b, "a1").res["shield"] == "on"
    assert only(rolls(b, "targeting"))["cover"] == "shield" and n_dice(only(rolls(b, "targeting"))) == 2
    assert [e["effect"] for e in evs(b, "effect", target="a1")].count("the shield runs out") == 0
    # and it runs out at the start of its turn in the next round, as without the delay
    b = play(s, base + [act("a1", "delay"), end("b1"), end("a1"), end("b2"), end("a1")])
    assert who(b, "a1").res["shield"] == "off"
