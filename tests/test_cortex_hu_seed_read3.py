"""Rule tests for `cortex_hu` (seed 002) from the third reading of the seed (2026-12-07):
a prepared defence takes prone as the figure lies when it is rolled; a run's -2 lasts until
the figure's next turn (reactions and innate defence included); a defence declared in an
earlier round and used in a later one is brought over; full defence's +2 reaches innate
defence; thrown objects may be parried; a figure that holds another may be grabbed.

Strict forced-dice replays through `rules.replay.run_replay`. The helpers, the roll order, the
sources cited ("seed 002, <rule>", "assumption <key>") and the geometry are in
tests/cortex_hu_setup.py.
"""

from __future__ import annotations

from rules.actions import Action
from rules.dice import Step
from tests.cortex_hu_setup import (RS, act, attack, end, evs, fencer, fig, legal, move, open_map, play, rolls, scen,
                                   sides, who)


# ---------------------------------------------------------------------------------------
# a prepared defence and lying prone

def _dodger(**kw) -> dict:
    kw.setdefault("reactions", "never")
    return fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d8"}, life_points=30, **kw)


def test_a_prepared_dodge_takes_prone_as_the_figure_lies_when_it_is_rolled():
    """seed 002: "Miután elengedted, az ellenfél földön fekszik amíg talpra nem áll. (-2
    kockafokozat büntetést kap addig)" (assumption prone_penalty: every prone figure, on its
    actions): the -2 lasts while the figure lies on the ground, so a dodge declared standing
    and rolled prone takes it, and one declared prone and rolled standing does not
    (assumption prepared_defence)."""
    s = scen(open_map(), [_dodger()], [fencer("f", (2, 1))])
    # declared standing, then dropped prone (free): rolled prone, Athletics/Dodge d8 -> d4
    pre = [act("d", "defend", option="dodge"), act("d", "drop_prone"), end("d")]
    b = play(s, pre)
    assert who(b, "d").res["prepared"][0]["steps"] == 0
    sabre = RS.weapon_named(who(b, "f"), "sabre")
    assert RS.expected_defence(b.state, who(b, "f"), who(b, "d"), sabre, "") == ((6, 4), 0)  # the odds agree
    b = play(s, pre + [attack("f", "d", "sabre", [1, 1, 2, 2])])
    r = rolls(b, "dodge (prepared)", "d")[0]
    assert "prone" in who(b, "d").conditions
    assert sides(r) == [6, 4] and r["steps"] == -2 and r["modifiers"] == [{"source": "prone", "value": -2}]
    # declared prone (-2 then), stood up before the attack: rolled standing, d8, no prone
    b = play(s, [act("d", "drop_prone"), act("d", "defend", option="dodge"), act("d", "stand"), end("d"),
                 attack("f", "d", "sabre", [1, 1, 2, 2])])
    r = rolls(b, "dodge (prepared)", "d")[0]
    assert "prone" not in who(b, "d").conditions
    assert sides(r) == [6, 8] and r["steps"] == 0 and r["modifiers"] == []


# ---------------------------------------------------------------------------------------
# a run's -2 until the figure's next turn

def _runner(dodge: str, **kw) -> dict:
    kw.setdefault("decline_innate", "always")
    return fig("d", (0, 1), agi="d6", skills={"athletics/dodge": dodge, "athletics/running": "d6"},
               life_points=30, **kw)


#: d runs to (13, 1), 19.5 m, next to f: Agility d6 + Running d6 forced 6 + 6, 9 + 12 = 21 m
RUN = [move("d", 13, 1, [6, 6])]


def test_a_reaction_after_the_turn_of_a_run_takes_the_runs_minus_two():
    """seed 002: "A rohanás 9m+Fürgeség dobás+Atlétika/Futás dobás távolság megtételét biztosítja,
    de utána/mellette -2 kockafokozatos büntetést ad az utána következő cselekvésekre" (-2 steps
    on the actions that follow it): a dodge by reaction after the turn follows the run
    (assumption run), on top of the ladder of its last turn (the run was its one action)."""
    s = scen(open_map(30), [_runner("d12")], [fencer("f", (14, 1))])
    b = play(s, RUN + [end("d"), attack("f", "d", "sabre", [1, 1, 2, 2])])
    r = rolls(b, "dodge (reaction)", "d")[0]
    assert sides(r) == [6, 6] and r["steps"] == -3               # Athletics/Dodge d12 three steps down
    assert r["modifiers"] == [{"source": "actions of its last turn", "value": -1},
                              {"source": "running", "value": -2}]


def test_after_a_run_a_reaction_whose_die_would_fall_below_d2_cannot_be_tried():
    """seed 002: "Ha a kockadobás 1d2 alá csökkenne, akkor azt a cselekvést már nem próbálhatod
    meg" with the run's "-2 kockafokozatos büntetést ad az utána következő cselekvésekre":
    Athletics/Dodge d6 at -1 (the run) -2 (running) is below d2, so no dodge, and bare hands
    (Agility d6, unskilled) cannot parry either; the attack meets innate defence, Agility
    d6 -2 = d2 (innate defence is a free action: assumption run). The penalty ends when the
    figure's next turn starts."""
    s = scen(open_map(30), [_runner("d6", decline_innate="never")], [fencer("f", (14, 1))])
    b = play(s, RUN + [end("d")])
    d, f = who(b, "d"), who(b, "f")
    sabre = RS.weapon_named(f, "sabre")
    assert RS.reaction_options(b.state, d, f, sabre, "") is None
    b = play(s, RUN + [end("d"), attack("f", "d", "sabre", [1, 1, 2])])
    assert rolls(b, "dodge", "d") == [] and rolls(b, "parry", "d") == []
    r = rolls(b, "innate defence", "d")[0]
    assert sides(r) == [2] and r["modifiers"] == [{"source": "running", "value": -2}]
    # the next turn starts: the run's penalty is over (innate Agility d6 again)
    b = play(s, RUN + [end("d"), end("f")])
    assert b.state.actor.id == "d" and who(b, "d").res["ran"] is False
    assert RS.innate_die(who(b, "d")) == Step(3)


def test_innate_defence_takes_the_runs_minus_two_on_the_figures_own_turn_too():
    """seed 002: the run's "-2 kockafokozatos büntetést ad az utána következő cselekvésekre" and
    "Az ösztönös kitérés szabad cselekvésnek számít" (innate defence counts as a free action):
    after the run, on its own turn, its innate Agility die is two steps down (d6 -> d2), as
    the odds of an attack on it price it; with prone's -2 as well a d8 stays at d2, the lowest die
    (innate defence is always rolled: assumption run)."""
    s = scen(open_map(30), [_runner("d6", decline_innate="never", reactions="never")], [fencer("f", (14, 1))])
    b = play(s, RUN)
    d, f = who(b, "d"), who(b, "f")
    assert b.state.actor is d and RS.innate_die(d) == Step(1)
    assert RS.expected_defence(b.state, f, d, RS.weapon_named(f, "sabre"), "") == ((2,), 0)
    s = scen(open_map(30), [fig("d", (0, 1), agi="d8", skills={"athletics/running": "d6"}, life_points=30,
                                decline_innate="never", reactions="never")], [fencer("f", (14, 1))])
    b = play(s, [move("d", 13, 1, [6, 6]), act("d", "drop_prone"), end("d"), attack("f", "d", "sabre", [1, 1, 2])])
    r = rolls(b, "innate defence", "d")[0]
    assert sides(r) == [2] and r["modifiers"] == [{"source": "prone", "value": -2}, {"source": "running", "value": -2}]


# ---------------------------------------------------------------------------------------
# a defence brought over from the previous round

def test_a_defence_declared_last_round_and_used_this_round_is_brought_over():
    """seed 002, Teljes Védekezés: "Ha viszont az előző körből "áthozol" valamilyen cselekvést -
    akár védekezést is, akkor nem használhatod a Teljes Védekezést"; Teljes körű támadás: "...
    és nem is hoztál át védekező cselekvést az előző körből": d's dodge declared in round 1
    answers f's attack in round 2 (f acts first then), so d's round-2 turn may neither
    declare full defence nor attack all-out. A dodge used in the round it was declared is
    not brought over."""
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d8", "melee_weapons/swords": "d8"},
            weapons=("sabre",), reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))], initiative="roll")
    # round 1: d (6+6) then f (1+1); f's end rolls round 2's order: d 1+1, f 6+6 -> f first
    b = play(s, [act("d", "defend", option="dodge"), end("d"), end("f", [1, 1, 6, 6]),
                 attack("f", "d", "sabre", [1, 1, 2, 2]), end("f")], start_dice=[6, 6, 1, 1])
    assert b.state.round == 2 and b.state.actor.id == "d"
    assert len(rolls(b, "dodge (prepared)", "d")) == 1
    L = legal(b)
    assert Action("defend", option="full_defence") not in L
    assert not any(x.kind == "attack" and x.option == "all_out" for x in L)
    assert b.state.economy["carried"] is True and evs(b, "effect", target="d", carried_defence=True)
    # declared and used in round 1 (d before f every round): nothing is brought over
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="dodge"), end("d"), attack("f", "d", "sabre", [1, 1, 2, 2]), end("f")])
    assert b.state.round == 2 and b.state.actor.id == "d" and b.state.economy["carried"] is False
    assert Action("defend", option="full_defence") in legal(b)


# ---------------------------------------------------------------------------------------
# full defence and innate defence

def test_full_defence_steps_innate_defence_up_two():
    """seed 002, Teljes Védekezés: "Ha csak védekezel a körben, kapsz +2 kockafokozat bónuszt a
    dobásokra" (+2 steps on the rolls): innate defence is a roll too (assumption full_defence),
    Agility d6 -> d10, as the odds price it."""
    d = fig("d", (1, 1), agi="d6", reactions="never", life_points=30, decline_innate="never")
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="full_defence"), end("d")])
    f = who(b, "f")
    assert RS.expected_defence(b.state, f, who(b, "d"), RS.weapon_named(f, "sabre"), "") == ((10,), 0)
    b = play(s, [act("d", "defend", option="full_defence"), end("d"), attack("f", "d", "sabre", [1, 1, 9])])
    r = rolls(b, "innate defence", "d")[0]
    assert sides(r) == [10] and r["total"] == 9 and r["modifiers"] == [{"source": "full defence", "value": 2}]
    assert evs(b, "attack", actor="f")[0]["result"] == "miss"


# ---------------------------------------------------------------------------------------
# parrying thrown objects

def test_thrown_objects_may_be_parried_by_reaction_firearms_not():
    """seed 002, Hárítás: "Lő és energiafegyvereket ne akarj hárítani. Arra a kitérés
    használható." Only firearms and energy weapons are out: a thrown knife and a thrown club
    (an improvised throw) may be parried by reaction (assumption parry); a prepared parry
    still answers hand-to-hand attacks only ("közelharcban/kézitusában": assumption
    prepared_defence)."""
    k = fig("k", (0, 1), agi="d10", skills={"athletics/throwing": "d10"},
            weapons=("throwing_knives", "club", "pistol"))
    d = fig("d", (1, 1), agi="d8", skills={"melee_weapons/swords": "d12"}, weapons=("sabre",), life_points=30)
    s = scen(open_map(), [k], [d])
    b = play(s)
    st, kk, dd = b.state, who(b, "k"), who(b, "d")
    for wname, opt in (("throwing_knives", ""), ("club", "throw")):
        ro = RS.reaction_options(st, dd, kk, RS.weapon_named(kk, wname), opt)
        assert sorted(ro[1]) == ["dodge", "parry"] and ro[2] == "parry", wname
    assert sorted(RS.reaction_options(st, dd, kk, RS.weapon_named(kk, "pistol"), "")[1]) == ["dodge"]
    # the thrown knife is parried with the sabre: Agility d8 + Swords d12, 5 + 5 against 2
    b = play(s, [attack("k", "d", "throwing_knives", [1, 1, 5, 5])])
    r = rolls(b, "parry (reaction)", "d")[0]
    assert sides(r) == [8, 12] and evs(b, "attack", actor="k")[0]["result"] == "miss"
    dd = who(b, "d")
    dd.res["prepared"] = [{"mode": "parry", "steps": 0, "round": 1}]
    assert RS.prepared_for(dd, RS.weapon_named(kk, "throwing_knives"), "") is None
    assert RS.prepared_for(dd, RS.weapon_named(kk, "club"), "throw") is None


# ---------------------------------------------------------------------------------------
# grabbing a figure that holds another

def _wrestler(id: str, at: tuple[int, int]) -> dict:
    return fig(id, at, agi="d8", skills={"unarmed_combat/grappling": "d8"}, life_points=30,
               reactions="never", decline_innate="always")


def test_a_figure_holding_another_may_be_grabbed_and_keeps_its_hold():
    """seed 002, Megragadás/leszorítás: "Dobj Fürgeség+Kézitusa/specializáció képzettségre ezzel
    meg is ragadtad a célpontot" - no limit on the target: b2 grabs a, who holds b1; a keeps
    its hold, and breaking free of b2 (Agility + Strength) leaves it. A figure holds one
    figure at a time (assumption one_hold): a, holding b1, cannot grab b2."""
    s = scen(open_map(), [_wrestler("a", (1, 1))], [_wrestler("b1", (2, 1)), _wrestler("b2", (1, 0))])
    b = play(s, [act("a", "grapple", target="b1", dice=[8, 8])])
    assert who(b, "a").res["grappling"] == "b1"
    assert Action("grapple", target="b2") not in legal(b)                     # assumption one_hold
    steps = [act("a", "grapple", target="b1", dice=[8, 8]), end("a"), end("b1")]
    b = play(s, steps)
    assert b.state.actor.id == "b2" and Action("grapple", target="a") in legal(b)
    steps += [act("b2", "grapple", target="a", dice=[2, 2]), end("b2")]      # 4 against Easy 3: held
    b = play(s, steps)
    a = who(b, "a")
    assert a.res["grappled_by"] == "b2" and a.res["grappling"] == "b1" and who(b, "b1").res["grappled_by"] == "a"
    assert {"grappled", "grappling"} <= a.conditions
    assert b.state.actor.id == "a" and Action("grapple", target="b2", option="escape") in legal(b)
    b = play(s, steps + [act("a", "grapple", target="b2", option="escape", dice=[4, 4])])   # 8 against grip 4
    a = who(b, "a")
    assert a.res["grappled_by"] is None and who(b, "b2").res["grappling"] is None
    assert a.res["grappling"] == "b1" and who(b, "b1").res["grappled_by"] == "a" and "grappling" in a.conditions


# ---------------------------------------------------------------------------------------
# the GM's overrides: a figure lifted back to its feet on a cell another figure stands on

def test_a_save_written_before_the_new_resources_still_loads():
    """A state file from before this reading has no `ran` or `carried_defence` in a figure's
    resources (and no `round` in a prepared defence): it loads, with their start values, and
    the fight goes on (rules/serialize.py fills resources newer than the file)."""
    import json

    from rules.serialize import battle_from_dict, dumps_state
    s = scen(open_map(), [_dodger()], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="dodge"), end("d")])
    d = json.loads(dumps_state(b, s))
    for cd in d["combatants"].values():
        del cd["res"]["ran"], cd["res"]["carried_defence"]
        for p in cd["res"]["prepared"]:
            p.pop("round", None)
    b2 = battle_from_dict(d, "old.json")
    assert who(b2, "d").res["ran"] is False and who(b2, "d").res["carried_defence"] is False
    assert b2.legal_actions()
