"""The research scripts in experiments/: they import only the package's public names, and
the checks their studies rest on (a variant with no knobs plays as tactical, a copied planner
decides as the planner, the value network's numpy play matches its torch fit)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from evaluation.simulate import play_fight
from rules.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
EXP = ROOT / "experiments"
PACKAGES = ("agents", "envs", "evaluation", "rules", "tactica", "training")


def test_experiments_import_only_public_names() -> None:
    """issue 31: the research scripts live outside the package and import only public names
    of it (no `from agents.x import _y`, no `module._private` access on an imported module)."""
    bad: list[str] = []
    for path in sorted(EXP.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        imported: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
                bad += [f"{path.name}:{node.lineno} from {node.module} import {a.name}"
                        for a in node.names if a.name.startswith("_")]
                imported |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.Import):
                imported |= {a.asname or a.name.split(".")[0] for a in node.names
                             if a.name.split(".")[0] in PACKAGES}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                    and isinstance(node.value, ast.Name) and node.value.id in imported):
                bad.append(f"{path.name}:{node.lineno} {node.value.id}.{node.attr}")
    assert not bad, bad
    assert not list((ROOT / "benchmarks").glob("planner_*.py")), "research scripts belong in experiments/"


def test_knob_study_baseline_is_tactical_and_knobs_change_play(monkeypatch) -> None:
    """experiments/planner_strength.py --knobs: with no knobs the variant plays exactly as
    tactical (same fights, same result), so the study measures the knobs alone; a changed
    knob changes decisions; an unknown knob is refused by name."""
    from envs.generators import generate_scenario
    spec = importlib.util.spec_from_file_location("planner_strength", EXP / "planner_strength.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import agents.base
    from agents.base import register_policy
    # the variants registered here (and by the benchmark's own _play) stay in this test
    monkeypatch.setattr(agents.base, "_REGISTRY", dict(agents.base._REGISTRY))
    register_policy("knobs-none", lambda seed=None: mod._tactical({}, seed))
    register_policy("knobs-bold", lambda seed=None: mod._tactical({"aggression": 3.0, "caution": 0.2}, seed))
    sc = load_scenario(generate_scenario("cortex", 5003, mirrored=True))[0]
    a, b = (t.name for t in sc.teams)
    changed = 0
    for k in range(4):
        base = play_fight(sc, {a: "tactical", b: "tactical"}, 11, k)
        same = play_fight(sc, {a: "knobs-none", b: "tactical"}, 11, k)
        assert (same.winner, same.rounds, same.actions, same.damage_taken) == \
            (base.winner, base.rounds, base.actions, base.damage_taken)
        bold = play_fight(sc, {a: "knobs-bold", b: "tactical"}, 11, k)
        changed += (bold.rounds, bold.actions, bold.damage_taken) != (base.rounds, base.actions, base.damage_taken)
    assert changed >= 2
    with pytest.raises(SystemExit, match="unknown knob"):
        mod._tactical({"agression": 2.0})
    # --paired: fights 2j and 2j+1 share their dice, sides swapped, so tactical against
    # itself wins exactly one of each pair (the same fight, mirrored)
    mod._SPECS[:] = [sc]
    mod._KNOBS["same"] = mod._VARIANTS["same"] = {}
    for j in range(3):
        results = [mod._play(("same", 0, 2 * j + side, 11, True))[2] for side in (0, 1)]
        assert sorted(results) == ["loss", "win"], results


def test_planner_repeat_copies_the_planner_faithfully() -> None:
    """experiments/planner_repeat.py --control: copies of the planner that keep its own
    rollout seed decide every looked-ahead position as it did (so the copying of planner,
    memory and position is exact, and what the study measures with fresh seeds is the
    rollouts' luck alone)."""
    spec = importlib.util.spec_from_file_location("planner_repeat", EXP / "planner_repeat.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.main(["--ruleset", "cortex_hu", "--maps", "1", "--fights", "2", "--repeats", "1", "--workers", "1",
                    "--control", "--json"])
    assert out["looked_ahead"] >= 5
    assert out["repeat_same_action"] == 1.0


def _afterstate_module():
    spec = importlib.util.spec_from_file_location("afterstate_value", EXP / "afterstate_value.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_afterstate_value_numpy_play_matches_the_torch_fit() -> None:
    """experiments/afterstate_value.py fits its value network in torch and plays it in numpy:
    the two agree to 1e-4 on states from a real fight (padding excluded from the pooling, the
    dilated convolution, the two heads)."""
    torch = pytest.importorskip("torch")
    import numpy as np
    mod = _afterstate_module()
    from envs.generators import generate_scenario
    mod._SPECS[:] = [load_scenario(generate_scenario("cortex_hu", 101, mirrored=True))[0]]
    grids, vecs, y1, yf, _ = mod.collect_fight((0, 0, 3, 0.5))
    assert len(grids) >= 3
    torch.manual_seed(0)
    net = mod.build_net(grids[0].shape[0], vecs[0].shape[0])
    g, v = np.stack(grids), np.stack(vecs)
    with torch.no_grad():
        want = net(torch.from_numpy(g.astype(np.float32)), torch.from_numpy(v)).numpy()
    got = mod.predict({k: t.numpy() for k, t in net.state_dict().items()}, g, v)
    assert {k: tuple(t.shape) for k, t in net.state_dict().items()} == _net_shapes(mod)
    assert np.abs(got - want).max() < 1e-4
    # every state's final target is the fight's end from the explorer's side, one score for all
    assert len(set(yf)) == 1 and all(-1.5 <= y <= 1.5 for y in y1)


def _net_shapes(mod) -> dict[str, tuple[int, ...]]:
    """The value network's parameter shapes (experiments/afterstate_value.py build_net), without torch."""
    from envs.encoding import GRID_CHANNELS, UNIT_FEATURES
    n_units = 1 + mod.N_ALLY + mod.N_ENEMY
    n_vec = n_units * (len(UNIT_FEATURES) + 4) + mod.N_EXTRA
    c, h = len(GRID_CHANNELS), 32
    return {"c1.weight": (h, c, 3, 3), "c1.bias": (h,), "c2.weight": (h, h, 3, 3), "c2.bias": (h,),
            "c3.weight": (h, h, 3, 3), "c3.bias": (h,), "v.weight": (128, n_vec), "v.bias": (128,),
            "h1.weight": (128, 2 * h + 128), "h1.bias": (128,), "h2.weight": (2, 128), "h2.bias": (2,)}


def test_afterstate_value_explorer_and_lookahead_reduce_to_bold() -> None:
    """With no exploration the collecting player is `bold`, and with a margin no value can
    clear the lookahead keeps bold's pick: both play bold's fights event for event, so the
    lookahead works on copies and the study's differences come from the value alone. Without
    a margin the same network overrules, and the fight changes."""
    import numpy as np
    from functools import partial

    import agents.base
    from agents.base import register_policy
    from envs.generators import generate_scenario
    mod = _afterstate_module()
    sc = load_scenario(generate_scenario("cortex_hu", 5002, mirrored=True))[0]
    a, b = (t.name for t in sc.teams)
    saved = dict(agents.base._REGISTRY)
    try:
        # a random network tells the candidates apart; a margin it cannot clear keeps bold's
        # pick, and with no margin at all it overrules and the fights change
        rng = np.random.default_rng(0)
        mod._NET["params"] = {k: (0.05 * rng.standard_normal(s)).astype(np.float32)
                              for k, s in _net_shapes(mod).items()}
        register_policy("vb-test", partial(mod.ValuedBold, margin=1e9))
        register_policy("vb-eager", partial(mod.ValuedBold, margin=-1e9))
        register_policy("ex-test", partial(mod.Explorer, explore=0.0))
        def events(name: str, k: int) -> list[str]:
            """Every event of fight k (actions, positions, rolls, damage), as text."""
            out: list[str] = []
            play_fight(sc, {a: name, b: "tactical"}, 5, k, on_event=lambda e: out.append(repr(e)))
            return out

        before = dict(mod._STATS)
        for k in range(2):
            base = events("bold", k)
            for name in ("vb-test", "ex-test"):
                assert events(name, k) == base, name
            assert events("vb-eager", k) != base
        # the lookahead ran (on copies: the fights above are bold's until it may overrule)
        assert mod._STATS["looked"] - before["looked"] >= 3
        assert mod._STATS["overruled"] > before["overruled"]
    finally:
        agents.base._REGISTRY.clear()
        agents.base._REGISTRY.update(saved)


def test_refit_strength_counts_the_overrules_by_the_label_not_by_ties():
    """experiments/refit_strength.py `movement`: a departure is a decision whose label (the
    rollouts' winner; the pick on a tie) is not the start network's pick, by more than `gap` in
    rollout value; `learnt` is the share of those the refit now plays."""
    from types import SimpleNamespace

    import numpy as np

    spec = importlib.util.spec_from_file_location("refit_strength", EXP / "refit_strength.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    nan = np.nan
    demos = SimpleNamespace(
        masks=np.ones((3, 3), dtype=bool),
        values=np.array([[0.2, 0.5, nan],     # overrule by 0.3: the label is action 1
                         [0.4, 0.4, 0.1],     # a tie kept as the pick (action 0): not a departure
                         [0.1, 0.15, nan]]),  # overrule by 0.05
        actions=np.array([1, 0, 1]))
    before = np.array([[0.7, 0.3, 0.0], [0.7, 0.2, 0.1], [0.6, 0.4, 0.0]])
    after = np.array([[0.4, 0.6, 0.0], [0.6, 0.3, 0.1], [0.6, 0.4, 0.0]])
    m = mod.movement(before, after, demos, gap=0.0)
    assert m["departures"] == 2 and m["learnt"] == 0.5 and m["tied_rows"] == 1
    assert m["still_pick"] == 2 / 3
    m = mod.movement(before, after, demos, gap=0.1)
    assert m["departures"] == 1 and m["learnt"] == 1.0
    assert m["p_best_before"] == 0.3 and m["p_best_after"] == 0.6


def test_extrapolate_goes_along_the_refit_and_keeps_the_ends_exact(tmp_path) -> None:
    """experiments/extrapolate.py: A + t (B - A) on every float array; t = 0 and t = 1 give the two
    networks back bit for bit, the metadata is B's, and another architecture is refused by name."""
    import numpy as np

    spec = importlib.util.spec_from_file_location("extrapolate", EXP / "extrapolate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = np.random.default_rng(0)
    a = {"w": rng.normal(size=(3, 4)).astype(np.float32), "__meta__": np.array("A")}
    b = {"w": (a["w"] + rng.normal(scale=1e-3, size=(3, 4))).astype(np.float32), "__meta__": np.array("B")}
    assert np.array_equal(mod.extrapolate(a, b, 0.0)["w"], a["w"])
    one = mod.extrapolate(a, b, 1.0)
    assert np.array_equal(one["w"], b["w"]) and str(one["__meta__"]) == "B"
    two = mod.extrapolate(a, b, 2.0)["w"]
    assert two.dtype == np.float32 and np.allclose(two - b["w"], b["w"] - a["w"], atol=1e-6)
    with pytest.raises(SystemExit, match="w: shapes"):
        mod.extrapolate({"w": np.zeros((2, 2), np.float32)}, {"w": np.zeros((3, 2), np.float32)}, 2.0)
    np.savez(tmp_path / "a.npz", **a)
    np.savez(tmp_path / "b.npz", **b)
    mod.main(["--start", str(tmp_path / "a.npz"), "--refit", str(tmp_path / "b.npz"), "--t", "2", "--out", str(tmp_path / "o")])
    with np.load(tmp_path / "o" / "t-2.npz") as f:
        assert np.array_equal(f["w"], two)


def test_verdict_outcomes_pairs_fights_to_the_end_and_leaves_the_env_as_it_was() -> None:
    """experiments/verdict_outcomes.py: a candidate played twice on paired dice ends its fights alike
    (+1 won, 0 drawn, -1 lost), and the decision is left where it was; the summary's edge is the
    label's mean outcome over the pick's."""
    import numpy as np

    from envs.skirmish import SkirmishEnv

    spec = importlib.util.spec_from_file_location("verdict_outcomes", EXP / "verdict_outcomes.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    class FirstLegal:  # a deterministic stand-in for the network: its first legal action
        def action_probs(self, obs, mask):
            return mask.astype(float) / mask.sum()

    env = SkirmishEnv(scenario="cortex/warehouse", opponent="random")
    obs, info = env.reset(seed=4)
    c = int(np.flatnonzero(info["action_mask"])[-1])

    def where(e):
        s = e.battle.state
        return (s.round, s.turn_index, [(x.id, x.pos, sorted(x.conditions), repr(x.res)) for x in s.combatants],
                e.action_masks().tolist())

    before = where(env)
    out = mod.to_the_end(env, FirstLegal(), [c, c], 3, (1, 2))
    assert out.shape == (2, 3) and set(out.ravel()) <= {-1.0, 0.0, 1.0}
    assert np.array_equal(out[0], out[1])
    assert where(env) == before
    s = mod.summary([{"edge": 1.0, "gap": 0.1}, {"edge": -0.5, "gap": 0.05}, {"edge": 0.5, "gap": 0.2}])
    assert s["overrules"] == 3 and abs(s["edge"] - 1 / 3) < 1e-12 and (s["better"], s["worse"]) == (2, 1)


def test_refit_strength_heavier_anchor_repeats_the_anchor() -> None:
    """`refit_strength.py --anchor-copies K`: the anchor's decisions K times over, in order; 0 refused by name."""
    import numpy as np

    from training.pretrain import Demos

    spec = importlib.util.spec_from_file_location("refit_strength", EXP / "refit_strength.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    n, k = 5, 3
    anchor = Demos(obs={"x": np.arange(n * 2, dtype=np.float32).reshape(n, 2)}, masks=np.ones((n, 4), dtype=bool),
                   actions=np.arange(n) % 4, returns=np.zeros(n, dtype=np.float32), episodes=1, wins=0, skipped=0,
                   episode=np.zeros(n, dtype=np.int64), values=np.full((n, 4), np.nan, dtype=np.float32))
    heavy = mod.heavier(anchor, k)
    assert len(heavy) == k * n
    assert np.array_equal(heavy.actions, np.tile(anchor.actions, k))
    assert np.array_equal(heavy.obs["x"], np.tile(anchor.obs["x"], (k, 1)))
    assert mod.heavier(anchor, 1) is anchor
    with pytest.raises(SystemExit, match="anchor-copies"):
        mod.heavier(anchor, 0)
    # --holdout is a share of the fights: 1 (every fight out of the fit) is refused by name, before any work
    with pytest.raises(SystemExit, match="--holdout"):
        mod.main(["--config", "no.yaml", "--start", "no.npz", "--run", "no", "--holdout", "1"])


def test_tiebreak_at_margin_zero_plays_as_the_network_and_defers_to_the_advisor_above_it(monkeypatch) -> None:
    """experiments/tiebreak.py: at margin 0 `TieBreak` never defers, so it plays the shipped network's fights
    exactly (the study measures the tie-break alone); at margin 1 every decision with the advisor's pick among
    the network's top three plays that pick, which changes some fights."""
    from envs.generators import generate_scenario

    spec = importlib.util.spec_from_file_location("tiebreak", EXP / "tiebreak.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import agents.base
    from agents.base import register_policy
    monkeypatch.setattr(agents.base, "_REGISTRY", dict(agents.base._REGISTRY))
    register_policy("tb-never", mod.variant(0.0))
    register_policy("tb-always", mod.variant(1.0))
    sc = load_scenario(generate_scenario("cortex_hu", 5003, mirrored=True))[0]
    assert _never_and_always(sc, "ppo", "tb-never", "tb-always") >= 1


def test_symmetry_turns_the_fight_back_and_forth_and_at_weight_zero_plays_as_the_network(monkeypatch) -> None:
    """experiments/symmetry.py: a generated (mirrored) map is the same turned by half a turn; turning a fight
    twice gives every figure's cell back; a move's cell turns with it; with the turned view weighted 0 `Turned`
    plays the shipped network's fights exactly, and with it weighted 1 it plays other fights."""
    from envs.generators import generate_scenario
    from rules.actions import Action
    from rules.scenario import build_state

    spec = importlib.util.spec_from_file_location("symmetry", EXP / "symmetry.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sc = load_scenario(generate_scenario("cortex_hu", 5003, mirrored=True))[0]
    state = build_state(sc)
    n = state.grid.n
    assert mod.point_symmetric(state)
    once = mod.turned(state)
    assert [c.pos for c in once.combatants] == [n - 1 - c.pos for c in state.combatants]
    assert [c.pos for c in mod.turned(once).combatants] == [c.pos for c in state.combatants]
    assert mod.turn_action(Action("move", cell=5), n) == Action("move", cell=n - 6)
    assert mod.turn_action(Action("attack", target="x", weapon="w"), n) == Action("attack", target="x", weapon="w")
    assert not mod.point_symmetric(build_state(load_scenario("cortex_hu/csarda")[0]))

    import agents.base
    from agents.base import register_policy
    monkeypatch.setattr(agents.base, "_REGISTRY", dict(agents.base._REGISTRY))
    never = type("Never", (mod.Turned,), {"weight": 0.0})
    register_policy("turned-never", never)
    register_policy("turned-only", mod.TurnedOnly)
    assert _never_and_always(sc, "ppo", "turned-never", "turned-only") >= 1


def _never_and_always(sc, base: str, never: str, always: str, fights: int = 3) -> int:
    """Play `base`, `never` and `always` against `tactical` on the same `fights` fights of `sc`: `never` must
    play `base`'s fights exactly; the number of fights `always` plays otherwise."""
    a, b = (t.name for t in sc.teams)

    def fight(policy: str, k: int) -> tuple:
        r = play_fight(sc, {a: policy, b: "tactical"}, 11, k)
        return r.winner, r.rounds, r.actions, r.damage_taken

    changed = 0
    for k in range(fights):
        ref = fight(base, k)
        assert fight(never, k) == ref, (never, k)
        changed += fight(always, k) != ref
    return changed


def test_closecall_with_the_network_itself_as_the_second_plays_the_networks_fights(monkeypatch) -> None:
    """experiments/closecall.py: with the shipped network as its own second network the player plays the
    network's fights exactly (the second network reads the first one's observation: one advisor, one memory);
    with another network of the same layout asked at every decision (margin 1) it plays other fights."""
    from envs.generators import generate_scenario

    spec = importlib.util.spec_from_file_location("closecall", EXP / "closecall.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import agents.base
    from agents.base import register_policy
    from agents.learned import shipped_policy_path
    monkeypatch.setattr(agents.base, "_REGISTRY", dict(agents.base._REGISTRY))
    register_policy("cc-itself", mod.factory(str(shipped_policy_path("cortex_hu"))))
    other = type("Everywhere", (mod.CloseCall,), {"margin": 1.0, "second": str(ROOT / "training/init/cortex_hu-advice-parts.npz")})
    register_policy("cc-other", other)
    sc = load_scenario(generate_scenario("cortex_hu", 5003, mirrored=True))[0]
    assert _never_and_always(sc, "ppo", "cc-itself", "cc-other") >= 1


def test_ensemble_of_the_network_with_itself_plays_its_fights_and_a_bad_spec_is_refused(monkeypatch) -> None:
    """experiments/ensemble.py: the mean of a network's probabilities with its own is its probabilities, so the
    shipped network ensembled with itself plays the network's fights exactly (each member's own advisor told the
    action played); ensembled with another network it plays other fights. A spec that names one network, or is
    not NAME=A.npz+B.npz, is refused by its variable's name."""
    from envs.generators import generate_scenario

    spec = importlib.util.spec_from_file_location("ensemble", EXP / "ensemble.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import agents.base
    from agents.base import register_policy
    from agents.learned import shipped_policy_path
    monkeypatch.setattr(agents.base, "_REGISTRY", dict(agents.base._REGISTRY))
    shipped = str(shipped_policy_path("cortex_hu"))
    names = mod.parse(f"ens-self={shipped}+{shipped},ens-other={shipped}+training/init/cortex_hu-advice-parts.npz")
    assert names["ens-other"][1] == str(ROOT / "training/init/cortex_hu-advice-parts.npz")
    for name, paths in names.items():
        register_policy(name, mod.factory(paths))
    sc = load_scenario(generate_scenario("cortex_hu", 5003, mirrored=True))[0]
    assert _never_and_always(sc, "ppo", "ens-self", "ens-other") >= 1
    for bad in ("ens=a.npz", "a.npz+b.npz"):
        with pytest.raises(SystemExit, match="TACTICA_ENSEMBLES"):
            mod.parse(bad)


def test_selective_margin_at_zero_plays_the_networks_fights_and_its_variants_set_the_margin(monkeypatch) -> None:
    """experiments/selective_margin.py: at margin 0 no decision is close enough to search (a gap is never below 0),
    so the player plays the shipped network's fights exactly; each registered variant is the shipped `selective`
    at its margin."""
    from envs.generators import generate_scenario

    spec = importlib.util.spec_from_file_location("selective_margin", EXP / "selective_margin.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import agents.base
    from agents.base import register_policy
    monkeypatch.setattr(agents.base, "_REGISTRY", dict(agents.base._REGISTRY))
    register_policy("sel0", mod.variant(0.0))
    sc = load_scenario(generate_scenario("cortex_hu", 5003, mirrored=True))[0]
    a, b = (t.name for t in sc.teams)
    for k in range(2):
        ref = play_fight(sc, {a: "ppo", b: "tactical"}, 11, k)
        got = play_fight(sc, {a: "sel0", b: "tactical"}, 11, k)
        assert (got.winner, got.rounds, got.actions, got.damage_taken) == (ref.winner, ref.rounds, ref.actions,
                                                                           ref.damage_taken)
    assert {n: mod.variant(m)(seed=1).margin for n, m in mod.VARIANTS.items()} == mod.VARIANTS
    assert {n: mod.variant(m, "tactical")(seed=1).margin for n, m in mod.TACTICAL.items()} == mod.TACTICAL
    assert type(mod.variant(1.0, "tactical")(seed=1).planner.guide).__name__ == "TacticalPolicy"
    assert type(mod.variant(1.0)(seed=1).planner.guide).__name__ == "BoldPolicy"
