"""The table tells figures by name in the rules' own words too: a cortex_hu reaction question read
'Sándor must choose reaction: sandor is attacked by ferenc off its turn' (the structured fields were
named, the rule's text kept the ids). Logs and replays keep the ids (`narrate` without names)."""

from __future__ import annotations

import re

from rules.events import narrate
from tactica.table import Session


def test_a_rules_question_names_the_figures():
    s = Session.new("cortex_hu/csarda", seed=0, npc=["pandurok", "betyarok"])
    s.begin()
    names = {c.id: c.name for c in s.state.combatants}
    texts = []
    for _ in range(300):
        if s.state.over:
            break
        p = s.plan()
        evs = s.resolve(p.action, by="npc")
        texts += [e for e in evs if e.get("type") in ("question", "info") and e.get("text")]
        if any(e["type"] == "question" for e in texts):
            break
    q = next(e for e in texts if e["type"] == "question")
    assert q["actor"] in q["text"]                     # the event keeps the id
    told = narrate(q, names)
    for cid, name in names.items():
        if name.lower() != cid:
            assert not re.search(rf"(?<![\w-]){re.escape(cid)}(?![\w-])", told), told
    assert names[q["actor"]] in told
    assert narrate(q) .count(q["actor"]) >= 2          # without names: the ids, as logs keep them


def test_ids_inside_longer_words_are_left_alone():
    e = {"type": "info", "text": "goon1's knife_goon1 and goon10 stay; goon1 moves"}
    assert narrate(e, {"goon1": "Goon 1", "goon10": "Goon 10"}) == "Goon 1's knife_goon1 and Goon 10 stay; Goon 1 moves"


def test_one_round_is_a_round():
    assert narrate({"type": "battle_end", "rounds": 1, "winner": "cell"}) == "The battle ends after 1 round: cell win."
    assert narrate({"type": "battle_end", "rounds": 3, "winner": None, "reason": "GM"}).startswith(
        "The battle ends after 3 rounds: draw")


def test_an_initiative_tie_break_reads_as_words():
    """metalface's tie-break roll read 'Vex rolls initiative tie (AGL 3)'; the event keeps its purpose."""
    s = Session.new("metalface/foundry", seed=0)
    s.begin()
    ties = [e for e in s.battle.events if e.get("type") == "roll" and e.get("purpose") == "initiative tie"]
    assert ties      # every figure of foundry has AGL 3: all tie
    line = narrate(ties[0], {c.id: c.name for c in s.state.combatants})
    assert " rolls to break an initiative tie (AGL 3): " in line and "kept" in line, line


def test_a_condition_reads_as_words():
    """The table read 'Jinx is now non_responsive.' (metalface/foundry): the condition's key is told as words;
    the event keeps the key."""
    e = {"type": "condition", "target": "jinx", "condition": "non_responsive", "on": True}
    assert narrate(e, {"jinx": "Jinx"}) == "Jinx is now non responsive."
    assert narrate({**e, "condition": "knocked_out", "on": False}, {"jinx": "Jinx"}) == "Jinx is no longer knocked out."
    assert e["condition"] == "non_responsive"
