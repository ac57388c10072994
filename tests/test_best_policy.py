"""`best` (issue #31 a): each ruleset's strongest player under one name, and the default NPC of
the autopilot and the API where it decides fast enough (agents/best.py, agents.base.default_policy)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.base import BEST_MEDIAN_S, BEST_P95_S, DEFAULT_POLICY, available_policies, default_policy, make_policy
from agents.best import BEST, FALLBACK, BestEntry, BestPolicy, best_name
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = {"metalface": "metalface/scrapyard", "cortex": "cortex/duel", "cortex_hu": "cortex_hu/magtar",
             "cybergeneration": "cybergeneration/mall_raid"}


def fight(scenario: str, seed: int = 1):
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(seed), src)
    b.start()
    return b


def same_decisions(scenario: str, a, b, n: int) -> list:
    """Play `n` decisions of one fight, every figure asking both policies: their actions
    (asserted equal), each played."""
    battle = fight(scenario)
    out = []
    for _ in range(n):
        s = battle.state
        if s.over:
            break
        x, y = a.act(s, s.actor), b.act(s, s.actor)
        assert x == y
        out.append(x)
        battle.step(x)
    return out


def test_the_table_names_registered_players_that_answer_by_default():
    assert "best" in available_policies() and set(SCENARIOS) <= set(BEST)
    for rs, e in BEST.items():
        assert e.policy in available_policies() and e.evidence and e.median_s > 0 and e.p95_s >= e.median_s
        assert make_policy(e.policy, 0).answers_by_default   # BestPolicy.answers_by_default = True holds
    assert make_policy(FALLBACK, 0).answers_by_default and make_policy("best", 0).answers_by_default


@pytest.mark.parametrize("ruleset,n", [("metalface", 6), ("cybergeneration", 8), ("cortex", 2), ("cortex_hu", 4)])
def test_best_decides_as_the_tables_player_with_the_same_seed(ruleset, n):
    best = make_policy("best", 7)
    played = same_decisions(SCENARIOS[ruleset], best, make_policy(BEST[ruleset].policy, 7), n)
    assert len(played) == n and best.player == BEST[ruleset].policy
    assert type(best.delegate) is type(make_policy(BEST[ruleset].policy, 0))


def test_the_table_is_read_at_the_first_decision(monkeypatch):
    """A cheap table entry: `best` plays it (the mechanism, apart from the table's contents)."""
    monkeypatch.setitem(BEST, "cortex", BestEntry("aggressive", "test", 0.1, 0.1))
    best = make_policy("best", 3)
    same_decisions("cortex/warehouse", best, make_policy("aggressive", 3), 10)
    s = fight("cortex/warehouse").state
    a = best.act(s, s.actor)
    assert best.explain(s, s.actor, a).startswith("best (aggressive): ")
    assert best.last_reason.startswith("best (aggressive): ")


def test_a_ruleset_without_an_entry_plays_tactical(monkeypatch):
    monkeypatch.delitem(BEST, "cybergeneration")
    monkeypatch.delitem(BEST, "cortex")
    for scenario in ("cybergeneration/alley_brawl", "cortex/warehouse"):
        best = make_policy("best", 5)
        same_decisions(scenario, best, make_policy("tactical", 5), 8)
        assert best.player == FALLBACK == "tactical"


def test_explain_names_the_player():
    s = fight("metalface/scrapyard").state
    best = make_policy("best", 1)
    a = best.act(s, s.actor)
    why = best.explain(s, s.actor, a)
    name = BEST["metalface"].policy   # planner-net-bold since 2026-12-07 (the network alone before)
    assert why.startswith(f"best ({name}): {s.actor.name}") and "the network" in why
    assert best.last_reason.startswith(f"best ({name}): learned policy: ")
    assert best.last_choices and best.last_choices[0][1].startswith("the network ")


@pytest.mark.parametrize("ruleset", ["metalface", "cortex_hu"])
def test_a_map_the_learned_player_cannot_play_falls_back_to_tactical(ruleset):
    """metalface's `best` is the search over the network's candidates, cortex_hu's the network with selective search:
    both refuse a map larger than the network's, and `best` plays `tactical` there."""
    from envs.generators import generate_scenario

    spec, src = load_scenario(generate_scenario(ruleset, 3, width=30, height=20, team_size=1))
    b = new_battle(spec, Dice(2), src)
    b.start()
    best, tac = make_policy("best", 4), make_policy("tactical", 4)
    s = b.state
    assert best.act(s, s.actor) == tac.act(s, s.actor)
    why = best.explain(s, s.actor, tac.last_action)
    assert best.player == "tactical" and f"{BEST[ruleset].policy} cannot play this fight" in why


def test_default_policy_follows_the_time_limits(monkeypatch):
    cases = [((0.1, 0.2), "best"), ((BEST_MEDIAN_S, BEST_P95_S), "best"), ((BEST_MEDIAN_S + 0.01, 1.0), DEFAULT_POLICY),
             ((0.1, BEST_P95_S + 0.01), DEFAULT_POLICY)]
    for (med, p95), want in cases:
        monkeypatch.setitem(BEST, "cortex", BestEntry("planner", "test", med, p95))
        assert default_policy("cortex") == want, (med, p95)
    assert default_policy("no_such_ruleset") == default_policy(None) == DEFAULT_POLICY == "tactical"
    for rs, e in BEST.items():   # the shipped table: best is the default where its timings allow
        assert default_policy(rs) == ("best" if e.median_s <= 0.5 and e.p95_s <= 2.0 else "tactical")


def _slow(monkeypatch, ruleset: str) -> None:
    e = BEST[ruleset]
    monkeypatch.setitem(BEST, ruleset, e._replace(median_s=0.6, p95_s=3.0))


def test_a_table_session_gives_an_npc_team_the_default(monkeypatch):
    from tactica.table import Session

    s = Session.new("metalface/scrapyard", seed=1)
    assert s.roles["gang"].policy == "best" and s.roles["runners"].policy is None
    assert isinstance(s.policies["gang"], BestPolicy) and s.policies["gang"].player == BEST["metalface"].policy   # chosen at once
    assert s.set_role("runners", "npc", None).policy == "best"
    _slow(monkeypatch, "metalface")
    s = Session.new("metalface/scrapyard", seed=1, npc=["runners"])
    assert s.roles["gang"].policy == s.roles["runners"].policy == "tactical"
    assert s.set_role("runners", "npc", None).policy == "tactical"


def test_a_save_holds_the_players_generators():
    from tactica.table.saves import _policy_rng_state, _set_policy_rng_state

    best = make_policy("best", 9)
    s = fight("cybergeneration/mall_raid").state
    best.resolve(s)
    best.delegate.rng.random(3)
    st = _policy_rng_state(best)
    assert st["rng"]["generator"] == best.delegate.rng.bit_generator.state
    other = make_policy("best", 1)
    other.resolve(s)
    _set_policy_rng_state(other, st)
    assert other.delegate.rng.random() == best.delegate.rng.random()


def test_the_api_gives_an_npc_team_the_default(monkeypatch):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from tactica.server import create_app

    with TestClient(create_app(token="t"), headers={"Authorization": "Bearer t"}) as c:
        r = c.get("/policies").json()
        assert r["default"] == "tactical" and r["defaults"]["metalface"] == "best"
        fid = c.post("/fights", json={"scenario": "metalface/scrapyard", "seed": 2}).json()["id"]
        assert c.get(f"/fights/{fid}/view").json()["settings"]["teams"]["gang"] == {
            "role": "npc", "policy": "best", "plays_as": BEST["metalface"].policy}
        _slow(monkeypatch, "metalface")
        assert c.get("/policies").json()["defaults"]["metalface"] == "tactical"
        fid = c.post("/fights", json={"scenario": "metalface/scrapyard", "seed": 2}).json()["id"]
        assert c.get(f"/fights/{fid}/view").json()["settings"]["teams"]["gang"] == {"role": "npc",
                                                                                   "policy": "tactical"}
        r = c.put(f"/fights/{fid}/settings", json={"teams": {"runners": {"role": "npc"}}})
        assert r.status_code == 200 and r.json()["teams"]["runners"]["policy"] == "tactical"


def test_best_on_metalface_imports_no_torch():
    code = ("import sys\nfrom agents.base import make_policy\nfrom rules.dice import Dice\n"
            "from rules.scenario import load_scenario, new_battle\n"
            "spec, src = load_scenario('metalface/foundry'); b = new_battle(spec, Dice(1), src); b.start()\n"
            "p = make_policy('best', 0); p.act(b.state, b.state.actor); assert p.player == 'planner-net-bold'\n"
            "print('torch' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("ruleset,n", [("cybergeneration", 12), ("cortex", 2)])
def test_a_gms_behaviour_wraps_the_player_best_plays_as(ruleset, n):
    """BehavedPolicy (agents/behaved.py) screens the choices of `best`'s player as it would
    that player's own: bold's ranking, the planner's candidates."""
    setting = {"downed": "spare", "morale": "fall_back", "break_at": 0.9}
    same_decisions(SCENARIOS[ruleset], make_policy("best", 2, behaviour=setting),
                   make_policy(BEST[ruleset].policy, 2, behaviour=setting), n)


def test_the_decision_time_benchmark_prints_a_row_per_ruleset(capsys):
    """benchmarks/decision_time.py in a tiny form: one fight of `best` in cybergeneration."""
    from benchmarks.decision_time import main, percentile

    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0 and percentile([0.0, 10.0], 0.95) == 9.5
    main(["--policy", "best", "--ruleset", "cybergeneration", "--fights", "1"])
    row = capsys.readouterr().out.strip().splitlines()[-1].strip("|").split("|")
    cells = [c.strip() for c in row]
    assert cells[:4] == ["cybergeneration", f"best ({BEST['cybergeneration'].policy})", "bundled", "1"]
    decisions, med, p95, top = int(cells[4]), float(cells[5]), float(cells[6]), float(cells[7])
    assert decisions > 0 and 0 <= med <= p95 <= top


def test_a_fight_larger_than_the_entry_allows_gets_its_light_player(monkeypatch):
    """A search player's decisions cost more the more figures a fight holds: above the entry's
    `max_figures` (every figure in the fight) `best` plays the entry's `light` player, and the
    tag says why; a fight at the limit keeps the table's player."""
    monkeypatch.setitem(BEST, "cortex", BestEntry("aggressive", "test", 0.1, 0.1, max_figures=5, light="random"))
    best = make_policy("best", 3)
    same_decisions("cortex/warehouse", best, make_policy("random", 3), 10)   # 6 figures
    s = fight("cortex/warehouse").state
    assert best.player == "random" and best.big
    a = best.act(s, s.actor)
    assert best.explain(s, s.actor, a).startswith(
        "best (random; a fight of 6 figures, more than the 5 aggressive decides fast enough in): ")
    monkeypatch.setitem(BEST, "cortex", BestEntry("aggressive", "test", 0.1, 0.1, max_figures=6, light="random"))
    best = make_policy("best", 3)
    same_decisions("cortex/warehouse", best, make_policy("aggressive", 3), 10)
    assert best.player == "aggressive" and not best.note


def test_a_gm_adding_figures_past_the_limit_switches_the_player(monkeypatch):
    """The choice is a function of the fight's state: figures a GM adds (rules/overrides.py) take
    the fight past the limit, and `best` plays the light player from the next decision."""
    from rules.overrides import apply_override

    monkeypatch.setitem(BEST, "cortex", BestEntry("aggressive", "test", 0.1, 0.1, max_figures=6, light="random"))
    b = fight("cortex/warehouse")
    best = make_policy("best", 3)
    best.act(b.state, b.state.actor)
    assert best.player == "aggressive"
    apply_override(b, {"kind": "add", "team": "syndicate", "template": "mercenary", "cell": [16, 12], "id": "extra"})
    assert len(b.state.combatants) == 7
    best.act(b.state, b.state.actor)
    assert best.player == "random" and "a fight of 7 figures" in best.note


def test_every_bundled_fight_is_within_its_best_players_limit():
    """The table's figures were measured on the bundled scenarios (and generated maps of up to 4
    a side): in each of them `best` plays the table's player, not the light one."""
    from benchmarks.decision_time import bundled

    for rs, e in BEST.items():
        for name in bundled(rs):
            spec, _ = load_scenario(name)
            n = sum(len(t.combatants) for t in spec.teams)
            assert best_name(rs, n) == e.policy, (name, n, e.max_figures)
        assert best_name(rs, 8) == e.policy   # generated maps: up to 4 a side


def test_the_api_says_which_player_best_is_in_a_large_fight(monkeypatch):
    """The battle map's settings box reads `plays_as` and `why` (agents/best.py `playing`): the light player and the
    reason in a fight past the entry's `max_figures`; a team another policy plays has neither."""
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from tactica.server import create_app

    monkeypatch.setitem(BEST, "metalface", BEST["metalface"]._replace(max_figures=5))
    with TestClient(create_app(token="t"), headers={"Authorization": "Bearer t"}) as c:
        fid = c.post("/fights", json={"scenario": "metalface/scrapyard", "seed": 2}).json()["id"]   # 6 figures
        teams = c.get(f"/fights/{fid}/view").json()["settings"]["teams"]
        assert teams["gang"]["plays_as"] == "tactical" and "a fight of 6 figures, more than the 5" in teams["gang"]["why"]
        assert set(teams["runners"]) == {"role", "policy"}
