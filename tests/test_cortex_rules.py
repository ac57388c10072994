"""Rule tests for the `cortex` ruleset (seed 000 on Cortex Classic), with forced dice.

Every test drives the engine through `rules.replay.run_replay` with an inline scenario
(`initiative: fixed` unless the test is about initiative), so each step's `dice` list is
exactly the rolls that step makes, in the data.yaml `roll_order`: attack dice (attribute
die, then skill die), the defence roll, the damage die, then any Endurance roll. Replay
steps are strict: a step that rolls more dice than given, or fewer, is a `DiceError`, so
the dice lists themselves pin down which rolls happen.

Sources cited in docstrings: "seed 000, <heading>" is /work/shared/seeds/000_*.txt,
"RULES-NOTES cortex" is the cortex section of RULES-NOTES.md, and "assumption <key>" is
an entry of the `assumptions` list in rules/systems/cortex/data.yaml.

Geometry used throughout: cells are 1.5 m (about 5 ft), so walking 15 ft is 3 cells,
hustling 30 ft is 6 cells and running 45 ft is 9 cells; a diagonal step costs 1.5 cells.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rules.actions import Action
from rules.dice import D0, D2, D4, D6, D8, D10, D12, Dice, Step, roll_steps
from rules.errors import DiceError, IllegalActionError
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from rules.systems.cortex.model import make_pool

REPLAYS = Path(__file__).parent / "replays"
CORTEX_REPLAYS = REPLAYS / "cortex"


# ---------------------------------------------------------------------------------------
# helpers: stat blocks, scenarios, steps, event lookups

def fig(id: str, at: tuple[int, int], agi: str = "d6", str_: str = "d6", vit: str = "d6",
        ale: str = "d6", int_: str = "d6", wil: str = "d6", skills: dict | None = None,
        weapons: tuple[str, ...] = (), **extra: Any) -> dict:
    """A full custom stat block placed at `at`."""
    return {"id": id, "at": list(at), "name": id,
            "attributes": {"agility": agi, "strength": str_, "vitality": vit, "alertness": ale,
                           "intelligence": int_, "willpower": wil},
            "skills": dict(skills or {}), "weapons": list(weapons), **extra}


def dummy(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """A target that always declines innate defence (Easy 3) and has Life Points to spare."""
    kw.setdefault("decline_innate", "always")
    kw.setdefault("life_points", 99)
    return fig(id, at, **kw)


def gunslinger(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """The bestiary gunslinger: Agility d10, Guns/Pistols d10, a revolver (d8 W, 75 ft)."""
    return {"id": id, "at": list(at), "template": "gunslinger", **kw}


def scen(rows: list[str], a: list[dict], b: list[dict], *, initiative: str = "fixed",
         round_limit: int = 20, more_teams: list[list[dict]] = ()) -> dict:
    teams = [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]
    teams += [{"name": f"t{i}", "combatants": c} for i, c in enumerate(more_teams)]
    return {"name": "test/cortex_rules", "ruleset": "cortex", "initiative": initiative,
            "round_limit": round_limit, "map": {"rows": list(rows)}, "teams": teams}


def open_map(w: int = 12, h: int = 3) -> list[str]:
    return ["." * w] * h


def step(actor: str, action: Any, dice: list[int] = ()) -> dict:
    return {"actor": actor, "action": action, "dice": list(dice)}


def attack(actor: str, target: str, weapon: str, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "attack", "target": target, "weapon": weapon}, dice)


def end(actor: str, dice: list[int] = ()) -> dict:
    return step(actor, "end_turn", dice)


def move(actor: str, x: int, y: int, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "move", "cell": [x, y]}, dice)


def defend(actor: str, option: str) -> dict:
    return step(actor, {"type": "defend", "option": option})


def simple(actor: str, kind: str, **kw: Any) -> dict:
    return step(actor, {"type": kind, **kw})


def play(scenario: dict, steps: list[dict] = (), start_dice: list[int] = (), questions: str = "default"):
    """Run a strict replay: start_dice and every step's dice must be used exactly."""
    return run_replay({"scenario": scenario, "start_dice": list(start_dice), "steps": list(steps),
                       "questions": questions})


def evs(b, type_: str, **match: Any) -> list[dict]:
    return [e for e in b.events if e["type"] == type_ and all(e.get(k) == v for k, v in match.items())]


def rolls(b, purpose: str, actor: str | None = None) -> list[dict]:
    return [e for e in b.events if e["type"] == "roll" and e["purpose"].startswith(purpose)
            and (actor is None or e["actor"] == actor)]


def sides(roll_event: dict) -> list[int]:
    return [s for s, _ in roll_event["dice"]]


def who(b, id: str):
    return b.state.by_id[id]


def pos(b, id: str) -> tuple[int, int]:
    return b.state.grid.xy(who(b, id).pos)


def cell(b, x: int, y: int) -> int:
    return b.state.grid.index(x, y)


def legal(b) -> list[Action]:
    return b.legal_actions()


def can_attack(b, target: str, weapon: str) -> bool:
    return Action("attack", target=target, weapon=weapon) in legal(b)


def can_move(b, x: int, y: int) -> bool:
    return Action("move", cell=cell(b, x, y)) in legal(b)


def only(items: list) -> Any:
    assert len(items) == 1, items
    return items[0]


# ---------------------------------------------------------------------------------------
# Attributes for attacking

def test_ranged_attack_rolls_agility_then_skill():
    """seed 000, Attributes for Attacking: Agility is rolled for ranged attacks;
    assumption roll_order: the attribute die comes first, then the skill die."""
    s = scen(open_map(), [fig("shooter", (0, 1), agi="d10", str_="d4", skills={"guns": "d6"},
                              weapons=("pistol",))], [dummy("t", (5, 1))])
    b = play(s, [attack("shooter", "t", "pistol", [5, 3, 2])])
    r = only(rolls(b, "attack"))
    assert r["dice"] == [[10, 5], [6, 3]]
    assert r["pool"].startswith("Agility d10")
    assert r["difficulty"] == 3


@pytest.mark.parametrize("weapon", ["unarmed", "club", "axe", "sword"])
def test_hand_to_hand_attack_rolls_strength(weapon):
    """seed 000, Attributes for Attacking: Strength is rolled for most hand-to-hand attacks."""
    s = scen(open_map(), [fig("brute", (0, 1), agi="d4", str_="d10",
                              skills={"melee_weapons": "d6", "unarmed_combat": "d6"},
                              weapons=() if weapon == "unarmed" else (weapon,))],
             [dummy("t", (1, 1))])
    # 7 + 2 = 9 against Easy 3: margin 6, then the weapon's damage die shows 1
    b = play(s, [attack("brute", "t", weapon, [7, 2, 1])])
    r = only(rolls(b, "attack"))
    assert sides(r) == [10, 6]
    assert r["pool"].startswith("Strength d10")
    assert only(evs(b, "attack"))["margin"] == 6


def test_weapon_table_attack_attributes():
    """seed 000, Attributes for Attacking: every gun uses Agility; most hand-to-hand
    weapons (and bare hands) use Strength."""
    rs = get_ruleset("cortex")
    ranged = [w for w in rs.weapons.values() if w.ranged]
    melee = [w for w in rs.weapons.values() if not w.ranged]
    assert ranged and all(w.attribute == "agility" for w in ranged)
    assert rs.weapons["unarmed"].attribute == "strength"
    assert sum(w.attribute == "strength" for w in melee) > len(melee) / 2


# ---------------------------------------------------------------------------------------
# Initiative

def _init_figs():
    return ([fig("p", (0, 0), agi="d6", ale="d6"), fig("q", (0, 2), agi="d6", ale="d8")],
            [fig("r", (11, 0), agi="d8", ale="d4"), fig("s", (11, 2), agi="d8", ale="d6")])


def test_initiative_agility_plus_alertness_ties_by_agility_then_listing():
    """RULES-NOTES cortex: Initiative is Agility + Alertness (highest total first);
    assumption initiative_ties: ties go to the higher Agility die, then the figure listed
    first in the scenario."""
    a, bt = _init_figs()
    s = scen(open_map(), a, bt, initiative="roll")
    # p: d6+d6 = 12; q: d6+d8 = 8; r: d8+d4 = 8; s: d8+d6 = 8
    b = play(s, start_dice=[6, 6, 4, 4, 4, 4, 5, 3])
    init_rolls = rolls(b, "initiative")
    assert [r["actor"] for r in init_rolls] == ["p", "q", "r", "s"]
    assert [sides(r) for r in init_rolls] == [[6, 6], [6, 8], [8, 4], [8, 6]]
    assert only(evs(b, "initiative"))["order"] == ["p", "r", "s", "q"]
    assert b.state.actor.id == "p"


def test_initiative_is_rolled_again_each_round():
    """RULES-NOTES cortex: Initiative (Agility + Alertness) is rolled each round; a tie
    with equal Agility goes to the figure listed first (assumption initiative_ties)."""
    a, bt = _init_figs()
    s = scen(open_map(), a, bt, initiative="roll")
    b = play(s, [end("p"), end("r"), end("s"),
                 # round 2: p 1+1 = 2, q 6+8 = 14, r 2+2 = 4, s 3+1 = 4
                 end("q", [1, 1, 6, 8, 2, 2, 3, 1])],
             start_dice=[6, 6, 4, 4, 4, 4, 5, 3])
    assert b.state.round == 2
    assert evs(b, "initiative", round=2)[0]["order"] == ["q", "r", "s", "p"]
    assert b.state.actor.id == "q"


# ---------------------------------------------------------------------------------------
# Multiple actions

def test_each_later_attack_steps_the_skill_die_down():
    """assumption multiple_actions: each action after the first in a turn steps the skill
    die down one, cumulatively (d10, d8, d6)."""
    s = scen(open_map(), [gunslinger("g", (0, 1))], [dummy("t", (5, 1))])
    b = play(s, [attack("g", "t", "revolver", [1, 1])] * 3)  # all botches: misses, no damage
    assert [sides(r) for r in rolls(b, "attack")] == [[10, 10], [10, 8], [10, 6]]
    assert b.state.economy["actions"] == 3


def test_step_penalty_spills_onto_attribute_and_stops_below_d2():
    """assumption multiple_actions: the excess steps the attribute die; an action whose
    attribute die would fall below d2 cannot be tried (RULES-NOTES: seed 002's example)."""
    s = scen(open_map(), [fig("w", (0, 1), str_="d4", skills={"unarmed_combat": "d2"})],
             [dummy("t", (1, 1))])
    steps = [attack("w", "t", "unarmed", [1, 1]), attack("w", "t", "unarmed", [1]),
             attack("w", "t", "unarmed", [1])]
    b = play(s, steps)
    assert [sides(r) for r in rolls(b, "attack")] == [[4, 2], [4], [2]]
    assert b.state.economy["actions"] == 3
    assert not can_attack(b, "t", "unarmed")  # would need Strength below d2
    with pytest.raises(IllegalActionError):
        play(s, steps + [attack("w", "t", "unarmed", [1])])


def test_at_most_four_actions_a_turn():
    """assumption multiple_actions / data.yaml max_actions_per_turn: at most 4 actions a
    turn; afterwards only the free walk is left."""
    s = scen(open_map(), [fig("w", (5, 1), str_="d12", skills={"unarmed_combat": "d12"})],
             [dummy("t", (6, 1))])
    steps = [attack("w", "t", "unarmed", [1, 1])] * 4
    b = play(s, steps)
    assert [sides(r) for r in rolls(b, "attack")] == [[12, 12], [12, 10], [12, 8], [12, 6]]
    assert not can_attack(b, "t", "unarmed")
    assert Action("defend", option="block") not in legal(b)
    assert can_move(b, 2, 1)        # 3 cells: a free walk
    assert not can_move(b, 1, 1)    # 4 cells: a hustle would be a fifth action
    with pytest.raises(IllegalActionError):
        play(s, steps + [attack("w", "t", "unarmed", [1, 1])])


# ---------------------------------------------------------------------------------------
# Innate defence

@pytest.mark.parametrize("agi,decline,rolled", [
    ("d6", "auto", 6), ("d2", "auto", None), ("d4", "auto", None),
    ("d4", "never", 4), ("d10", "always", None),
])
def test_innate_defence_free_agility_roll_or_declined_easy(agi, decline, rolled):
    """RULES-NOTES cortex: Innate Defense is a free Agility roll whose total is the
    Difficulty; seed 000, Defense: the defender may decline and be an Easy (3) target;
    assumption innate_decline: declined when the roll averages below 3 (d4 or less),
    unless the stat block says never/always."""
    t = fig("t", (5, 1), agi=agi, decline_innate=decline, life_points=99)
    s = scen(open_map(), [gunslinger("g", (0, 1))], [t])
    # attack 2 + 2 = 4; innate roll 1 when rolled; revolver damage 1
    dice = [2, 2] + ([1] if rolled else []) + [1]
    b = play(s, [attack("g", "t", "revolver", dice)])
    d = only(evs(b, "defence"))
    if rolled:
        assert sides(only(rolls(b, "innate defence"))) == [rolled]
        assert (d["mode"], d["difficulty"]) == ("innate", 1)
    else:
        assert rolls(b, "innate defence") == []
        assert (d["mode"], d["difficulty"]) == ("declined innate", 3)
    # free: the defender's next turn starts with no action spent
    b = play(s, [attack("g", "t", "revolver", dice), end("g")])
    assert b.state.actor.id == "t" and b.state.economy["actions"] == 0


# ---------------------------------------------------------------------------------------
# Defence, Melee Combat: block, dodge, innate

def _melee(att_weapon: str = "sword", defender: dict | None = None, attacker: dict | None = None,
           initiative: str = "fixed", rows: list[str] | None = None):
    """Defender D (Agility d8, Melee Weapons d6, a sword) at (1,1) acts first; attacker A
    (Strength d8, Agility d8, Melee Weapons d6) next to it at (2,1)."""
    d = defender or fig("D", (1, 1), agi="d8", skills={"melee_weapons": "d6", "athletics/dodge": "d6"},
                        weapons=("sword",), life_points=99)
    a = attacker or fig("A", (2, 1), agi="d8", str_="d8", skills={"melee_weapons": "d6"},
                        weapons=() if att_weapon == "unarmed" else (att_weapon,), life_points=99)
    return scen(rows or open_map(6, 3), [d], [a], initiative=initiative)


def test_declaring_block_costs_an_action():
    """assumption defence_stance: block is declared on the figure's own turn as one action;
    seed 000, Defense, Melee Combat."""
    b = play(_melee(), [defend("D", "block")])
    assert b.state.actor.id == "D"
    assert b.state.economy["actions"] == 1
    assert only(evs(b, "stance"))["stance"] == "block"


def test_block_answers_every_attack_until_the_defenders_next_turn():
    """seed 000, Defense, Melee Combat: a target can block hand-to-hand attacks;
    assumption defence_stance: the stance answers every attack of its kind until the
    figure's next turn, each further roll one step lower; assumption block_attribute:
    Agility + the blocking weapon's skill."""
    b = play(_melee(), [
        defend("D", "block"), end("D"),
        attack("A", "D", "sword", [3, 3, 4, 4]),   # 6 against block d8+d6 = 8: miss
        attack("A", "D", "sword", [2, 2, 4, 4]),   # second action d8+d4 = 4 against block d8+d4 = 8
        end("A"),
        end("D"),                                   # round 2: D's turn ends the stance
        attack("A", "D", "sword", [3, 3, 2, 1]),   # innate 2: hit by 4, sword d4 shows 1
    ])
    blocks = rolls(b, "block", actor="D")
    assert [sides(r) for r in blocks] == [[8, 6], [8, 4]]
    assert [e["result"] for e in evs(b, "attack")] == ["miss", "miss", "hit"]
    assert [e["mode"] for e in evs(b, "defence")] == ["block", "block", "innate"]
    assert who(b, "D").res["wound"] == 3 and who(b, "D").res["stun"] == 2


def test_block_declared_as_second_action_rolls_one_step_lower():
    """assumption defence_stance: the block is rolled at the step penalty of the action
    that declared it (assumption multiple_actions)."""
    a = fig("A", (2, 1), agi="d8", str_="d8", skills={"melee_weapons": "d6"}, weapons=("sword",),
            life_points=99, decline_innate="always")
    b = play(_melee(attacker=a), [
        attack("D", "A", "sword", [1, 1]),          # D's first action (a botch)
        defend("D", "block"), end("D"),
        attack("A", "D", "sword", [3, 3, 4, 4]),
    ])
    assert only(evs(b, "stance"))["steps"] == -1
    assert sides(only(rolls(b, "block"))) == [8, 4]


@pytest.mark.parametrize("att_weapon,block_sides", [
    ("knife", [8, 8]),   # sword (medium) blocks a knife (small): +1 step
    ("sword", [8, 6]),   # same size: no change
    ("axe", [8, 4]),     # sword blocks an axe (large): -1 step
])
def test_block_weapon_size_modifier(att_weapon, block_sides):
    """seed 000, Defense, Melee Combat: a considerably smaller blocking weapon is -1 step,
    a considerably larger one +1 step; assumption weapon_size: sizes 0/1/2/3."""
    b = play(_melee(att_weapon), [defend("D", "block"), end("D"),
                                  attack("A", "D", att_weapon, [2, 2, 3, 3])])
    assert sides(only(rolls(b, "block"))) == block_sides
    assert only(evs(b, "attack"))["result"] == "miss"


def test_extraordinary_block_disarms_an_armed_attacker_by_default():
    """seed 000, Defense, Melee Combat: a block 7 higher than the attack lets the defender
    disarm the attacker; assumption block_effect: disarm is the default against a weapon."""
    b = play(_melee("axe"), [defend("D", "block"), end("D"),
                             attack("A", "D", "axe", [2, 1, 8, 2])])   # 3 against 10
    assert only(evs(b, "attack"))["result"] == "miss"
    assert evs(b, "effect", effect="extraordinary block: disarm")
    assert who(b, "A").res["lost"] == ["axe"]
    assert who(b, "D").res["gained"] == []          # D blocked with a sword: no grab
    assert b.state.actor.id == "A"
    assert not can_attack(b, "D", "axe")
    assert can_attack(b, "D", "unarmed")


def test_block_beating_attack_by_six_has_no_special_effect():
    """seed 000, Defense, Melee Combat: the special effect needs an extraordinary success
    (7 higher than the attack result)."""
    b = play(_melee("axe"), [defend("D", "block"), end("D"),
                             attack("A", "D", "axe", [2, 1, 7, 2])])   # 3 against 9
    assert only(evs(b, "attack"))["result"] == "miss"
    assert evs(b, "effect") == []
    assert who(b, "A").res["lost"] == []


def test_bare_handed_block_takes_weapon_damage_and_grabs_the_weapon():
    """seed 000, Melee Combat, Unarmed and assumption unarmed_block: blocking a weapon
    bare-handed still takes the weapon's damage die; seed 000, Defense, Melee Combat: a
    bare-handed disarm grabs the weapon."""
    d = fig("D", (1, 1), agi="d8", skills={"unarmed_combat": "d6"}, life_points=99)
    b = play(_melee("knife", defender=d), [
        defend("D", "block"), end("D"),
        # knife (Agility d8 + Melee Weapons d6) 3; bare hands (size 0) vs knife (1): d8+d4 -> 12
        attack("A", "D", "knife", [2, 1, 8, 4, 2]),   # then the knife's d2 shows 2
        end("A"),
    ])
    assert sides(only(rolls(b, "block"))) == [8, 4]
    assert (who(b, "D").res["stun"], who(b, "D").res["wound"]) == (0, 2)
    assert who(b, "A").res["lost"] == ["knife"]
    assert who(b, "D").res["gained"] == ["knife"]
    assert b.state.actor.id == "D"
    assert can_attack(b, "A", "knife")


def test_block_effect_trip_knocks_the_attacker_prone():
    """seed 000, Defense, Melee Combat: the attacker is tripped and knocked prone;
    the stat block's `block_effect` chooses it (assumption block_effect)."""
    d = fig("D", (1, 1), agi="d8", skills={"melee_weapons": "d6"}, weapons=("sword",),
            life_points=99, block_effect="trip")
    b = play(_melee(defender=d), [defend("D", "block"), end("D"),
                                  attack("A", "D", "sword", [2, 1, 8, 6])])
    assert {"prone"} <= who(b, "A").conditions
    assert who(b, "A").res["lost"] == []
    assert evs(b, "condition", target="A", condition="prone", on=True)


@pytest.mark.parametrize("strength,bash_die,face", [("d4", 2, 2), ("d8", 4, 3), ("d12", 8, 5)])
def test_block_effect_bash_deals_strength_minus_two_steps_stun(strength, bash_die, face):
    """seed 000, Defense, Melee Combat: the attacker is bashed and takes Stun damage equal
    to the defender's Strength -2 steps (minimum d2)."""
    d = fig("D", (1, 1), agi="d8", str_=strength, skills={"melee_weapons": "d6"},
            weapons=("sword",), life_points=99, block_effect="bash")
    b = play(_melee(defender=d), [defend("D", "block"), end("D"),
                                  attack("A", "D", "sword", [2, 1, 8, 6, face])])
    assert sides(only(rolls(b, "bash"))) == [bash_die]
    assert (who(b, "A").res["stun"], who(b, "A").res["wound"]) == (face, 0)


@pytest.mark.parametrize("mode", ["block", "dodge"])
def test_botched_block_or_dodge_stumbles_easy_target_no_more_movement(mode):
    """seed 000, Defense, Melee Combat: a botched block or dodge (every die a 1,
    RULES-NOTES) makes the defender stumble: it cannot move any further this turn (round)
    and is an Easy (3) target against the attack."""
    s = _melee(initiative="roll")
    b = play(s, [
        defend("D", mode), end("D"),
        end("A", [1, 1, 8, 6]),                   # round 2: D 2, A 14 -> A first
        attack("A", "D", "sword", [4, 4, 1, 1, 1]),  # 8 against the botch's Easy 3, sword 1
        end("A"),
    ], start_dice=[8, 6, 1, 1])                  # round 1: D 14, A 2
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == (f"{mode} (botch)", 3)
    assert only(rolls(b, mode))["botch"] is True
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"]) == ("hit", 5)
    assert b.state.round == 2 and b.state.actor.id == "D"
    assert not [a for a in legal(b) if a.kind == "move"]
    assert can_attack(b, "A", "sword")            # it may still act, just not move


def test_melee_dodge_uses_agility_plus_athletics_dodge():
    """seed 000, Defense, Melee Combat: a target can dodge hand-to-hand attacks;
    RULES-NOTES cortex: dodge is Agility + Athletics/Dodge."""
    b = play(_melee(), [defend("D", "dodge"), end("D"),
                        attack("A", "D", "sword", [3, 3, 5, 4])])
    assert sides(only(rolls(b, "dodge"))) == [8, 6]
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("dodge", 9)
    assert only(evs(b, "attack"))["result"] == "miss"


# The defender at (1,1) and the attacker at (2,2) are diagonal neighbours; the heavy cover
# object at (2,1) stands between them.
SHELTER_MAP = ["....", "..h.", "....", "...."]


def _shelter(defender_attacks_first: bool):
    d = fig("D", (1, 1), agi="d6", skills={"unarmed_combat": "d6"}, life_points=99)
    a = fig("A", (2, 2), str_="d8", skills={"unarmed_combat": "d6"}, life_points=99,
            decline_innate="always")
    s = scen(SHELTER_MAP, [d], [a])
    first = [attack("D", "A", "unarmed", [1, 1])] if defender_attacks_first else []
    return play(s, first + [end("D"), attack("A", "D", "unarmed", [1, 1, 3])])


def test_cover_counts_in_melee_when_the_defender_made_no_attack():
    """seed 000, Defense, Melee Combat: cover applies to hand-to-hand combat when the
    target is sheltering behind obstacles and not attacking; assumption shelter: cover
    counts when the defender made no attack on its last turn (heavy cover +12)."""
    b = _shelter(defender_attacks_first=False)
    d = only(evs(b, "defence"))
    assert (d["mode"], d["cover_bonus"], d["difficulty"]) == ("innate", 12, 15)


def test_cover_does_not_count_in_melee_after_the_defender_attacked():
    """seed 000, Defense, Melee Combat: generally cover does not apply to hand-to-hand
    combat; assumption shelter: not when the defender attacked on its last turn."""
    b = _shelter(defender_attacks_first=True)
    d = [e for e in evs(b, "defence") if e["actor"] == "D"][0]
    assert (d["mode"], d["cover_bonus"], d["difficulty"]) == ("innate", 0, 3)


# ---------------------------------------------------------------------------------------
# Defence, Ranged Combat

def test_ranged_in_the_open_only_innate_even_with_a_dodge_stance():
    """seed 000, Defense, Ranged Combat: a character in the open with no cover in the area
    can only roll innate defence against ranged attacks."""
    d = fig("D", (6, 1), agi="d8", skills={"athletics/dodge": "d8"}, life_points=99)
    s = scen(open_map(), [d], [gunslinger("g", (0, 1))])
    b = play(s, [defend("D", "dodge"), end("D"), attack("g", "D", "revolver", [5, 5, 4, 1])])
    assert rolls(b, "dodge") == []
    assert sides(only(rolls(b, "innate defence"))) == [8]
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("innate", 4)
    assert pos(b, "D") == (6, 1)


def test_dropping_prone_is_free():
    """assumption drop_prone: dropping prone is free."""
    s = scen(open_map(), [fig("D", (6, 1))], [gunslinger("g", (0, 1))])
    b = play(s, [simple("D", "drop_prone")])
    assert "prone" in who(b, "D").conditions
    assert b.state.economy["actions"] == 0


def test_prone_target_is_difficulty_7_without_a_roll():
    """seed 000, Defense, Ranged Combat: a prone target cannot roll innate defence; it is
    an Easy target with a +4 light cover bonus (Difficulty 7); assumption ties: 7 hits 7."""
    s = scen(open_map(), [fig("D", (6, 1), agi="d12", life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [simple("D", "drop_prone"), end("D"), attack("g", "D", "revolver", [4, 3, 2])])
    assert rolls(b, "innate") == []
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("prone", 7)
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"]) == ("hit", 0)
    assert (who(b, "D").res["stun"], who(b, "D").res["wound"]) == (0, 2)
    with pytest.raises(DiceError):   # one die more than attack + damage is never used
        play(s, [simple("D", "drop_prone"), end("D"), attack("g", "D", "revolver", [4, 3, 2, 2])])


@pytest.mark.parametrize("ch,diff", [("l", 7), ("m", 11), ("h", 15), ("T", 19)])
def test_prone_target_behind_cover(ch, diff):
    """assumption prone_cover: a prone target's Difficulty is 3 + the larger of +4 and its
    cover bonus (seed 000, Defense, Ranged Combat: Difficulty 7 in the open)."""
    rows = ["." * 12, "." * 5 + ch + "." * 6, "." * 12]
    s = scen(rows, [fig("D", (6, 1), life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [simple("D", "drop_prone"), end("D"), attack("g", "D", "revolver", [1, 1])])
    assert only(evs(b, "defence"))["difficulty"] == diff


# One row: heavy cover at x=8 shields x=7 against a gunman at x=14.
DODGE_ROW = ["........h....."]


def _dodger(x: int, **kw: Any) -> dict:
    kw.setdefault("life_points", 99)
    return fig("D", (x, 0), agi="d8", skills={"athletics": "d4", "athletics/dodge": "d12"}, **kw)


@pytest.mark.parametrize("x,skill_sides,band", [
    (7, 12, "adjacent"),   # already behind the cover: no move, no penalty
    (6, 10, "close"),      # 5 ft: -1 step
    (5, 8, "near"),        # 10 ft: -2 steps
    (4, 8, "near"),        # 15 ft: -2 steps
    (3, 6, "far"),         # 20 ft: -3 steps
    (1, 6, "far"),         # 30 ft: -3 steps
])
def test_ranged_dodge_to_cover_at_range_to_cover_penalty(x, skill_sides, band):
    """seed 000, Defense, Ranged Combat: dodging needs cover in the area; the roll is
    Agility + Athletics/Dodge at the range-to-cover penalty (adjacent 0, close -1, near -2,
    far -3 steps); the dodge roll is the Difficulty; assumption ranged_dodge: the figure
    moves to the nearest cell with cover against the attacker within 30 ft."""
    s = scen(DODGE_ROW, [_dodger(x)], [gunslinger("g", (13, 0))])
    b = play(s, [defend("D", "dodge"), end("D"), attack("g", "D", "revolver", [1, 2, 5, 5])])
    assert sides(only(rolls(b, "dodge to cover"))) == [8, skill_sides]
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("dodge", 10)
    assert only(evs(b, "attack"))["result"] == "miss"
    assert pos(b, "D") == (7, 0)
    if x != 7:
        assert only(evs(b, "move", actor="D"))["mode"] == "dive"


def test_no_ranged_dodge_when_cover_is_beyond_running_distance():
    """seed 000, Defense, Ranged Combat: the range-to-cover table stops at running distance
    (30 ft); farther cover is not 'in the area', so only innate defence is left."""
    s = scen(DODGE_ROW, [_dodger(0)], [gunslinger("g", (13, 0))])   # cover 35 ft away
    b = play(s, [defend("D", "dodge"), end("D"), attack("g", "D", "revolver", [1, 2, 5])])
    assert rolls(b, "dodge") == []
    assert only(evs(b, "defence"))["mode"] == "innate"
    assert pos(b, "D") == (0, 0)


def test_botched_ranged_dodge_stumbles_half_way_easy_target():
    """seed 000, Defense, Ranged Combat: on a botched dodge the character stumbles half-way
    to the cover, cannot move any further this turn and is an Easy (3) target."""
    d = _dodger(3, ale="d6")
    s = scen(DODGE_ROW, [d], [gunslinger("g", (13, 0))], initiative="roll")
    b = play(s, [
        defend("D", "dodge"), end("D"),
        end("g", [1, 1, 10, 8]),                        # round 2: g first
        attack("g", "D", "revolver", [2, 2, 1, 1, 1]),  # 4 against Easy 3, revolver 1
        end("g"),
    ], start_dice=[8, 6, 1, 1])
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("dodge (botch)", 3)
    assert pos(b, "D") == (5, 0)                       # half-way from x=3 to x=7
    assert only(evs(b, "attack"))["result"] == "hit"
    assert b.state.actor.id == "D"
    assert not [a for a in legal(b) if a.kind == "move"]


@pytest.mark.parametrize("ch,bonus", [("l", 4), ("m", 8), ("h", 12), ("T", 16)])
def test_cover_levels_add_to_innate_defence(ch, bonus):
    """seed 000, Defense, Ranged Combat: cover grants +4/+8/+12/+16 (light, medium, heavy,
    total) to innate defence against ranged attacks from that direction."""
    rows = ["." * 12, "." * 5 + ch + "." * 6, "." * 12]
    s = scen(rows, [fig("D", (6, 1), agi="d6", life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [end("D"), attack("g", "D", "revolver", [1, 1, 2])])
    d = only(evs(b, "defence"))
    assert (d["cover_bonus"], d["difficulty"]) == (bonus, 2 + bonus)


@pytest.mark.parametrize("cover_x,why", [(1, "next to the attacker"), (7, "behind the defender")])
def test_cover_not_between_does_not_help(cover_x, why):
    """seed 000, Defense, Ranged Combat: cover counts only against attacks from its
    direction; a cover object next to the attacker is the attacker's cover."""
    rows = ["." * 12, "." * cover_x + "h" + "." * (11 - cover_x), "." * 12]
    s = scen(rows, [fig("D", (6, 1), agi="d6", life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [end("D"), attack("g", "D", "revolver", [1, 1, 2])])
    d = only(evs(b, "defence"))
    assert (d["cover_bonus"], d["difficulty"]) == (0, 2), why


def test_declined_innate_defence_still_gets_cover():
    """assumption innate_cover: cover adds to the declined Easy (3) Difficulty."""
    rows = ["." * 12, "....." + "m" + "......", "." * 12]
    s = scen(rows, [fig("D", (6, 1), agi="d4", life_points=99)], [gunslinger("g", (0, 1))])
    b = play(s, [end("D"), attack("g", "D", "revolver", [1, 1])])
    d = only(evs(b, "defence"))
    assert (d["mode"], d["difficulty"]) == ("declined innate", 11)


# ---------------------------------------------------------------------------------------
# Extraordinary success in combat

def _xscen(target: dict):
    return scen(open_map(), [gunslinger("g", (0, 1))], [target])


def test_extraordinary_hit_endurance_failed_knocks_prone():
    """seed 000, Extraordinary Success in Combat: beating the Difficulty by 7 makes the
    target roll Endurance or suffer a special effect; assumption extraordinary_attack:
    Endurance (Vitality + Willpower) at Average (7) or knocked prone; roll_order: after
    the damage die."""
    t = dummy("t", (5, 1), vit="d6", wil="d6")
    b = play(_xscen(t), [attack("g", "t", "revolver", [5, 5, 1, 3, 3])])
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"]) == ("extraordinary hit", 7)
    end_roll = only(rolls(b, "Endurance"))
    assert (end_roll["difficulty"], end_roll["total"], end_roll["success"]) == (7, 6, False)
    assert "prone" in who(b, "t").conditions
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (4, 4)


def test_extraordinary_hit_endurance_made_stays_standing():
    """assumption extraordinary_attack: a made Endurance roll (7 meets Average 7,
    assumption ties) avoids the knock-down."""
    t = dummy("t", (5, 1), vit="d6", wil="d6")
    b = play(_xscen(t), [attack("g", "t", "revolver", [5, 5, 1, 4, 3])])
    assert only(rolls(b, "Endurance"))["success"] is True
    assert "prone" not in who(b, "t").conditions


def test_margin_of_six_is_an_ordinary_hit():
    """seed 000, Extraordinary Success in Combat: the effect needs a margin of 7 or more
    (no Endurance roll at 6: the strict dice list has none)."""
    b = play(_xscen(dummy("t", (5, 1))), [attack("g", "t", "revolver", [5, 4, 1])])
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"]) == ("hit", 6)
    assert rolls(b, "Endurance") == []


def test_extraordinary_hit_bypasses_armour():
    """seed 000, Extraordinary Success in Combat: the attacker may bypass body armour;
    assumption extraordinary_attack: chosen when the target's armour stops the weapon's
    type (no Endurance roll then)."""
    t = dummy("t", (5, 1), armour="tactical_vest")
    b = play(_xscen(t), [attack("g", "t", "revolver", [5, 5, 1])])
    assert evs(b, "effect", effect="the attack bypasses armour")
    dmg = only(evs(b, "damage"))
    assert (dmg["stun"], dmg["wound"]) == (4, 4)
    assert "absorbed" not in dmg
    assert rolls(b, "Endurance") == []


# ---------------------------------------------------------------------------------------
# Knocked prone

def _knockdown(**target_kw):
    """g's extraordinary hit knocks t (next to it) prone; then it is t's turn."""
    t = fig("t", (1, 1), str_="d8", skills={"unarmed_combat": "d8", "melee_weapons": "d6"},
            weapons=("sword",), life_points=99, decline_innate="always", **target_kw)
    s = scen(open_map(), [gunslinger("g", (0, 1), decline_innate="always")], [t])
    return s, [attack("g", "t", "revolver", [5, 5, 1, 1, 2]), end("g")]


def test_standing_up_costs_one_action():
    """seed 000, Melee Combat, Knocked Prone: a character knocked prone must spend 1 action
    to get back up."""
    s, steps = _knockdown()
    b = play(s, steps)
    assert {"prone", "knocked"} <= who(b, "t").conditions
    b = play(s, steps + [simple("t", "stand")])
    assert "prone" not in who(b, "t").conditions
    assert b.state.economy["actions"] == 1


def test_after_standing_up_the_next_attack_is_one_more_step_lower():
    """seed 000, Melee Combat, Knocked Prone: after getting up, an additional -1 step on
    the next combat-related action that turn (on top of the second action's -1 step,
    assumption multiple_actions): Unarmed d8 -> d4."""
    s, steps = _knockdown()
    b = play(s, steps + [simple("t", "stand"), attack("t", "g", "unarmed", [1, 1])])
    assert sides(rolls(b, "attack", actor="t")[0]) == [8, 4]


def test_dropping_prone_by_choice_has_no_rise_penalty():
    """seed 000, Melee Combat, Knocked Prone: the extra -1 step is for a character
    *forcibly* knocked prone; one who dropped prone only pays the action (-1 step)."""
    t = fig("t", (1, 1), str_="d8", skills={"unarmed_combat": "d8"}, life_points=99)
    s = scen(open_map(), [t], [dummy("g", (0, 1))])
    b = play(s, [simple("t", "drop_prone"), simple("t", "stand"), attack("t", "g", "unarmed", [1, 1])])
    assert sides(only(rolls(b, "attack"))) == [8, 6]


def test_after_standing_up_a_declared_block_is_one_more_step_lower():
    """seed 000, Melee Combat, Knocked Prone: the -1 step applies to the next
    combat-related action taken that turn; declaring a block is one (assumption
    defence_stance: rolled at that action's step penalty), so it is at -2 steps."""
    s, steps = _knockdown()
    b = play(s, steps + [simple("t", "stand"), defend("t", "block")])
    assert only(evs(b, "stance"))["steps"] == -2


# ---------------------------------------------------------------------------------------
# Movement

def _mover(rows=None, mover=None, others=None):
    m = mover or fig("m", (0, 0), life_points=99)
    return scen(rows or open_map(12, 12), [m], others or [dummy("far", (11, 11))])


def test_walking_three_cells_is_free():
    """seed 000, Movement, Combat: walking (15 ft, 3 cells) does not count as an action."""
    b = play(_mover(), [move("m", 3, 0)])
    assert pos(b, "m") == (3, 0)
    assert b.state.economy["actions"] == 0
    assert only(evs(b, "move"))["mode"] == "walk"
    assert b.state.actor.id == "m"


@pytest.mark.parametrize("x", [4, 6])
def test_hustling_up_to_six_cells_is_one_action(x):
    """seed 000, Movement, Combat: hustling (30 ft, 6 cells) counts as 1 action."""
    b = play(_mover(), [move("m", x, 0)])
    assert pos(b, "m") == (x, 0)
    assert b.state.economy["actions"] == 1
    assert only(evs(b, "move"))["mode"] == "hustle"
    assert b.state.actor.id == "m"


def test_walk_then_more_becomes_a_hustle_costing_one_action():
    """seed 000, Movement, Combat: the walk is free, moving past it in the same turn is a
    hustle (1 action), counted once."""
    b = play(_mover(), [move("m", 2, 0), move("m", 4, 0), move("m", 6, 0)])
    assert b.state.economy["actions"] == 1
    assert [e["mode"] for e in evs(b, "move")] == ["walk", "hustle", "hustle"]


@pytest.mark.parametrize("x,actions,metres", [(2, 0, 4.5), (3, 1, 6.75), (4, 1, 9.0)])
def test_diagonal_steps_cost_one_and_a_half_cells(x, actions, metres):
    """seed 000, Movement, Combat on the grid (rules/grid.py): diagonal steps cost 1.5
    cells, so 2 diagonals (15 ft) are a free walk but 3 diagonals need a hustle."""
    b = play(_mover(), [move("m", x, x)])
    assert b.state.economy["actions"] == actions
    assert only(evs(b, "move"))["metres"] == metres


@pytest.mark.parametrize("x", [7, 9])
def test_running_is_the_only_action_and_ends_the_turn(x):
    """seed 000, Movement, Combat: running counts as an action and is the only action in
    the turn; assumption run_distance: 45 ft (9 cells)."""
    b = play(_mover(), [move("m", x, 0)])
    assert pos(b, "m") == (x, 0)
    assert only(evs(b, "move"))["mode"] == "run"
    assert b.state.actor.id == "far"


def test_no_move_beyond_running_distance():
    """assumption run_distance: running covers 45 ft (9 cells), no more."""
    b = play(_mover())
    assert can_move(b, 9, 0)
    assert not can_move(b, 10, 0)


def test_cannot_run_after_another_action():
    """seed 000, Movement, Combat: running is the only action the character can take in
    the turn, so after an attack at most a hustle is left."""
    s = _mover(mover=fig("m", (0, 1), life_points=99), others=[dummy("t", (0, 0))])
    b = play(s, [attack("m", "t", "unarmed", [1])])     # unskilled: Strength d6 alone
    assert can_move(b, 6, 1)
    assert not can_move(b, 7, 1)


def test_crawling_one_cell_is_free():
    """seed 000, Movement, Crawling: a prone character crawls; up to 5 ft is free."""
    b = play(_mover(), [simple("m", "drop_prone"), move("m", 1, 0)])
    assert b.state.economy["actions"] == 0
    assert only(evs(b, "move"))["mode"] == "crawl"
    assert b.state.actor.id == "m"


def test_crawling_two_cells_is_an_action():
    """seed 000, Movement, Crawling: crawling up to 10 ft counts as an action."""
    b = play(_mover(), [simple("m", "drop_prone"), move("m", 2, 0)])
    assert b.state.economy["actions"] == 1
    assert b.state.actor.id == "m"


def test_crawling_three_cells_is_the_only_action():
    """seed 000, Movement, Crawling: crawling up to 15 ft is the only action of the turn;
    farther is not possible."""
    b = play(_mover(), [simple("m", "drop_prone")])
    assert can_move(b, 3, 0) and not can_move(b, 4, 0)
    assert can_move(b, 2, 2)            # two diagonals cost 3 cells: still a crawl
    assert not can_move(b, 3, 2)        # 1 + 1.5 + 1.5 = 4 cells: beyond the crawl
    b = play(_mover(), [simple("m", "drop_prone"), move("m", 3, 0)])
    assert pos(b, "m") == (3, 0)
    assert b.state.actor.id == "far"


CORRIDOR = ["########", "........", "########"]


def test_enemies_block_passage():
    """rules/grid.py (movement): enemy figures block passage."""
    s = scen(CORRIDOR, [fig("m", (0, 1))], [dummy("e", (1, 1))])
    b = play(s)
    assert not can_move(b, 2, 1)


def test_allies_can_be_passed_but_not_stood_on():
    """rules/grid.py (movement): allies do not block passage; nobody ends on an occupied
    cell."""
    s = scen(CORRIDOR, [fig("m", (0, 1)), fig("ally", (1, 1))], [dummy("e", (7, 1))])
    b = play(s)
    assert can_move(b, 2, 1)
    assert not can_move(b, 1, 1)


# ---------------------------------------------------------------------------------------
# Damage, armour, Life Points, unconsciousness, dying, death

def _shot(target: dict, dice: list[int], extra_b: list[dict] = ()):
    s = scen(open_map(), [gunslinger("g", (0, 1))], [target, *extra_b])
    return play(s, [attack("g", target["id"], "revolver", dice)])


@pytest.mark.parametrize("dice,stun,wound", [
    ([4, 4, 3], 3, 5),   # margin 5: 3 Stun + 2 Wound (odd point to Stun), revolver 3 W
    ([4, 3, 3], 2, 5),   # margin 4: 2 + 2, revolver 3 W
    ([2, 2, 6], 1, 6),   # margin 1: the odd point is Stun
])
def test_margin_is_basic_damage_split_odd_point_to_stun_plus_weapon_die(dice, stun, wound):
    """RULES-NOTES cortex: the margin is Basic damage and the weapon die adds its own type;
    assumption basic_split: Basic splits half Stun, half Wound, the odd point to Stun."""
    b = _shot(dummy("t", (5, 1)), dice)
    dmg = only(evs(b, "damage"))
    assert (dmg["stun"], dmg["wound"]) == (stun, wound)
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (stun, wound)


def test_tie_hits_with_margin_zero():
    """assumption ties: a roll equal to the Difficulty succeeds (only the weapon die)."""
    b = _shot(dummy("t", (5, 1)), [2, 1, 3])
    hit = only(evs(b, "attack"))
    assert (hit["result"], hit["margin"], hit["difficulty"]) == ("hit", 0, 3)
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (0, 3)


@pytest.mark.parametrize("weapon,dice,stun,wound", [
    ("club", [3, 2, 3], 3, 2),      # margin 2 -> 1/1; club d4 B 3 -> 2 Stun 1 Wound
    ("club", [3, 2, 4], 3, 3),      # club 4 -> 2/2
    ("unarmed", [3, 2, 2], 3, 1),   # margin 2 -> 1/1; unarmed d2 S 2 -> Stun
])
def test_weapon_damage_type_basic_splits_stun_stays_stun(weapon, dice, stun, wound):
    """RULES-NOTES cortex: the weapon die is added as its own type (Stun, Wound or Basic);
    assumption basic_split: Basic splits, odd point to Stun."""
    a = fig("a", (0, 1), str_="d8", skills={"melee_weapons": "d6", "unarmed_combat": "d6"},
            weapons=("club",))
    s = scen(open_map(), [a], [dummy("t", (1, 1))])
    b = play(s, [attack("a", "t", weapon, dice)])
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (stun, wound)


def test_armour_subtracts_its_ratings_after_the_split():
    """RULES-NOTES cortex: armour has a rating per damage type; assumption armour: it
    removes its rating from each type after the Basic split (tactical vest W6 S2)."""
    t = {"id": "t", "at": [5, 1], "template": "alliance_soldier", "decline_innate": "always"}
    b = _shot(t, [5, 4, 4])                  # margin 6: 3 S + 3 W, revolver 4 W -> 3 S 7 W
    dmg = only(evs(b, "damage"))
    assert (dmg["stun"], dmg["wound"], dmg["absorbed"]) == (1, 1, 8)


def test_armour_never_takes_damage_below_zero():
    """assumption armour: never below 0 (plate vest W8 S3 against 1 Stun, 2 Wound)."""
    b = _shot(dummy("t", (5, 1), armour="plate_vest"), [2, 2, 2])
    dmg = only(evs(b, "damage"))
    assert (dmg["stun"], dmg["wound"]) == (0, 0)
    assert (who(b, "t").res["stun"], who(b, "t").res["wound"]) == (0, 0)


@pytest.mark.parametrize("template,life", [("gunslinger", 12), ("thug", 14),
                                           ("browncoat_veteran", 16), ("reaver", 22)])
def test_life_points_are_max_vitality_plus_max_willpower(template, life):
    """RULES-NOTES cortex: Life Points = maximum of the Vitality die + maximum of the
    Willpower die."""
    s = scen(open_map(), [{"id": "x", "at": [0, 0], "template": template}], [dummy("t", (5, 1))])
    b = play(s)
    assert get_ruleset("cortex").health(who(b, "x")) == (life, life)


def _thug(**kw):
    return {"id": "t", "at": [5, 1], "template": "thug", "decline_innate": "always", **kw}


def test_reaching_life_points_failed_endurance_knocks_out_and_ends_the_fight():
    """assumption unconscious: when Stun + Wound reach Life Points, Endurance (Vitality +
    Willpower) at Average (7) or unconscious; the last team standing wins (rules/battle.py).
    assumption wounded_penalty: 11 Wound of 14 costs Vitality two steps (d8 -> d4)."""
    # thug: Life Points 14. Margin 6 -> 3 S 3 W; revolver 8 -> 3 S 11 W = 14
    b = _shot(_thug(), [5, 4, 8, 1, 5])
    r = only(rolls(b, "Endurance"))
    assert (sides(r), r["difficulty"], r["success"]) == ([4, 6], 7, False)
    t = who(b, "t")
    assert (t.res["stun"], t.res["wound"]) == (3, 11)
    assert "unconscious" in t.conditions and t.down
    assert b.state.over and b.state.winner == "a"
    assert b.state.end_reason == "last team standing"
    assert evs(b, "battle_end")[0]["winner"] == "a"


def test_reaching_life_points_made_endurance_stays_up():
    """assumption unconscious: a made Endurance roll (7 against 7) keeps the figure up."""
    b = _shot(_thug(), [5, 4, 8, 2, 5])                      # Vitality d4 (wounded) + d6
    assert only(rolls(b, "Endurance"))["success"] is True
    assert not who(b, "t").down and not b.state.over
    assert b.state.actor.id == "g"


def test_below_life_points_no_endurance_roll():
    """assumption unconscious: the roll comes only when Stun + Wound reach Life Points
    (13 of 14: the strict dice list holds no Endurance roll)."""
    b = _shot(_thug(), [5, 4, 7])
    assert rolls(b, "Endurance") == []
    assert not who(b, "t").down


def _dying(life: int, dice: list[int], *more_steps: dict):
    """t (Life Points `life`) is shot by g; its ally `friend` keeps team b in the fight."""
    s = scen(open_map(), [gunslinger("g", (0, 1))],
             [dummy("t", (5, 1), life_points=life), dummy("friend", (11, 2))])
    return play(s, [attack("g", "t", "revolver", dice), *more_steps])


def test_wound_at_life_points_is_dying_without_a_consciousness_roll():
    """assumption dying: Wound at Life Points or more is dying (down)."""
    b = _dying(8, [4, 4, 6])                 # margin 5: 3 S 2 W; revolver 6: 8 W
    t = who(b, "t")
    assert t.res["wound"] == 8
    assert "dying" in t.conditions and t.down and "dead" not in t.conditions
    assert evs(b, "down", target="t", reason="dying")
    assert not b.state.over


@pytest.mark.parametrize("endurance,wound", [([2, 3], 9), ([1, 6], 8)])
def test_dying_rolls_endurance_each_round_or_takes_a_wound(endurance, wound):
    """assumption dying: each round an Endurance roll at Average (7) or 1 more Wound
    (rolled when the round ends: the last turn's end step carries the dice); assumption
    wounded_penalty: the dying figure's Vitality is two steps down (d6 -> d2)."""
    b = _dying(8, [4, 4, 6], end("g"), end("friend", endurance))
    r = only(rolls(b, "Endurance"))
    assert (sides(r), r["difficulty"], r["success"]) == ([2, 6], 7, wound == 8)
    assert who(b, "t").res["wound"] == wound
    assert b.state.round == 2 and b.state.actor.id == "g"


@pytest.mark.parametrize("dmg_die,dead", [(5, False), (6, True)])
def test_dead_at_twice_life_points(dmg_die, dead):
    """assumption dying: dead at twice Life Points (Life Points 4: 7 Wound is dying,
    8 Wound is dead)."""
    b = _dying(4, [4, 4, dmg_die])            # 3 S, 2 + die W
    t = who(b, "t")
    assert ("dead" in t.conditions) is dead
    assert ("dying" in t.conditions) is (not dead)
    assert bool(evs(b, "dead", target="t")) is dead


def test_bleeding_out_to_death():
    """assumption dying: a failed round-end Endurance roll adds 1 Wound; at twice Life
    Points the figure is dead."""
    b = _dying(4, [4, 4, 5], end("g"), end("friend", [1, 2]))
    t = who(b, "t")
    assert t.res["wound"] == 8
    assert "dead" in t.conditions and "dying" not in t.conditions


def test_stun_above_life_points_becomes_wound():
    """assumption stun_overflow: Stun above Life Points becomes Wound (Life Points 4:
    5 Stun 3 Wound -> 4 Stun 4 Wound)."""
    a = fig("a", (0, 1), str_="d8", skills={"unarmed_combat": "d6"})
    s = scen(open_map(), [a], [dummy("t", (1, 1), life_points=4), dummy("friend", (11, 2))])
    b = play(s, [attack("a", "t", "unarmed", [5, 4, 2])])   # margin 6: 3 S 3 W; d2 S 2
    t = who(b, "t")
    assert (t.res["stun"], t.res["wound"]) == (4, 4)
    assert "dying" in t.conditions


@pytest.mark.parametrize("axe_face,agility_sides", [(4, 6), (3, 10)])
def test_wounds_of_half_life_points_cost_two_attribute_steps(axe_face, agility_sides):
    """assumption wounded_penalty: Wound of half Life Points or more is -2 steps to the
    attribute die (Life Points 10: 5 Wound costs Agility d10 -> d6, 4 Wound does not)."""
    axeman = fig("x", (1, 1), str_="d8", skills={"melee_weapons": "d6"}, weapons=("axe",),
                 decline_innate="always", life_points=99)
    g = gunslinger("g", (0, 1), decline_innate="always", life_points=10)
    s = scen(open_map(), [axeman], [g])
    b = play(s, [attack("x", "g", "axe", [3, 3, axe_face]),   # margin 3: 2 S 1 W + axe W
                 end("x"), attack("g", "x", "revolver", [1, 1])])
    assert who(b, "g").res["wound"] == 1 + axe_face
    assert sides(rolls(b, "attack", actor="g")[0]) == [agility_sides, 10]


# ---------------------------------------------------------------------------------------
# Ranges, rate of fire, ammunition

def _range(dist: int):
    shooter = fig("s", (0, 0), agi="d8", skills={"guns": "d6", "guns/shotguns": "d12"},
                  weapons=("shotgun",))
    return scen(["." * 27], [shooter], [dummy("t", (dist, 0))])


@pytest.mark.parametrize("dist,skill_sides", [
    (8, 12),    # 39 ft: short (shotgun 40 ft), no penalty
    (9, 8),     # 44 ft: medium, -2 steps
    (16, 8),    # 79 ft: medium
    (17, 4),    # 84 ft: long, -4 steps
    (24, 4),    # 118 ft: long
])
def test_range_bands(dist, skill_sides):
    """RULES-NOTES cortex: medium range -2 steps, long range -4 steps; assumption
    range_bands: short up to the range increment, medium up to 2x, long up to 3x."""
    b = play(_range(dist), [attack("s", "t", "shotgun", [1, 1])])
    assert sides(only(rolls(b, "attack"))) == [8, skill_sides]


def test_no_shot_beyond_three_range_increments():
    """assumption range_bands: no shot beyond 3x the range increment (123 ft > 120 ft)."""
    b = play(_range(25))
    assert not can_attack(b, "t", "shotgun")
    assert can_attack(play(_range(24)), "t", "shotgun")


def test_rate_of_fire_limits_shots_per_turn():
    """assumption rof: shots per turn per weapon (3 for a revolver); the next turn the
    weapon may fire again."""
    s = scen(open_map(), [gunslinger("g", (0, 1))], [dummy("t", (5, 1))])
    shots = [attack("g", "t", "revolver", [1, 1])] * 3
    b = play(s, shots)
    assert b.state.economy["actions"] == 3
    assert not can_attack(b, "t", "revolver")
    b = play(s, shots + [end("g"), end("t")])
    assert b.state.actor.id == "g" and can_attack(b, "t", "revolver")


def test_ammunition_runs_out_and_reloading_costs_an_action():
    """data.yaml weapons (magazine): each shot uses a round (revolver: 6); an empty gun
    cannot fire; reloading is an action (assumption multiple_actions: the next shot is one
    step lower) and fills the magazine."""
    s = scen(open_map(), [gunslinger("g", (0, 1))], [dummy("t", (5, 1))])
    shots = [attack("g", "t", "revolver", [1, 1])] * 3
    steps = shots + [end("g"), end("t")] + shots + [end("g"), end("t")]
    b = play(s, steps)
    assert who(b, "g").res["ammo"]["revolver"] == 0
    assert not can_attack(b, "t", "revolver")
    assert Action("reload", weapon="revolver") in legal(b)
    b = play(s, steps + [simple("g", "reload", weapon="revolver"),
                         attack("g", "t", "revolver", [1, 1])])
    assert who(b, "g").res["ammo"]["revolver"] == 5
    assert b.state.economy["actions"] == 2
    assert sides(rolls(b, "attack")[-1]) == [10, 8]


def test_full_magazine_cannot_be_reloaded():
    """data.yaml weapons (magazine): reloading a full gun is no action at all."""
    s = scen(open_map(), [gunslinger("g", (0, 1))], [dummy("t", (5, 1))])
    assert Action("reload", weapon="revolver") not in legal(play(s))


# ---------------------------------------------------------------------------------------
# Bestiary

def test_bestiary_has_at_least_six_armed_templates_and_armour():
    """Issue: the bestiary has at least six templates with weapons and armour
    (data.yaml bestiary); every template builds with Life Points and loaded guns."""
    rs = get_ruleset("cortex")
    names = rs.templates()
    armed = [n for n in names if [w for w in rs.bestiary[n]["weapons"] if w != "unarmed"]]
    assert len(armed) >= 6
    armoured = 0
    for i, name in enumerate(names):
        c = rs.build_combatant({"template": name}, id=f"x{i}", team="a", pos=0, order=i,
                               source=None, field="x")
        assert c.stats["life"] > 0
        for w in c.weapons.values():
            if w.ranged and w.magazine:
                assert c.res["ammo"][w.name] == w.magazine
        armoured += bool(c.armour)
    assert armoured >= 2


# ---------------------------------------------------------------------------------------
# Victory

def test_round_limit_is_a_draw():
    """rules/battle.py: past the round limit the fight is a draw (winner None)."""
    s = scen(open_map(), [fig("p", (0, 0))], [fig("q", (11, 2))], round_limit=1)
    b = play(s, [end("p"), end("q")])
    assert b.state.over and b.state.winner is None
    assert b.state.end_reason == "round limit"
    assert only(evs(b, "battle_end"))["reason"] == "round limit"


def test_fight_goes_on_while_two_teams_stand():
    """rules/battle.py: the fight ends only when one team is left standing."""
    s = scen(open_map(), [fig("p", (0, 0))], [fig("q", (11, 2))], round_limit=3)
    b = play(s, [end("p"), end("q")])
    assert not b.state.over and b.state.round == 2 and b.state.actor.id == "p"


# ---------------------------------------------------------------------------------------
# Dice and pools (pure helpers)

def test_die_step_ladder():
    """RULES-NOTES cortex: traits are die types on a ladder d2 ... d12, d12+d2 ...;
    assumption step_above_d12: d12+dX is rolled as two dice."""
    assert Step.parse("d8") - 2 == D4
    assert D2 - 1 == D0 and not D0
    assert D12 + 1 == Step.parse("d12+d2")
    assert Step.parse("d12+d2").dice == (12, 2)
    assert Step.parse("d12+d2").maximum == 14
    d = Dice(0)
    d.force([12, 2], strict=True)
    r = roll_steps(d, [Step.parse("d12+d2")])
    assert (r.faces, r.total) == (((12, 12), (2, 2)), 14)


def test_botch_is_every_die_a_one():
    """RULES-NOTES cortex: a botch is every die showing 1."""
    d = Dice(0)
    d.force([1, 1, 1, 2], strict=True)
    assert roll_steps(d, [D8, D6]).botch
    assert not roll_steps(d, [D8, D6]).botch


def test_d12_plus_d2_attribute_rolls_two_dice_in_an_attack():
    """assumption step_above_d12 and roll_order: a d12+d2 attribute rolls two dice, then
    the skill die."""
    s = scen(open_map(), [fig("s", (0, 1), agi="d12+d2", skills={"guns": "d4"}, weapons=("pistol",))],
             [dummy("t", (5, 1))])
    b = play(s, [attack("s", "t", "pistol", [1, 1, 1])])
    assert only(rolls(b, "attack"))["dice"] == [[12, 1], [2, 1], [4, 1]]


@pytest.mark.parametrize("attr,skill,steps,expected", [
    (D8, D6, 0, (D8, D6)),
    (D8, D6, -1, (D8, D4)),
    (D8, D6, 2, (D8, D10)),
    (D8, D2, -1, (D8, D0)),
    (D8, D2, -2, (D6, D0)),
    (D4, D2, -3, None),
    (D2, D0, -1, None),
])
def test_make_pool_steps_skill_then_attribute(attr, skill, steps, expected):
    """assumption multiple_actions: steps go to the skill die, the excess to the attribute
    die; below d2 the action cannot be tried."""
    c = SimpleNamespace(stats={"attributes": {"agility": attr}})
    assert make_pool(c, "agility", skill, steps) == expected


# ---------------------------------------------------------------------------------------
# Replay files (tests/replays/cortex/*.yaml): each states one case as a file

def test_replay_bare_handed_block_disarm():
    """seed 000, Defense, Melee Combat (bare-handed block disarms and grabs) and Melee
    Combat, Unarmed (the weapon's damage still lands)."""
    b = run_replay(CORTEX_REPLAYS / "bare_handed_block_disarm.yaml")
    assert who(b, "zoe").res["gained"] == ["knife"]
    assert who(b, "thug").res["lost"] == ["knife"]
    assert (who(b, "zoe").res["stun"], who(b, "zoe").res["wound"]) == (0, 1)
    assert b.state.actor.id == "zoe"


def test_replay_dodge_behind_cover():
    """seed 000, Defense, Ranged Combat: a dodge to heavy cover 10 ft away (near, -2 steps);
    the dodge roll is the Difficulty, the dodger ends behind the cover."""
    b = run_replay(CORTEX_REPLAYS / "dodge_behind_cover.yaml")
    assert pos(b, "zoe") == (5, 2)
    assert [(d["mode"], d["difficulty"]) for d in evs(b, "defence")] == [("dodge", 11), ("dodge", 6)]
    assert [e["result"] for e in evs(b, "attack")] == ["miss", "hit"]
    # the second shot meets the same stance from cover: no move, no range-to-cover penalty,
    # but the stance's second roll is one step lower (assumption defence_stance)
    assert [sides(r) for r in rolls(b, "dodge to cover")] == [[8, 4], [8, 6]]


def test_replay_knockout_ends_the_fight():
    """assumption unconscious and rules/battle.py: a failed Endurance roll at Life Points
    knocks the last enemy out and its team loses."""
    b = run_replay(CORTEX_REPLAYS / "knockout_ends_fight.yaml")
    assert b.state.over and b.state.winner == "crew"
    assert "unconscious" in who(b, "jubal").conditions


@pytest.mark.parametrize("path", sorted(REPLAYS.rglob("*.yaml")), ids=lambda p: p.name)
def test_every_replay_file_runs_with_exact_dice(path):
    """rules/replay.py: every replay file plays with exactly the dice it gives."""
    b = run_replay(path)
    assert b.events
