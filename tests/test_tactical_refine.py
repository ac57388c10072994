"""`tactical` stops pricing an enemy's fire on a candidate cell once the cell cannot be among the
three best (agents/refine.py, issue 30): the same choices as pricing every enemy, the probe dice
drawing the same numbers after, and every value it gives below the bar an upper bound."""

from __future__ import annotations

import copy

import pytest

from agents import assess as A
from agents import refine as R
from agents.tactical import BoldPolicy, TacticalPolicy

from test_tactical_acting import decisions

SCENARIOS = ["cortex/warehouse", "cortex_hu/magtar", "metalface/scrapyard", "cybergeneration/mall_raid",
             "cybergeneration/alley_brawl"]


def _rank(pol: TacticalPolicy, s, bound: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list]:
    """(the choices, the probe dice's record after) of one decision, with or without the bound."""
    with monkeypatch.context() as m:
        if not bound:
            m.setattr(R, "third_best", lambda scored: None)
        out = pol.rank(s, s.actor)
    return [(c.action, c.score, c.reason) for c in out], list(pol.dice.record) + [pol.dice.roll(1000)]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_bound_ranks_as_pricing_every_enemy(scenario: str, monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for cls, pair in ((TacticalPolicy, ("tactical", "bold")), (BoldPolicy, ("bold", "tactical"))):
        for rs, s in decisions(scenario, pair, 3, 50):
            pol = cls(seed=0)
            pol2 = copy.deepcopy(pol)
            assert _rank(pol, s, True, monkeypatch) == _rank(pol2, s, False, monkeypatch)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("scenario", SCENARIOS[:3])
def test_a_value_below_the_bar_is_an_upper_bound(scenario: str) -> None:
    """Below `bar`, `exact_value` gives at least the full value; at or above it, the full value."""
    seen = 0
    for rs, s in decisions(scenario, ("tactical", "tactical"), 4, 40):
        me = s.actor
        moves = [a for a in rs.legal_actions(s) if a.kind == "move"][:8]
        for m in moves:
            full_pol, cut_pol = TacticalPolicy(seed=0), TacticalPolicy(seed=0)
            vals = []
            for pol, bar in ((full_pol, None), (cut_pol, 0.0)):
                pol.dice = A.probe_dice(s, me)
                ctx = pol.context(rs, s, me, rs.legal_actions(s))
                if not ctx.enemies:
                    break
                vals.append(pol.exact_value(ctx, m.cell, m, bar, 0.01)[0] + 0.01)
            if len(vals) < 2:
                continue
            full, cut = vals
            assert cut >= full
            if full >= 0.0:
                assert cut == full
            seen += 1
    assert seen > 0
