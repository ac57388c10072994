"""Dice streams per seat or per figure (rules.dice.StreamDice; issue 31, (c): "once two
players' decisions diverge, one shared stream falls out of step, so try dice streams per
seat or per figure").

- each roll comes from the stream of the figure that rolls it (the last announced call's
  roller): one seat's dice stay the same however many dice the other seat rolls between;
- nobody's rolls and unknown figures use the table's stream; `figure` keys every figure apart;
- forced results still come first and use up no stream; state saves and restores;
- in whole fights: `shared` is the plain one-stream fight, the other modes change the dice,
  and two copies of one player tie pair by pair under every mode (tests/test_evaluate_seeds.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.simulate import play_fight
from evaluation.tournament import load_scenarios, round_robin
from rules.calls import RollCall
from rules.dice import StreamDice, stream_keys
from rules.errors import TacticaError
from rules.scenario import load_scenario

ROOT = np.random.SeedSequence(1234)
SEAT = stream_keys([["a1", "a2"], ["b1"]], "seat")


def call(roller: str | None) -> RollCall:
    return RollCall(roller=roller, purpose="test", check="test", pool="d6", sides=(6,))


def rolls(d: StreamDice, script: list[tuple[str | None, int]]) -> dict[str | None, list[int]]:
    """Roll `n` d6 for each (roller, n) in turn; the faces by roller."""
    out: dict[str | None, list[int]] = {}
    for who, n in script:
        d.announce(call(who))
        out.setdefault(who, []).extend(d.roll(6) for _ in range(n))
    return out


def stream(i: int, n: int, batch: int = StreamDice.batch) -> list[int]:
    """The first n d6 faces of stream i of ROOT, drawn as Dice draws them."""
    rng = np.random.default_rng(np.random.SeedSequence(ROOT.entropy, spawn_key=(i,)))
    u = rng.random(batch).tolist()
    return [int(x * 6) + 1 for x in u[:n]]


def test_a_seats_dice_do_not_shift_when_the_other_seat_rolls_more() -> None:
    short = rolls(StreamDice(ROOT, SEAT), [("a1", 3), ("b1", 1), ("a2", 2), ("b1", 1), ("a1", 1)])
    long = rolls(StreamDice(ROOT, SEAT), [("a1", 3), ("b1", 4), ("a2", 2), ("b1", 7), ("a1", 1)])
    seat0 = stream(0, 6)
    assert short["a1"] + short["a2"] == long["a1"] + long["a2"] != []
    assert short["a1"] == seat0[:3] + seat0[5:6] and short["a2"] == seat0[3:5]
    assert long["b1"][:1] == short["b1"][:1] == stream(1, 1)


def test_nobody_and_unknown_figures_roll_the_tables_stream_and_figures_stream_apart() -> None:
    got = rolls(StreamDice(ROOT, SEAT), [(None, 2), ("stranger", 2)])
    assert got[None] + got["stranger"] == stream(2, 4)
    fig = stream_keys([["a1", "a2"], ["b1"]], "figure")
    got = rolls(StreamDice(ROOT, fig), [("a1", 2), ("a2", 2), ("b1", 2)])
    assert (got["a1"], got["a2"], got["b1"]) == (stream(0, 2), stream(1, 2), stream(2, 2))
    assert stream_keys([["a1"], ["b1"]], "shared") is None
    with pytest.raises(TacticaError, match="--dice-streams"):
        stream_keys([], "seats")


def test_forced_results_come_first_and_use_no_stream() -> None:
    d = StreamDice(ROOT, SEAT)
    d.force([4])
    got = rolls(d, [("a1", 3)])
    assert got["a1"] == [4] + stream(0, 2)


def test_state_round_trip() -> None:
    d = StreamDice(ROOT, SEAT)
    rolls(d, [("a1", 2), ("b1", 3)])
    saved = d.get_state()
    script = [("b1", 2), ("a2", 3), (None, 1), ("a1", 2)]
    first = rolls(d, script)
    d.set_state(saved)
    assert rolls(d, script) == first
    fresh = StreamDice(ROOT, SEAT)
    fresh.set_state(saved)
    assert rolls(fresh, script) == first


def test_whole_fights_shared_is_the_plain_fight_and_streams_change_the_dice() -> None:
    spec, src = load_scenario("cortex/warehouse")
    pols = {t.name: "tactical" for t in spec.teams}
    def key(mode: str) -> list[tuple]:
        return [(r.winner, r.rounds, r.actions, tuple(sorted(r.damage_taken.items())))
                for r in (play_fight(spec, pols, 5, k, src, dice_streams=mode) for k in range(3))]
    plain = [(r.winner, r.rounds, r.actions, tuple(sorted(r.damage_taken.items())))
             for r in (play_fight(spec, pols, 5, k, src) for k in range(3))]
    assert key("shared") == plain
    assert key("seat") != plain and key("figure") != plain and key("seat") != key("figure")
    assert key("seat") == key("seat")


def test_an_unknown_mode_fails_before_any_fight() -> None:
    with pytest.raises(TacticaError, match="shared, seat or figure"):
        round_robin(load_scenarios(["cortex/duel"]), ["random", "aggressive"], 2, 0, dice_streams="team")
