"""Rule tests for the `cortex_hu` ruleset (seed 002, a Hungarian Cortex combat summary):
Kitérés/blokkolás (declared defences carry past the turn; reactions carry over), Ösztönös
kitérés (innate defence), Hárítás (parry) and Kitérés (dodge), Teljes Védekezés and Teljes
körű támadás, Csel (feint).

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 002, <rule>", "assumption <key>") and the geometry are in
tests/cortex_hu_setup.py; the other topics in tests/test_cortex_hu_*.py.
"""

from __future__ import annotations


from tests.cortex_hu_setup import (act, attack, econ, end, evs, fencer, fig, legal, open_map, play, rolls,
                                   scen, sides, who)


# ---------------------------------------------------------------------------------------
# seed 002, Kitérés/blokkolás: declared defences carry past the turn; reactions carry over

def test_a_dodge_taken_on_the_turn_answers_the_next_attack_after_the_turn():
    """seed 002: "A kitérés/blokkolás a következő támadás elől történő kitérést biztosítja ...
    még ha az a cselekvési köröd után következik is be"; Kitérés: Agility + Athletics/Dodge,
    a higher roll dodges; assumption prepared_defence."""
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d8"}, reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="dodge"), end("d"),
                 attack("f", "d", "sabre", [2, 4, 5, 5]),     # 6 against the dodge's 10: a miss
                 attack("f", "d", "sabre", [3, 4, 2, 2])])    # no dodge left: innate 2, a hit
    dodge = rolls(b, "dodge (prepared)", "d")
    assert len(dodge) == 1 and sides(dodge[0]) == [6, 8] and dodge[0]["steps"] == 0
    results = [e["result"] for e in evs(b, "attack", actor="f")]
    assert results == ["miss", "hit"]
    assert rolls(b, "innate defence", "d")[0]["total"] == 2


def test_defending_against_further_attackers_starts_the_next_round_lower():
    """seed 002: "Ha a köröd vége után még felbukkan egyéb támadó is, akkor az ő támadásukat is
    megpróbálhatod elhárítani, de akkor a következő kört már a megfelelő számú kockafokozat
    büntetéssel fogod kezdeni"; assumption reactions: a reaction is rolled at the next step
    of the ladder of its last turn, and each starts its next turn a step lower."""
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d8", "melee_weapons/swords": "d8"},
            weapons=("sabre",), life_points=40)
    s = scen(open_map(), [d], [fencer("f", (2, 1)), fencer("g", (0, 1))])
    steps = [act("d", "defend", option="dodge"), end("d"),
             attack("f", "d", "sabre", [2, 1, 4, 4]),          # against the prepared dodge (d6+d8)
             end("f"),
             attack("g", "d", "sabre", [2, 1, 4, 4]),          # a reaction: parry at -1
             attack("g", "d", "sabre", [2, 1, 3, 3]),          # a second reaction at -2
             end("g"),
             attack("d", "f", "sabre", [3, 4, 1])]             # its next turn starts 2 steps lower
    b = play(s, steps, start_dice=[])
    reacts = rolls(b, "parry (reaction)", "d")
    assert [r["steps"] for r in reacts] == [-1, -2]
    assert [sides(r) for r in reacts] == [[6, 6], [6, 4]]
    carried = evs(b, "effect", target="d", carried=2)
    assert carried, "the next turn carries the 2 reactions"
    atk = rolls(b, "attack with sabre", "d")[0]
    assert atk["steps"] == -2 and sides(atk) == [6, 4]


# ---------------------------------------------------------------------------------------
# seed 002, Ösztönös kitérés (innate defence)

def test_innate_defence_is_a_free_agility_roll_as_the_difficulty():
    """seed 002, Ösztönös kitérés: "Ha figyeled a támadó(ka)t tehetsz egy Fürgeség próbát,
    aminek az eredménye lesz a védő értéked ... Az ösztönös kitérés szabad cselekvésnek számít"."""
    t = fig("t", (1, 1), agi="d8", reactions="never", life_points=30)
    s = scen(open_map(), [fencer("f", (0, 1))], [t])
    b = play(s, [attack("f", "t", "sabre", [2, 4, 7]), end("f"), attack("t", "f", "unarmed", [8, 1])])
    assert sides(rolls(b, "innate defence", "t")[0]) == [8]
    assert evs(b, "attack", actor="f")[0]["result"] == "miss" and evs(b, "defence", actor="t")[0]["difficulty"] == 7
    assert rolls(b, "attack with unarmed", "t")[0]["steps"] == 0  # the innate roll was no action
    b = play(s, [attack("f", "t", "sabre", [2, 4, 6, 1])])
    assert evs(b, "attack", actor="f")[0]["result"] == "hit"   # 6 against an innate 6: a tie hits


def test_a_prone_figures_innate_defence_takes_minus_two_steps():
    """seed 002: "Miután elengedted, az ellenfél földön fekszik amíg talpra nem áll. (-2 kockafokozat
    büntetést kap addig)" (assumption prone_penalty: every prone figure, on its actions) and "Az
    ösztönös kitérés szabad cselekvésnek számít" (innate defence counts as a free action): lying on
    the ground, the figure's innate Agility d8 rolls d4, the step named; standing, d8."""
    a = fig("a", (0, 1), skills={"melee_weapons": "d6", "melee_weapons/swords": "d8"}, weapons=("sabre",))
    t = fig("t", (1, 1), agi="d8", decline_innate="never", reactions="never", life_points=40)
    s = scen(open_map(), [a], [t])
    b = play(s, [end("a"), act("t", "drop_prone"), end("t"), attack("a", "t", "sabre", [3, 3, 1, 1])])
    innate = rolls(b, "innate defence", "t")[0]
    assert "prone" in who(b, "t").conditions
    assert sides(innate) == [4] and innate["pool"] == "Agility d4"
    assert innate["modifiers"] == [{"source": "prone", "value": -2}]
    b = play(s, [end("a"), end("t"), attack("a", "t", "sabre", [3, 3, 1, 1])])
    assert sides(rolls(b, "innate defence", "t")[0]) == [8]


def test_innate_defence_not_watching_is_easy_three():
    """seed 002, Ösztönös kitérés: otherwise "Könnyű célpont vagy (célszám: 3)"; assumption
    innate_watching and surprise: a surprised figure does not watch its attacker."""
    t = fig("t", (1, 1), agi="d12", life_points=30)
    s = scen(open_map(), [fencer("f", (0, 1))], [t], settings={"surprised": ["t"]})
    b = play(s, [attack("f", "t", "sabre", [1, 2, 1])])
    d = evs(b, "defence", actor="t")[0]
    assert d["difficulty"] == 3 and d["mode"] == "innate, not watching"
    assert not rolls(b, "innate defence", "t")


def test_plot_points_may_be_added_to_innate_defence():
    """seed 002, Ösztönös kitérés: "Persze adhatsz bele Plot pontot is"; assumption
    innate_plot_points: the fewest points whose die could make up the difference."""
    t = fig("t", (1, 1), agi="d6", reactions="never", life_points=30, plot_points=3)
    s = scen(open_map(), [fencer("f", (0, 1))], [t])
    # attack 6 against innate 4: 3 short, so 2 points (d4) are spent; the d4 shows 4: Difficulty 8
    b = play(s, [attack("f", "t", "sabre", [2, 4, 4, 4])])
    pp = rolls(b, "spends 2 Plot Points", "t")
    assert pp and sides(pp[0]) == [4]
    assert who(b, "t").res["pp"] == 1 and evs(b, "attack", actor="f")[0]["result"] == "miss"
    # 9 short with 1 point left: a d2 cannot make it up, so none is spent
    b = play(s, [attack("f", "t", "sabre", [2, 4, 4, 4]), attack("f", "t", "sabre", [6, 6, 1, 3])])
    assert who(b, "t").res["pp"] == 1 and evs(b, "attack", actor="f")[1]["result"] == "hit"


# ---------------------------------------------------------------------------------------
# seed 002, Hárítás (parry) and Kitérés (dodge)

def test_parry_is_agility_plus_the_weapon_skill_and_an_action():
    """seed 002, Hárítás: "Fürgeség+ szükséges képzettség mint pl. közelharc; ha a te dobásod
    magasabb, sikerült hárítani ... A hárítás egy cselekvésnek számít"."""
    d = fig("d", (1, 1), agi="d8", skills={"melee_weapons": "d6", "melee_weapons/swords": "d10"},
            weapons=("sabre",), reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [attack("d", "f", "sabre", [1, 1]), act("d", "defend", option="parry"), end("d"),
                 attack("f", "d", "sabre", [4, 4, 5, 3, 1])])       # 8 against 5 + 3 = 8: a tie hits
    p = rolls(b, "parry (prepared)", "d")[0]
    assert p["steps"] == -1 and sides(p) == [8, 8]                 # the second action: d10 -> d8
    assert evs(b, "attack", actor="f")[0]["result"] == "hit"       # the parry must be higher
    b = play(s, [attack("d", "f", "sabre", [1, 1]), act("d", "defend", option="parry"), end("d"),
                 attack("f", "d", "sabre", [4, 4, 5, 4])])
    assert evs(b, "attack", actor="f")[0]["result"] == "miss"


def test_a_bare_handed_parry_against_a_weapon_still_takes_its_base_damage():
    """seed 002, Hárítás: "ha az ellenfél fegyverrel támad rád, és te fegyvertelen vagy, a
    fegyver alapsebzését akkor is megkapod" - the weapon's die, no margin."""
    d = fig("d", (1, 1), agi="d8", skills={"unarmed_combat": "d8"}, reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="parry"), end("d"), attack("f", "d", "sabre", [2, 2, 6, 6, 3])])
    assert evs(b, "attack", actor="f")[0]["result"] == "miss"
    dmg = evs(b, "damage", target="d")
    assert dmg == [dmg[0]] and (dmg[0]["stun"], dmg[0]["wound"]) == (0, 3)   # the sabre's d4 only


def test_firearms_and_energy_weapons_cannot_be_parried_but_dodged():
    """seed 002, Hárítás: "Lő és energiafegyvereket ne akarj hárítani. Arra a kitérés
    használható"; Kitérés/blokkolás: a defence declared on the turn answers the next attack
    "közelharcban/kézitusában" (assumptions prepared_defence, reactions): gunfire is dodged
    by reaction."""
    d = fig("d", (1, 1), agi="d6", skills={"melee_weapons/swords": "d8", "athletics/dodge": "d6"},
            weapons=("sabre",), reactions="never", life_points=30, decline_innate="always")
    shooter = fig("s", (6, 1), agi="d6", skills={"guns/energy_weapons": "d8", "guns/pistols": "d8"},
                  weapons=("laser_pistol", "pistol"))
    s = scen(open_map(), [d], [shooter])
    b = play(s, [act("d", "defend", option="parry"), act("d", "defend", option="dodge"), end("d"),
                 attack("s", "d", "laser_pistol", [4, 4, 2]), attack("s", "d", "pistol", [4, 4, 2])])
    assert not rolls(b, "parry", "d") and not rolls(b, "dodge", "d")   # Easy 3 both times
    assert [e["difficulty"] for e in evs(b, "defence", actor="d")] == [3, 3]
    assert [(p["mode"], p["steps"]) for p in who(b, "d").res["prepared"]] == [("parry", 0), ("dodge", -1)]
    d["reactions"] = "auto"
    b = play(scen(open_map(), [d], [shooter]), [end("d"), attack("s", "d", "laser_pistol", [1, 2, 5, 1])])
    dodge = rolls(b, "dodge (reaction)", "d")
    assert dodge and sides(dodge[0]) == [6, 6] and not rolls(b, "parry", "d")
    assert evs(b, "attack", actor="s")[0]["result"] == "miss"


# ---------------------------------------------------------------------------------------
# seed 002, Teljes Védekezés and Teljes körű támadás

def test_full_defence_gives_two_steps_to_defence_rolls_and_nothing_else():
    """seed 002, Teljes Védekezés: "Ha csak védekezel a körben, kapsz +2 kockafokozat bónuszt a
    dobásokra. (persze a több cselekvés miatti büntetéseket ugyanúgy megkap(hat)od)"."""
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d6"}, reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="full_defence"), act("d", "defend", option="dodge"),
                 act("d", "defend", option="dodge")])
    assert not [a for a in legal(b) if a.kind in ("attack", "grapple", "feint", "aim")]
    assert [p["steps"] for p in who(b, "d").res["prepared"]] == [2, 1]     # +2, with the ladder
    b = play(s, [act("d", "defend", option="full_defence"), act("d", "defend", option="dodge"), end("d"),
                 attack("f", "d", "sabre", [2, 2, 1, 1, 2])])
    assert sides(rolls(b, "dodge (prepared)", "d")[0]) == [6, 10]


def test_no_full_defence_or_all_out_attack_with_an_action_carried_over():
    """seed 002, Teljes Védekezés: "Ha viszont az előző körből "áthozol" valamilyen cselekvést -
    akár védekezést is, akkor nem használhatod a Teljes Védekezést"; Teljes körű támadás:
    "nem is hoztál át védekező cselekvést az előző körből"."""
    d = fig("d", (1, 1), agi="d6", skills={"melee_weapons/swords": "d8"}, weapons=("sabre",), life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [end("d"), attack("f", "d", "sabre", [1, 1, 4, 4]), end("f")])   # d reacts with a parry
    assert econ(b)["carried_over"] == 1
    opts = {a.option for a in legal(b)}
    assert "full_defence" not in opts and "all_out" not in opts
    b = play(s, [])
    opts = {a.option for a in legal(b)}
    assert "full_defence" in opts and "all_out" in opts


def test_all_out_attack_adds_two_steps_and_leaves_only_innate_defence():
    """seed 002, Teljes körű támadás: "Ebben a körben nem védekezel ... Viszont erre a körre
    kapsz +2 kockafokozat bónuszt a támadó dobásokra"."""
    f = fencer("f", (0, 1), skills={"melee_weapons/swords": "d8", "athletics/dodge": "d8"},
               reactions="auto", decline_innate="auto")
    s = scen(open_map(), [f], [fencer("g", (1, 1), life_points=30)])
    b = play(s, [attack("f", "g", "sabre", [1, 1], option="all_out"), attack("f", "g", "sabre", [1, 1])])
    atk = rolls(b, "attack with sabre", "f")
    assert [sides(r) for r in atk] == [[6, 12], [6, 10]]              # d8 +2; then -1 +2
    assert not [a for a in legal(b) if a.kind == "defend"]
    b = play(s, [attack("f", "g", "sabre", [1, 1], option="all_out"), end("f"),
                 attack("g", "f", "sabre", [4, 4, 3, 2])])             # no reaction: innate only
    d = evs(b, "defence", actor="f")
    assert d[-1]["mode"] == "innate only (all-out attack)" and not rolls(b, "parry", "f")


# ---------------------------------------------------------------------------------------
# seed 002, Csel (feint)

def test_a_won_feint_leaves_only_innate_defence_against_the_next_attack():
    """seed 002, Csel: "Dobj Éberség+Közelharc/kézitusa képzettségre; Ellenfél dob
    Intelligencia+Észlelés/Intuícióra; ha a támadóé magasabb ... a következő támadás ellen
    csak Ösztönös kitéréssel védekezhet"."""
    t = fig("t", (1, 1), agi="d6", int_="d6", skills={"perception": "d4", "perception/intuition": "d8",
                                                      "athletics/dodge": "d8"}, life_points=30, reactions="never")
    s = scen(open_map(), [fencer("f", (0, 1), ale="d8")], [t])
    pre = [end("f"), act("t", "defend", option="dodge"), end("t")]
    b = play(s, pre + [act("f", "feint", target="t", dice=[6, 6, 3, 3]),
                       attack("f", "t", "sabre", [3, 3, 2, 1])])
    fe = rolls(b, "feint", "f")[0]
    assert sides(fe) == [8, 8] and sides(rolls(b, "see through the feint", "t")[0]) == [6, 8]
    assert fe["success"] is True
    assert evs(b, "defence", actor="t")[0]["mode"] == "innate only (feinted)"
    assert rolls(b, "attack with sabre", "f")[0]["steps"] == -1       # the feint was an action
    assert [(p["mode"], p["steps"]) for p in who(b, "t").res["prepared"]] == [("dodge", 0)]  # the dodge is kept


def test_a_lost_or_tied_feint_changes_nothing():
    """seed 002, Csel: only a higher feint roll fools the target."""
    t = fig("t", (1, 1), agi="d6", skills={"perception/intuition": "d8", "athletics/dodge": "d8"},
            life_points=30, reactions="never")
    s = scen(open_map(), [fencer("f", (0, 1), ale="d8")], [t])
    b = play(s, [end("f"), act("t", "defend", option="dodge"), end("t"),
                 act("f", "feint", target="t", dice=[3, 3, 3, 3]), attack("f", "t", "sabre", [3, 3, 2, 5])])
    assert rolls(b, "feint", "f")[0]["success"] is False
    assert rolls(b, "dodge (prepared)", "t")
