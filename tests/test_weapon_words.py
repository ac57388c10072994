"""A GM reads weapons, armour, answers and uses as words, not as the data's keys.

Watching the autopilot (cortex/saloon, seed 11): "Zoe's plan (tactical): attack Drunk with the unarmed",
"Marksman fires at Zoe with the sniper_rifle", "Pool Shark's plan (best): choose (bypass armour)" while its
reasons said "answer extraordinary hit: bypass_armour", and the question "(bypass_armour / special_effect)".
The commands in brackets, the events and the logs keep the keys; what is told reads as words, and what is told
can be typed back (`choose bypass armour`).
"""

from __future__ import annotations

from agents import reasons
from rules.actions import Action, weapon_phrase, weapon_words
from rules.events import event, narrate
from rules.narration import keys_told
from tactica.table import command_for, parse_command
from tactica.table.words import describe_action
from tests.cortex_seed000_setup import _ko_scene, act, atk, play


def test_a_weapons_key_is_told_as_words_and_the_bare_hand_as_unarmed() -> None:
    assert weapon_words("sniper_rifle") == "sniper rifle"
    assert weapon_phrase("attack", "sniper_rifle") == "with the sniper rifle"
    assert weapon_phrase("reload", "heavy_pistol") == "the heavy pistol"
    assert weapon_phrase("attack", "unarmed") == "unarmed"    # not "with the unarmed"
    names = {"zoe": "Zoe", "drunk": "Drunk", "m": "Marksman"}
    assert narrate(event("attack", actor="zoe", target="drunk", weapon="unarmed", result="hit", margin=1),
                   names) == "Zoe attacks Drunk unarmed: hit by 1."
    assert narrate(event("attack", actor="m", target="zoe", weapon="sniper_rifle", result="hit", margin=4),
                   names) == "Marksman attacks Zoe with the sniper rifle: hit by 4."
    assert narrate(event("reload", actor="zoe", weapon="heavy_pistol"), names) == "Zoe reloads the heavy pistol."
    roll = event("roll", actor="zoe", purpose="attack with unarmed", pool="shepherds_axe d4", dice=[[4, 2]], total=2)
    assert narrate(roll, names).startswith("Zoe rolls attack unarmed (shepherds axe d4): 2(d4) = 2")
    called = event("roll", actor="zoe", purpose="attack with heavy_pistol (called:head)", dice=[[10, 7]], total=7)
    assert narrate(called, names).startswith("Zoe rolls attack with heavy pistol (called head): 7(d10) = 7")


def test_a_figures_id_in_a_told_line_stays_as_it_is() -> None:
    """Only the data's keys turn to words: a figure whose id has an underscore keeps it."""
    e = event("effect", target="big_guy", effect="the beam_rifle is charged; big_guy flinches")
    assert narrate(e) == "big_guy: the beam rifle is charged; big_guy flinches."
    assert keys_told("pool_stick breaks on 2 or less") == "pool stick breaks on 2 or less"
    assert keys_told("big_guy's frag_grenade", keep={"big_guy"}) == "big_guy's frag grenade"


def test_the_event_keeps_the_key() -> None:
    """The log is the rules' record: the weapon stays "unarmed", the answer "bypass_armour"."""
    s = _ko_scene(str_="d12", armour="tactical_vest")
    hit = atk("p", "t", "unarmed", dice=[12, 6])         # 18 vs Easy 3: extraordinary
    b = play(s, [hit, act("p", "choose", option="bypass_armour", dice=[2])], questions="ask")
    assert next(e for e in b.events if e["type"] == "attack")["weapon"] == "unarmed"
    assert next(e for e in b.events if e["type"] == "choice")["choice"] == "bypass_armour"
    assert any(narrate(e).startswith("p attacks t unarmed: extraordinary hit by ") for e in b.events)
    q = next(e for e in b.events if e["type"] == "question")
    assert q["options"] == ["bypass_armour", "special_effect"]
    # seed 000, Extraordinary Success in Combat: "the attacker may choose to bypass the victim's body armor
    # instead of inflicting a special effect": the GM reads the choice as words
    assert narrate(q).endswith("(bypass armour / special effect)")


def test_an_answer_is_headlined_as_its_reasons_tell_it_and_typed_as_told() -> None:
    """The plan's headline said "choose (bypass armour)", its reasons "answer extraordinary hit:
    bypass_armour": both now say "answer extraordinary hit: bypass armour", and the GM may type the
    answer as the question told it."""
    s = _ko_scene(str_="d12", armour="tactical_vest")
    b = play(s, [atk("p", "t", "unarmed", dice=[12, 6])], questions="ask")
    state, legal = b.state, b.legal_actions()
    bypass = Action("choose", option="bypass_armour")
    assert bypass in legal
    assert describe_action(state, bypass) == reasons.label(state, bypass) == "answer extraordinary hit: bypass armour"
    assert command_for(state, bypass) == "choose bypass_armour"
    assert parse_command("choose bypass armour", state, legal).action == bypass
    assert parse_command("choose special effect", state, legal).action == Action("choose", option="special_effect")


def test_a_use_is_told_as_what_it_does() -> None:
    """"Jayne uses plot points:1" (the API's suggestion at cortex/saloon) and "use (plot points 1)" in the list:
    a `use` reads as what it does. seed 000: "any Plot Points spent on actions ..." - `pp N` spends them on
    the figure's next roll (tactica/table/helptext.py)."""
    from agents.base import make_policy
    from rules.actions import use_words
    from tactica.table import Session

    assert use_words("plot_points:1") == "spend 1 Plot Point on the next roll"
    assert use_words("plot_points:3", third=True) == "spends 3 Plot Points on the next roll"
    assert use_words("shield") == "switch the shield on"
    assert use_words("thrust") == "use (thrust)"           # no words of its own: the option as words
    s = Session.new("cortex/saloon", seed=3, confirm=False)
    s.begin()
    state, legal = s.state, s.legal()
    pp = Action("use", option="plot_points:2")
    assert pp in legal
    assert describe_action(state, pp) == reasons.label(state, pp) == "spend 2 Plot Points on the next roll"
    assert command_for(state, pp) == "pp 2"
    told = {c.action: c.reason for c in make_policy("tactical", 0).rank(state, state.actor, legal)}
    assert told[Action("use", option="plot_points:1")] == "spends 1 Plot Point on the next roll"


def test_a_modifiers_trait_or_item_is_told_as_words() -> None:
    """"sergeant rolls initiative (...; tactical_vest: agility stepped down once)" (cortex/ambush): the armour's,
    the trait's and the improvised weapon's keys in a roll's modifiers read as words; the event keeps them."""
    e = event("roll", actor="stick", purpose="attack with pool_stick", check="attack", pool="Strength d8",
              dice=[[8, 4]], total=4, modifiers=[{"source": "improvised weapon pool_stick (skill)", "value": -1},
                                                 {"source": "glass_jaw (vitality)", "value": -2}])
    line = narrate(e)
    assert "improvised weapon pool stick: skill stepped down once" in line
    assert "glass jaw: vitality stepped down twice" in line and "_" not in line
    assert e["modifiers"][0]["source"] == "improvised weapon pool_stick (skill)"


def test_a_roll_left_with_no_dice_says_so() -> None:
    """seed 000's blast dice less cover and prone can leave none: "no dice to roll = 0"."""
    e = event("roll", actor="zoe", purpose="blast damage", pool="0d6", dice=[], total=0)
    assert narrate(e) == "zoe rolls blast damage (0d6): no dice to roll = 0"


def test_a_weapon_is_typed_as_the_lines_tell_it() -> None:
    """The plan says "attack Zoe with the sniper rifle": `attack zoe sniper rifle` is that action, as is the key."""
    from tactica.table import Session

    s = Session.new("cortex/ambush", seed=11, confirm=False)
    s.begin()
    state, legal = s.state, s.legal()
    shot = Action("attack", target="zoe", weapon="sniper_rifle")
    assert shot in legal
    assert describe_action(state, shot, with_odds=False) == "attack Zoe with the sniper rifle"
    assert parse_command("attack zoe sniper rifle", state, legal).action == shot
    assert parse_command("attack zoe sniper_rifle", state, legal).action == shot


def test_an_effect_that_is_what_its_figure_does_reads_as_a_sentence() -> None:
    """"Kestrel: turns east.", "Gyula: is knocked out and misses the turn." (metalface/rooftop, cortex_hu/magtar):
    an effect that is the figure's own doing reads "Kestrel turns east."; one that is not keeps its colon."""
    names = {"kestrel": "Kestrel", "jayne": "Jayne"}
    assert narrate(event("effect", target="kestrel", effect="turns east"), names) == "Kestrel turns east."
    assert narrate(event("effect", target="kestrel", effect="is knocked out and misses the turn"),
                   names) == "Kestrel is knocked out and misses the turn."
    assert narrate(event("effect", target="kestrel", effect="unpacks the rocket_launcher"),
                   names) == "Kestrel unpacks the rocket launcher."
    assert narrate(event("effect", target="jayne", effect="the attack bypasses armour"),
                   names) == "Jayne: the attack bypasses armour."
    assert narrate(event("effect", target="jayne", effect="stun modifier -2 (now -2)"),
                   names) == "Jayne: stun modifier -2 (now -2)."


def test_a_figure_named_in_an_effect_is_told_by_its_name() -> None:
    """"Static delays the rest of its turn until after static", "... after guard2": the table names figures."""
    names = {"a": "Anna", "guard2": "Guard 2", "red3": "Red Three"}
    assert narrate(event("effect", target="a", effect="chooses to act later, after guard2"),
                   names) == "Anna chooses to act later, after Guard 2."
    assert narrate(event("effect", target="a", effect="moves through red3's suppression line"),
                   names) == "Anna moves through Red Three's suppression line."


def test_a_rolls_purpose_reads_after_rolls() -> None:
    """"stick rolls pool_stick breaks on 5 or less", "Gyula rolls turns knocked out": the words after "rolls" say
    what is rolled for."""
    brk = event("roll", actor="stick", purpose="pool_stick breaks on 5 or less", pool="d100", dice=[[100, 3]], total=3)
    assert narrate(brk).startswith("stick rolls whether the pool stick breaks (5 or less) (d100): 3(d100) = 3")
    ko = event("roll", actor="gyula", purpose="turns knocked out", dice=[[4, 3]], total=3)
    assert narrate(ko) == "gyula rolls for the turns knocked out: 3(d4) = 3"
    # seed 000, Krav Maga: "an assault rifle may be used to add d6B damage to an Unarmed attack"
    kick = event("roll", actor="zoe", purpose="assault rifle (Krav Maga) Basic", dice=[[6, 4]], total=4)
    assert narrate(kick) == "zoe rolls the assault rifle's added Basic damage (Krav Maga): 4(d6) = 4"


def test_a_questions_words_tell_keys_as_words() -> None:
    """seed 000, Getting out of Harm's Way: "the frag_grenade explodes at ..." in the question a GM answers."""
    q = event("question", actor="wash", key="harms_way", options=["leap", "stay"],
              text="the frag_grenade explodes at (5, 3), 1.5 m from wash: leap out of harm's way or stay?")
    line = narrate(q, {"wash": "Wash"})
    assert "the frag grenade explodes at (5, 3), 1.5 m from Wash: leap" in line and "_" not in line
    assert line.startswith("Wash must choose harm's way: ")     # seed 000: "Getting out of Harm's Way"
