"""Issue #33, "NPCs that show their numbers": "Roll lines and prompts show every modifier:
'Agility d10 + Guns d8 (d10, stepped down twice: wounds) vs 9 + 8 (medium cover) = 17';
metalface shows the kept die and the modifiers; damage is told in each ruleset's own track
(metalface has Status, not Stun and Wound)."

Forced-dice replays (the helpers of each ruleset's rules tests); each line is checked whole,
so a modifier the event carries and the line leaves out fails the test.
"""

from __future__ import annotations

from rules.events import narrate
from rules.narration import roll_family
from tests import cortex_rules_setup as C
from tests import cybergeneration_setup as Y
from tests import metalface_setup as M


def lines(b, *types: str) -> list[str]:
    return [narrate(e) for e in b.events if e["type"] in types]


# -- cortex (seed 000) ------------------------------------------------------------------------
def test_cortex_attack_names_the_wound_steps_and_the_defence_the_cover():
    """seed 000, Defense, Ranged Combat: cover grants +8 (medium) to innate defence; assumption
    wounded_penalty: 5 Wound of 10 Life Points costs Agility two steps (d10 -> d6)."""
    rows = ["." * 12, "." * 5 + "m" + "." * 6, "." * 12]
    axeman = C.fig("x", (6, 1), str_="d8", skills={"melee_weapons": "d6"}, weapons=("axe",),
                   decline_innate="always", life_points=99)
    g = C.gunslinger("g", (7, 1), decline_innate="always", life_points=10)
    # axe 3 + 3 = 6 vs Easy 3: margin 3 -> 2 S 1 W, + axe d6 shows 4 W; then the wounded
    # gunslinger (Agility d6) shoots back at x
    b = C.play(C.scen(C.open_map(), [axeman], [g]),
               [C.attack("x", "g", "axe", [3, 3, 4]), C.end("x"), C.attack("g", "x", "revolver", [1, 2, 1])])
    assert lines(b, "roll", "defence", "damage") == [
        "x rolls attack with axe (Strength d8 + Melee Weapons/Axes d6): 3(d8)+3(d6) = 6 vs 3"
        " (declined innate defence 3)",
        "g defends by declined innate: Difficulty 3 (no cover).",
        "x rolls damage (W) (axe d6): 4(d6) = 4",
        "g takes 2 Stun and 5 Wound.",
        "g rolls attack with revolver (Agility d6 + Guns/Pistols d10; wounded: agility stepped down"
        " twice): 1(d6)+2(d10) = 3 vs 3 (declined innate defence 3)",
        "x defends by declined innate: Difficulty 3 (no cover).",
        "g rolls damage (W) (revolver d8): 1(d8) = 1",
        "x takes 0 Stun and 1 Wound."]
    b = C.play(C.scen(rows, [C.fig("D", (6, 1), agi="d6", life_points=99)], [C.gunslinger("g", (0, 1))]),
               [C.end("D"), C.attack("g", "D", "revolver", [1, 1, 2])])
    assert "D defends by innate: Difficulty 10 (2 + 8 cover)." in lines(b, "defence")
    # the attack's own line gives its target's parts: the "vs 9 + 8 (medium cover)"
    assert any("= 2 vs 10 (innate defence 2 + medium cover 8)" in ln for ln in lines(b, "roll"))


def test_cortex_step_modifiers_are_told_as_steps_on_their_die():
    """seed 000: a second attack in a turn steps the skill die down (multiple actions); a burst
    steps it up; plot points add a bonus die (docs/cortex.md, rules/systems/cortex/modifiers.py)."""
    e = {"type": "roll", "actor": "bandit1", "purpose": "attack with smg (burst)", "check": "attack",
         "modifiers": [{"source": "multiple actions (skill)", "value": -1},
                       {"source": "burst (skill)", "value": 1},
                       {"source": "plot points (bonus die)", "value": 2}],
         "pool": "Agility d8 + Guns/Submachine Guns d8 + Plot Points d4",
         "dice": [[8, 3], [8, 5], [4, 2]], "total": 10, "difficulty": 6, "round": 2, "step": 15}
    assert roll_family(e) == "steps"
    assert narrate(e) == ("bandit1 rolls attack with smg (burst) (Agility d8 + Guns/Submachine Guns d8"
                          " + Plot Points d4; multiple actions: skill stepped down once; burst: skill"
                          " stepped up once; plot points: +d4 bonus die): 3(d8)+5(d8)+2(d4) = 10 vs 6")


def test_cortex_hu_action_die_steps_and_their_sum():
    """seed 002 (rules/systems/cortex_hu/rolls.py): modifiers on the action die add up to the
    roll's `steps`; a called shot steps the damage die of the damage roll."""
    e = {"type": "roll", "actor": "lajos", "purpose": "feint", "pool": "Alertness d8 + Melee Weapons/Swords d4",
         "dice": [[8, 1], [4, 4]], "total": 5, "steps": -3, "check": "feint",
         "modifiers": [{"source": "multiple actions", "value": -1}, {"source": "running", "value": -2}],
         "difficulty": 7, "success": False, "round": 1, "step": 16}
    assert narrate(e) == ("lajos rolls feint (Alertness d8 + Melee Weapons/Swords d4; multiple actions:"
                          " action die stepped down once; running: action die stepped down twice;"
                          " action die -3 steps in all): 1(d8)+4(d4) = 5 vs 7 - failure")
    d = {"type": "roll", "actor": "pista", "purpose": "damage (S)", "pool": "unarmed d6", "dice": [[6, 2]],
         "total": 2, "check": "damage", "modifiers": [{"source": "called shot (leg)", "value": 2}],
         "round": 3, "step": 64}
    assert narrate(d) == ("pista rolls damage (S) (unarmed d6; called shot (leg): damage die stepped up"
                          " twice): 2(d6) = 2")


# -- metalface (seed 003) ---------------------------------------------------------------------
def test_metalface_targeting_marks_the_kept_die_and_adds_each_modifier():
    """seed 003, Targeting: roll PER dice, keep the highest, add skill and the range/movement
    modifiers against 8; damage comes off Status (Status 10 + 5 x END = 20)."""
    b = M.play(M.scen(M.open_map(), [M.shooter()], [M.dummy()]), [M.attack("s", "t", "pistol", [4, 6, 2])])
    assert lines(b, "roll", "damage") == [
        "s rolls targeting (PER 3): 4 [6] 2 (kept 6) +1 skill +1 range +1 attacker +1 target = 10 vs 8"
        " (short range, attacker stationary, target stationary, no cover)",
        "t loses 5 Status (15 of 20 left)."]


def test_metalface_fewer_dice_are_named():
    """seed 003: a lying target is partial cover, one die fewer; Suffering is -2 to mind values
    (PER 3 -> 1: test_metalface_seed_words's prone and suffering figure)."""
    t = M.dummy(at=(5, 1), per=3, skills={"firearms": 0}, weapons=("pistol",), conditions=["prone", "suffering"])
    b = M.play(M.scen(M.open_map(), [M.shooter()], [t]), [M.attack("s", "t", "pistol", [6, 1])])
    line = lines(b, "roll")[0]
    assert line.startswith("s rolls targeting (PER 3 -1d; partial cover (lying) -1d): [6] 1 (kept 6)"), line
    assert line.endswith("partial cover: lying)"), line
    assert "Stun" not in " ".join(lines(b, "damage"))


# -- cybergeneration (seed 004) ---------------------------------------------------------------
def test_cybergeneration_two_actions_minus_five_and_the_difficulty_parts():
    """seed 004, Your Turn: 'perform 2 actions (eg. shoot twice), with both at -5 to all skill
    rolls'; the range Difficulty (15) is the target number's part."""
    s = Y.scen(Y.open_map(14), [Y.shooter(weapon="revolver")], [Y.fig("t", (4, 1))])
    b = Y.play(s, [Y.act("s", "use", option="two_actions"), Y.attack("s", "t", "revolver", [2])])
    assert lines(b, "roll") == [
        "s rolls attack with revolver (REF 6 + handgun 4 - 5 two actions + 1d10): 2(d10) = 7 vs 15 (range 15)"]


def test_cybergeneration_modifiers_not_in_the_pool_are_listed_and_wounds_told_with_armour():
    """seed 004, Armour: SP stops that many points; the damage is Wounds (no Stun track)."""
    e = {"type": "roll", "actor": "solo", "purpose": "attack with smg", "check": "attack",
         "modifiers": [{"source": "aimed", "value": 2}], "dice": [[10, 7]], "total": 23,
         "pool": "REF 7 + smg 7 + 1d10", "difficulty": 19, "range": 15, "cover": 4, "dodge": 0,
         "round": 6, "step": 45}
    assert roll_family(e) == "points"
    assert narrate(e) == ("solo rolls attack with smg (REF 7 + smg 7 + 1d10; aimed +2): 7(d10) = 23"
                          " vs 19 (range 15 + cover 4)")
    d = {"type": "damage", "target": "dart", "stun": 0, "wound": 1, "raw": 2, "source": "unarmed", "absorbed": 1,
         "armour": "armoured_clothing", "sp": 2, "round": 19, "step": 380}
    assert narrate(d) == "dart takes 1 Wound (2 rolled, armoured clothing SP 2 stopped 1)."


def test_difficulty_parts_when_an_event_carries_them():
    """The issue's '... vs 9 + 8 (medium cover) = 17': a roll that carries `difficulty_parts`
    is told with them, in any ruleset."""
    e = {"type": "roll", "actor": "mal", "purpose": "attack with revolver", "check": "attack", "modifiers": [],
         "pool": "Agility d10 + Guns d8", "dice": [[10, 9], [8, 8]], "total": 17, "difficulty": 17,
         "difficulty_parts": [{"source": "innate defence", "value": 9}, {"source": "medium cover", "value": 8}],
         "round": 1, "step": 1}
    assert narrate(e).endswith("= 17 vs 17 (innate defence 9 + medium cover 8)")


def test_the_table_tells_figures_by_name_and_cells_as_the_map_writes_them():
    """The autopilot's plans say "Goon 1 attacks Rust" and "move to [6, 6]"; its narration said "goon1
    attacks rust" and "to (6, 6)". With the table's names the lines name figures as the plans do; without
    them (logs, replays) they keep the ids the events hold."""
    from rules.events import event, narrate

    names = {"goon1": "Goon 1", "rust": "Rust"}
    move = event("move", actor="rust", **{"from": [9, 2]}, to=[6, 6], metres=8.2, mode="run")
    assert narrate(move) == "rust runs 8.2 m to [6, 6]."
    assert narrate(move, names) == "Rust runs 8.2 m to [6, 6]."
    hit = event("attack", actor="goon1", target="rust", weapon="stun_baton", result="hit")
    assert narrate(hit, names).startswith("Goon 1 attacks Rust with the stun baton")
    assert narrate(event("initiative", order=["rust", "goon1"]), names) == "Initiative: Rust, Goon 1"
    placed = event("override", kind="place", figure="rust", before=[0, 1], after=[4, 0])
    assert narrate(placed, names) == "GM: Rust is placed at [4, 0] (from [0, 1])."
    assert narrate(hit, {"someone": "else"}) == narrate(hit)   # an id the map lacks stays as it is


def test_plot_points_against_damage_read_as_what_the_figure_does():
    """seed 000's Plot Points spent against damage: the line says "Zoe spends 3 Plot Points against
    damage (...)", not "Zoe rolls spends ..." (seen at the table, cortex/saloon); the GM's own dice
    prompt likewise."""
    from tactica.table.dice import DiceRequest

    e = {"type": "roll", "actor": "zoe", "purpose": "spends 3 Plot Points against damage",
         "check": "plot_points_against_damage", "modifiers": [], "pool": "d6", "dice": [[6, 2]], "total": 2,
         "round": 1, "step": 1}
    assert narrate(e) == "zoe spends 3 Plot Points against damage (d6): 2(d6) = 2"
    ask = DiceRequest("Zoe", "spends 3 Plot Points against damage", "d6", [6], "", "plot points")
    assert ask.text() == "Zoe spends 3 Plot Points against damage: d6 - enter 1 die (d6), or r to roll"
    tie = {**e, "purpose": "initiative tie", "check": "initiative"}
    assert narrate(tie).startswith("zoe rolls to break an initiative tie")
