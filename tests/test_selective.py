"""`selective` (agents/selective.py, issue 31 method 2): the network plays alone where it is
sure, looks ahead over its top candidates where its top two are close, and is overruled only
where the paired rollouts say so with confidence."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import check_policy, make_policy
from agents.learned import shipped_policy_path
from agents.selective import SelectivePolicy
from rules.dice import Dice
from rules.errors import TacticaError
from rules.scenario import load_scenario, new_battle

NET = shipped_policy_path("metalface")


def fight(seed: int = 3):
    spec, src = load_scenario("metalface/foundry")
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    b.start()
    return b


def test_a_sure_network_never_searches_and_plays_its_most_likely_action():
    b = fight()
    s = b.state
    pol = SelectivePolicy(seed=1, policy=NET, margin=0.0)
    shown = []
    scores = pol.net.scores
    pol.net.scores = lambda state, actor: shown.append(scores(state, actor)) or shown[-1]
    for _ in range(12):
        if s.over:
            break
        me = s.actor
        if me.team != s.teams[0]:
            b.step(b.ruleset.legal_actions(s)[0])
            continue
        a = pol.act(s, me)
        lmap, p = shown[-1]
        assert a == lmap[int(np.argmax(p))] and a in b.ruleset.legal_actions(s)
        b.step(a)
    assert pol.searched == 0 and pol.decisions == len(shown) > 0


def test_an_unsure_network_is_overruled_only_by_a_confident_lookahead(monkeypatch):
    b = fight()
    s, me = b.state, b.state.actor
    pol = SelectivePolicy(seed=1, policy=NET, margin=1.01, top_k=3)   # every decision is "unsure"
    lmap, p = pol.net.__class__(NET, seed=0).scores(s, me)
    order = [int(i) for i in np.argsort(-p, kind="stable") if p[i] > 0]
    first, second = lmap[order[0]], lmap[order[1]]
    seen = {}

    def fake_lookahead(state, actor, cands, gain=1.0):
        seen["cands"] = list(cands)
        # the second candidate beats the network's pick on every paired rollout
        pol.planner._samples = {a: [gain if a == second else 0.0] * 8 for a in cands}
        return {a: (gain if a == second else 0.0) for a in cands}

    monkeypatch.setattr(pol.planner, "lookahead", fake_lookahead)
    assert pol.act(s, me) == second
    assert seen["cands"][:2] == [first, second] and len(seen["cands"]) <= 3
    assert pol.searched == 1 and "looked ahead" in pol.explain(s, me, second)
    # a gap the dice cannot tell from noise keeps the network's pick
    pol2 = SelectivePolicy(seed=1, policy=NET, margin=1.01, top_k=3)

    def noisy(state, actor, cands):
        pol2.planner._samples = {a: ([1.0, -1.0] * 4 if a == second else [0.0] * 8) for a in cands}
        return {a: 0.0 for a in cands}

    monkeypatch.setattr(pol2.planner, "lookahead", noisy)
    assert pol2.act(s, me) == first


def test_a_real_lookahead_plays_legal_actions_and_explains_them():
    b = fight(5)
    s = b.state
    pol = SelectivePolicy(seed=2, policy=NET, margin=1.01, budget=4, top_k=2)
    for _ in range(3):
        me = s.actor
        a = pol.act(s, me)
        assert a in b.ruleset.legal_actions(s)
        assert pol.explain(s, me, a).startswith(me.name) and pol.last_reason.startswith("learned policy")
        b.step(a)
    assert pol.searched >= 1


def test_names_build_a_selective_player_over_a_file_and_refuse_a_missing_one(tmp_path):
    assert check_policy(f"selective:{NET}") == f"selective:{NET}"
    p = make_policy(f"selective:{NET}", 0)
    assert isinstance(p, SelectivePolicy) and p.net.path == NET
    assert isinstance(make_policy("selective", 0), SelectivePolicy)
    with pytest.raises(TacticaError, match="no such file") as e:
        check_policy(f"selective:{tmp_path / 'none.npz'}", "--policies")
    assert "--policies" in str(e.value)


def test_a_map_the_network_cannot_play_is_refused_and_best_falls_back(monkeypatch):
    """`best` asks its player whether it fits the fight (`check_fits`); a selective player
    answers for its network: a map larger than the network's 22x16 is refused, and `best`
    plays `tactical` there, as it does for the network alone."""
    from agents.best import BEST
    from envs.generators import generate_scenario

    spec, src = load_scenario(generate_scenario("metalface", 3, width=30, height=20, team_size=1))
    b = new_battle(spec, Dice(2), src)
    b.start()
    s = b.state
    pol = SelectivePolicy(seed=0)
    pol._ensure(s)
    with pytest.raises(TacticaError, match="larger"):
        pol.check_fits(s.ruleset, s.grid.height, s.grid.width)
    pol.check_fits("metalface", 16, 22)
    with pytest.raises(TacticaError, match="cortex"):
        pol.check_fits("cortex", 16, 22)
    monkeypatch.setitem(BEST, "metalface", BEST["metalface"]._replace(policy="selective"))
    best, tac = make_policy("best", 4), make_policy("tactical", 4)
    assert best.act(s, s.actor) == tac.act(s, s.actor)
    assert best.player == "tactical" and "selective cannot play this fight" in best.note


def test_commit_tells_the_network_and_the_rollouts_guide():
    """An action the GM played instead (a table session's `commit`) reaches both turn memories."""
    b = fight()
    s = b.state
    pol = SelectivePolicy(seed=0, policy=NET)
    seen = []
    pol.net.commit = lambda *a: seen.append("net")
    pol.planner.guide.commit = lambda *a: seen.append("guide")
    pol.commit(s, s.actor, b.ruleset.legal_actions(s)[0])
    assert seen == ["net", "guide"]


def _fights(ruleset: str, players: list[str], extra: dict | None = None, team_size: int | None = None) -> list:
    """The outcome of fight 0 (seed 11) on one generated map of `ruleset`, each of `players` against `tactical`,
    with the players of `extra` (name -> factory) registered for the call only."""
    import agents.base
    from agents.base import register_policy
    from envs.generators import generate_scenario
    from evaluation.simulate import play_fight

    kw = {} if team_size is None else {"team_size": team_size}
    sc = load_scenario(generate_scenario(ruleset, 5003, mirrored=True, **kw))[0]
    x, y = (t.name for t in sc.teams)
    reg = dict(agents.base._REGISTRY)
    try:
        for name, factory in (extra or {}).items():
            register_policy(name, factory)
        outs = [play_fight(sc, {x: p, y: "tactical"}, 11, 0) for p in players]
    finally:
        agents.base._REGISTRY.clear()
        agents.base._REGISTRY.update(reg)
    return [(r.winner, r.rounds, r.actions, r.damage_taken) for r in outs]


def test_selective_wide_is_selective_at_margin_one_half_and_plays_its_fights():
    """`selective-wide` (cortex_hu's `best` from 2026-12-06 to 2026-12-07) is the shipped `selective` at margin 0.5: the same fights as a
    `SelectivePolicy(margin=0.5)` registered apart (experiments/selective_margin.py's `sel50`, whose 3,200 table
    fights made it `best`), and not those of `selective` where a decision's top two are between 0.2 and 0.5 apart."""
    from agents.selective import WideSelectivePolicy

    p = make_policy("selective-wide", 0)
    assert isinstance(p, WideSelectivePolicy) and p.margin == 0.5 and p.top_k == 3 and p.planner.budget == 16
    got, ref, narrow = _fights("cortex_hu", ["selective-wide", "sel50", "selective"],
                               {"sel50": lambda seed=None: SelectivePolicy(seed=seed, margin=0.5)})
    assert got == ref
    assert narrow[2:] != got[2:]


def test_planner_net_searches_the_networks_candidates_at_every_decision_with_tacticals_rollouts():
    """`planner-net` (cortex's `best`) is `selective` at margin 1 with `tactical` playing the rollouts: the same
    fights as that player registered apart (experiments/selective_margin.py's `sel100t`, whose 800 table fights
    made it `best`); it looks ahead at every decision where the network gives two actions or more a chance."""
    from agents.selective import NetPlannerPolicy, ranked
    from agents.tactical import TacticalPolicy
    from envs.generators import generate_scenario

    p = make_policy("planner-net", 0)
    assert isinstance(p, NetPlannerPolicy) and p.margin == 1.0 and type(p.planner.guide) is TacticalPolicy
    assert p.top_k == 3 and p.planner.budget == 16
    spec, src = load_scenario(generate_scenario("cortex", 5003, mirrored=True, team_size=2))
    b = new_battle(spec, Dice(3), src, record=False)
    b.start()
    s = b.state
    seen = set()
    for _ in range(6):
        me = s.actor
        before = (p.searched, p.decisions)
        several = len(ranked(p.net, s, me)[2]) > 1   # actions the network gives a chance (its candidates)
        a = p.act(s, me)
        assert (p.searched - before[0], p.decisions - before[1]) == (1 if several else 0, 1)
        seen.add(several)
        b.step(a)
    assert seen == {True, False}   # both kinds of decision met
    got, ref = _fights("cortex", ["planner-net", "sel100t"],
                       {"sel100t": lambda seed=None: SelectivePolicy(seed=seed, margin=1.0, guide="tactical")}, 2)
    assert got == ref


@pytest.mark.parametrize("ruleset,team_size", [("cybergeneration", 2), ("cortex_hu", 1)])
def test_planner_net_bold_is_planner_net_with_bolds_rollouts(ruleset, team_size):
    """`planner-net-bold` (`best` in metalface and cybergeneration, in cortex_hu with the undo masked): margin 1 as `planner-net`, `bold`
    playing the rollouts; the same fights as the shipped `selective` at margin 1 registered apart
    (experiments/selective_margin.py's `sel100`, whose 3,200 table fights made it `best`)."""
    from agents.selective import BoldNetPlannerPolicy
    from agents.tactical import BoldPolicy

    p = make_policy("planner-net-bold", 0)
    assert isinstance(p, BoldNetPlannerPolicy) and p.margin == 1.0 and type(p.planner.guide) is BoldPolicy
    got, ref = _fights(ruleset, ["planner-net-bold", "sel100"],
                       {"sel100": lambda seed=None: SelectivePolicy(seed=seed, margin=1.0)}, team_size)
    assert got == ref
