"""`cortex_hu`'s defence kept per defender version (rules/systems/cortex_hu/defence.py
`defender`, `_defence_part`) gives the long way's numbers: on every call `expected_defence`
makes in seeded fights, the original code's answer; and a broken version key is caught."""

from __future__ import annotations

import pytest

from rules.systems.cortex_hu import defence as D
from rules.systems.cortex_hu.defence import DefenceHu
from tests.test_threat_profile import play


def long_expected_defence(self, state, a, d, w, option, innate_only=False):
    """`expected_defence` as it was before the memo (verbatim but for the innate die, which is the one the
    rules roll since a prone figure's innate defence takes -2 steps: `innate_die`, and a prepared
    defence's steps, which take prone as the figure lies when it is rolled: `prepared_steps`)."""
    if d.res["grappled_by"] is not None and w.name == "unarmed":
        return (), self.held_difficulty
    cb = self.cover_against(state, a, d, w, option)
    if self.innate_only_reason(d, innate_only) is None:
        i = self.prepared_for(d, w, option)
        pool = None
        if i is not None:
            p = d.res["prepared"][i]
            pool = self.defence_pool(d, p["mode"], self.prepared_steps(d, p))
        if pool is None:
            react = self.reaction(state, d, a, w, option)
            pool = react[1] if react is not None else None
        if pool is not None:
            return pool[0].dice + pool[1].dice, cb
    if not self.watches(state, d, a) or self.declines_innate(d):
        return (), self.diff["easy"] + cb
    return self.innate_die(d).dice, cb


FIGHTS = [("cortex_hu/magtar", ("tactical", "tactical"), 3), ("cortex_hu/magtar", ("bold", "tactical"), 5)]


def checked_fights(monkeypatch: pytest.MonkeyPatch) -> int:
    expected = DefenceHu._expected
    n = [0]

    def checked(self, state, a, d, w, option, innate_only):
        got = expected(self, state, a, d, w, option, innate_only)
        want = long_expected_defence(self, state, a, d, w, option, innate_only)
        assert got == (want[0], tuple(sorted(want[0])), want[1]), (state.round, a.id, d.id, w.name, option)
        n[0] += 1
        return got

    monkeypatch.setattr(DefenceHu, "_expected", checked)
    for scen, pair, seed in FIGHTS:
        for _ in play(scen, pair, seed, 70):
            pass
    return n[0]


def test_kept_defences_answer_as_the_long_way(monkeypatch: pytest.MonkeyPatch) -> None:
    assert checked_fights(monkeypatch) > 300


class _Any(dict):
    """A resource snapshot equal to every resource dict: a version that ignores them."""

    def __eq__(self, other):
        return True

    __hash__ = None


def test_a_broken_version_key_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(D, "plain_copy", lambda v, leaf=None: _Any())
    with pytest.raises(AssertionError):
        checked_fights(monkeypatch)
