"""NPC policies (ARCHITECTURE.md, agents/: "A policy answers `act(state, actor) -> action`
and can say why (`explain`)"; scripted policies act on rules-level state only).

- every registered scripted policy returns a legal action at every decision, on every
  bundled scenario of every rule system (the policies use only the generic `Ruleset`
  interface, so the same code plays cortex, cortex_hu, metalface and cybergeneration);
- `explain` gives one non-empty readable line;
- the planner's rollouts never touch the real fight: the state, the dice record and the
  dice generator are the same before and after a decision;
- the same seed gives the same decisions (Conventions: randomness only through an
  injected generator).
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import available_policies, make_policy
from agents.planner import PlannerPolicy, TurnDice, evaluate
from agents.tactical import TacticalPolicy
from rules.actions import Action
from rules.battle import Battle
from rules.dice import Dice
from rules.scenario import bundled_scenarios, load_scenario, new_battle
from rules.state import BattleState

SCRIPTED = ["random", "aggressive", "cautious", "tactical", "bold", "planner"]
#: decisions played per scenario (the planner thinks ahead, so it gets fewer)
STEPS = {"planner": 5}
DEFAULT_STEPS = 60


def started(scenario: str, seed: int = 3) -> Battle:
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(seed), src, record=True)
    b.start()
    return b


def fingerprint(state: BattleState) -> tuple:
    """Everything a fight changes, as plain values."""
    cs = tuple((c.id, c.pos, tuple(sorted(c.conditions)), repr(sorted(c.res.items(), key=lambda kv: kv[0])))
               for c in state.combatants)
    econ = repr(sorted(state.economy.items(), key=lambda kv: kv[0]))
    objs = repr(sorted((k, sorted(v)) for k, v in state.objects.items()))
    return (cs, econ, objs, state.round, state.turn_index, tuple(state.order), state.over, state.winner,
            id(state.grid))


def test_scripted_policies_are_registered() -> None:
    assert set(SCRIPTED) <= set(available_policies())


@pytest.mark.parametrize("scenario", bundled_scenarios())
@pytest.mark.parametrize("policy", SCRIPTED)
def test_policy_plays_only_legal_actions(policy: str, scenario: str) -> None:
    b = started(scenario)
    s = b.state
    pols = {t: make_policy(policy, 10 + i) for i, t in enumerate(s.teams)}
    for _ in range(STEPS.get(policy, DEFAULT_STEPS)):
        if s.over:
            break
        legal = b.ruleset.legal_actions(s)
        a = pols[s.actor.team].act(s, s.actor)
        assert isinstance(a, Action)
        assert a in legal, f"{policy} chose {a} for {s.actor.id}, not legal on {scenario}"
        b.step(a)


@pytest.mark.parametrize("policy", ["aggressive", "cautious", "tactical", "planner"])
@pytest.mark.parametrize("scenario", ["cortex/warehouse", "cortex/saloon"])
def test_explain_is_one_readable_line(policy: str, scenario: str) -> None:
    b = started(scenario)
    s = b.state
    pols = {t: make_policy(policy, 1 + i) for i, t in enumerate(s.teams)}
    for _ in range(4):
        actor = s.actor
        p = pols[actor.team]
        a = p.act(s, actor)
        line = p.explain(s, actor, a)
        assert isinstance(line, str) and line.strip() and "\n" not in line
        b.step(a)


def test_tactical_explains_its_shot_with_the_odds() -> None:
    b = started("cortex/duel", seed=4)
    s = b.state
    p = TacticalPolicy(seed=0)
    lines = []
    for _ in range(12):
        if s.over:
            break
        a = p.act(s, s.actor)
        lines.append(p.explain(s, s.actor, a))
        b.step(a)
    assert any("to hit" in ln and "%" in ln for ln in lines), lines


@pytest.mark.parametrize("scenario", ["cortex/warehouse", "cortex/ambush", "metalface/scrapyard"])
def test_planner_leaves_the_real_fight_untouched(scenario: str) -> None:
    b = started(scenario, seed=8)
    s = b.state
    warm = {t: make_policy("tactical", i) for i, t in enumerate(s.teams)}
    for _ in range(6):  # into the fight a little
        if s.over:
            break
        b.step(warm[s.actor.team].act(s, s.actor))
    assert not s.over
    planner = PlannerPolicy(seed=5, budget=6, top_k=3, close=10.0)  # always plans
    before = fingerprint(s)
    record = list(b.dice.record)
    dice_state = repr(b.dice.get_state())
    events = len(b.events)
    a = planner.act(s, s.actor)
    assert a in b.ruleset.legal_actions(s)
    assert fingerprint(s) == before
    assert b.dice.record == record
    assert repr(b.dice.get_state()) == dice_state
    assert len(b.events) == events


def test_planner_uses_lookahead_and_scores_candidates() -> None:
    b = started("cortex/warehouse", seed=2)
    s = b.state
    planner = PlannerPolicy(seed=1, budget=6, top_k=3, close=10.0)
    a = planner.act(s, s.actor)
    assert planner.last_values, "several candidates should have been rolled out"
    assert a in planner.last_values
    assert all(-1.5 <= v <= 1.5 for v in planner.last_values.values())
    assert "looked ahead over tactical's" in planner.explain(s, s.actor, a)


def test_planner_searches_around_its_guide(monkeypatch) -> None:
    """`guide="bold"`: bold ranks the candidates and plays the planner's side in the
    rollouts; the enemies there are still tactical. An unknown guide names the field."""
    from agents.tactical import BoldPolicy, TacticalPolicy
    from rules.errors import TacticaError
    s = started("cortex/warehouse", seed=2).state
    planner = PlannerPolicy(seed=1, budget=4, top_k=3, close=10.0, guide="bold")
    assert type(planner.guide) is BoldPolicy
    assert type(make_policy("planner-bold", 1).guide) is BoldPolicy   # the registered name
    made = []
    real = planner._rollout_policy

    def spy(ss, kwargs, cls=TacticalPolicy):
        p = real(ss, kwargs, cls)
        made.append(type(p))
        return p

    monkeypatch.setattr(planner, "_rollout_policy", spy)
    planner.act(s, s.actor)
    assert made and len(made) % 2 == 0
    assert made.count(BoldPolicy) == made.count(TacticalPolicy)  # one of each per rollout
    with pytest.raises(TacticaError, match="guide"):
        PlannerPolicy(seed=1, guide="cautious")


def test_rollout_dice_are_paired_turn_by_turn() -> None:
    """TurnDice: a turn's rolls depend on the rollout seed and the turn, not on how many
    dice earlier turns rolled, so two candidates meet the same luck turn by turn."""
    s = started("cortex/warehouse", seed=2).state
    s1, s2 = s.clone(), s.clone()
    d1, d2 = TurnDice(s1, (9, 1, 0)), TurnDice(s2, (9, 1, 0))
    first = [d1.roll(10) for _ in range(3)]
    assert first == [d2.roll(10) for _ in range(3)]      # same seed, same turn: same luck
    [d2.roll(6) for _ in range(40)]                       # one candidate rolls more dice now ...
    for st in (s1, s2):
        st.turn_index = (st.turn_index + 1) % len(st.order)
    later = [d1.roll(12) for _ in range(50)]
    assert later == [d2.roll(12) for _ in range(50)]      # ... and the next turn's luck is still the same
    other = TurnDice(s.clone(), (9, 2, 0))                # another rollout seed: other luck
    assert [other.roll(100) for _ in range(5)] != [TurnDice(s.clone(), (9, 1, 0)).roll(100) for _ in range(5)]


@pytest.mark.slow
def test_planner_beats_tactical_on_development_maps() -> None:
    """planner against tactical on 96 development fights (generated cortex maps 5000-5015,
    never the held-out ones; `experiments/planner_strength.py --maps 16 --fights 6 --seed 7`):
    measured 64-32. Half the fights with each side; a planner no better than tactical
    wins about half (P(>= 56 of 96 | p=0.5) < 6%)."""
    from envs.generators import generate_scenario
    from evaluation.simulate import play_fight
    wins = losses = 0
    for i in range(16):
        spec = load_scenario(generate_scenario("cortex", 5000 + i, mirrored=True))[0]
        teams = [t.name for t in spec.teams]
        for k in range(6):
            me = k % 2
            r = play_fight(spec, {teams[me]: "planner", teams[1 - me]: "tactical"}, 7, k)
            wins += r.winner == teams[me]
            losses += r.winner == teams[1 - me]
    assert wins >= 56, (wins, losses)


def test_evaluate_prefers_the_healthier_side() -> None:
    b = started("cortex/duel")
    s = b.state
    rs = b.ruleset
    assert evaluate(rs, s, "crew") == pytest.approx(0.0)
    s.by_id["jubal"].conditions.add("unconscious")
    assert evaluate(rs, s, "crew") > 0.3 > -0.3 > evaluate(rs, s, "outlaws")


@pytest.mark.parametrize("policy", ["random", "aggressive", "cautious", "tactical", "planner"])
def test_same_seed_same_decisions(policy: str) -> None:
    def decisions(seed: int) -> list[Action]:
        b = started("cortex/warehouse", seed=6)
        s = b.state
        pols = {t: make_policy(policy, np.random.SeedSequence([seed, i])) for i, t in enumerate(s.teams)}
        out = []
        for _ in range(STEPS.get(policy, 30)):
            if s.over:
                break
            a = pols[s.actor.team].act(s, s.actor)
            out.append(a)
            b.step(a)
        return out

    assert decisions(1) == decisions(1)


def test_tactical_beats_aggressive_in_a_short_match() -> None:
    """A smoke check of strength (the measured round robin is in the report)."""
    from evaluation.simulate import play_fight

    spec, src = load_scenario("cortex/warehouse")
    wins = 0
    for i in range(4):
        wins += play_fight(spec, {"crew": "tactical", "syndicate": "aggressive"}, 0, i, src).winner == "crew"
        wins += play_fight(spec, {"crew": "aggressive", "syndicate": "tactical"}, 0, i, src).winner == "syndicate"
    assert wins >= 6


def _mirror_record(ruleset: str, a: str, b: str, maps: int, per_map: int) -> tuple[int, int, int]:
    """(a's wins, b's wins, draws) on generated development maps (not the held-out ones),
    sides alternating."""
    from envs.generators import generate_scenario
    from evaluation.simulate import play_fight

    wins = losses = 0
    n = 0
    for i in range(maps):
        spec = load_scenario(generate_scenario(ruleset, 5000 + i, mirrored=True))[0]
        teams = [t.name for t in spec.teams]
        for k in range(per_map):
            me = k % 2
            w = play_fight(spec, {teams[me]: a, teams[1 - me]: b}, 7, k).winner
            wins += w == teams[me]
            losses += w == teams[1 - me]
            n += 1
    return wins, losses, n - wins - losses


@pytest.mark.parametrize("ruleset", ["metalface", "cybergeneration"])
def test_tactical_breaks_stand_offs(ruleset: str) -> None:
    """Draws win nothing (the round limit ends a fight undecided). Two tactical sides used to
    run from firing spot to firing spot, each run ending the turn before the shot, until
    the round limit: 18 and 17 of these 40 fights were draws in metalface and
    cybergeneration, and tactical beat aggressive in only 21 of 40 metalface fights (12
    draws). A shot that must wait for the next turn now counts for less the longer
    nobody has been hurt (`Ctx.later`): 11 and 12 draws, and 34 wins of 40.

    Issue 32 made metalface's body attacks add the weapon to the attack roll and pay every
    bend of a path: aggressive's rush to melee got stronger, and tactical now wins 25 of
    these 40 (12 losses, 3 draws). A tactical that stood off and drew, or lost as often as
    it won, fails the bound."""
    w, l, d = _mirror_record(ruleset, "tactical", "tactical", 10, 4)
    assert d <= 14, (w, l, d)
    if ruleset == "metalface":
        w, l, d = _mirror_record(ruleset, "tactical", "aggressive", 10, 4)
        assert w >= 21 and w >= 1.6 * l, (w, l, d)


def test_a_shot_next_turn_counts_less_in_a_stand_off() -> None:
    """`Ctx.later` (what a shot that must wait a turn is worth) starts at 0.3 and shrinks as
    quiet turns (nobody hurt) pile up."""
    b = started(next(n for n in bundled_scenarios() if n.startswith("metalface/")))
    rs, s = b.ruleset, b.state
    p = TacticalPolicy(seed=0)
    ctx = p.context(rs, s, s.actor, rs.legal_actions(s))
    assert ctx.later == pytest.approx(0.3)
    # three quiet turns so far, and this one quiet too
    p._quiet_turns, p._snap, p._quiet_key = 3, tuple(rs.health(c)[0] for c in s.combatants), None
    ctx = p.context(rs, s, s.actor, rs.legal_actions(s))
    assert ctx.later == pytest.approx(0.3 / 5)


def test_bold_weighs_the_fire_it_draws_at_a_tenth() -> None:
    """`bold` (agents/tactical.py) is tactical with its caution scaled by 0.1: the same
    decision's view, with the weight of its own exposure (`def_weight`) at a tenth and the
    same aggression; tactical's own scales are 1."""
    from agents.tactical import BoldPolicy

    b = started("metalface/scrapyard")
    rs, s = b.ruleset, b.state
    legal = rs.legal_actions(s)
    t = TacticalPolicy(seed=0).context(rs, s, s.actor, legal)
    bold = BoldPolicy(seed=0).context(rs, s, s.actor, legal)
    assert TacticalPolicy.caution == TacticalPolicy.boldness == 1.0
    assert bold.def_weight == pytest.approx(0.1 * t.def_weight) and t.def_weight >= 1.0
    assert bold.aggression == pytest.approx(t.aggression)


def test_bold_beats_tactical_where_tactical_is_timid() -> None:
    """docs/results.md (Where is the headroom?): in metalface tactical is too timid; at a
    tenth of its caution (`bold`) it won 301 and lost 237 of 640 paired development fights
    against tactical. Here 48 fights on development maps (sides alternating): measured 28 won,
    16 lost, 4 drawn; tactical against itself on the same fights 18-18 (12 drawn), so a
    `bold` that played as tactical does fails the bound."""
    w, l, d = _mirror_record("metalface", "bold", "tactical", 12, 4)
    assert w >= l + 8, (w, l, d)


def test_ppo_names_the_shipped_policy_of_the_scenarios_ruleset():
    """`ppo` is the trained policy bundled for the scenario's ruleset
    (tactica/policies/<ruleset>.npz); a ruleset without one gets an error naming the file
    and how to make one, never a traceback."""
    from agents.learned import shipped_policy_path
    from rules.errors import TacticaError
    from rules.ruleset import available_rulesets

    assert "ppo" in available_policies()
    for rs in available_rulesets():
        spec, _ = load_scenario(next(n for n in bundled_scenarios() if n.startswith(rs + "/")))
        b = new_battle(spec, Dice(0))
        b.start()
        pol = make_policy("ppo", 0)
        if shipped_policy_path(rs).exists():
            a = pol.act(b.state, b.state.actor)
            assert a in b.ruleset.legal_actions(b.state)
            assert pol.explain(b.state, b.state.actor, a).count("%") >= 1
        else:
            with pytest.raises(TacticaError, match="no shipped policy"):
                pol.act(b.state, b.state.actor)
