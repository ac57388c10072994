"""NPC behaviour a GM sets per team or figure (issue #33: "spare downed PCs or finish them,
fall back or surrender when losing (a morale setting), protect a leader, hold a position.
The scripted policies honour them").

- built positions where each setting changes the choice as its words say (cortex and
  metalface; spare and finish in cybergeneration, whose rules let a figure attack a downed
  one, seed 004: "You may attack an unconscious/stunned target"; metalface allows it only
  for a down figure with Status left, assumption `down_targets`);
- seeded whole fights of all four rulesets with each setting, checking its invariant at
  every decision of the team that has it;
- a default behaviour plays the very same fight as no behaviour (event for event);
- bad settings get a clear error that names the field.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.base import available_policies, make_policy
from agents.behaved import BehavedPolicy, hostile, morale_broken
from agents.behaviour import PROTECT_CELLS, Behaviour, BehaviourBook, BehaviourError
from rules.dice import Dice
from rules.events import dumps
from rules.scenario import load_scenario, new_battle

RULESETS = ("cortex", "cortex_hu", "metalface", "cybergeneration")


# -- built positions ------------------------------------------------------------------------
def fig(ruleset: str, id: str, at: tuple[int, int], **kw: Any) -> dict:
    """A figure with a gun: cortex's bestiary gunslinger, a metalface pistol shooter, a
    cybergeneration kid with a light pistol."""
    if ruleset == "cortex":
        d: dict = {"id": id, "at": list(at), "name": id, "template": "gunslinger"}
    elif ruleset == "metalface":
        d = {"id": id, "at": list(at), "name": id, "kind": "human",
             "values": {"str": 3, "agl": 3, "end": 2, "per": 3, "int": 2, "wil": 2},
             "skills": {"firearms": 1}, "weapons": ["pistol"]}
    else:
        d = {"id": id, "at": list(at), "name": id, "kind": "kid", "types": [],
             "stats": {"int": 6, "ref": 6, "tech": 5, "cool": 5, "ma": 6, "body": 10},
             "skills": {"handgun": 4, "streetfighting": 4, "athletics": 4}, "weapons": ["light_pistol"],
             "armour": []}
    d.update(kw)
    return d


def position(ruleset: str, rows: list[str], a: list[dict], b: list[dict], down: tuple[str, ...] = ()):
    """A started battle (fixed initiative: the listed order) with the figures `down` taken
    out of the fight (unconscious) after the start."""
    sc = {"name": f"test/{ruleset}", "ruleset": ruleset, "initiative": "fixed", "map": {"rows": rows},
          "teams": [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]}
    spec, src = load_scenario(sc)
    bt = new_battle(spec, Dice(np.random.default_rng(7)), src, record=True)
    bt.start()
    for i in down:
        bt.state.by_id[i].conditions.add("unconscious")
    return bt


def turn(bt, policy, limit: int = 20) -> list:
    """The actions of the acting figure until its turn ends: [(action, explanation, cell after)]."""
    s = bt.state
    me = s.actor
    out = []
    for _ in range(limit):
        if s.over:
            break
        a = policy.act(s, me)
        out.append((a, policy.explain(s, me, a)))
        bt.step(a)
        out[-1] += (me.pos,)
        if s.over or s.actor is not me or a.kind == "end_turn":
            break
    return out


OPEN = ["." * 12] * 3


def test_spare_never_attacks_the_downed_pc_even_when_it_is_the_only_target_in_reach() -> None:
    # cybergeneration: mal is unconscious next to s; bo stands behind the wall, out of reach
    rows = ["......#....."] * 3
    for name in ("tactical", "bold", "aggressive"):
        bt = position("cybergeneration", rows, [fig("cybergeneration", "s", (1, 1))],
                      [fig("cybergeneration", "mal", (2, 1)), fig("cybergeneration", "bo", (10, 1))], down=("mal",))
        s = bt.state
        bare = make_policy(name, 3).act(s, s.actor)
        spare = make_policy(name, 3, behaviour={"downed": "spare"})
        acts = turn(bt, spare)
        assert all(not (hostile(a) and a.target == "mal") for a, _, _ in acts), (name, acts)
        if bare.kind == "attack":   # tactical and bold attack the helpless mal without the setting
            assert bare.target == "mal"
            assert "spares the downed mal (behaviour: spare)" in acts[0][1]


def test_finish_attacks_the_downed_enemy_in_reach() -> None:
    rows = ["......#....."] * 3
    for name in ("tactical", "aggressive", "cautious"):
        bt = position("cybergeneration", rows, [fig("cybergeneration", "s", (1, 1))],
                      [fig("cybergeneration", "mal", (2, 1)), fig("cybergeneration", "bo", (10, 1))], down=("mal",))
        s = bt.state
        p = make_policy(name, 3, behaviour={"downed": "finish"})
        a = p.act(s, s.actor)
        assert a.kind == "attack" and a.target == "mal", (name, a)
    # aggressive without the setting goes for the standing bo instead
    bt = position("cybergeneration", rows, [fig("cybergeneration", "s", (1, 1))],
                  [fig("cybergeneration", "mal", (2, 1)), fig("cybergeneration", "bo", (10, 1))], down=("mal",))
    assert make_policy("aggressive", 3).act(bt.state, bt.state.actor).kind == "move"


@pytest.mark.parametrize("ruleset", ["cortex", "metalface"])
def test_spare_and_finish_play_as_default_where_the_rules_forbid_attacking_the_downed(ruleset: str) -> None:
    # metalface: only a down figure at 0 Status left is no target (assumption down_targets)
    zero = {"damage": 20} if ruleset == "metalface" else {}
    for setting in ("spare", "finish"):
        bt = position(ruleset, OPEN, [fig(ruleset, "s", (1, 1))],
                      [fig(ruleset, "mal", (2, 1), **zero), fig(ruleset, "bo", (6, 1))], down=("mal",))
        s = bt.state
        assert not any(a.target == "mal" for a in bt.ruleset.legal_actions(s))
        assert make_policy("tactical", 3, behaviour={"downed": setting}).act(s, s.actor) == \
            make_policy("tactical", 3).act(s, s.actor)


@pytest.mark.parametrize("ruleset", ["cortex", "metalface"])
@pytest.mark.parametrize("name", ["tactical", "aggressive"])
def test_fall_back_after_the_break_moves_away_and_does_not_attack(ruleset: str, name: str) -> None:
    # a's g1 and g2: g2 is down, so half the side is down (break_at 0.5); the enemy e is in range
    def start():
        return position(ruleset, OPEN, [fig(ruleset, "g1", (5, 1)), fig(ruleset, "g2", (4, 0))],
                        [fig(ruleset, "e", (9, 1))], down=("g2",))
    bt = start()
    bare = turn(bt, make_policy(name, 3))   # without the setting it fights, or closes in
    assert any(hostile(a) for a, _, _ in bare) or bt.state.grid.distance_m(bare[-1][2], bt.state.by_id["e"].pos) < \
        bt.state.grid.distance_m(bt.state.grid.index(5, 1), bt.state.by_id["e"].pos)
    bt = start()
    s = bt.state
    e = s.by_id["e"]
    beh = {"morale": "fall_back", "break_at": 0.5}
    assert morale_broken(s, "a", Behaviour.from_json(beh))
    d0 = s.grid.distance_m(s.actor.pos, e.pos)
    acts = turn(bt, make_policy(name, 3, behaviour=beh))
    assert not any(hostile(a) for a, _, _ in acts), acts
    assert acts[0][0].kind == "move" and "behaviour: fall_back, morale broken: 1 of 2" in acts[0][1]
    assert s.grid.distance_m(acts[-1][2], e.pos) > d0


@pytest.mark.parametrize("ruleset", ["cortex", "metalface"])
def test_fall_back_fights_when_cornered(ruleset: str) -> None:
    # a corridor one cell wide: g1 at its closed end, e next to it, no move gets it away
    rows = ["#####", "#...#", "#####"]
    bt = position(ruleset, rows, [fig(ruleset, "g1", (1, 1)), fig(ruleset, "g2", (3, 1))],
                  [fig(ruleset, "e", (2, 1))], down=("g2",))
    acts = turn(bt, make_policy("aggressive", 3, behaviour={"morale": "fall_back"}))
    assert any(hostile(a) and a.target == "e" for a, _, _ in acts), acts


@pytest.mark.parametrize("ruleset", ["cortex", "metalface"])
def test_surrender_takes_no_hostile_action(ruleset: str) -> None:
    bt = position(ruleset, OPEN, [fig(ruleset, "g1", (5, 1)), fig(ruleset, "g2", (4, 0))],
                  [fig(ruleset, "e", (7, 1))], down=("g2",))
    acts = turn(bt, make_policy("tactical", 3, behaviour={"morale": "surrender"}))
    kinds = [a.kind for a, _, _ in acts]
    assert kinds[-1] == "end_turn" and not any(hostile(a) for a, _, _ in acts)
    # cortex drops prone; metalface lies down (posture lie)
    assert kinds[0] in ("drop_prone", "posture")
    assert "surrenders" in acts[0][1] and "the fight goes on until the GM ends it" in acts[0][1]
    # morale holds while fewer than break_at of the side are down
    bt = position(ruleset, OPEN, [fig(ruleset, "g1", (5, 1)), fig(ruleset, "g2", (4, 0))],
                  [fig(ruleset, "e", (7, 1))], down=("g2",))
    assert not morale_broken(bt.state, "a", Behaviour(morale="surrender", break_at=0.75))


@pytest.mark.parametrize("ruleset", ["cortex", "metalface"])
def test_protect_stays_near_the_leader(ruleset: str) -> None:
    # the guard g1 would close in on the far enemy; with protect it stays by the boss
    rows = ["." * 16] * 3

    def start():
        return position(ruleset, rows, [fig(ruleset, "g1", (2, 1)), fig(ruleset, "boss", (0, 1))],
                        [fig(ruleset, "e", (15, 1))])
    bt = start()
    bare = turn(bt, make_policy("aggressive", 3))
    assert bt.state.grid.chebyshev(bare[-1][2], bt.state.by_id["boss"].pos) > PROTECT_CELLS
    bt = start()
    acts = turn(bt, make_policy("aggressive", 3, behaviour={"figures": {"g1": {"protect": "boss"}}}))
    g = bt.state.grid
    boss = bt.state.by_id["boss"].pos
    assert all(g.chebyshev(cell, boss) <= PROTECT_CELLS for a, _, cell in acts if a.kind == "move"), acts


@pytest.mark.parametrize("ruleset", ["cortex", "metalface"])
def test_protect_attacks_whoever_threatens_the_leader_most(ruleset: str) -> None:
    # e2 is nearest to the guard, e1 stands over the boss: the guard shoots e1
    rows = ["." * 8] * 5

    def start():
        return position(ruleset, rows, [fig(ruleset, "g1", (2, 0)), fig(ruleset, "boss", (0, 0))],
                        [fig(ruleset, "e2", (4, 0)), fig(ruleset, "e1", (0, 3))])
    bt = start()
    bare = [a for a, _, _ in turn(bt, make_policy("aggressive", 3)) if hostile(a)]
    assert bare and bare[0].target == "e2"
    bt = start()
    acts = [(a, why) for a, why, _ in turn(bt, make_policy("aggressive", 3, behaviour={"protect": "boss"}))
            if hostile(a)]
    assert acts and acts[0][0].target == "e1"
    assert "boss (behaviour: protect)" in acts[0][1]


@pytest.mark.parametrize("ruleset", ["cortex", "metalface"])
@pytest.mark.parametrize("name", ["aggressive", "tactical", "cautious"])
def test_hold_never_ends_a_move_outside_the_radius(ruleset: str, name: str) -> None:
    rows = ["." * 16] * 3
    bt = position(ruleset, rows, [fig(ruleset, "g1", (2, 1))], [fig(ruleset, "e", (15, 1))])
    g = bt.state.grid
    hold = {"cell": [2, 1], "radius": 2 * g.cell_m}
    pol = make_policy(name, 3, behaviour={"hold": hold})
    moved = []
    for _ in range(3):   # three of g1's turns, the enemy's in between
        acts = turn(bt, pol)
        moved += [cell for a, _, cell in acts if a.kind == "move"]
        turn(bt, make_policy("cautious", 4))
    assert all(g.distance_m(c, g.index(2, 1)) <= hold["radius"] + 1e-9 for c in moved), moved
    bt = position(ruleset, rows, [fig(ruleset, "g1", (2, 1))], [fig(ruleset, "e", (15, 1))])
    if name == "aggressive":  # without the setting it leaves
        acts = turn(bt, make_policy(name, 3))
        assert g.distance_m(acts[-1][2], g.index(2, 1)) > hold["radius"]


def test_a_figure_outside_its_hold_moves_back() -> None:
    rows = ["." * 16] * 3
    bt = position("cortex", rows, [fig("cortex", "g1", (8, 1))], [fig("cortex", "e", (15, 1))])
    g = bt.state.grid
    p = make_policy("tactical", 3, behaviour={"hold": {"cell": [1, 1], "radius": 1.5}})
    a = p.act(bt.state, bt.state.actor)
    assert a.kind == "move" and g.distance_m(a.cell, g.index(1, 1)) < g.distance_m(g.index(8, 1), g.index(1, 1))
    assert "behaviour: hold" in p.explain(bt.state, bt.state.actor, a)


# -- whole fights ---------------------------------------------------------------------------
def play_checked(scenario: str, name: str, setting: dict, seed: int = 1, max_actions: int = 1500):
    """Play a seeded fight, every team with policy `name` under `setting`; yield (state,
    actor, action, before) for each decision: `before` holds what the invariants read
    before the step."""
    spec, src = load_scenario(scenario)
    bt = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    bt.start()
    s = bt.state
    g = s.grid
    if setting.get("protect") == "FIRST":   # each team's first figure is its leader
        firsts = {t: next(c for c in s.combatants if c.team == t) for t in s.teams}
        book = BehaviourBook.from_json({"figures": {c.id: {"protect": firsts[c.team].id} for c in s.combatants
                                                    if c is not firsts[c.team]}})
    elif setting.get("hold") == "HERE":     # every figure holds its starting cell
        book = BehaviourBook.from_json({"figures": {c.id: {"hold": {"cell": list(g.xy(c.pos)), "radius": 2 * g.cell_m}}
                                                    for c in s.combatants}})
    else:
        book = BehaviourBook.from_json({"teams": {"*": setting}})
    book.check(s)
    pols = {t: make_policy(name, seed + i, behaviour=book) for i, t in enumerate(s.teams)}
    n = 0
    while not s.over and n < max_actions:
        me = s.actor
        b = book.resolve(me.team, me.id)
        before = {"down": {c.id for c in s.combatants if c.down}, "pos": me.pos,
                  "legal": bt.ruleset.legal_actions(s), "b": b, "broken": morale_broken(s, me.team, b),
                  "leader": s.by_id.get(b.protect) if b.protect else None}
        a = pols[me.team].act(s, me)
        bt.step(a, check=False)
        n += 1
        yield s, me, a, before


#: a bundled scenario of each ruleset with even sides (both lose figures before the end)
FIGHTS = [("cortex", "cortex/warehouse"), ("cortex_hu", "cortex_hu/csarda"), ("metalface", "metalface/scrapyard"),
          ("cybergeneration", "cybergeneration/mall_raid")]


@pytest.mark.parametrize("ruleset,scenario", FIGHTS)
def test_whole_fights_keep_each_setting(ruleset: str, scenario: str) -> None:
    seen = {k: 0 for k in ("spare", "finish", "fall_back", "surrender", "protect", "hold")}
    for name, seed in [(n, k) for n in ("tactical", "aggressive", "cautious") for k in (1, 2)]:
        for s, me, a, bf in play_checked(scenario, name, {"downed": "spare"}, seed):
            assert not (hostile(a) and a.target in bf["down"]), (a, bf["down"])
            seen["spare"] += hostile(a)
        for s, me, a, bf in play_checked(scenario, name, {"downed": "finish"}, seed):
            if any(hostile(x) and x.target in bf["down"] for x in bf["legal"]) and a.kind != "choose":
                assert hostile(a) and a.target in bf["down"], a
                seen["finish"] += 1
        for s, me, a, bf in play_checked(scenario, name, {"morale": "fall_back", "break_at": 0.34}, seed):
            if bf["broken"] and hostile(a):   # only when cornered: an enemy next to it
                g = s.grid
                assert any(g.chebyshev(bf["pos"], e.pos) <= 1 for e in s.combatants if e.team != me.team), a
            seen["fall_back"] += bf["broken"]
        for s, me, a, bf in play_checked(scenario, name, {"morale": "surrender", "break_at": 0.34}, seed):
            if bf["broken"]:
                assert not hostile(a) and a.kind in ("end_turn", "drop_prone", "posture", "choose"), a
                seen["surrender"] += 1
        for s, me, a, bf in play_checked(scenario, name, {"protect": "FIRST"}, seed):
            lead = bf["leader"]
            if a.kind == "move" and lead is not None and lead is not me and not lead.down:
                g = s.grid
                d = g.chebyshev(me.pos, lead.pos)
                assert d <= PROTECT_CELLS or d < g.chebyshev(bf["pos"], lead.pos), (me.id, a)
                seen["protect"] += 1
        for s, me, a, bf in play_checked(scenario, name, {"hold": "HERE"}, seed):
            if a.kind == "move":
                h = bf["b"].hold
                assert s.grid.distance_m(me.pos, s.grid.index(*h.cell)) <= h.radius + 1e-9, (me.id, a)
                seen["hold"] += 1
    # each setting was put to the test at least once in these fights (spare and finish only
    # where the rules let a downed figure be attacked)
    for k in ("fall_back", "surrender", "protect", "hold") + (("finish",) if ruleset == "cybergeneration" else ()):
        assert seen[k] > 0, (k, seen)


def test_the_planner_honours_hold() -> None:
    spec, src = load_scenario("cortex/warehouse")
    bt = new_battle(spec, Dice(np.random.default_rng(3)), src, record=False)
    bt.start()
    s = bt.state
    team = s.teams[0]
    g = s.grid
    holds = {c.id: c.pos for c in s.combatants if c.team == team}
    book = {"figures": {i: {"hold": {"cell": list(g.xy(p)), "radius": g.cell_m}} for i, p in holds.items()}}
    pols = {team: make_policy("planner", 1, behaviour=book), s.teams[1]: make_policy("aggressive", 2)}
    for _ in range(25):
        if s.over:
            break
        me = s.actor
        a = pols[me.team].act(s, me)
        bt.step(a, check=False)
        if me.team == team and a.kind == "move":
            assert g.distance_m(me.pos, holds[me.id]) <= g.cell_m + 1e-9
    assert pols[team].inner.screen is None


# -- a default behaviour changes nothing ----------------------------------------------------
@pytest.mark.parametrize("ruleset,scenario", FIGHTS)
def test_a_default_behaviour_plays_the_same_fight(ruleset: str, scenario: str) -> None:
    def log(behaviour, name):
        spec, src = load_scenario(scenario)
        out: list[str] = []
        bt = new_battle(spec, Dice(np.random.default_rng(11)), src, record=False, on_event=lambda e: out.append(dumps(e)))
        pols = {t: make_policy(name, 5 + i, behaviour=behaviour) for i, t in enumerate(spec.teams and
                                                                                     [t.name for t in spec.teams])}
        bt.run(pols, max_actions=400)
        return out
    for name in ("tactical", "aggressive", "cautious", "random"):
        for beh in (Behaviour(), {}, {"teams": {"*": {"break_at": 0.2}}}):
            assert log(beh, name) == log(None, name), (name, beh)


def test_the_wrapper_answers_questions_as_the_policy_does() -> None:
    p = make_policy("random", 1, behaviour={"downed": "spare"})
    assert isinstance(p, BehavedPolicy) and p.answers_by_default is False and p.name == "random"
    assert make_policy("tactical", 1, behaviour={}).answers_by_default is True


# -- validation -----------------------------------------------------------------------------
@pytest.mark.parametrize("doc,field,words", [
    ({"morael": "none"}, "behaviour.morael", "did you mean 'morale'"),
    ({"downed": "spair"}, "behaviour.downed", "did you mean 'spare'"),
    ({"morale": "flee"}, "behaviour.morale", "unknown morale 'flee'"),
    ({"break_at": 0}, "behaviour.break_at", "out of range"),
    ({"break_at": 1.5}, "behaviour.break_at", "out of range"),
    ({"break_at": "half"}, "behaviour.break_at", "not a number"),
    ({"break_at": True}, "behaviour.break_at", "not a number"),
    ({"protect": 5}, "behaviour.protect", "bad figure id"),
    ({"hold": [1, 2]}, "behaviour.hold", "must be a mapping"),
    ({"hold": {"cell": [1, 2]}}, "behaviour.hold.radius", "missing radius"),
    ({"hold": {"cell": [1], "radius": 2}}, "behaviour.hold.cell", "bad cell"),
    ({"hold": {"cell": [1, 2], "radius": -1}}, "behaviour.hold.radius", "negative radius"),
    ({"hold": {"cell": [1, 2], "radius": 2, "radios": 3}}, "behaviour.hold.radios", "did you mean 'radius'"),
    ("spare", "behaviour", "must be a mapping"),
])
def test_bad_settings_name_the_field(doc, field, words) -> None:
    with pytest.raises(BehaviourError) as e:
        Behaviour.from_json(doc)
    assert e.value.field == field and words in str(e.value) and e.value.expected


def test_book_errors_name_the_field_and_the_state_stays() -> None:
    with pytest.raises(BehaviourError) as e:
        BehaviourBook.from_json({"team": {}})
    assert e.value.field == "behaviour.team" and "did you mean 'teams'" in str(e.value)
    with pytest.raises(BehaviourError) as e:
        BehaviourBook.from_json({"figures": {"boss": {"downed": "finsh"}}})
    assert e.value.field == "behaviour.figures.boss.downed"
    with pytest.raises(BehaviourError):
        make_policy("tactical", 1, behaviour={"morale": "panic"})
    bt = position("cortex", OPEN, [fig("cortex", "g1", (5, 1)), fig("cortex", "boss", (4, 0))],
                  [fig("cortex", "e", (7, 1))])
    s = bt.state
    cases = [({"teams": {"aa": {}}}, "behaviour.teams.aa", "no team 'aa'; did you mean 'a'"),
             ({"figures": {"g2": {}}}, "behaviour.figures.g2", "no figure 'g2'"),
             ({"teams": {"a": {"protect": "e"}}}, "behaviour.teams.a.protect", "'e' is on team 'b'"),
             ({"figures": {"g1": {"protect": "bos"}}}, "behaviour.figures.g1.protect", "did you mean 'boss'"),
             ({"teams": {"a": {"hold": {"cell": [12, 0], "radius": 1}}}}, "behaviour.teams.a.hold.cell", "off the map")]
    for doc, field, words in cases:
        with pytest.raises(BehaviourError) as e:
            BehaviourBook.from_json(doc).check(s)
        assert e.value.field == field and words in str(e.value), str(e.value)


def test_settings_round_trip_and_figures_override_their_team() -> None:
    doc = {"teams": {"a": {"morale": "fall_back", "break_at": 0.25, "downed": "spare"}},
           "figures": {"boss": {"hold": {"cell": [3, 4], "radius": 3}, "downed": "finish"}}}
    book = BehaviourBook.from_json(doc)
    assert BehaviourBook.from_json(book.to_json()) == book
    b = book.resolve("a", "boss")
    assert (b.morale, b.break_at, b.downed, b.hold.cell, b.hold.radius) == ("fall_back", 0.25, "finish", (3, 4), 3.0)
    assert book.resolve("a", "g1").downed == "spare" and book.resolve("a", "g1").hold is None
    assert book.resolve("b", "e").is_default
    assert Behaviour.from_json(b.to_json()) == b
    assert BehaviourBook.of(Behaviour(downed="spare")).resolve("x", "y").downed == "spare"
    assert BehaviourBook().empty and not book.empty


@pytest.mark.parametrize("ruleset,scenario", FIGHTS)
def test_every_scripted_policy_plays_legal_actions_with_settings(ruleset: str, scenario: str) -> None:
    """Each registered scripted policy, wrapped, chooses only legal actions (the shipped networks' players aside:
    `ppo`, the `selective` and the `planner-net` ones)."""
    mixed = {"teams": {"*": {"downed": "spare", "morale": "fall_back", "break_at": 0.3}}}
    learned = ("ppo", "selective", "planner-net")   # the shipped networks' players
    for name in [n for n in available_policies() if not n.startswith(learned)]:
        spec, src = load_scenario(scenario)
        bt = new_battle(spec, Dice(np.random.default_rng(4)), src, record=False)
        bt.start()
        s = bt.state
        pols = {t: make_policy(name, 9 + i, behaviour=mixed) for i, t in enumerate(s.teams)}
        for _ in range(3 if name.startswith("planner") or name == "best" else 40):   # the searches: a few
            if s.over:
                break
            me = s.actor
            a = pols[me.team].act(s, me)
            assert a in bt.ruleset.legal_actions(s) or a.kind == "choose", (name, a)
            assert pols[me.team].explain(s, me, a)
            bt.step(a)
