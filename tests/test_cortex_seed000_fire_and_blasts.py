"""Forced-dice tests for the seed 000 special rules of the `cortex` ruleset:
burst and autofire (with Trigger Happy), Cover and Explosions, Getting out of Harm's Way.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 000, <heading>", "RULES-NOTES", "assumption <key>") and the geometry are
in tests/cortex_seed000_setup.py; the other topics in tests/test_cortex_seed000_*.py.
"""

from __future__ import annotations

import pytest

from tests.cortex_seed000_setup import (act, atk, attacks_in, brawler, cell, dummy, economy, end, evs, fig,
                                        only, open_map, play, play_loose, pos, rolls, scen, sides, who)


# ---------------------------------------------------------------------------------------
# Burst and autofire (assumption fire_modes) and Trigger Happy

def _gunner(traits: tuple = (), weapons: tuple = ("smg", "pistol")) -> dict:
    p = fig("p", (0, 1), agi="d8", skills={"guns": "d6", "guns/submachine_guns": "d8", "guns/pistols": "d8"},
            weapons=weapons, traits=list(traits))
    return scen(open_map(), [p], [dummy("t", (5, 1))])


def test_burst_three_rounds_plus_one_step_attack_and_damage():
    """assumption fire_modes (seed 000 names bursts, p. 154): a burst uses 3 rounds, +1
    step on the attack (skill die d8 -> d10) and +1 step on the damage die (d6 -> d8)."""
    b = play(_gunner(), [atk("p", "t", "smg", "burst", [2, 3, 7])])
    assert sides(only(rolls(b, "attack"))) == [8, 10]
    assert sides(only(rolls(b, "damage"))) == [8]
    assert who(b, "p").res["ammo"]["smg"] == 27
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (1, 1 + 7)   # Basic 2 + d8 W
    assert economy(b)["actions_used"] == 1


def test_autofire_ten_rounds_plus_two_steps_uses_the_whole_rate_of_fire():
    """assumption fire_modes: autofire uses 10 rounds, +2 steps attack (d8 -> d12) and
    damage (d6 -> d10), and the weapon's whole rate of fire: no more shots with it this
    turn (other weapons still may)."""
    b = play(_gunner(), [atk("p", "t", "smg", "autofire", [2, 3, 9])])
    assert sides(only(rolls(b, "attack"))) == [8, 12]
    assert sides(only(rolls(b, "damage"))) == [10]
    assert who(b, "p").res["ammo"]["smg"] == 20
    assert not [a for a in attacks_in(b) if a.weapon == "smg"]
    assert [a for a in attacks_in(b) if a.weapon == "pistol"]


def test_autofire_needs_no_earlier_shot_this_turn():
    """assumption fire_modes: autofire takes the whole rate of fire, so not after a shot
    with the same weapon this turn (a burst still may follow)."""
    b = play(_gunner(), [atk("p", "t", "smg", dice=[1, 1])])
    opts = {a.option for a in attacks_in(b) if a.weapon == "smg"}
    assert "autofire" not in opts and "burst" in opts and None in opts
    assert "autofire" in {a.option for a in attacks_in(play(_gunner(), [])) if a.weapon == "smg"}


def test_autofire_needs_ten_rounds():
    """assumption fire_modes: autofire needs its 10 rounds in the magazine."""
    steps = []
    for r in range(3):
        steps += [atk("p", "t", "smg", "autofire", [1, 1]), end("p"), end("t")]
    b = play(_gunner(), steps[:-2])
    assert who(b, "p").res["ammo"]["smg"] == 0
    b = play(_gunner(), steps[:3] + [atk("p", "t", "smg", "burst", [1, 1]), end("p"), end("t")]
             + [atk("p", "t", "smg", "burst", [1, 1])])   # 30 - 10 - 3 - 3 = 14 left
    assert who(b, "p").res["ammo"]["smg"] == 14
    b = play(_gunner(), steps[:3] + [atk("p", "t", "smg", "autofire", [1, 1]), end("p"), end("t"),
                                     atk("p", "t", "smg", "burst", [1, 1]), end("p"), end("t")])
    assert who(b, "p").res["ammo"]["smg"] == 7
    assert "autofire" not in {a.option for a in attacks_in(b) if a.weapon == "smg"}
    assert "burst" in {a.option for a in attacks_in(b) if a.weapon == "smg"}


@pytest.mark.parametrize("mode,rounds", [("burst", 5), ("autofire", 15)])
def test_trigger_happy_burst_and_autofire_use_half_again(mode, rounds):
    """seed 000, Trigger Happy: half again (rounded up) more bullets for a burst or
    autofire (assumption trigger_happy: 3 -> 5, 10 -> 15), with no extra benefit."""
    b = play(_gunner(("trigger_happy",)), [atk("p", "t", "smg", mode, [1, 1])])
    assert who(b, "p").res["ammo"]["smg"] == 30 - rounds
    plain = play(_gunner(("trigger_happy",)), [atk("p", "t", "smg", mode, [4, 5, 3])])
    normal = play(_gunner(), [atk("p", "t", "smg", mode, [4, 5, 3])])
    assert sides(only(rolls(plain, "attack"))) == sides(only(rolls(normal, "attack")))
    assert who(plain, "t").res["wound"] == who(normal, "t").res["wound"]


def test_trigger_happy_second_single_shot_wastes_a_round():
    """seed 000, Trigger Happy: more than one single-shot attack in a turn wastes an extra
    bullet (assumption trigger_happy: each shot after the first uses 2 rounds); a figure
    without the trait uses 1 a shot."""
    shots = [atk("p", "t", "pistol", dice=[1, 1]) for _ in range(3)]
    b = play(_gunner(("trigger_happy",)), shots[:1])
    assert who(b, "p").res["ammo"]["pistol"] == 14
    b = play(_gunner(("trigger_happy",)), shots)
    assert who(b, "p").res["ammo"]["pistol"] == 15 - 1 - 2 - 2
    b = play(_gunner(), shots)
    assert who(b, "p").res["ammo"]["pistol"] == 12
    # next turn the first shot is a single round again
    b = play(_gunner(("trigger_happy",)), shots[:2] + [end("p"), end("t")] + shots[:1])
    assert who(b, "p").res["ammo"]["pistol"] == 15 - 3 - 1


# ---------------------------------------------------------------------------------------
# Cover and Explosions (assumptions grenades, blast_cover, cover_destruction)

def _thrower(at=(0, 2), **kw) -> dict:
    return fig("g", at, agi="d8", skills={"athletics": "d6", "athletics/throwing": "d8"},
               weapons=("frag_grenade",), **kw)


def _blast_rolls(b) -> dict[str, list[int]]:
    return {r["actor"]: sides(r) for r in rolls(b, "blast damage")}


def test_grenade_throw_at_average_hits_the_spot_full_blast_on_failed_harms_way():
    """assumption grenades: a frag grenade is thrown with Agility + Athletics/Throwing at
    Average (7) for the target's spot, whatever its defence; the blast is 4d6 Wound within
    10 ft. seed 000, Getting out of Harm's Way: a failed roll takes the full blast."""
    s = scen(open_map(12, 5), [_thrower()], [fig("t", (5, 2), agi="d12", life_points=99)])
    # throw 4 + 3 = 7: on the spot. t: harm's way 1 + 2 = 3 < 7; blast 1 + 2 + 3 + 4 = 10 Wound
    b = play(s, [atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2, 1, 2, 3, 4])])
    throw = only(rolls(b, "throw"))
    assert throw["difficulty"] == 7 and throw["pool"] == "Agility d8 + Athletics/Throwing d8"
    assert only(evs(b, "attack"))["lands"] == [5, 2]
    assert not rolls(b, "innate defence")
    assert _blast_rolls(b) == {"t": [6, 6, 6, 6]}
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (0, 10)
    assert pos(b, "t") == (5, 2) and "prone" not in who(b, "t").conditions
    assert who(b, "g").res["uses"]["frag_grenade"] == 1
    # one point short (6): it lands 5 ft off in the d8 direction (3 = east)
    b = play(s, [atk("g", "t", "frag_grenade", dice=[3, 3, 3, 1, 2, 1, 2, 3, 4])])
    assert only(rolls(b, "scatter direction"))["dice"] == [[8, 3]]
    assert only(evs(b, "attack"))["lands"] == [6, 2]


@pytest.mark.parametrize("throw,direction,lands", [
    ([3, 3], 1, (5, 1)),     # short by 1: 5 ft north
    ([2, 1], 5, (5, 3)),     # short by 4: 5 ft south
    ([1, 1], 7, (3, 2)),     # a botch: at least 4 short, here 5: 10 ft west
    ([3, 3], 6, (4, 3)),     # south-west
])
def test_grenade_scatter_on_a_miss(throw, direction, lands):
    """assumption grenades: a miss lands 5 ft off per 4 points short (at least 5 ft), in a
    d8 direction (1 = north, clockwise)."""
    s = scen(open_map(12, 5), [_thrower()], [dummy("t", (5, 2)), dummy("far", (11, 0))])
    b = play(s, [atk("g", "t", "frag_grenade", dice=throw + [direction, 1, 2, 1, 1, 1, 1])])
    assert tuple(only(evs(b, "attack"))["lands"]) == lands
    assert only(evs(b, "attack"))["result"] == "miss"


@pytest.mark.parametrize("ch,n_dice,destroyed", [
    ("l", 3, True),     # light: 1 die off; sturdiness 1 < 4 dice: destroyed
    ("m", 2, True),     # medium: 2 dice off; sturdiness 2 < 4
    ("h", 1, False),    # heavy: 3 dice off; sturdiness 4 is not exceeded
    ("T", 0, False),    # total: never destroyed
])
def test_blast_dice_reduced_by_cover_and_cover_destroyed(ch, n_dice, destroyed):
    """seed 000, Cover and Explosions: 1 die of damage is removed per degree of cover
    against the blast (assumption blast_cover); assumption cover_destruction: a sheltering
    cover object is destroyed when the blast's dice exceed its sturdiness and becomes
    difficult ground (',' in state.grid). Map with 1 m cells: the blast reaches 3 cells."""
    rows = ["..........", "..........", "......" + ch + "...", "..........", ".........."]
    s = scen(rows, [_thrower()], [dummy("t", (4, 2)), dummy("v", (7, 2))], cell_m=1.0)
    dice = [4, 3, 1, 2, 1, 1, 1, 1, 1, 2] + [1] * n_dice
    b = play(s, [atk("g", "t", "frag_grenade", dice=dice)])
    assert _blast_rolls(b) == {"t": [6] * 4, "v": [6] * n_dice}
    assert who(b, "v").res["wound"] == n_dice
    assert (b.state.grid.rows[2][6] == ",") == destroyed
    if destroyed:
        assert b.state.grid.terrain[cell(b, 6, 2)].difficult
        assert b.state.grid.cover_level[cell(b, 6, 2)] == 0


def test_blast_cover_counts_on_the_default_map():
    """seed 000, Cover and Explosions: 'If a character caught by an explosion is behind
    solid cover, 1 die of damage is removed for each degree of cover' - also on the usual
    1.5 m map, where the blast (10 ft) reaches 2 cells and any cover between a figure and
    the blast centre is next to the centre."""
    rows = ["............", "............", "......l.....", "............", "............"]
    s = scen(rows, [_thrower()], [dummy("t", (5, 2)), dummy("v", (7, 2))])
    # throw 7; t fails harm's way, 4d6; v fails harm's way, light cover: 3d6 (forced loosely,
    # so a wrong number of dice fails the assertion, not the dice script)
    b = play_loose(s, [atk("g", "t", "frag_grenade")], [4, 3, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1])
    assert _blast_rolls(b) == {"t": [6] * 4, "v": [6] * 3}
    assert b.state.grid.rows[2][6] == ","


@pytest.mark.parametrize("at,n_dice", [((3, 2), 2), ((4, 2), 4)])
def test_prone_face_down_removes_two_dice_unless_right_by_the_blast(at, n_dice):
    """seed 000, Cover and Explosions: lying face-down prone removes 2 dice of damage,
    unless you are right by the blast source (within 5 ft: explosives.prone_no_help_within_ft)."""
    s = scen(open_map(12, 5), [fig("w", at, life_points=99), _thrower((0, 0))], [dummy("t", (5, 2))])
    b = play(s, [act("w", "drop_prone"), end("w"),
                 atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2] + [1] * n_dice + [1, 2, 1, 1, 1, 1])])
    assert _blast_rolls(b)["w"] == [6] * n_dice
    assert only(rolls(b, "blast damage", "w"))["prone"] is True


def test_grenades_one_a_turn_two_in_all_and_never_a_called_shot():
    """assumption grenades / data.yaml frag_grenade: one throw a turn (rate of fire 1), two
    grenades carried; seed 000, Called Shots: only determined single attacks are called
    shots - no called throw."""
    s = scen(["." * 12] * 5, [_thrower()], [dummy("t", (5, 2)), dummy("far", (11, 0))])
    throw = atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2, 1, 1, 1, 1])
    assert not [a for a in attacks_in(play(s)) if (a.option or "").startswith("called:")]
    b = play(s, [throw])
    assert not [a for a in attacks_in(b) if a.weapon == "frag_grenade"]
    b = play(s, [throw, end("g"), end("t"), end("far"), throw])
    assert who(b, "g").res["uses"]["frag_grenade"] == 0
    b = play(s, [throw, end("g"), end("t"), end("far"), throw, end("g"), end("t"), end("far")])
    assert b.state.actor.id == "g" and not [a for a in attacks_in(b) if a.weapon == "frag_grenade"]


# ---------------------------------------------------------------------------------------
# Getting out of Harm's Way (assumptions harms_way_reaction, harms_way_prone)

def _corridor(t_x: int = 5, traits: tuple = (), **kw) -> dict:
    """A one-row corridor: the thrower at x=0, the target at t_x."""
    return scen(["." * 12], [_thrower((0, 0))],
                [fig("t", (t_x, 0), life_points=99, traits=list(traits), **kw), dummy("far", (11, 0))])


def test_harms_way_success_leaps_five_feet_still_by_the_blast():
    """seed 000, Getting out of Harm's Way: Agility + Alertness at Average (7); on a success
    the figure moves 5 ft away - here still right by the blast (within 5 ft), so it does not
    dive (assumption harms_way_prone) and takes the blast."""
    b = play(_corridor(), [atk("g", "t", "frag_grenade", dice=[4, 3, 4, 3, 1, 1, 1, 1])])
    hw = only(rolls(b, "get out of harm's way"))
    assert hw["pool"] == "Agility d6 + Alertness d6" and hw["difficulty"] == 7 and hw["success"]
    assert pos(b, "t") == (4, 0)
    assert only(evs(b, "move", actor="t"))["mode"] == "leap"
    assert "prone" not in who(b, "t").conditions
    assert _blast_rolls(b) == {"t": [6] * 4}


def test_harms_way_extraordinary_leaps_ten_feet_and_dives_prone():
    """seed 000, Getting out of Harm's Way: 10 ft on an extraordinary success (7 over);
    still in the blast and not right by it, the figure falls prone: 2 dice fewer."""
    s = _corridor(agi="d8", ale="d8")
    b = play(s, [atk("g", "t", "frag_grenade", dice=[4, 3, 8, 6, 1, 1])])     # 14 = 7 + 7
    assert pos(b, "t") == (3, 0)
    assert "prone" in who(b, "t").conditions
    assert _blast_rolls(b) == {"t": [6, 6]}


def test_harms_way_success_out_of_the_blast_takes_nothing():
    """seed 000, Getting out of Harm's Way: a figure at the blast's edge (10 ft) leaps 5 ft
    clear and takes no damage."""
    s = scen(["." * 12], [_thrower((0, 0))], [dummy("t", (5, 0)), fig("v", (7, 0), life_points=99)])
    # on the spot; t fails (4d6); v makes it (4 + 3) and lands 15 ft from the centre
    b = play(s, [atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2, 1, 1, 1, 1, 4, 3])])
    assert pos(b, "v") == (8, 0)
    assert _blast_rolls(b) == {"t": [6] * 4} and who(b, "v").res["wound"] == 0
    assert "prone" not in who(b, "v").conditions


def test_harms_way_costs_the_next_turns_first_action():
    """seed 000, Getting out of Harm's Way: it costs 1 action, like dodging (assumption
    harms_way_reaction: taken from the figure's next turn) - made or failed."""
    for hw in ([4, 3], [1, 2]):
        dice = [4, 3] + hw + [1] * (4 if hw == [1, 2] else 4)
        b = play(_corridor(), [atk("g", "t", "frag_grenade", dice=dice)])
        assert who(b, "t").res["reaction_debt"] == 1
        b = play(_corridor(), [atk("g", "t", "frag_grenade", dice=dice), end("g")])
        assert b.state.actor.id == "t"
        assert economy(b)["actions_used"] == 1 and who(b, "t").res["reaction_debt"] == 0


def test_incapacitated_figure_cannot_get_out_of_harms_way():
    """seed 000, Called Shots, Kneecap: incapacitated 'can take no actions' - so no leap
    out of harm's way (assumption harms_way_reaction: only a figure able to act)."""
    p = fig("p", (0, 0), agi="d12", skills={"guns": "d6"}, weapons=("pistol",))
    s = scen(open_map(12, 5), [p, _thrower((0, 4))], [dummy("t", (6, 2)), dummy("u", (8, 2))])
    # kneecap with a pistol: 12 + 3 = 15 vs 3 + 12; d6 Wound 1; Endurance 1 + 2 fails
    # the grenade lands on u, 10 ft from t: t (prone) rolls no harm's way; u fails its roll
    b = play(s, [atk("p", "t", "pistol", "called:kneecap", [12, 3, 1, 1, 2]), end("p"),
                 atk("g", "u", "frag_grenade", dice=[4, 3, 1, 1, 1, 2, 1, 1, 1, 1])])
    assert "incapacitated" in who(b, "t").conditions
    assert [r["actor"] for r in rolls(b, "get out of harm's way")] == ["u"]
    assert _blast_rolls(b) == {"t": [6] * 2, "u": [6] * 4}


def test_harms_way_action_still_owed_after_waking_from_a_knockout():
    """seed 000, Getting out of Harm's Way costs 1 action (assumption harms_way_reaction:
    taken from the figure's next turn); seed 000, Called Shots: the recovery roll costs no
    action. A figure that leapt, was then knocked out by a punch to the head and wakes at
    its turn still owes the action: its turn starts with one action used."""
    s = scen(open_map(12, 5), [_thrower((0, 0)), brawler("p", (8, 2))],
             [dummy("t", (7, 2)), dummy("u", (5, 2))])
    # the grenade lands on u; u and t (10 ft off) both fail harm's way (4d6 each)
    b = play(s, [atk("g", "u", "frag_grenade", dice=[4, 3, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1]), end("g"),
                 atk("p", "t", "unarmed", "called:head", [6, 5, 3]), end("p", [6, 5])])
    assert only(rolls(b, "Endurance to recover", "t"))["success"]
    assert b.state.actor.id == "t"
    assert economy(b)["actions_used"] == 1


@pytest.mark.parametrize("traits,pool", [
    ((), "Agility d6 + Alertness d6"),
    (("clumsy",), "Agility d2 + Alertness d6"),
    (("slow_reflexes",), "Agility d6 + Alertness d4"),
    (("clumsy", "slow_reflexes"), "Agility d2 + Alertness d4"),
])
def test_harms_way_clumsy_and_slow_reflexes(traits, pool):
    """seed 000, Clumsy: -2 steps to Agility or Alertness, applied to Get Out of Harm's Way;
    Slow Reflexes: -1 step to Alertness on rolls to Get Out of Harm's Way."""
    b = play(_corridor(traits=traits), [atk("g", "t", "frag_grenade", dice=[4, 3, 1, 2, 1, 1, 1, 1])])
    assert only(rolls(b, "get out of harm's way"))["pool"] == pool


def test_trigger_happy_wastes_only_what_the_magazine_holds():
    """seed 000, Trigger Happy: "When making more than one attack with your gun (single shot) in a
    turn, you waste an extra bullet. You gain no benefits or additional rolls for these wasted
    bullets" (assumption trigger_happy): waste, not a price. With one round left after the first
    shot, the second shot is still made (it was refused); a burst with 3 of its 5 rounds fires."""
    s = _gunner(("trigger_happy",))
    s["teams"][0]["combatants"][0]["state"] = {"ammo": {"pistol": 2, "smg": 3}}
    b = play(s, [atk("p", "t", "pistol", dice=[1, 1])])
    assert who(b, "p").res["ammo"]["pistol"] == 1
    assert any(a.weapon == "pistol" and not a.option for a in attacks_in(b))
    b = play(s, [atk("p", "t", "pistol", dice=[1, 1]), atk("p", "t", "pistol", dice=[1, 1])])
    assert who(b, "p").res["ammo"]["pistol"] == 0 and len(rolls(b, "attack")) == 2
    b = play(s, [atk("p", "t", "smg", "burst", [1, 1])])
    assert who(b, "p").res["ammo"]["smg"] == 0
