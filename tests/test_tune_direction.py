"""The tuner steps counts and trait steps only toward the target (`evaluation.knobs.knob_sign`).

Tuning cybergeneration/rooftop_standoff (PC win 11% as written) to 40% on 100 fights a
candidate, the first step the tuner kept was the foes' Reflexes UP ("step muscle ref: 0 -> 1",
11.0% -> 14.0% on the same dice): a step that makes the fight harder looked nearer the target on
the dice alone, and a round was spent undoing it. Assumption: another figure of a team, or a step
up of its figures' traits, never makes that team weaker; such knobs are stepped only toward the
target. Weapons, distances and cover are still tried both ways.
"""

from __future__ import annotations

from evaluation.knobs import CountKnob, StepKnob, WeaponKnob, default_knobs, knob_label, knob_sign
from evaluation.tune_search import search_round
from rules.scenario import parse_scenario, resolve_scenario


def _spec(name: str):
    doc, src = resolve_scenario(name)
    return doc, parse_scenario(doc, src), src


def test_derived_knobs_of_the_foes_help_the_foes_and_a_pc_knob_helps_the_pcs():
    doc, spec, src = _spec("cybergeneration/rooftop_standoff")
    knobs = default_knobs(doc, spec, src)
    labels = {knob_label(k): knob_sign(k, spec, "juves", src) for k in knobs}
    assert labels == {"count muscle/solo": -1, "step muscle ref": -1, "step muscle body": -1}, labels
    pc_step = StepKnob(kind="trait_step", team="juves", attribute="ref", min=-1, max=1)
    one_pc = StepKnob(kind="trait_step", figure="dart", attribute="ref", min=-1, max=1)
    one_foe = StepKnob(kind="trait_step", figure="solo", attribute="ref", min=-1, max=1)
    more_pcs = CountKnob(kind="count", team="juves", template="juve", min=1, max=4)
    assert knob_sign(pc_step, spec, "juves", src) == 1 and knob_sign(one_pc, spec, "juves", src) == 1
    assert knob_sign(one_foe, spec, "juves", src) == -1 and knob_sign(more_pcs, spec, "juves", src) == 1
    weapon = WeaponKnob(kind="weapon", figure="solo", choices=["a", "b"])
    assert knob_sign(weapon, spec, "juves", src) == 0


def _eval(rates: dict, calls: list):
    def evaluate(values, label):
        calls.append(values)
        return {"win_rate": rates[values], "ci_low": 0.0, "ci_high": 1.0, "episodes": 100}
    return evaluate


def test_a_step_away_from_the_target_is_not_tried_even_when_the_dice_favour_it():
    """Knob 0 is a foe count (-1: up is harder for the PCs), knob 1 a weapon (0: unknown). The
    PCs win 11% against a 40% target; on these dice a foe MORE looks nearer (14%), a foe fewer
    gives 13%. Both ways, the search keeps the wrong step; directed, it never plays it."""
    rates = {(2, 0): 0.11, (3, 0): 0.14, (1, 0): 0.13, (2, 1): 0.10,
             (0, 0): 0.38, (1, 1): 0.12, (4, 0): 0.20, (3, 1): 0.12, (2, -1): 0.09}
    ranges = [(0, 4), (0, 1)]
    word = lambda i, a, b: f"{i}: {a} -> {b}"            # noqa: E731
    both = search_round(_eval(rates, []), (2, 0), ranges, word, 0.4, 0.05, 1, rnd=1, start_label="as written")
    assert both.values == (3, 0)                          # the noise won
    calls: list = []
    directed = search_round(_eval(rates, calls), (2, 0), ranges, word, 0.4, 0.05, 2, rnd=1,
                            start_label="as written", signs=[-1, 0])
    assert (3, 0) not in calls and (2, 1) in calls        # the weapon is still tried
    assert directed.values == (0, 0)                      # two foes fewer: 38%, inside the band
