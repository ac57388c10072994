"""Rule tests for the `cortex_hu` ruleset (seed 002, a Hungarian Cortex combat summary).

Every rule test drives the engine through `rules.replay.run_replay` with an inline scenario
(`initiative: fixed` unless the test is about initiative). Replays are strict: each step's
`dice` are exactly the rolls that step makes, in the data.yaml `roll_order` (attack dice -
attribute die, then skill die - then the defence roll, the damage die, any Endurance roll,
then a called shot's Vitality + Willpower roll and its d6), and all must be used.

Sources cited: "seed 002, <rule>" is /work/shared/seeds/002_b3cd129274de58b9.txt (English
in RULES-NOTES.md, "cortex_hu"); "assumption <key>" is an entry of the `assumptions` list
of rules/systems/cortex_hu/data.yaml (or of the shared rules/systems/cortex_common/base.yaml).

Geometry: cells are 1.5 m unless a test sets `cell_m`, so walking 4.5 m is 3 cells and
jogging 9 m is 6 cells.
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.actions import Action
from rules.dice import D8, D12
from rules.errors import IllegalActionError, ScenarioError
from rules.replay import run_replay
from rules.ruleset import get_ruleset
from rules.scenario import load_scenario, new_battle

RS = get_ruleset("cortex_hu")


# ---------------------------------------------------------------------------------------
# helpers

def fig(id: str, at: tuple[int, int], agi: str = "d6", str_: str = "d6", vit: str = "d6", ale: str = "d6",
        int_: str = "d6", wil: str = "d6", skills: dict | None = None, weapons: tuple[str, ...] = (),
        **extra: Any) -> dict:
    """A full stat block placed at `at`."""
    return {"id": id, "at": list(at), "name": id,
            "attributes": {"agility": agi, "strength": str_, "vitality": vit, "alertness": ale,
                           "intelligence": int_, "willpower": wil},
            "skills": dict(skills or {}), "weapons": list(weapons), **extra}


def dummy(id: str, at: tuple[int, int], **kw: Any) -> dict:
    """A target that takes Easy (3) instead of rolling innate defence, never reacts and has
    Life Points to spare."""
    kw.setdefault("decline_innate", "always")
    kw.setdefault("life_points", 99)
    kw.setdefault("reactions", "never")
    return fig(id, at, **kw)


def scen(rows: list[str], a: list[dict], b: list[dict], *, initiative: str = "fixed", cell_m: float | None = None,
         settings: dict | None = None, round_limit: int = 20) -> dict:
    m: dict[str, Any] = {"rows": list(rows)}
    if cell_m is not None:
        m["cell_m"] = cell_m
    return {"name": "test/cortex_hu", "ruleset": "cortex_hu", "initiative": initiative, "round_limit": round_limit,
            "map": m, "settings": dict(settings or {}),
            "teams": [{"name": "a", "combatants": a}, {"name": "b", "combatants": b}]}


def open_map(w: int = 12, h: int = 3) -> list[str]:
    return ["." * w] * h


def step(actor: str, action: Any, dice: list[int] = ()) -> dict:
    return {"actor": actor, "action": action, "dice": list(dice)}


def attack(actor: str, target: str, weapon: str, dice: list[int] = (), option: str | None = None) -> dict:
    act = {"type": "attack", "target": target, "weapon": weapon}
    if option:
        act["option"] = option
    return step(actor, act, dice)


def end(actor: str, dice: list[int] = ()) -> dict:
    return step(actor, "end_turn", dice)


def move(actor: str, x: int, y: int, dice: list[int] = ()) -> dict:
    return step(actor, {"type": "move", "cell": [x, y]}, dice)


def act(actor: str, kind: str, dice: list[int] = (), **kw: Any) -> dict:
    return step(actor, {"type": kind, **kw}, dice)


def play(scenario: dict | str, steps: list[dict] = (), start_dice: list[int] = (), questions: str = "default"):
    """A strict replay: start_dice and every step's dice must be used exactly. The choices
    seed 002 gives a figure take their defaults unless `questions="ask"` (then each answer
    is a step of the figure asked: `choose`)."""
    return run_replay({"scenario": scenario, "start_dice": list(start_dice), "steps": list(steps),
                       "questions": questions})


def evs(b, type_: str, **match: Any) -> list[dict]:
    return [e for e in b.events if e["type"] == type_ and all(e.get(k) == v for k, v in match.items())]


def rolls(b, purpose: str, actor: str | None = None) -> list[dict]:
    return [e for e in b.events if e["type"] == "roll" and e["purpose"].startswith(purpose)
            and (actor is None or e["actor"] == actor)]


def sides(e: dict) -> list[int]:
    return [s for s, _ in e["dice"]]


def who(b, id: str):
    return b.state.by_id[id]


def pos(b, id: str) -> tuple[int, int]:
    return b.state.grid.xy(who(b, id).pos)


def legal(b) -> list[Action]:
    return b.ruleset.legal_actions(b.state)


def econ(b) -> dict[str, float]:
    return b.ruleset.economy(b.state)


def fencer(id: str = "f", at: tuple[int, int] = (0, 1), **kw: Any) -> dict:
    """Agility d6, Melee Weapons/Swords d8 with a sabre (d4 W); as a target it takes Easy (3)
    and never reacts unless told otherwise."""
    kw.setdefault("skills", {"melee_weapons": "d6", "melee_weapons/swords": "d8"})
    kw.setdefault("decline_innate", "always")
    kw.setdefault("reactions", "never")
    kw.setdefault("life_points", 30)
    return fig(id, at, weapons=("sabre",), **kw)


# ---------------------------------------------------------------------------------------
# seed 002, Harcrendszer: the round, initiative, the multiple-action ladder

def test_the_worked_example_melee_d8_rolls_d8_d6_d4_then_d2_and_no_fifth():
    """seed 002, multiple actions (worked example): "közelharc 1D8-on van. háromszor akarok
    ütni ... 1D8-al dobom. A második ütés már csak 1D6-al, a harmadik pedig 1D4-el" - and
    "Ha a kockadobás 1d2 alá csökkenne, akkor azt a cselekvést már nem próbálhatod meg":
    a fourth attack rolls d2, a fifth cannot be tried."""
    s = scen(open_map(), [fencer()], [dummy("t", (1, 1))])
    hit = [3, 2, 2]  # Agility, skill, sabre d4 damage: 5 against Easy 3
    b = play(s, [attack("f", "t", "sabre", hit), attack("f", "t", "sabre", hit),
                 attack("f", "t", "sabre", hit), attack("f", "t", "sabre", hit)])
    atk = rolls(b, "attack with sabre", "f")
    assert [sides(r) for r in atk] == [[6, 8], [6, 6], [6, 4], [6, 2]]
    assert [r["steps"] for r in atk] == [0, -1, -2, -3]
    assert not [a for a in legal(b) if a.kind == "attack"]
    with pytest.raises(IllegalActionError):
        play(s, [attack("f", "t", "sabre", hit)] * 4 + [attack("f", "t", "sabre", hit)])


def test_unskilled_actions_step_the_attribute_die():
    """seed 002, multiple actions; assumption multiple_actions: unskilled, the attribute die is the die that steps."""
    s = scen(open_map(), [fig("f", (0, 1), agi="d6", weapons=("knife",))], [dummy("t", (1, 1))])
    b = play(s, [attack("f", "t", "knife", [5, 1]), attack("f", "t", "knife", [4, 1]),
                 attack("f", "t", "knife", [2])])                    # a d2 cannot reach Easy 3
    assert [sides(r) for r in rolls(b, "attack with knife")] == [[6], [4], [2]]
    assert not [a for a in legal(b) if a.kind == "attack"]


def test_rate_of_fire_still_limits_firearms():
    """seed 002: "a lőfegyvereknél a körönkénti tűzgyorsaság" - the pistol's 3 shots a turn end
    its shooting although the ladder would allow more (assumption rof)."""
    s = scen(open_map(), [fig("g", (0, 1), agi="d6", skills={"guns": "d6", "guns/pistols": "d12+d4"},
                              weapons=("pistol",))], [dummy("t", (5, 1))])
    shot = [3, 6, 1, 1]  # Agility, the skill die's two dice, damage d6
    b = play(s, [attack("g", "t", "pistol", shot), attack("g", "t", "pistol", shot),
                 attack("g", "t", "pistol", [3, 6, 1])])
    assert [sides(r) for r in rolls(b, "attack with pistol")] == [[6, 12, 4], [6, 12, 2], [6, 12]]
    assert econ(b)["shots_left"] == 0
    assert not [a for a in legal(b) if a.kind == "attack" and a.weapon == "pistol"]
    assert who(b, "g").res["ammo"]["pistol"] == 12


def test_a_round_is_about_three_seconds():
    """seed 002, Harcrendszer: "Egy harci kör kb. 3 másodperc"."""
    assert RS.data["round_seconds"] == 3


def test_initiative_is_agility_plus_alertness_plus_an_advantage():
    """seed 002, Harcrendszer 1: "kezdeményezés Fürgeség+Éberség+módosítók (pl. előny)";
    assumption initiative: `initiative_steps` steps the Agility die; ties go to the higher Agility."""
    s = scen(open_map(), [fig("slow", (0, 0), agi="d6", ale="d6"), fig("quick", (0, 2), agi="d6", ale="d6",
                                                                      initiative_steps=1)],
             [fig("tie", (5, 1), agi="d4", ale="d8")], initiative="roll")
    b = play(s, start_dice=[3, 3, 3, 3, 2, 4])
    ini = rolls(b, "initiative")
    assert [(r["actor"], sides(r)) for r in ini] == [("slow", [6, 6]), ("quick", [8, 6]), ("tie", [4, 8])]
    # 6 = 6 = 6: the higher Agility die goes first (assumption initiative_ties)
    assert evs(b, "initiative")[0]["order"] == ["quick", "slow", "tie"]
    b = play(s, start_dice=[3, 3, 4, 3, 2, 3])
    assert evs(b, "initiative")[0]["order"] == ["quick", "slow", "tie"]   # 7, 6, 5


# ---------------------------------------------------------------------------------------
# seed 002: free actions, walking, jogging, running

def test_walking_dropping_an_item_and_dropping_prone_are_free():
    """seed 002: "szabad cselekvés ... a pár szavas beszéd, a földre vetődés, valaminek az
    elejtése és a séta. A séta körönként 4,5m" - none of them steps the next action down."""
    s = scen(open_map(12, 3), [fig("f", (0, 1), skills={"melee_weapons": "d8"}, weapons=("knife", "club"))],
             [dummy("t", (4, 1))])
    b = play(s, [move("f", 3, 1), act("f", "drop", weapon="club")])
    assert evs(b, "move")[0]["metres"] == 4.5 and evs(b, "move")[0]["mode"] == "walk"
    assert econ(b)["actions_used"] == 0 and econ(b)["walk_left_m"] == 0
    assert "club" in b.state.objects[who(b, "f").pos] and "club" not in RS.weapon_slots(who(b, "f"))
    b = play(s, [move("f", 3, 1), act("f", "drop", weapon="club"), attack("f", "t", "knife", [2, 4, 1])])
    assert rolls(b, "attack with knife")[0]["steps"] == 0 and sides(rolls(b, "attack")[0]) == [6, 8]
    b = play(s, [act("f", "drop_prone")])
    assert "prone" in who(b, "f").conditions and econ(b)["actions_used"] == 0


def test_jogging_nine_metres_is_an_action():
    """seed 002: "A kocogás 9m megtételét jelenti, és az már nem számít szabad cselekvésnek"."""
    s = scen(open_map(12, 3), [fig("f", (0, 1), skills={"melee_weapons": "d8"}, weapons=("knife",))],
             [dummy("t", (7, 1))])
    b = play(s, [move("f", 6, 1), attack("f", "t", "knife", [2, 4, 1])])
    assert evs(b, "move")[0]["mode"] == "jog" and evs(b, "move")[0]["metres"] == 9.0
    assert rolls(b, "attack with knife")[0]["steps"] == -1 and sides(rolls(b, "attack")[0]) == [6, 6]
    b = play(s, [move("f", 4, 1), move("f", 6, 1)])  # 6 m then 3 m more: still one action
    assert econ(b)["actions_used"] == 1 and econ(b)["jogged"] == 1


def test_running_adds_agility_and_running_rolls_in_metres_and_minus_two_steps_after():
    """seed 002: "A rohanás 9m+Fürgeség dobás+Atlétika/Futás dobás távolság megtételét
    biztosítja, de utána/mellette -2 kockafokozatos büntetést ad az utána következő
    cselekvésekre"; assumption run: the run is an action of the ladder and its -2 adds to it."""
    runner = fig("r", (0, 1), agi="d8", skills={"athletics": "d4", "athletics/running": "d6",
                                               "melee_weapons": "d10"}, weapons=("knife",))
    s = scen(open_map(16, 3), [runner], [dummy("t", (12, 1))])
    b = play(s, [move("r", 11, 1, [4, 6]), attack("r", "t", "knife", [4, 4, 1])])
    run = rolls(b, "run")[0]
    assert sides(run) == [8, 6] and run["total"] == 10
    assert evs(b, "move")[0]["mode"] == "run" and pos(b, "r") == (11, 1)  # 16.5 m within 9 + 10
    atk = rolls(b, "attack with knife")[0]
    assert atk["steps"] == -3 and sides(atk) == [8, 4]  # d10: ladder -1, run -2
    assert econ(b)["run_penalty"] == -2 and econ(b)["ran"] == 1
    assert not [a for a in legal(b) if a.kind == "move"]  # movement ends with the run


def test_a_short_run_roll_stops_the_runner_on_the_way():
    """seed 002: the run covers 9 m + the rolls, no more (assumption run: it stops on the path)."""
    runner = fig("r", (0, 1), agi="d4", skills={"athletics/running": "d4"})
    s = scen(open_map(16, 3), [runner], [dummy("t", (15, 1))])
    b = play(s, [move("r", 10, 1, [1, 1])])  # 15 m asked, 9 + 2 = 11 m allowed
    assert pos(b, "r") == (7, 1) and evs(b, "move")[0]["metres"] == 10.5


# ---------------------------------------------------------------------------------------
# seed 002, Kitérés/blokkolás: declared defences carry past the turn; reactions carry over

def test_a_dodge_taken_on_the_turn_answers_the_next_attack_after_the_turn():
    """seed 002: "A kitérés/blokkolás a következő támadás elől történő kitérést biztosítja ...
    még ha az a cselekvési köröd után következik is be"; Kitérés: Agility + Athletics/Dodge,
    a higher roll dodges; assumption prepared_defence."""
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d8"}, reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="dodge"), end("d"),
                 attack("f", "d", "sabre", [2, 4, 5, 5]),     # 6 against the dodge's 10: a miss
                 attack("f", "d", "sabre", [3, 4, 2, 2])])    # no dodge left: innate 2, a hit
    dodge = rolls(b, "dodge (prepared)", "d")
    assert len(dodge) == 1 and sides(dodge[0]) == [6, 8] and dodge[0]["steps"] == 0
    results = [e["result"] for e in evs(b, "attack", actor="f")]
    assert results == ["miss", "hit"]
    assert rolls(b, "innate defence", "d")[0]["total"] == 2


def test_defending_against_further_attackers_starts_the_next_round_lower():
    """seed 002: "Ha a köröd vége után még felbukkan egyéb támadó is, akkor az ő támadásukat is
    megpróbálhatod elhárítani, de akkor a következő kört már a megfelelő számú kockafokozat
    büntetéssel fogod kezdeni"; assumption reactions: a reaction is rolled at the next step
    of the ladder of its last turn, and each starts its next turn a step lower."""
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d8", "melee_weapons/swords": "d8"},
            weapons=("sabre",), life_points=40)
    s = scen(open_map(), [d], [fencer("f", (2, 1)), fencer("g", (0, 1))])
    steps = [act("d", "defend", option="dodge"), end("d"),
             attack("f", "d", "sabre", [2, 1, 4, 4]),          # against the prepared dodge (d6+d8)
             end("f"),
             attack("g", "d", "sabre", [2, 1, 4, 4]),          # a reaction: parry at -1
             attack("g", "d", "sabre", [2, 1, 3, 3]),          # a second reaction at -2
             end("g"),
             attack("d", "f", "sabre", [3, 4, 1])]             # its next turn starts 2 steps lower
    b = play(s, steps, start_dice=[])
    reacts = rolls(b, "parry (reaction)", "d")
    assert [r["steps"] for r in reacts] == [-1, -2]
    assert [sides(r) for r in reacts] == [[6, 6], [6, 4]]
    carried = evs(b, "effect", target="d", carried=2)
    assert carried, "the next turn carries the 2 reactions"
    atk = rolls(b, "attack with sabre", "d")[0]
    assert atk["steps"] == -2 and sides(atk) == [6, 4]


# ---------------------------------------------------------------------------------------
# seed 002, Ösztönös kitérés (innate defence)

def test_innate_defence_is_a_free_agility_roll_as_the_difficulty():
    """seed 002, Ösztönös kitérés: "Ha figyeled a támadó(ka)t tehetsz egy Fürgeség próbát,
    aminek az eredménye lesz a védő értéked ... Az ösztönös kitérés szabad cselekvésnek számít"."""
    t = fig("t", (1, 1), agi="d8", reactions="never", life_points=30)
    s = scen(open_map(), [fencer("f", (0, 1))], [t])
    b = play(s, [attack("f", "t", "sabre", [2, 4, 7]), end("f"), attack("t", "f", "unarmed", [8, 1])])
    assert sides(rolls(b, "innate defence", "t")[0]) == [8]
    assert evs(b, "attack", actor="f")[0]["result"] == "miss" and evs(b, "defence", actor="t")[0]["difficulty"] == 7
    assert rolls(b, "attack with unarmed", "t")[0]["steps"] == 0  # the innate roll was no action
    b = play(s, [attack("f", "t", "sabre", [2, 4, 6, 1])])
    assert evs(b, "attack", actor="f")[0]["result"] == "hit"   # 6 against an innate 6: a tie hits


def test_innate_defence_not_watching_is_easy_three():
    """seed 002, Ösztönös kitérés: otherwise "Könnyű célpont vagy (célszám: 3)"; assumption
    innate_watching and surprise: a surprised figure does not watch its attacker."""
    t = fig("t", (1, 1), agi="d12", life_points=30)
    s = scen(open_map(), [fencer("f", (0, 1))], [t], settings={"surprised": ["t"]})
    b = play(s, [attack("f", "t", "sabre", [1, 2, 1])])
    d = evs(b, "defence", actor="t")[0]
    assert d["difficulty"] == 3 and d["mode"] == "innate, not watching"
    assert not rolls(b, "innate defence", "t")


def test_plot_points_may_be_added_to_innate_defence():
    """seed 002, Ösztönös kitérés: "Persze adhatsz bele Plot pontot is"; assumption
    innate_plot_points: the fewest points whose die could make up the difference."""
    t = fig("t", (1, 1), agi="d6", reactions="never", life_points=30, plot_points=3)
    s = scen(open_map(), [fencer("f", (0, 1))], [t])
    # attack 6 against innate 4: 3 short, so 2 points (d4) are spent; the d4 shows 4: Difficulty 8
    b = play(s, [attack("f", "t", "sabre", [2, 4, 4, 4])])
    pp = rolls(b, "spends 2 Plot Points", "t")
    assert pp and sides(pp[0]) == [4]
    assert who(b, "t").res["pp"] == 1 and evs(b, "attack", actor="f")[0]["result"] == "miss"
    # 9 short with 1 point left: a d2 cannot make it up, so none is spent
    b = play(s, [attack("f", "t", "sabre", [2, 4, 4, 4]), attack("f", "t", "sabre", [6, 6, 1, 3])])
    assert who(b, "t").res["pp"] == 1 and evs(b, "attack", actor="f")[1]["result"] == "hit"


# ---------------------------------------------------------------------------------------
# seed 002, Hárítás (parry) and Kitérés (dodge)

def test_parry_is_agility_plus_the_weapon_skill_and_an_action():
    """seed 002, Hárítás: "Fürgeség+ szükséges képzettség mint pl. közelharc; ha a te dobásod
    magasabb, sikerült hárítani ... A hárítás egy cselekvésnek számít"."""
    d = fig("d", (1, 1), agi="d8", skills={"melee_weapons": "d6", "melee_weapons/swords": "d10"},
            weapons=("sabre",), reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [attack("d", "f", "sabre", [1, 1]), act("d", "defend", option="parry"), end("d"),
                 attack("f", "d", "sabre", [4, 4, 5, 3, 1])])       # 8 against 5 + 3 = 8: a tie hits
    p = rolls(b, "parry (prepared)", "d")[0]
    assert p["steps"] == -1 and sides(p) == [8, 8]                 # the second action: d10 -> d8
    assert evs(b, "attack", actor="f")[0]["result"] == "hit"       # the parry must be higher
    b = play(s, [attack("d", "f", "sabre", [1, 1]), act("d", "defend", option="parry"), end("d"),
                 attack("f", "d", "sabre", [4, 4, 5, 4])])
    assert evs(b, "attack", actor="f")[0]["result"] == "miss"


def test_a_bare_handed_parry_against_a_weapon_still_takes_its_base_damage():
    """seed 002, Hárítás: "ha az ellenfél fegyverrel támad rád, és te fegyvertelen vagy, a
    fegyver alapsebzését akkor is megkapod" - the weapon's die, no margin."""
    d = fig("d", (1, 1), agi="d8", skills={"unarmed_combat": "d8"}, reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="parry"), end("d"), attack("f", "d", "sabre", [2, 2, 6, 6, 3])])
    assert evs(b, "attack", actor="f")[0]["result"] == "miss"
    dmg = evs(b, "damage", target="d")
    assert dmg == [dmg[0]] and (dmg[0]["stun"], dmg[0]["wound"]) == (0, 3)   # the sabre's d4 only


def test_firearms_and_energy_weapons_cannot_be_parried_but_dodged():
    """seed 002, Hárítás: "Lő és energiafegyvereket ne akarj hárítani. Arra a kitérés
    használható"; Kitérés/blokkolás: a defence declared on the turn answers the next attack
    "közelharcban/kézitusában" (assumptions prepared_defence, reactions): gunfire is dodged
    by reaction."""
    d = fig("d", (1, 1), agi="d6", skills={"melee_weapons/swords": "d8", "athletics/dodge": "d6"},
            weapons=("sabre",), reactions="never", life_points=30, decline_innate="always")
    shooter = fig("s", (6, 1), agi="d6", skills={"guns/energy_weapons": "d8", "guns/pistols": "d8"},
                  weapons=("laser_pistol", "pistol"))
    s = scen(open_map(), [d], [shooter])
    b = play(s, [act("d", "defend", option="parry"), act("d", "defend", option="dodge"), end("d"),
                 attack("s", "d", "laser_pistol", [4, 4, 2]), attack("s", "d", "pistol", [4, 4, 2])])
    assert not rolls(b, "parry", "d") and not rolls(b, "dodge", "d")   # Easy 3 both times
    assert [e["difficulty"] for e in evs(b, "defence", actor="d")] == [3, 3]
    assert [(p["mode"], p["steps"]) for p in who(b, "d").res["prepared"]] == [("parry", 0), ("dodge", -1)]
    d["reactions"] = "auto"
    b = play(scen(open_map(), [d], [shooter]), [end("d"), attack("s", "d", "laser_pistol", [1, 2, 5, 1])])
    dodge = rolls(b, "dodge (reaction)", "d")
    assert dodge and sides(dodge[0]) == [6, 6] and not rolls(b, "parry", "d")
    assert evs(b, "attack", actor="s")[0]["result"] == "miss"


# ---------------------------------------------------------------------------------------
# seed 002, Teljes Védekezés and Teljes körű támadás

def test_full_defence_gives_two_steps_to_defence_rolls_and_nothing_else():
    """seed 002, Teljes Védekezés: "Ha csak védekezel a körben, kapsz +2 kockafokozat bónuszt a
    dobásokra. (persze a több cselekvés miatti büntetéseket ugyanúgy megkap(hat)od)"."""
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d6"}, reactions="never", life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [act("d", "defend", option="full_defence"), act("d", "defend", option="dodge"),
                 act("d", "defend", option="dodge")])
    assert not [a for a in legal(b) if a.kind in ("attack", "grapple", "feint", "aim")]
    assert [p["steps"] for p in who(b, "d").res["prepared"]] == [2, 1]     # +2, with the ladder
    b = play(s, [act("d", "defend", option="full_defence"), act("d", "defend", option="dodge"), end("d"),
                 attack("f", "d", "sabre", [2, 2, 1, 1, 2])])
    assert sides(rolls(b, "dodge (prepared)", "d")[0]) == [6, 10]


def test_no_full_defence_or_all_out_attack_with_an_action_carried_over():
    """seed 002, Teljes Védekezés: "Ha viszont az előző körből "áthozol" valamilyen cselekvést -
    akár védekezést is, akkor nem használhatod a Teljes Védekezést"; Teljes körű támadás:
    "nem is hoztál át védekező cselekvést az előző körből"."""
    d = fig("d", (1, 1), agi="d6", skills={"melee_weapons/swords": "d8"}, weapons=("sabre",), life_points=30)
    s = scen(open_map(), [d], [fencer("f", (2, 1))])
    b = play(s, [end("d"), attack("f", "d", "sabre", [1, 1, 4, 4]), end("f")])   # d reacts with a parry
    assert econ(b)["carried_over"] == 1
    opts = {a.option for a in legal(b)}
    assert "full_defence" not in opts and "all_out" not in opts
    b = play(s, [])
    opts = {a.option for a in legal(b)}
    assert "full_defence" in opts and "all_out" in opts


def test_all_out_attack_adds_two_steps_and_leaves_only_innate_defence():
    """seed 002, Teljes körű támadás: "Ebben a körben nem védekezel ... Viszont erre a körre
    kapsz +2 kockafokozat bónuszt a támadó dobásokra"."""
    f = fencer("f", (0, 1), skills={"melee_weapons/swords": "d8", "athletics/dodge": "d8"},
               reactions="auto", decline_innate="auto")
    s = scen(open_map(), [f], [fencer("g", (1, 1), life_points=30)])
    b = play(s, [attack("f", "g", "sabre", [1, 1], option="all_out"), attack("f", "g", "sabre", [1, 1])])
    atk = rolls(b, "attack with sabre", "f")
    assert [sides(r) for r in atk] == [[6, 12], [6, 10]]              # d8 +2; then -1 +2
    assert not [a for a in legal(b) if a.kind == "defend"]
    b = play(s, [attack("f", "g", "sabre", [1, 1], option="all_out"), end("f"),
                 attack("g", "f", "sabre", [4, 4, 3, 2])])             # no reaction: innate only
    d = evs(b, "defence", actor="f")
    assert d[-1]["mode"] == "innate only (all-out attack)" and not rolls(b, "parry", "f")


# ---------------------------------------------------------------------------------------
# seed 002, Csel (feint)

def test_a_won_feint_leaves_only_innate_defence_against_the_next_attack():
    """seed 002, Csel: "Dobj Éberség+Közelharc/kézitusa képzettségre; Ellenfél dob
    Intelligencia+Észlelés/Intuícióra; ha a támadóé magasabb ... a következő támadás ellen
    csak Ösztönös kitéréssel védekezhet"."""
    t = fig("t", (1, 1), agi="d6", int_="d6", skills={"perception": "d4", "perception/intuition": "d8",
                                                      "athletics/dodge": "d8"}, life_points=30, reactions="never")
    s = scen(open_map(), [fencer("f", (0, 1), ale="d8")], [t])
    pre = [end("f"), act("t", "defend", option="dodge"), end("t")]
    b = play(s, pre + [act("f", "feint", target="t", dice=[6, 6, 3, 3]),
                       attack("f", "t", "sabre", [3, 3, 2, 1])])
    fe = rolls(b, "feint", "f")[0]
    assert sides(fe) == [8, 8] and sides(rolls(b, "see through the feint", "t")[0]) == [6, 8]
    assert fe["success"] is True
    assert evs(b, "defence", actor="t")[0]["mode"] == "innate only (feinted)"
    assert rolls(b, "attack with sabre", "f")[0]["steps"] == -1       # the feint was an action
    assert [(p["mode"], p["steps"]) for p in who(b, "t").res["prepared"]] == [("dodge", 0)]  # the dodge is kept


def test_a_lost_or_tied_feint_changes_nothing():
    """seed 002, Csel: only a higher feint roll fools the target."""
    t = fig("t", (1, 1), agi="d6", skills={"perception/intuition": "d8", "athletics/dodge": "d8"},
            life_points=30, reactions="never")
    s = scen(open_map(), [fencer("f", (0, 1), ale="d8")], [t])
    b = play(s, [end("f"), act("t", "defend", option="dodge"), end("t"),
                 act("f", "feint", target="t", dice=[3, 3, 3, 3]), attack("f", "t", "sabre", [3, 3, 2, 5])])
    assert rolls(b, "feint", "f")[0]["success"] is False
    assert rolls(b, "dodge (prepared)", "t")


# ---------------------------------------------------------------------------------------
# seed 002, Megragadás/leszorítás (grapple and pin)

WRESTLER = dict(agi="d8", str_="d8", skills={"unarmed_combat": "d6", "unarmed_combat/grappling": "d10"})


def test_grapple_holds_and_the_held_target_is_easy_three_for_unarmed_attacks():
    """seed 002, Megragadás: "Dobj Fürgeség+Kézitusa/specializáció képzettségre ... Minden
    körben, amíg leszorítod, az ellenfeled könnyű célpontnak (célszám 3) számít a fegyvertelen
    harc szempontjából"; holding is free."""
    s = scen(open_map(), [fig("w", (0, 1), **WRESTLER)], [fig("t", (1, 1), agi="d6", life_points=30,
                                                             reactions="never")])
    b = play(s, [act("w", "grapple", target="t", dice=[4, 6, 3]), attack("w", "t", "unarmed", [1, 2, 1]),
                 end("w"), end("t"), attack("w", "t", "unarmed", [1, 2, 1])])
    g = rolls(b, "grapple", "w")[0]
    assert sides(g) == [8, 10] and "grappled" in who(b, "t").conditions
    held = evs(b, "defence", actor="t", mode="held")
    assert [h["difficulty"] for h in held] == [3, 3]
    # holding cost nothing: the first attack of the next turn is unpenalised
    assert rolls(b, "attack with unarmed", "w")[-1]["steps"] == 0
    # the held figure cannot move
    b = play(s, [act("w", "grapple", target="t", dice=[4, 6, 3]), end("w")])
    assert not [a for a in legal(b) if a.kind == "move"]


def test_the_holder_may_choke_for_stun():
    """seed 002, Megragadás: "de akár fojtogathatod is"; assumption choke: margin and die all Stun."""
    s = scen(open_map(), [fig("w", (0, 1), **WRESTLER)], [fig("t", (1, 1), agi="d6", life_points=30,
                                                             reactions="never")])
    b = play(s, [act("w", "grapple", target="t", dice=[4, 6, 3]),
                 attack("w", "t", "unarmed", [3, 3, 2], option="choke")])
    dmg = evs(b, "damage", target="t")[0]
    assert (dmg["stun"], dmg["wound"]) == (3 + 2, 0)  # 6 - 3 = 3 margin, d2 = 2


def test_escape_is_agility_plus_strength_against_the_grapple_roll():
    """seed 002, Megragadás: "amire dobhat szabadulást Fürgeség+Erő-vel"; assumption grapple:
    against the grapple roll's total, a tie frees."""
    s = scen(open_map(), [fig("w", (0, 1), **WRESTLER)],
             [fig("t", (1, 1), agi="d6", str_="d8", life_points=30, reactions="never")])
    pre = [act("w", "grapple", target="t", dice=[4, 6, 3]), end("w")]        # grip 10
    b = play(s, pre + [act("t", "grapple", target="w", option="escape", dice=[6, 3])])
    e = rolls(b, "escape", "t")[0]
    assert sides(e) == [6, 8] and e["difficulty"] == 10 and not e["success"]
    assert "grappled" in who(b, "t").conditions
    b = play(s, pre + [act("t", "grapple", target="w", option="escape", dice=[4, 6])])
    assert "grappled" not in who(b, "t").conditions and "prone" not in who(b, "t").conditions


def test_released_the_target_lies_prone_at_minus_two_until_it_stands():
    """seed 002, Megragadás: "Miután elengedted, az ellenfél földön fekszik amíg talpra nem
    áll. (-2 kockafokozat büntetést kap addig)"; standing up is an action."""
    t = fig("t", (1, 1), agi="d6", skills={"melee_weapons": "d8"}, weapons=("knife",), life_points=30,
            reactions="never")
    s = scen(open_map(), [fig("w", (0, 1), decline_innate="always", life_points=30, reactions="never",
                              **WRESTLER)], [t])
    pre = [act("w", "grapple", target="t", dice=[4, 6, 3]), act("w", "grapple", target="t", option="release"),
           end("w")]
    b = play(s, pre + [attack("t", "w", "knife", [3, 3, 1])])
    assert rolls(b, "attack with knife", "t")[0]["steps"] == -2 and sides(rolls(b, "attack with knife")[0]) == [6, 4]
    b = play(s, pre + [act("t", "stand"), attack("t", "w", "knife", [3, 3, 1])])
    assert "prone" not in who(b, "t").conditions
    assert rolls(b, "attack with knife", "t")[0]["steps"] == -1       # standing was one action


# ---------------------------------------------------------------------------------------
# seed 002, Meglepetésből támadás (surprise)

def test_surprised_figures_only_have_innate_defence_until_their_first_turn():
    """seed 002, Meglepetésből támadás: "Ha nem várja a támadást, a célpont csak Ösztönös
    kitéréssel védekezhet"; assumption surprise: `settings.surprised` names teams or figures."""
    t = fig("t", (1, 1), agi="d8", skills={"melee_weapons/swords": "d10", "athletics/dodge": "d8"},
            weapons=("sabre",), life_points=30)
    s = scen(open_map(), [fencer("f", (0, 1))], [t], settings={"surprised": ["b"]})
    b = play(s, [attack("f", "t", "sabre", [1, 2, 1])])
    assert "surprised" in who(b, "t").conditions and not rolls(b, "parry", "t")
    assert evs(b, "defence", actor="t")[0]["difficulty"] == 3
    b = play(s, [end("f"), end("t"), attack("f", "t", "sabre", [1, 2, 4, 4])])
    assert "surprised" not in who(b, "t").conditions and rolls(b, "parry (reaction)", "t")
    with pytest.raises(ScenarioError, match="surprised"):
        play(scen(open_map(), [fencer("f", (0, 1))], [t], settings={"surprised": ["nobody"]}))


# ---------------------------------------------------------------------------------------
# seed 002, Fedezékek (cover) and Lőtávolságok (ranges)

@pytest.mark.parametrize("mark,bonus", [(".", 0), ("l", 4), ("m", 8), ("h", 12), ("T", 16)])
def test_cover_adds_four_eight_twelve_or_sixteen(mark, bonus):
    """seed 002, Fedezékek: "Könnyű: +4 ... Közepes: +8 ... Nehéz: +12 ... Teljes: +16 célszám"."""
    rows = ["........", f"......{mark}.", "........"]
    shooter = fig("s", (0, 1), agi="d12", skills={"guns/pistols": "d12+d12"}, weapons=("pistol",))
    s = scen(rows, [shooter], [dummy("t", (7, 1))])
    b = play(s, [attack("s", "t", "pistol", [2, 1, 1] + ([1] if bonus == 0 else []))])   # 4: hits only in the open
    d = evs(b, "defence", actor="t")[0]
    assert d["difficulty"] == 3 + bonus and d["cover_bonus"] == bonus


@pytest.mark.parametrize("cells,cell_m,steps,skill_die", [
    (1, 1.5, 1, 12),      # 1.5 m, within 3 m: +1 step
    (3, 10, 0, 10),       # 30 m: short
    (5, 10, -2, 6),       # 50 m: medium
    (8, 10, -4, 2),       # 80 m: long
])
def test_range_steps_within_three_metres_short_medium_long(cells, cell_m, steps, skill_die):
    """seed 002, Lőtávolságok: "3m-en belül +1 ... Rövid távon belül nincs módosító; Közepes
    távon -2 ... Hosszú távon -4 kockafokozat"; assumption range_bands: pistol 30/60/90 m."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns": "d4", "guns/pistols": "d10"}, weapons=("pistol",))
    s = scen(open_map(12), [shooter], [dummy("t", (cells, 1))], cell_m=cell_m)
    b = play(s, [attack("s", "t", "pistol", [1, 1])])                        # 2 against Easy 3: a miss
    atk = rolls(b, "attack with pistol")[0]
    assert atk["steps"] == steps and sides(atk) == [6, skill_die]


def test_ranges_beyond_long_and_the_long_band_on_the_ladder():
    """seed 002, Lőtávolságok: no shot beyond the long band (assumption range_bands); at long
    range -4 steps can take the skill die below d2 (seed 002, multiple actions)."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("pistol",))
    s = scen(open_map(12), [shooter], [dummy("t", (10, 1))], cell_m=10)        # 100 m: beyond 90
    assert not [a for a in legal(play(s)) if a.kind == "attack" and a.weapon == "pistol"]
    s = scen(open_map(12), [shooter], [dummy("t", (8, 1))], cell_m=10)         # 80 m: long
    b = play(s, [attack("s", "t", "pistol", [1, 1])])
    assert sides(rolls(b, "attack with pistol")[0]) == [6, 4]                  # d12 -4 = d4
    weak = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d6"}, weapons=("pistol",))
    s = scen(open_map(12), [weak], [dummy("t", (8, 1))], cell_m=10)
    assert not [a for a in legal(play(s)) if a.kind == "attack" and a.weapon == "pistol" and not a.option]
    assert Action("attack", target="t", weapon="pistol", option="all_out") in legal(play(s))  # +2 makes it d2


# ---------------------------------------------------------------------------------------
# seed 002, Hajítófegyverek (throwing)

@pytest.mark.parametrize("cells,steps", [(2, -1), (4, -2), (6, -3), (10, -4)])
def test_throwing_an_object_not_made_for_throwing(cells, steps):
    """seed 002, Hajítófegyverek: "ha nem dobásra lett kitalálva valami, akkor a távolságtól
    függően -1-től -4-ig kap kockafokozat büntetést"; assumption improvised_throw (3, 6, 10,
    15 m) - and the object lands on the target's cell."""
    t = fig("t", (0, 1), agi="d6", skills={"athletics/throwing": "d12"}, weapons=("club",))
    s = scen(open_map(12), [t], [dummy("d", (cells, 1))])
    b = play(s, [attack("t", "d", "club", [1, 1], option="throw")])
    atk = rolls(b, "attack with club (throw)")[0]
    assert atk["steps"] == steps and sides(atk) == [6, (D12 + steps).dice[0]]
    assert b.state.objects[who(b, "d").pos] == ["club"] and "club" not in RS.weapon_slots(who(b, "t"))


def test_no_improvised_throw_beyond_fifteen_metres_and_made_for_throwing_uses_the_bands():
    """seed 002, Hajítófegyverek; assumptions improvised_throw and thrown_weapons."""
    t = fig("t", (0, 1), agi="d6", skills={"athletics/throwing": "d12"}, weapons=("club", "throwing_knives"))
    s = scen(open_map(14), [t], [dummy("d", (11, 1))])                         # 16.5 m
    assert not [a for a in legal(play(s)) if a.option == "throw"]
    s = scen(open_map(14), [t], [dummy("d", (6, 1))])                          # 9 m: medium for knives
    b = play(s, [attack("t", "d", "throwing_knives", [1, 1])])
    assert rolls(b, "attack with throwing_knives")[0]["steps"] == -2
    assert who(b, "t").res["ammo"]["throwing_knives"] == 2
    assert not [a for a in legal(b) if a.kind == "reload"]


# ---------------------------------------------------------------------------------------
# seed 002, Célzás (aiming)

def test_aiming_adds_a_step_a_round_up_to_three():
    """seed 002, Célzás: "körönként +1 kockafokozat bónuszt a dobásokra - max 3 körig lehet
    halmozni őket"."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/rifles": "d6"}, weapons=("rifle",))
    s = scen(open_map(12), [shooter], [dummy("t", (10, 1))])
    aim3 = []
    for _ in range(3):
        aim3 += [act("s", "aim"), end("s"), end("t")]
    b = play(s, aim3 + [attack("s", "t", "rifle", [1, 1])])
    atk = rolls(b, "attack with rifle")[0]
    assert atk["steps"] == 3 and sides(atk) == [6, 12]
    b = play(s, aim3)
    assert econ(b)["aim_steps"] == 3 and "aiming" in who(b, "s").conditions
    assert Action("aim") in legal(b)          # aiming on is allowed; it keeps +3 (test_cortex_hu_seed_words.py)


def test_while_aiming_no_movement_or_other_action_and_moving_loses_it():
    """seed 002, Célzás: "Közben nem lehet mozogni, továbbá nem lehet szabad cselekvésen kívül
    mást végezni"; assumption aim."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/rifles": "d6"}, weapons=("rifle", "knife"))
    s = scen(open_map(12), [shooter], [dummy("t", (10, 1))])
    b = play(s, [act("s", "aim")])
    assert {a.kind for a in legal(b)} == {"end_turn", "drop_prone", "drop"}
    b = play(s, [act("s", "aim"), end("s"), end("t"), move("s", 1, 1)])
    assert econ(b)["aim_steps"] == 0
    b = play(s, [act("s", "aim"), end("s"), end("t"), end("s"), end("t")])   # a turn without aiming
    assert who(b, "s").res["aim"] == 1                                         # keeps it (issue #32)
    b = play(s, [move("s", 1, 1)])
    assert Action("aim") not in legal(b)                                       # not after moving


# ---------------------------------------------------------------------------------------
# seed 002, Célzott lövés (called shots)

@pytest.mark.parametrize("area,atk_steps,dmg_die", [
    ("leg", -1, [12]), ("head", -2, [12, 4]), ("groin", -2, [12, 4]), ("eye", -3, [12, 8]),
    ("heart", -3, [12, 8]), ("elbow", -3, [12, 8]), ("knee", -3, [12, 8]), ("knee_waive", -3, [8]),
])
def test_called_shot_attack_penalty_and_damage_bonus(area, atk_steps, dmg_die):
    """seed 002, Célzott lövés: leg -1 step, +2 damage steps; vital organs -2, +4; tiny targets
    -3, +6; elbow or knee: "a támadó eldöntheti, hogy akarja-e érvényesíteni a sebzés bónuszt"
    (assumption joint_shot). The revolver's d8, stepped; V+W succeeds (7 + 7)."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("revolver",))
    t = dummy("t", (4, 1), vit="d8", wil="d8")
    s = scen(open_map(12), [shooter], [t])
    dice = [1, 3] + [1] * len(dmg_die) + [7, 7]
    b = play(s, [attack("s", "t", "revolver", dice, option=f"called:{area}")])
    atk = rolls(b, "attack with revolver")[0]
    assert atk["steps"] == atk_steps
    assert sides(rolls(b, "damage")[0]) == dmg_die
    resist = rolls(b, "Vitality + Willpower vs called shot")[0]
    assert resist["difficulty"] == 7 and resist["success"]
    assert who(b, "t").conditions == set()


def _called(area: str, extra: list[int], t_kw: dict | None = None):
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("revolver",))
    t = dummy("t", (4, 1), vit="d8", wil="d8", **(t_kw or {}))
    s = scen(open_map(12), [shooter], [t, dummy("u", (11, 2))])   # u keeps the fight going
    spec = RS.called["areas"][RS.area_of(f"called:{area}")]
    die = 1 if area.endswith("_waive") else len((D8 + int(spec["damage_steps"])).dice)
    return s, [attack("s", "t", "revolver", [1, 3] + [1] * die + [3, 3] + extra, option=f"called:{area}")]


def test_called_shot_to_the_leg_paralyses_on_a_failed_roll():
    """seed 002, Célzott lövés: láb - "Egészség + Akaraterő próba 7-es célszám ellen, hogy
    elkerülje a lebénulását"; assumption called_shot_roll: prone, cannot stand, crawls."""
    s, steps = _called("leg", [])
    b = play(s, steps + [end("s")])
    t = who(b, "t")
    assert {"leg_useless", "prone"} <= t.conditions
    assert Action("stand") not in legal(b)
    assert max(RS.move_options(b.state, t).values()) <= 2                     # 1.5 m of crawling


@pytest.mark.parametrize("area", ["head", "groin"])
def test_called_shot_to_a_vital_organ_knocks_out_for_d6_rounds(area):
    """seed 002, Célzott lövés: létfontosságú szervek - "ha sikertelen, 1d6 körre ájulás";
    assumption knockout_timing: it misses that many of its turns, then acts."""
    s, steps = _called(area, [2])
    b = play(s, steps + [end("s"), end("u"), end("s"), end("u")])            # rounds 1 and 2: out
    assert "knocked_out" in who(b, "t").conditions and b.state.actor.id == "s" and b.state.round == 3
    skipped = [e for e in b.events if e["type"] == "effect" and e.get("target") == "t"
               and "misses the turn" in e["effect"]]
    assert len(skipped) == 2
    b = play(s, steps + [end("s"), end("u"), end("s"), end("u"), end("s")])   # round 3: awake, it acts
    assert "knocked_out" not in who(b, "t").conditions and b.state.actor.id == "t"


@pytest.mark.parametrize("area", ["eye", "heart"])
def test_called_shot_to_a_tiny_target_kills_on_a_failed_roll(area):
    """seed 002, Célzott lövés: apró célpont - "Egészség + Akaraterő próba 7-es célszám ellen,
    hogy elkerülje halált. ha sikertelen, meghal"."""
    s, steps = _called(area, [])
    b = play(s, steps)
    assert who(b, "t").dead and evs(b, "dead", target="t")


def test_called_shot_to_the_elbow_knocks_out_and_the_joint_is_useless():
    """seed 002, Célzott lövés: "könyök vagy térd ... 1d6 körre a fájdalom kiüti-e, illetve
    sebészeti beavatkozásig használhatatlan az adott ízület"; assumption called_shot_roll:
    the elbow drops the held weapon and rules out two-handed weapons."""
    s, steps = _called("elbow", [3], {"weapons": ("knife", "staff")})
    b = play(s, steps)
    t = who(b, "t")
    assert {"knocked_out", "arm_useless"} <= t.conditions and t.res["ko_turns"] == 3
    assert "knife" in b.state.objects[t.pos]
    assert [w.name for w in RS.usable_weapons(t)] == ["unarmed"]             # the staff needs two hands


def test_called_shot_to_the_knee_knocks_out_and_cripples_the_leg():
    """seed 002, Célzott lövés: the knee - knocked out 1d6 rounds and useless until surgery."""
    s, steps = _called("knee_waive", [1])
    b = play(s, steps)
    assert {"knocked_out", "leg_useless", "prone"} <= who(b, "t").conditions
    assert evs(b, "info") and "waives" in evs(b, "info")[0]["text"]


# ---------------------------------------------------------------------------------------
# seed 002, Lefegyverzés (disarm)

def test_disarm_in_melee_is_minus_two_and_the_victim_rolls_against_eleven():
    """seed 002, Lefegyverzés: "-2 kockafokozat büntetéssel dobod közelharc esetén ... ha a
    támadásod sikeres, az áldozat dob 11-es célszámra Fürgeség+akaraterőt, vagy elejti a
    fegyvert"; assumption disarm: no damage."""
    t = dummy("t", (1, 1), agi="d6", wil="d6", weapons=("knife",))
    s = scen(open_map(), [fencer("f", (0, 1))], [t])
    b = play(s, [attack("f", "t", "sabre", [3, 2, 5, 5], option="disarm")])
    assert rolls(b, "attack with sabre (disarm)")[0]["steps"] == -2 and sides(rolls(b, "attack")[0]) == [6, 4]
    keep = rolls(b, "keep hold", "t")[0]
    assert sides(keep) == [6, 6] and keep["difficulty"] == 11 and not keep["success"]
    assert "knife" in b.state.objects[who(b, "t").pos] and not evs(b, "damage")
    b = play(s, [attack("f", "t", "sabre", [3, 2, 5, 6], option="disarm")])
    assert rolls(b, "keep hold", "t")[0]["success"] and "knife" in RS.weapon_slots(who(b, "t"))


def test_disarm_with_a_firearm_is_minus_four():
    """seed 002, Lefegyverzés: "-4 kockafokozat büntetéssel dobod lőfegyver esetén"."""
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("pistol",))
    s = scen(open_map(12), [shooter], [dummy("t", (4, 1), weapons=("knife",))])
    b = play(s, [attack("s", "t", "pistol", [3, 3, 1, 1], option="disarm")])
    assert rolls(b, "attack with pistol (disarm)")[0]["steps"] == -4
    assert not [a for a in legal(play(scen(open_map(12), [shooter], [dummy("t", (4, 1))])))
                if a.option == "disarm"]                                      # nothing to disarm


# ---------------------------------------------------------------------------------------
# the common Cortex base (shared with `cortex` through rules/systems/cortex_common)

def test_cortex_hu_shares_the_cortex_base_as_common_code():
    """RULES-NOTES cortex base: die steps, Difficulty ladder, Life Points, damage types and the
    Basic split, armour, unconsciousness and dying are one implementation for both rulesets."""
    from rules.systems.cortex_common.mechanics import CortexBase
    cortex = get_ruleset("cortex")
    for name in ("apply_damage", "split", "absorb_armour", "endurance", "innate_defence", "health",
                 "base_attr_steps", "rolled_order", "dying_upkeep", "drop_object"):
        assert getattr(type(RS), name) is getattr(CortexBase, name) is getattr(type(cortex), name), name
    assert RS.diff == cortex.diff == {"easy": 3, "average": 7, "hard": 11, "formidable": 15, "heroic": 19,
                                      "incredible": 23, "ridiculous": 27, "impossible": 31}
    keys = {a["key"] for a in RS.data["assumptions"]}
    assert {"basic_split", "unconscious", "dying", "life_points", "multiple_actions", "run"} <= keys
    assert "called:arm" not in RS.supported_actions["attack"] and "use" not in RS.supported_actions
    assert "pick_up" not in RS.supported_actions


def test_life_points_basic_split_armour_and_unconsciousness():
    """RULES-NOTES cortex: Life Points = Vitality max + Willpower max; the margin is Basic
    (half Stun, half Wound, the odd point Stun); armour per type; an Endurance roll at 7
    when Stun + Wound reach Life Points (assumptions basic_split, armour, unconscious)."""
    t = fig("t", (1, 1), vit="d4", wil="d4", decline_innate="always", reactions="never", armour="leather_coat")
    s = scen(open_map(), [fencer("f", (0, 1), skills={"melee_weapons/swords": "d12"})], [t])
    assert RS.health(play(s).state.by_id["t"]) == (8.0, 8.0)
    b = play(s, [attack("f", "t", "sabre", [6, 12, 4])])                     # margin 15, d4 = 4
    dmg = evs(b, "damage", target="t")[0]
    # Basic 15: 8 Stun, 7 Wound; + 4 W = 11 Wound; leather 1/1: 7 Stun, 10 Wound -> Stun capped
    assert dmg["absorbed"] == 2 and who(b, "t").res["wound"] >= 8
    assert "dying" in who(b, "t").conditions


# ---------------------------------------------------------------------------------------
# the views the environments and policies use

def test_views_economy_odds_reach_ammo_slots_health_objects():
    """docs/ruleset-guide.md, the contract: economy_features, attack_odds, reach_m, ammo_frac,
    weapon_slots, health, validate_object."""
    shooter = fig("s", (0, 1), agi="d8", skills={"guns/pistols": "d8", "melee_weapons": "d6"},
                  weapons=("pistol", "knife"))
    s = scen(open_map(12), [shooter], [dummy("t", (4, 1))])
    b = play(s, [attack("s", "t", "pistol", [1, 1])])
    e = econ(b)
    assert list(e) == list(RS.economy_features) and len(RS.economy_features) <= 32
    assert e["actions_used"] == 1 and e["next_action_steps"] == -1 and e["shots_left"] == 2
    s_ = who(b, "s")
    assert RS.weapon_slots(s_) == ["pistol", "knife", "unarmed"] and RS.reach_m(s_) == 90
    assert RS.ammo_frac(s_) == pytest.approx(14 / 15)
    odds = RS.attack_odds(b.state, s_, Action("attack", target="t", weapon="pistol"))
    assert 0 < odds["p_hit"] <= 1 and odds["exp_damage"] > 0
    called = RS.attack_odds(b.state, s_, Action("attack", target="t", weapon="pistol", option="called:head"))
    assert called["p_hit"] < odds["p_hit"] and called["damage_if_hit"] > odds["damage_if_hit"]
    assert RS.attack_odds(b.state, s_, Action("defend", option="dodge")) is None
    assert RS.validate_object("sabre") and not RS.validate_object("capoeira")
    assert RS.health(who(b, "t")) == (99.0, 99.0)


def test_attack_odds_match_the_rolled_defence():
    """The odds mirror the resolution: a dummy (Easy 3) hit by d6 + d6 at 3 or more: 35/36."""
    s = scen(open_map(), [fig("f", (0, 1), skills={"melee_weapons": "d6"}, weapons=("knife",))],
             [dummy("t", (1, 1))])
    b = play(s)
    o = RS.attack_odds(b.state, who(b, "f"), Action("attack", target="t", weapon="knife"))
    assert o["p_hit"] == pytest.approx(35 / 36)


# ---------------------------------------------------------------------------------------
# bundled scenarios use the rules; policies and environments play them

def bundled(name: str) -> dict:
    """A bundled scenario with `initiative: fixed`, for exact replays."""
    from rules.scenario import resolve_scenario
    doc, _ = resolve_scenario(name)
    return {**doc, "initiative": "fixed"}


def test_the_csarda_scenario_feints_and_grapples():
    """cortex_hu/csarda: the wrestler jogs in, feints (seed 002, Csel) and grapples the fooled
    betyár (seed 002, Megragadás), who may use only innate defence against it."""
    b = play(bundled("cortex_hu/csarda"), [
        end("lajos"), move("bence", 6, 6),
        act("bence", "feint", target="sandor", dice=[6, 4, 1, 1]),
        act("bence", "grapple", target="sandor", dice=[8, 6, 1])])
    assert rolls(b, "grapple", "bence")[0]["steps"] == -2
    assert evs(b, "defence", actor="sandor")[0]["mode"] == "innate only (feinted)"
    assert "grappled" in who(b, "sandor").conditions


def test_the_magtar_scenario_aims_and_calls_a_shot():
    """cortex_hu/magtar: the sharpshooter aims a round (seed 002, Célzás), then shoots a
    mercenary's leg (seed 002, Célzott lövés): +1 aim -1 leg; the mercenary dodges by reaction."""
    b = play(bundled("cortex_hu/magtar"), [
        act("marton", "aim"), end("marton"), end("gyula"), end("z1"), end("z2"), end("z3"),
        attack("marton", "z1", "rifle", [2, 1, 1, 1, 1, 1, 1], option="called:leg")])
    atk = rolls(b, "attack with rifle")[0]
    assert atk["steps"] == 0 and sides(atk) == [10, 10]
    assert rolls(b, "dodge (reaction)", "z1")
    assert "leg_useless" in who(b, "z1").conditions


def test_the_les_scenario_starts_with_a_surprised_escort():
    """cortex_hu/les: `settings.surprised` (seed 002, Meglepetésből támadás)."""
    b = play(bundled("cortex_hu/les"))                 # imre's turn has begun: he is no longer surprised
    assert evs(b, "condition", target="imre", condition="surprised", on=True)
    assert "surprised" not in who(b, "imre").conditions
    assert all("surprised" in who(b, i).conditions for i in ("nova", "geza"))
    assert not any("surprised" in who(b, i).conditions for i in ("csaba", "barna", "otto"))


@pytest.mark.parametrize("policy", ["random", "aggressive", "cautious", "tactical"])
def test_policies_play_cortex_hu_to_the_end(policy):
    """Every scripted policy plays cortex_hu through the generic Ruleset interface (the planner
    too, but it takes seconds a fight, so it is left to the envs and evaluation suites)."""
    from agents.base import make_policy
    spec, src = load_scenario("cortex_hu/les")
    for seed in range(2):
        b = new_battle(spec, seed, src)
        b.run({t.name: make_policy(policy, seed * 3 + i) for i, t in enumerate(spec.teams)})
        assert b.state.over and 1 <= b.state.round <= spec.round_limit


def _attack_actions_by_the_rule(state, a) -> list[Action]:
    """Every (target, weapon, option) `can_attack` allows, in `attack_actions`' order."""
    return [RS.action("attack", target=t.id, weapon=w.name, option=o or None)
            for t in state.combatants if t.team != a.team and not t.down
            for w in RS.usable_weapons(a) for o in RS.attack_options if RS.can_attack(state, a, t, w, o)]


def test_the_fast_attack_enumeration_is_exactly_can_attack():
    """`attack_actions` checks target, reach, ammunition and range once per target and weapon
    (the env's hot path); it must list exactly what `can_attack` - the rule - allows. Random and
    aggressive fights over the bundled scenarios and generated maps, compared for every standing
    figure at every decision, with every option kind seen (called shots, disarm, throw, choke)."""
    import numpy as np

    from agents.base import make_policy
    from envs.generators import generate_scenario
    from rules.dice import Dice
    from rules.scenario import bundled_scenarios

    specs = [load_scenario(n) for n in bundled_scenarios() if n.startswith("cortex_hu/")]
    specs += [load_scenario(generate_scenario("cortex_hu", seed)) for seed in range(8)]
    seen: set = set()
    decisions = 0
    for k, (spec, src) in enumerate(specs):
        for seed in range(2):
            b = new_battle(spec, Dice(np.random.default_rng([k, seed])), src, record=False)
            pols = {t.name: make_policy("random" if (k + seed) % 2 else "aggressive", 10 * seed + i)
                    for i, t in enumerate(spec.teams)}
            s = b.state
            b.start()
            while not s.over and decisions < 20_000:
                for c in s.combatants:
                    if not c.down:
                        fast = RS.attack_actions(s, c)
                        assert fast == _attack_actions_by_the_rule(s, c), (src, seed, s.round, c.id)
                        seen.update(x.option for x in fast)
                b.step(pols[s.actor.team].act(s, s.actor), check=True)
                decisions += 1
    assert decisions > 500
    assert {None, "all_out", "called:leg", "called:knee_waive", "disarm", "throw", "choke"} <= seen


def test_pettingzoo_api_on_cortex_hu():
    import warnings

    from pettingzoo.test import api_test

    from envs.multiagent import SkirmishAEC
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(SkirmishAEC(scenario="cortex_hu/csarda"), num_cycles=40)


@pytest.mark.parametrize("change,field", [
    (lambda d: d["settings"].update(surprised=["nobody"]), "settings.surprised[0]"),
    (lambda d: d["settings"].update(surprised="b"), "settings.surprised"),
    (lambda d: d["teams"][1]["combatants"][0].update(traits=["clumsy"]), "teams[1].combatants[0].traits"),
    (lambda d: d["teams"][1]["combatants"][0].update(reactions="sometimes"), "teams[1].combatants[0].reactions"),
    (lambda d: d["teams"][1]["combatants"][0].update(initiative_steps="lots"),
     "teams[1].combatants[0].initiative_steps"),
])
def test_bad_cortex_hu_scenarios_get_one_line_that_names_the_file_and_field(tmp_path, change, field):
    """ARCHITECTURE.md, Conventions: bad input gets a clear error naming what is wrong (exit 2)."""
    import yaml
    from typer.testing import CliRunner

    from tactica.cli import app
    doc = scen(open_map(), [fencer("f", (0, 1))], [dummy("t", (5, 1))])
    change(doc)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    r = CliRunner().invoke(app, ["validate", str(path)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and field in lines[0] and "expected" in lines[0]
