"""Issue #32: `cortex_hu` held to seed 002's words where it had departed from them.

Seed 002 is /work/shared/seeds/002_b3cd129274de58b9.txt (Hungarian; the English rendering
is in /work/shared/RULES-NOTES.md, "cortex_hu"). Every test is a strict forced-dice replay
(see tests/cortex_hu_setup.py for the helpers and tests/test_cortex_hu_turns.py for the
data.yaml `roll_order`); each quotes the seed sentence it checks, in Hungarian and in English.
"""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.systems.cortex_common.model import ATTRIBUTES
from tests.cortex_hu_setup import (act, attack, dummy, econ, end, evs, fencer, fig, legal, move, open_map,
                                   play, rolls, scen, sides, who)

# ---------------------------------------------------------------------------------------
# seed 002, Célzás (aiming)

AIM = ("Célzás: körönként +1 kockafokozat bónuszt a dobásokra - max 3 körig lehet halmozni őket. "
       "Közben nem lehet mozogni, továbbá nem lehet szabad cselekvésen kívül mást végezni.")
# "Aiming: +1 step a round on the rolls - they stack for at most 3 rounds. Meanwhile the
# figure may not move, nor do anything but free actions."


def _aimer(**kw):
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/rifles": "d6"}, weapons=("rifle", "knife"), **kw)
    return scen(open_map(12), [shooter], [dummy("t", (10, 1))])


def _aim_rounds(n: int) -> list[dict]:
    out: list[dict] = []
    for _ in range(n):
        out += [act("s", "aim"), end("s"), end("t")]
    return out


@pytest.mark.parametrize("rounds", [4, 5])
def test_aiming_on_past_three_rounds_is_legal_and_keeps_plus_three(rounds):
    """seed 002, Célzás (AIM): "max 3 körig lehet halmozni őket" caps the bonus at three
    rounds ("they stack for at most 3 rounds"); nothing forbids aiming on, so a fourth and
    fifth round of aiming are legal and the shot still gets +3 (rifles d6 -> d12)."""
    s = _aimer()
    b = play(s, _aim_rounds(3))
    assert Action("aim") in legal(b)
    b = play(s, _aim_rounds(rounds))
    assert econ(b)["aim_steps"] == 3 and "aiming" in who(b, "s").conditions
    b = play(s, _aim_rounds(rounds) + [attack("s", "t", "rifle", [1, 1])])
    atk = rolls(b, "attack with rifle")[0]
    assert atk["steps"] == 3 and sides(atk) == [6, 12]


def test_a_turn_of_free_actions_only_keeps_the_aim():
    """seed 002, Célzás (AIM): only moving ("nem lehet mozogni", "may not move") and
    non-free actions ("nem lehet szabad cselekvésen kívül mást végezni", "nothing but free
    actions") break the aim; a turn that neither aims nor shoots but does only free actions
    (dropping an item) or nothing keeps the bonus, without adding to it."""
    s = _aimer()
    b = play(s, _aim_rounds(1) + [end("s"), end("t"), act("s", "drop", weapon="knife"), end("s"), end("t"),
                                  attack("s", "t", "rifle", [1, 1])])
    atk = rolls(b, "attack with rifle")[0]
    assert atk["steps"] == 1 and sides(atk) == [6, 8]
    assert not [e for e in b.events if e["type"] == "effect" and e["effect"] == "stops aiming"]


def test_moving_or_a_non_free_action_still_ends_the_aim():
    """seed 002, Célzás (AIM): "Közben nem lehet mozogni, továbbá nem lehet szabad
    cselekvésen kívül mást végezni" ("meanwhile no moving and nothing but free actions"):
    a move (even a free walk) or a dodge declared (an action) ends it."""
    s = _aimer()
    b = play(s, _aim_rounds(2) + [move("s", 1, 1)])
    assert who(b, "s").res["aim"] == 0 and "aiming" not in who(b, "s").conditions
    b = play(s, _aim_rounds(2) + [act("s", "defend", option="dodge")])
    assert who(b, "s").res["aim"] == 0


# ---------------------------------------------------------------------------------------
# seed 002, Célzott lövés: the heart (a tiny target) and a downed target

HEART = ("apró célpont: pl. szem, szív ... Egészség + Akaraterő próba 7-es célszám ellen, hogy "
         "elkerülje halált. ha sikertelen, meghal.")
# "tiny target: e.g. eye, heart ... a Vitality + Willpower roll against 7 to avoid death;
# if it fails, the target dies."


def _heart(area: str, life: int):
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("revolver",))
    t = dummy("t", (4, 1), vit="d8", wil="d8", life_points=life)
    return scen(open_map(12), [shooter], [t, dummy("u", (11, 2))])   # u keeps the fight going


@pytest.mark.parametrize("area", ["heart", "eye"])
def test_a_tiny_target_shot_that_leaves_the_target_dying_still_rolls_against_death(area):
    """seed 002, Célzott lövés (HEART): "Egészség + Akaraterő próba 7-es célszám ellen, hogy
    elkerülje halált. ha sikertelen, meghal" ("Vitality + Willpower against 7 to avoid death;
    if it fails, it dies") - with no exception for a target the damage already downed.
    Attack 1+3 = 4 against Easy 3 (margin 1); d8 +6 steps = d12+d8 shows 1+1: 2 Wound and 1
    Stun; Life Points 2, so the target is dying; then V+W 3+3 = 6 < 7: dead."""
    b = play(_heart(area, 2), [attack("s", "t", "revolver", [1, 3, 1, 1, 3, 3], option=f"called:{area}")])
    t = who(b, "t")
    assert evs(b, "down", target="t", reason="dying")
    resist = rolls(b, "Vitality + Willpower vs called shot", "t")
    assert len(resist) == 1 and resist[0]["difficulty"] == 7 and not resist[0]["success"]
    assert t.dead and evs(b, "dead", target="t")


def test_a_heart_shot_that_knocks_the_target_unconscious_still_rolls_against_death():
    """seed 002, Célzott lövés (HEART): the roll against death follows the hit whether or not
    the damage's Endurance roll knocked the target out. Life Points 3: Stun 1 + Wound 2 reach
    them; Endurance (V+W) 1+2 fails: unconscious; the heart roll 3+3 fails: dead. A passed
    heart roll (4+3) leaves it unconscious and alive."""
    b = play(_heart("heart", 3), [attack("s", "t", "revolver", [1, 3, 1, 1, 1, 2, 3, 3], option="called:heart")])
    assert evs(b, "down", target="t", reason="unconscious") and who(b, "t").dead
    b = play(_heart("heart", 3), [attack("s", "t", "revolver", [1, 3, 1, 1, 1, 2, 4, 3], option="called:heart")])
    t = who(b, "t")
    assert rolls(b, "Vitality + Willpower vs called shot", "t")[0]["success"]
    assert not t.dead and "unconscious" in t.conditions


def test_every_called_shot_roll_happens_on_a_downed_target():
    """seed 002, Célzott lövés: the head's "Egészség + Akaraterő próba 7-es célszám ellen, hogy
    elkerülje a kábulást. ha sikertelen, 1d6 körre ájulás" ("V+W against 7 to avoid being
    stunned; if it fails, out for 1d6 rounds") has no exception for a downed target either:
    a dying target hit in the head rolls, and failing it is also knocked out (its d6: 4)."""
    b = play(_heart("head", 2), [attack("s", "t", "revolver", [1, 3, 1, 1, 3, 3, 4], option="called:head")])
    t = who(b, "t")
    assert rolls(b, "Vitality + Willpower vs called shot", "t")
    assert {"dying", "knocked_out"} <= t.conditions and t.res["ko_turns"] == 4
    assert len(evs(b, "down", target="t")) == 1                  # down once: it was already dying


# ---------------------------------------------------------------------------------------
# seed 002, Csel (feint)

FEINT = ("Csel: Közelharcban/kézitusában. Az ellenfél máshonnan várja a támadást. ... ha a támadóé "
         "magasabb, az ellenfelet sikerült átverni, és a következő támadás ellen csak Ösztönös "
         "kitéréssel védekezhet.")
# "Feint: in melee/hand to hand. The opponent expects the attack from elsewhere. ... if the
# attacker's roll is higher, the opponent is fooled, and against the next attack it may
# defend only with instinctive (innate) defence."


def _feint_scene(**t_kw):
    """f feints t; g (f's ally) stands by t too; t has a dodge to declare. Scenario order f, g, t."""
    kw = dict(agi="d6", int_="d6", skills={"perception/intuition": "d8", "athletics/dodge": "d8"},
              life_points=40, reactions="never")
    kw.update(t_kw)
    t = fig("t", (1, 1), **kw)
    return scen(open_map(), [fencer("f", (0, 1), ale="d8"), fencer("g", (1, 0))], [t])


ROUND1 = [end("f"), end("g"), act("t", "defend", option="dodge"), end("t")]
WON = [6, 6, 3, 3]   # feint: Alertness d8 + Swords d8 = 12 against Intelligence d6 + Intuition d8 = 6


def test_a_feint_reaches_the_next_attack_on_the_target_by_anyone():
    """seed 002, Csel (FEINT): "a következő támadás ellen csak Ösztönös kitéréssel
    védekezhet" ("against the next attack it may defend only with innate defence"): the next
    attack on the fooled target, here the feinter's ally's on its own turn, meets innate
    defence only; it uses the feint up, so the ally's second attack meets the prepared dodge."""
    b = play(_feint_scene(), ROUND1 + [
        act("f", "feint", target="t", dice=WON), end("f"),
        attack("g", "t", "sabre", [3, 3, 2, 1]),            # 6 against innate 2: a hit, 1 Wound
        attack("g", "t", "sabre", [3, 3, 1, 1, 1])])        # against the prepared dodge 1+1
    assert rolls(b, "feint", "f")[0]["success"] is True
    modes = [e["mode"] for e in evs(b, "defence", actor="t")]
    assert modes == ["innate only (feinted)", "dodge (prepared)"]
    assert [e["result"] for e in evs(b, "attack", actor="g")] == ["hit", "hit"]
    assert "feinted" not in who(b, "t").conditions


def test_a_feint_reaches_a_gunshot_too():
    """seed 002, Csel (FEINT): "a következő támadás" is the next attack, of any kind: a shot
    from the feinter's side meets innate defence only, where the target would otherwise dodge
    it by reaction (assumption reactions)."""
    s = _feint_scene(reactions="auto")
    s["teams"][0]["combatants"].append(fig("p", (8, 1), agi="d6", skills={"guns/pistols": "d8"},
                                           weapons=("pistol",)))
    steps = [end("f"), end("g"), end("p"), end("t"), act("f", "feint", target="t", dice=WON), end("f"), end("g"),
             attack("p", "t", "pistol", [3, 3, 2, 1])]
    b = play(s, steps)
    assert evs(b, "defence", actor="t")[0]["mode"] == "innate only (feinted)"
    assert not rolls(b, "dodge", "t")


def test_a_feint_with_no_attack_lapses_when_the_target_acts_again():
    """seed 002, Csel (FEINT) gives no duration when no attack comes; assumption feint: the
    fooled figure stays fooled until the next attack on it or until its own next turn
    starts. Round 2: f feints and nobody attacks; t's turn starts and the feint lapses; in
    round 3 f's attack meets t's own innate roll again."""
    b = play(_feint_scene(), ROUND1 + [
        act("f", "feint", target="t", dice=WON), end("f")])
    assert "feinted" in who(b, "t").conditions
    assert b.state.actor.id == "g" and Action("feint", target="t") not in legal(b)   # fooled already
    b = play(_feint_scene(), ROUND1 + [
        act("f", "feint", target="t", dice=WON), end("f"), end("g"), end("t"),
        attack("f", "t", "sabre", [3, 3, 2, 1])])
    assert "feinted" not in who(b, "t").conditions
    assert evs(b, "condition", target="t", condition="feinted", on=False)
    assert evs(b, "defence", actor="t")[0]["mode"] == "innate"


# ---------------------------------------------------------------------------------------
# Roll events name what they are for (`check`) and each modifier (issue #32, common.md #1)

def _roll_fields_ok(ev: dict) -> None:
    from rules.systems.cortex_hu.rolls import CHECKS
    assert ev.get("check") in CHECKS, ev
    assert isinstance(ev.get("modifiers"), list), ev
    for m in ev["modifiers"]:
        assert set(m) == {"source", "value"} and isinstance(m["source"], str) and isinstance(m["value"], int), ev
        assert m["value"] != 0, ev
    if "steps" in ev:   # the action die's modifiers add up to the roll's steps
        attr_die = tuple(f"({a})" for a in ATTRIBUTES)
        assert sum(m["value"] for m in ev["modifiers"] if not m["source"].endswith(attr_die)) == ev["steps"], ev


@pytest.mark.parametrize("scenario", ["cortex_hu/csarda", "cortex_hu/les", "cortex_hu/magtar"])
def test_every_roll_of_a_fight_names_its_check_and_modifiers(scenario):
    """Every roll event the ruleset emits carries `check` (a key of rolls.CHECKS) and
    `modifiers` ({source, value} in die steps) whose action-die part adds up to `steps`."""
    from agents.base import make_policy
    from rules.scenario import load_scenario, new_battle
    spec, src = load_scenario(scenario)
    seen = set()
    for seed in range(3):
        b = new_battle(spec, seed, src)
        b.run({t.name: make_policy(p, seed + i) for i, (t, p) in enumerate(zip(spec.teams, ("tactical", "random")))})
        for ev in b.events:
            if ev["type"] == "roll":
                _roll_fields_ok(ev)
                seen.add(ev["check"])
    assert {"initiative", "attack", "damage"} <= seen


def test_an_aimed_prone_called_shot_lists_each_modifier():
    """seed 002: Célzás (+1 a round), the prone figure's -2 (assumption prone_penalty),
    Lőtávolságok ("Közepes távon -2 kockafokozat"), Célzott lövés ("láb: -1 kockafokozat
    büntetéssel dobod, +2 kockafokozat bónusz a sebzésre") and the vest's -1 Agility step
    (assumption armour_values) each appear as a modifier of the roll they change."""
    shooter = fig("s", (0, 1), agi="d8", skills={"guns/pistols": "d12"}, weapons=("pistol",), armour="tactical_vest")
    s = scen(open_map(12), [shooter], [dummy("t", (10, 1))], cell_m=5)      # 50 m: the pistol's medium band
    b = play(s, [act("s", "aim"), end("s"), end("t"), act("s", "drop_prone"),
                 attack("s", "t", "pistol", [3, 3, 1, 4, 4], option="called:leg")])
    atk = rolls(b, "attack with pistol")[0]
    assert atk["check"] == "attack" and atk["steps"] == -4 and sides(atk) == [6, 4]
    assert atk["modifiers"] == [{"source": "prone", "value": -2}, {"source": "range", "value": -2},
                                {"source": "aim", "value": 1}, {"source": "called shot (leg)", "value": -1},
                                {"source": "tactical_vest (agility)", "value": -1}]
    dmg = rolls(b, "damage")[0]
    assert dmg["check"] == "damage" and dmg["modifiers"] == [{"source": "called shot (leg)", "value": 2}]
    resist = rolls(b, "Vitality + Willpower vs called shot")[0]
    assert resist["check"] == "called_shot" and resist["modifiers"] == []


def test_reactions_and_carried_over_actions_are_named_modifiers():
    """seed 002: "Ha a köröd vége után még felbukkan egyéb támadó is ... a következő kört már a
    megfelelő számú kockafokozat büntetéssel fogod kezdeni" ("defending against further
    attackers after your turn starts your next round with the matching penalty"): the
    reactions' and the next turn's rolls name the ladder steps they take."""
    d = fig("d", (1, 1), agi="d6", skills={"athletics/dodge": "d8", "melee_weapons/swords": "d8"},
            weapons=("sabre",), life_points=40)
    s = scen(open_map(), [d], [fencer("f", (2, 1)), fencer("g", (0, 1))])
    b = play(s, [act("d", "defend", option="dodge"), end("d"), attack("f", "d", "sabre", [2, 1, 4, 4]), end("f"),
                 attack("g", "d", "sabre", [2, 1, 4, 4]), attack("g", "d", "sabre", [2, 1, 3, 3]), end("g"),
                 attack("d", "f", "sabre", [3, 4, 1]), attack("d", "f", "sabre", [3, 2, 1])])
    assert [(r["check"], r["modifiers"]) for r in rolls(b, "dodge (prepared)", "d")] == [("dodge", [])]
    reacts = rolls(b, "parry (reaction)", "d")
    assert [r["modifiers"] for r in reacts] == [
        [{"source": "actions of its last turn", "value": -1}],
        [{"source": "actions of its last turn", "value": -1}, {"source": "earlier reactions", "value": -1}]]
    atk = rolls(b, "attack with sabre", "d")
    assert [r["modifiers"] for r in atk] == [
        [{"source": "carried-over reactions", "value": -2}],
        [{"source": "carried-over reactions", "value": -2}, {"source": "multiple actions", "value": -1}]]
    for ev in b.events:
        if ev["type"] == "roll":
            _roll_fields_ok(ev)


def test_initiative_feint_grapple_escape_and_run_rolls_carry_their_check():
    """seed 002, Harcrendszer ("Fürgeség+Éberség+módosítók (pl. előny)"), Csel, Megragadás
    ("szabadulást Fürgeség+Erő-vel") and running ("9m+Fürgeség dobás+Atlétika/Futás dobás"):
    each roll says what it is for."""
    s = scen(open_map(), [fig("q", (0, 0), initiative_steps=1)], [fig("r", (5, 1))], initiative="roll")
    b = play(s, start_dice=[3, 3, 2, 4])
    ini = rolls(b, "initiative")
    assert [(r["check"], r["modifiers"]) for r in ini] == [
        ("initiative", [{"source": "advantage (agility)", "value": 1}]), ("initiative", [])]
    w = fig("w", (0, 1), agi="d8", str_="d8", ale="d8",
            skills={"unarmed_combat": "d6", "unarmed_combat/grappling": "d10", "athletics/running": "d6"})
    t = fig("t", (1, 1), life_points=30, reactions="never", decline_innate="always")
    s = scen(open_map(14), [w], [t])
    b = play(s, [act("w", "feint", target="t", dice=[6, 6, 1]),
                 act("w", "grapple", target="t", dice=[5, 5]), end("w"),
                 act("t", "grapple", target="w", option="escape", dice=[1, 1])])
    assert [r["check"] for r in b.events if r["type"] == "roll"] == ["feint", "feint_resist", "grapple", "escape"]
    assert rolls(b, "grapple", "w")[0]["modifiers"] == [{"source": "multiple actions", "value": -1}]
    b = play(scen(open_map(14), [w], [dummy("z", (13, 2))]), [move("w", 10, 1, [4, 4])])
    run = rolls(b, "run")[0]
    assert run["check"] == "run" and run["modifiers"] == []
    for ev in b.events:
        if ev["type"] == "roll":
            _roll_fields_ok(ev)


# ---------------------------------------------------------------------------------------
# What the rules track for a figure (issue #32, common.md #3) and what a scenario may set

def tracked_of(b, id: str) -> dict:
    return b.ruleset.tracked(b.state, who(b, id))


def test_tracked_shows_life_thresholds_weapons_conditions_grapple_and_the_turn():
    """`tracked(state, c)`: Life Points and thresholds, weapons, conditions with their
    durations, a feint's author, grapple partners and the acting figure's turn economy."""
    import json
    w = fig("w", (0, 1), agi="d8", ale="d8", life_points=12,
            skills={"unarmed_combat": "d6", "unarmed_combat/grappling": "d10"}, weapons=("knife",))
    t = dummy("t", (1, 1), life_points=20, weapons=("pistol",))
    s = scen(open_map(), [w], [t])
    b = play(s, [act("w", "feint", target="t", dice=[6, 6, 1])])
    tt = tracked_of(b, "t")
    assert tt["conditions"]["feinted"]["by"] == "w" and tt["feinted_by"] == "w"
    tw = tracked_of(b, "w")
    assert tw["turn"]["actions_used"] == 1 and tw["turn"]["next_action_steps"] == -1
    assert tw["life"]["thresholds"] == {"endurance_roll_at_stun_plus_wound": 12, "wounded_minus_2_at_wound": 6,
                                        "dying_at_wound": 12, "dead_at_wound": 24}
    assert tw["weapons"]["carried"] == ["knife", "unarmed"] and tw["weapons"]["held"] == "knife"
    b = play(s, [act("w", "grapple", target="t", dice=[5, 5]),
                 attack("w", "t", "unarmed", [3, 3, 1])])        # held: Easy 3, margin 3 + d2 1, all Stun
    tt, tw = tracked_of(b, "t"), tracked_of(b, "w")
    assert tw["grapple"] == {"holding": "t", "held_by": None, "grip": None}
    assert tt["grapple"] == {"holding": None, "held_by": "w", "grip": 10}
    assert set(tt["conditions"]) == {"grappled"} and tt["life"]["stun"] == 3 and tt["life"]["wound"] == 1
    assert tt["life"]["left"] == 16 and tt["weapons"]["ammo"] == {"pistol": 15} and "turn" not in tt
    json.dumps(tt), json.dumps(tw)


def test_aim_and_knock_out_durations_in_tracked():
    """Durations: the aim's rounds (seed 002, Célzás) and a knock-out's turns left (Célzott
    lövés "1d6 körre ájulás", assumption knockout_timing)."""
    s = _aimer()
    b = play(s, _aim_rounds(2))
    ts = tracked_of(b, "s")
    assert ts["aim"] == {"rounds": 2, "steps": 2, "max_rounds": 3} and ts["conditions"]["aiming"]["rounds"] == 2
    shooter = fig("s", (0, 1), agi="d6", skills={"guns/pistols": "d12"}, weapons=("revolver",))
    s = scen(open_map(12), [shooter], [dummy("t", (4, 1), vit="d8", wil="d8"), dummy("u", (11, 2))])
    b = play(s, [attack("s", "t", "revolver", [1, 3, 1, 1, 3, 3, 5], option="called:head")])
    assert tracked_of(b, "t")["conditions"]["knocked_out"]["turns_left"] == 5


def test_condition_names_and_start_keys_match_what_the_ruleset_tracks():
    """The lists the shared Cortex scenario builder asks cortex_hu for: every condition the
    ruleset sets (those naming a partner through a state key), and every `state:` key is a
    `res` key of a built figure."""
    from rules.ruleset import get_ruleset
    from rules.systems.cortex_hu.tracked import UNTIL
    rs = get_ruleset("cortex_hu")
    names = rs.condition_names()
    assert set(names) | {"grappled", "grappling", "feinted"} == set(UNTIL) == {
        "prone", "aiming", "surprised", "feinted", "knocked_out", "leg_useless", "arm_useless",
        "grappled", "grappling", "unconscious", "dying", "dead"}
    assert names["aiming"] == names["knocked_out"] == {"rounds": int} and names["prone"] == {}
    b = play(_aimer())
    keys = rs.start_keys()
    assert set(keys) <= set(who(b, "s").res) and {"grappled_by", "grappling", "feinted_by"} <= set(keys)
    assert keys["aim"] == {"kind": "count", "max": 3}


def test_the_docs_name_every_assumption_and_every_roll_check():
    """docs/cortex_hu.md lists each data.yaml assumption key and each roll `check` key."""
    from pathlib import Path

    from rules.ruleset import get_ruleset
    from rules.systems.cortex_hu.rolls import CHECKS
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cortex_hu.md").read_text(encoding="utf-8")
    keys = [a["key"] for a in get_ruleset("cortex_hu").data["assumptions"]] + list(CHECKS)
    assert [k for k in keys if f"`{k}`" not in doc] == []


# ---------------------------------------------------------------------------------------
# Starting state in scenarios (issue #32, common.md #2)

def test_a_figure_starts_prone_wounded_aiming_and_fooled_with_no_setup_moves():
    """A scenario states the case directly: s starts prone (assumption prone_penalty: -2),
    with 2 rounds of aim (seed 002, Célzás), Wound 6 of Life Points 12 (wounded: -2 on the
    Agility die, assumption wounded_penalty) and a spent rifle magazine but one; t starts
    fooled by s's feint (seed 002, Csel: innate defence only) with a dodge prepared."""
    shooter = fig("s", (0, 1), agi="d8", skills={"guns/rifles": "d8"}, weapons=("rifle",), life_points=12,
                  conditions=["prone", {"name": "aiming", "rounds": 2}], state={"wound": 6, "ammo": {"rifle": 1}})
    t = fig("t", (10, 1), skills={"athletics/dodge": "d8"}, life_points=30, reactions="never",
            state={"feinted_by": "s", "prepared": [{"mode": "dodge", "steps": 0}]})
    b = play(scen(open_map(12), [shooter], [t]), [attack("s", "t", "rifle", [3, 4, 2, 1])])
    atk = rolls(b, "attack with rifle")[0]
    assert atk["steps"] == 0 and sides(atk) == [4, 8]           # prone -2, aim +2; Agility d8 -2 = d4
    assert atk["modifiers"] == [{"source": "prone", "value": -2}, {"source": "aim", "value": 2},
                                {"source": "wounded (agility)", "value": -2}]
    assert evs(b, "defence", actor="t")[0]["mode"] == "innate only (feinted)"
    assert who(b, "s").res["ammo"] == {"rifle": 0} and who(b, "s").res["aim"] == 0


def test_a_figure_starts_held_in_a_grapple_and_knocked_out():
    """`state: {grappling: id}` ties both sides (seed 002, Megragadás: the held target is
    Easy 3 for unarmed attacks); `{name: knocked_out, rounds: 2}` (Célzott lövés, "1d6 körre
    ájulás") keeps a figure out for two of its turns."""
    w = fig("w", (0, 1), state={"grappling": "t", "grip": 9})
    t = fig("t", (1, 1), life_points=30)
    k = fig("k", (5, 1), conditions=[{"name": "knocked_out", "rounds": 2}])
    b = play(scen(open_map(), [w], [t, k]), [attack("w", "t", "unarmed", [4, 1])])
    assert "grappled" in who(b, "t").conditions and who(b, "t").res["grappled_by"] == "w"
    d = evs(b, "defence", actor="t")[0]
    assert (d["mode"], d["difficulty"]) == ("held", 3)
    assert who(b, "k").res["ko_turns"] == 2 and "knocked_out" in who(b, "k").conditions


@pytest.mark.parametrize("change,field", [
    ({"conditions": ["sleepy"]}, "conditions[0]"),
    ({"conditions": [{"name": "prone", "rounds": 2}]}, "conditions[0].rounds"),
    ({"state": {"mana": 3}}, "state.mana"),
    ({"state": {"aim": 4}}, "state.aim"),
    ({"state": {"ammo": {"rifle": 99}}}, "state.ammo.rifle"),
    ({"state": {"held": "sabre"}}, "state.held"),
    ({"state": {"prepared": [{"mode": "block"}]}}, "state.prepared[0]"),
    ({"state": {"grappling": "s2"}}, "state.grappling"),
])
def test_bad_starting_state_names_the_field(change, field):
    """Bad starting conditions or state: a `ScenarioError` naming the field and what it accepts."""
    from rules.errors import ScenarioError
    s = fig("s", (0, 1), weapons=("rifle",), **change)
    with pytest.raises(ScenarioError) as e:
        play(scen(open_map(12), [s, fig("s2", (0, 2))], [dummy("t", (10, 1))]))
    assert field in str(e.value) and "expected" in str(e.value)


def test_inline_armour_and_weapon_for_cortex_hu():
    """Inline gear: a vest of W 3 S 1 (no table entry has those numbers) and a cudgel d6 B."""
    t = dummy("t", (1, 1), armour={"name": "thin_vest", "W": 3, "S": 1, "covers": ["torso"]})
    f = fig("f", (0, 1), skills={"melee_weapons": "d6"},
            weapons=[{"name": "cudgel", "kind": "melee", "attribute": "agility", "skill": "melee_weapons",
                      "damage": "d6", "type": "B"}])
    b = play(scen(open_map(), [f], [t]), [attack("f", "t", "cudgel", [4, 4, 4])])
    assert sides(rolls(b, "damage")[0]) == [6]
    dmg = evs(b, "damage", target="t")[0]
    assert dmg["absorbed"] == 4                      # margin 5: Stun 3 Wound 2, +4 B: Stun 5 Wound 4; less 1 S, 3 W


def test_cortex_hu_starting_state_is_read_by_the_shared_cortex_builder(monkeypatch):
    """cortex_hu passes its `StartSchema` (start.start_schema) to cortex_common's
    `build_stat_block(..., start=...)`: the shared `read_start` reads every figure's
    `conditions:` and `state:`; cortex_hu keeps no reader of its own."""
    import rules.systems.cortex_common.start as common_start
    import rules.systems.cortex_hu.start as hu_start
    from rules.ruleset import get_ruleset
    assert not hasattr(hu_start, "read_start")
    rs = get_ruleset("cortex_hu")
    assert set(rs.start.conditions) == set(rs.condition_names()) and set(rs.start.state) == set(rs.start_keys())
    seen = []
    real = common_start.read_start
    monkeypatch.setattr(common_start, "read_start", lambda spec, schema, *a: seen.append(schema) or real(spec, schema, *a))
    b = play(scen(open_map(), [fig("s", (0, 1), conditions=["prone"], state={"wound": 2})], [dummy("t", (5, 1))]))
    assert seen and all(x is rs.start for x in seen)
    assert "prone" in who(b, "s").conditions and who(b, "s").res["wound"] == 2
