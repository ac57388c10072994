"""Rule tests for the `cybergeneration` ruleset (seed 004, Cybergeneration house rules), forced dice:
Ranged Combat, Full Automatic, Suppression, Genius Gun, Bows, Shotguns, Throwing and Grenades.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the order of the
dice in a step, the sources cited ("seed 004, <heading>", "assumption <key>") and the geometry
are in tests/cybergeneration_setup.py; the other topics in tests/test_cybergeneration_*.py.
"""

from __future__ import annotations

import pytest

from tests.cybergeneration_setup import (act, attack, can, econ, end, evs, fig, legal, move, only, open_map,
                                         play, rolls, scen, shooter, who, wounds)


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


def test_a_buckshot_head_shot_is_past_body_armour_too():
    """seed 004, Called Shots: 'To target a specific area (usually the head) is -3 to hit. Most people
    do not have armour on their head' (assumption called_head). A shotgun's blanket hits its target
    where it was aimed: the head shot pays the -3 and passes medium armour (it used to be stopped by
    it, SP 4 of 6); a helmet still counts."""
    def shot(armour, option):
        t = fig("t", (4, 1), armour=armour)
        b = play(scen(open_map(14, 3), [shooter(weapon="shotgun")], [t]),
                 [attack("s", "t", "shotgun", [9, 10, 1], **({"option": option} if option else {}))])
        return only(rolls(b, "attack")), only(evs(b, "damage"))
    r, d = shot(("medium_armour",), "called:head")
    assert "- 3 called shot (head)" in r["pool"]
    assert (d["raw"], d["wound"], d.get("armour")) == (6, 6, None)
    _, d = shot(("medium_armour",), None)
    assert (d["wound"], d["armour"], d["absorbed"]) == (2, "medium_armour", 4)
    _, d = shot(("medium_armour", "helmet"), "called:head")
    assert (d["armour"], d["wound"]) == ("helmet", 2)                 # SP 4 of 6


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
    assert not any(a.kind == "move" for a in legal(b))   # an open map: no cover to get into


def test_a_pinned_figure_may_only_get_into_cover():
    """seed 004, Suppression: 'The suppressed targets must make a COOL + fearless leader roll to take
    any action other than getting into cover' (assumption suppression_check): a figure that failed
    may move only to a cell with cover against the figure suppressing it (or out of its sight), and
    may not stand up. Before, it could walk anywhere, out of cover and towards the gunner."""
    rows = ["." * 14, "." * 4 + "l" + "." * 9, "." * 14, "." * 14]   # light cover at (4, 1)
    t = fig("t", (5, 1), weapons=("light_pistol",), skills={"handgun": 4})
    s = scen(rows, [_gunner()], [t, fig("u", (13, 3))])
    b = play(s, [act("s", "suppress", target="t", weapon="smg"), end("s", [3])])
    assert only(rolls(b, "COOL under suppression"))["success"] is False
    g, gunner = b.state.grid, who(b, "s").pos
    moves = {g.xy(a.cell) for a in legal(b) if a.kind == "move"}
    assert moves and (2, 1) not in moves and (6, 1) not in moves
    assert all(g.cover(g.index(*xy), gunner) > 0 or not g.los(gunner, g.index(*xy)) for xy in moves)
    with pytest.raises(Exception, match="refused"):
        play(s, [act("s", "suppress", target="t", weapon="smg"), end("s", [3]), move("t", 2, 1, [2])])
    # one that keeps its cool moves as it likes
    s2 = scen(rows, [_gunner()], [fig("t", (5, 1), weapons=("light_pistol",), skills={"handgun": 4,
                                                                                       "fearless_leader": 5}),
                                  fig("u", (13, 3))])
    b = play(s2, [act("s", "suppress", target="t", weapon="smg"), end("s", [5])])
    assert (2, 1) in {b.state.grid.xy(a.cell) for a in legal(b) if a.kind == "move"}


def test_a_pinned_figure_stays_down():
    """seed 004, Suppression (assumption suppression_check): standing up is not getting into cover; a
    prone figure that failed its COOL check may not stand."""
    b = play(_suppressed(prone=True), [act("s", "suppress", target="t", weapon="smg"), end("s", [3])])
    assert "prone" in who(b, "t").conditions and not can(b, "stand")
    b = play(_suppressed(prone=True, skills={"fearless_leader": 5}),
             [act("s", "suppress", target="t", weapon="smg"), end("s", [5])])
    assert can(b, "stand")


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
    steps = [act("s", "suppress", target="t", weapon="smg"), end("s", [5]),   # keeps its cool: it may move
             move("t", 10, 1, [9, 1, 1])]          # 8 + 7 - 3 + 9 = 21 against 20 (12 m): hit, DC2 die 1
    b = play(_suppressed(skills={"fearless_leader": 5}), steps)
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
