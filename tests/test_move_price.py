"""`Ruleset.move_price` gives what trying the move on a copy gives (issue 30).

`tactical` prices moves (agents/assess.py `move_tiers`) by applying representative moves
on copies with its probe dice. A ruleset's `move_price` reads the same answer off its
movement rules without applying, and must decline (None) wherever the move could roll a
die or ask, or the probe dice would draw differently afterwards. These checks walk seeded
fights of every rule system with mixed scripted policies and, at each decision, compare
the price of every legal move with trying it: the same `economy()['actions_left']`, the
same `turn_over`, and no die rolled where a price was given.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from agents import assess as A
from agents.base import make_policy
from envs.generators import generate_scenario
from rules.dice import Dice
from rules.scenario import load_scenario, new_battle
from rules.state import BattleState

SCENARIOS = {
    "cortex": ["cortex/warehouse", "cortex/ambush", "cortex/saloon", "cortex/duel"],
    "cortex_hu": ["cortex_hu/magtar", "cortex_hu/csarda", "cortex_hu/les"],
    "metalface": ["metalface/scrapyard", "metalface/foundry", "metalface/rooftop"],
    "cybergeneration": ["cybergeneration/mall_raid", "cybergeneration/alley_brawl",
                        "cybergeneration/rooftop_standoff"],
}
PAIRS = [("tactical", "bold"), ("random", "tactical"), ("cautious", "aggressive")]


def decisions(scenario: str | dict, pols: tuple[str, str], seed: int, n: int = 60
              ) -> Iterator[tuple[object, BattleState]]:
    """(ruleset, state) before each of the first `n` decisions of a seeded fight."""
    spec, src = load_scenario(scenario)
    b = new_battle(spec, Dice(np.random.default_rng(seed)), src, record=False)
    by_team = {tm.name: make_policy(pols[i % 2], seed) for i, tm in enumerate(spec.teams)}
    b.start()
    for _ in range(n):
        if b.state.over:
            return
        yield b.ruleset, b.state
        b.step(by_team[b.state.actor.team].act(b.state, b.state.actor), check=False)


def fights(ruleset: str) -> Iterator[tuple[str | dict, tuple[str, str], int]]:
    for i, scen in enumerate(SCENARIOS[ruleset]):
        for j, pair in enumerate(PAIRS):
            yield scen, pair, 10 * i + j
    for k in range(3):
        yield generate_scenario(ruleset, 2000 + k), PAIRS[k], 100 + k


def tried(rs, state: BattleState, move, dice: Dice) -> tuple[float, bool, int]:
    """(actions_left, turn_over, dice rolled) after trying the move on a copy."""
    before = len(dice.record)
    s2 = A.after(rs, state, move, dice)
    return rs.economy(s2)["actions_left"], A.turn_over(s2), len(dice.record) - before


@pytest.mark.parametrize("ruleset", list(SCENARIOS))
def test_move_price_is_trying_the_move(ruleset: str) -> None:
    priced = declined = 0
    seen: set[tuple[float, bool]] = set()
    for scen, pair, seed in fights(ruleset):
        for rs, s in decisions(scen, pair, seed):
            if s.pending is not None:
                continue
            left0 = rs.economy(s)["actions_left"]
            for m in (a for a in rs.legal_actions(s) if a.kind == "move"):
                dice = A.probe_dice(s, s.actor)
                price = rs.move_price(s, m)
                left1, over, rolled = tried(rs, s, m, dice)
                if price is None:
                    declined += 1
                    continue
                priced += 1
                assert price == (left1, over), (ruleset, scen, seed, s.round, s.actor.id, m)
                assert type(price[0]) is float and type(price[1]) is bool
                assert rolled == 0, (ruleset, scen, seed, m, "a priced move rolled dice")
                seen.add((left0 - left1, over))
    assert priced > 500, (priced, declined)
    # the moves priced cost nothing, an action, or (cortex: running) end the turn, so a
    # price that got any of those wrong would fail above
    assert (0.0, False) in seen and any(used > 0 for used, _ in seen), seen
    if ruleset == "cortex":
        assert any(over for _, over in seen), seen


def test_metalface_prices_moves_that_would_ask() -> None:
    """A metalface move with several equally cheap last steps asks end_facing; on a copy the
    default is taken, which changes no metres: the price still holds there."""
    asked = 0
    for rs, s in decisions("metalface/scrapyard", ("tactical", "bold"), 3):
        for m in (a for a in rs.legal_actions(s) if a.kind == "move"):
            if rs.may_ask(s, m):
                asked += 1
                left1, over, rolled = tried(rs, s, m, A.probe_dice(s, s.actor))
                assert rs.move_price(s, m) == (left1, over) and rolled == 0
    assert asked > 0


def test_cortex_hu_declines_a_run() -> None:
    """A cortex_hu run rolls the run pool: never priced, and trying it rolls."""
    runs = 0
    for rs, s in decisions("cortex_hu/magtar", ("tactical", "bold"), 1):
        for m in (a for a in rs.legal_actions(s) if a.kind == "move"):
            if rs.move_price(s, m) is None:
                _, _, rolled = tried(rs, s, m, A.probe_dice(s, s.actor))
                runs += rolled > 0
    assert runs > 0


def test_cybergeneration_declines_a_move_past_a_held_action() -> None:
    """An enemy holding its action for a move shoots at the mover (seed 004, Your Turn): the
    probe dice roll, so no such move is priced."""
    from tests.cybergeneration_setup import brawler, open_map, play, scen, shooter
    b = play(scen(open_map(8), [brawler("a", (0, 1))], [shooter("s", (6, 1), state={"held_action": "on_move"})]))
    rs, s = b.ruleset, b.state
    assert s.actor.id == "a"
    moves = [m for m in rs.legal_actions(s) if m.kind == "move"]
    assert moves and all(rs.move_price(s, m) is None for m in moves)
    assert any(tried(rs, s, m, A.probe_dice(s, s.actor))[2] > 0 for m in moves)
