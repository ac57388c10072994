"""Seed 004 (Cybergeneration house rules) read a third time (2026-12-07): forced-dice tests.

Each test quotes the seed 004 sentence it checks (/work/shared/seeds/004_*.txt) and failed on
the engine before the change (docs/cybergeneration.md, "Seed read a third time"):

1. a knocked-down figure's melee attack takes the knockdown's -2 once, not twice (the roll,
   `attack_odds` and the threat query agree); its melee defence takes it once too;
2. a held action fires the weapon actually drawn: the genius gun (with a blast) and a grenade
   too, not bare hands (assumption held_actions);
3. in a grapple every attack the figure could make outside one is offered (called shots, full
   auto, throws, grenades, the genius gun) behind the preliminary opposed roll, at -2 and with
   no point-blank bonus (assumption grapple_other_attack).
"""

from __future__ import annotations

from rules.actions import Action
from rules.systems.cybergeneration.checks import p_at_least, p_beat
from tests.cybergeneration_setup import (RS, act, attack, brawler, can, end, evs, fig, legal, only, open_map,
                                         play, scen, who, wounds)


def checked(b, check: str, actor: str | None = None) -> list[dict]:
    """The roll events of one kind, picked by their `check` key."""
    return [e for e in b.events if e["type"] == "roll" and e.get("check") == check
            and (actor is None or e["actor"] == actor)]


def mods(e: dict) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in e["modifiers"]:
        out[m["source"]] = out.get(m["source"], 0) + m["value"]
    return out


def odds(b, action: Action) -> dict:
    s = b.state
    return only(RS.attack_odds_many(s, s.actor, [action]))


# ---------------------------------------------------------------------------------------
# 1. Knockdown: -2 once

def test_a_knocked_down_figure_attacks_in_melee_at_minus_two_once():
    """seed 004, Knockdown: 'A successful knockdown attack does DC1 damage and knocks the victim over.
    (They will suffer -2 to appropriate checks)' - one -2 on each check, the melee attack roll included
    (it was taken twice: once as an attack modifier, once as an opposed-roll modifier)."""
    s = scen(open_map(8), [brawler("a", (0, 1), weapons=("knife",), conditions=["prone", "knocked"])],
             [brawler("d", (1, 1))])
    b = play(s)
    # the estimates price what the roll rolls: REF 6 + streetfighting 4 - 2 against REF 6 + streetfighting 4
    o = odds(b, Action("attack", target="d", weapon="knife"))
    assert o["p_hit"] == p_beat(8, 10)
    priced = max(x["exp_damage"] for x in RS.attack_odds_many(b.state, b.state.actor, RS.legal_attacks(b.state, "d"))
                 if x is not None)
    assert RS.best_expected_damage(b.state, b.state.actor, ["d"])["d"] == priced
    b = play(s, [attack("a", "d", "knife", [5, 5])])
    r = only(checked(b, "attack"))
    assert r["modifiers"] == [{"source": "knocked down", "value": -2}]
    assert r["total"] == 6 + 4 - 2 + 5 and r["pool"] == "REF 6 + streetfighting 4 - 2 knocked down + 1d10"
    assert only(checked(b, "melee_defence"))["total"] == 15
    # the knocked figure defending in melee: -2 once as well
    s = scen(open_map(8), [brawler("a", (0, 1), weapons=("knife",))],
             [brawler("d", (1, 1), conditions=["prone", "knocked"])])
    b = play(s, [attack("a", "d", "knife", [5, 5, 3, 1])])   # a hit: knife damage die 3, d saves on 1
    d = only(checked(b, "melee_defence"))
    assert d["modifiers"] == [{"source": "knocked down", "value": -2}] and d["total"] == 6 + 4 - 2 + 5
    assert only(checked(b, "attack"))["total"] == 15 and evs(b, "attack")[-1]["result"] == "hit"


# ---------------------------------------------------------------------------------------
# 2. Held actions fire the drawn weapon

def _draw_standoff(weapon: str, **kw):
    """s holds its action with `weapon` drawn; t, 6 m away, has its heavy pistol holstered."""
    return scen(open_map(14), [fig("s", (0, 1), weapons=(weapon,), skills={"athletics": 4}, **kw)],
                [fig("t", (4, 1), weapons=("heavy_pistol",), drawn="none", skills={"handgun": 4})])


def test_a_held_action_fires_the_drawn_genius_gun_with_a_blast():
    """seed 004, Your Turn: 'you can use your move to draw a pistol on someone and say "if he draws, I will
    fire", so if he uses his move action to draw his own weapon, you can take your firing action first';
    Genius Gun: 'The missile makes checks for you' (assumption held_actions: the genius gun fires a blast
    at its table DC, 5, or the largest its charge covers)."""
    hold = [act("s", "delay", option="on_draw"), end("s")]
    b = play(_draw_standoff("genius_gun"), hold)
    assert who(b, "s").res["trigger"]["weapon"] == "genius_gun"
    # missile 15 + 5 = 20 against 15 (6 m); DC5 die 3 = 3 Wounds; t saves on 1; then t draws
    b = play(_draw_standoff("genius_gun"), hold + [act("t", "ready", weapon="heavy_pistol", option="draw",
                                                       dice=[5, 3, 1])])
    m = only(checked(b, "genius_missile"))
    assert m["purpose"] == "genius gun missile (blast:5)" and m["total"] == 20 and m["charge_left"] == 19
    assert only(evs(b, "attack"))["option"] == "blast:5" and wounds(b, "t") == 3
    assert who(b, "t").res["drawn"] == "heavy_pistol" and who(b, "s").res["trigger"] is None
    # a charge of 4 fires blast:4 (DC4 die 3 = 2 Wounds); a charge of 2 covers no blast: bare hands
    low = _draw_standoff("genius_gun", state={"ammo": {"genius_gun": 4}})
    b = play(low, hold + [act("t", "ready", weapon="heavy_pistol", option="draw", dice=[5, 3, 1])])
    assert only(evs(b, "attack"))["option"] == "blast:4" and who(b, "s").res["ammo"]["genius_gun"] == 0
    b = play(_draw_standoff("genius_gun", state={"ammo": {"genius_gun": 2}}), hold)
    assert who(b, "s").res["trigger"]["weapon"] == "unarmed"


def test_a_held_action_throws_the_drawn_grenade():
    """seed 004, Your Turn: '... if he draws, I will fire ... you can take your firing action first';
    Grenades: 'Delver a blast that extends 5m around point of impact' (assumption held_actions)."""
    hold = [act("s", "delay", option="on_draw"), end("s")]
    b = play(_draw_standoff("frag_grenade"), hold)
    assert who(b, "s").res["trigger"]["weapon"] == "frag_grenade"
    # REF 6 + athletics 4 + 5 = 15 against 15 (6 m of a 50 m throw); DC5 die 3 = 3 Wounds, t saves on 1
    b = play(_draw_standoff("frag_grenade"), hold + [act("t", "ready", weapon="heavy_pistol", option="draw",
                                                         dice=[5, 3, 1])])
    r = only(checked(b, "attack", "s"))
    assert r["total"] == 15 and r["difficulty"] == 15 and r["purpose"] == "throw frag_grenade"
    assert only(evs(b, "attack"))["result"] == "hit" and wounds(b, "t") == 3 and wounds(b, "s") == 0
    assert who(b, "s").res["ammo"]["frag_grenade"] == 1 and who(b, "t").res["drawn"] == "heavy_pistol"


# ---------------------------------------------------------------------------------------
# 3. In a grapple: anything else, behind the preliminary opposed roll

_SKILLS = {"handgun": 4, "smg": 4, "streetfighting": 4, "athletics": 4}


def _grappling(weapon: str, **kw):
    """g (REF 6, streetfighting 4) grapples p next to it; e stands 6 m away."""
    return scen(open_map(14), [fig("g", (0, 1), weapons=(weapon,), skills=_SKILLS, state={"grapple": ["p"]}, **kw)],
                [brawler("p", (1, 1)), fig("e", (4, 1))])


def _attacks(b, weapon: str) -> set[tuple[str, str | None]]:
    return {(x.target, x.option) for x in legal(b) if x.kind == "attack" and x.weapon == weapon}


def _all_priced(b) -> None:
    """Every attack listed in the grapple is priced (threat and odds take the long way there)."""
    s = b.state
    acts = RS.legal_attacks(s)
    assert RS.best_expected_damage(s, s.actor, ["p", "e"]) is None
    for x, o in zip(acts, RS.attack_odds_many(s, s.actor, acts)):
        assert o is not None and 0.0 <= o["p_hit"] <= 1.0 and o["exp_damage"] >= 0.0, (x, o)


def test_in_a_grapple_every_attack_option_is_offered():
    """seed 004, Grapple: 'To do anything else (for example shoot a pistol or use a larger melee weapon)
    requires a successful opposed roll to even attempt it' - anything else: called shots, full auto, a
    throw, a grenade and the genius gun too, as outside a grapple (assumption grapple_other_attack)."""
    blasts = {f"blast:{n}" for n in range(3, 8)} | {"scribble"}
    want = {"genius_gun": {(t, o) for t in "pe" for o in blasts},
            "smg": {(t, o) for t in "pe" for o in (None, "called:head", "full_auto")},
            "light_pistol": {(t, o) for t in "pe" for o in (None, "called:head")},
            "frag_grenade": {("p", None), ("e", None)},
            "knife": {("p", None), ("p", "called:head"), ("e", "throw")}}
    for weapon, attacks in want.items():
        b = play(_grappling(weapon))
        assert _attacks(b, weapon) == attacks, weapon
        assert _attacks(b, "unarmed") == {("p", None), ("p", "called:head"), ("p", "stun"), ("p", "knockdown")}
        _all_priced(b)


def test_in_a_grapple_the_genius_gun_fires_after_the_preliminary_roll():
    """seed 004, Grapple: 'To do anything else ... requires a successful opposed roll to even attempt it';
    Genius Gun: 'The missile makes checks for you' (no -2: the firer makes no check)."""
    s = _grappling("genius_gun")
    b = play(s)
    assert can(b, "attack", target="e", weapon="genius_gun", option="blast:5")
    assert odds(b, Action("attack", target="e", weapon="genius_gun", option="blast:5"))["p_hit"] == p_beat(10, 10)
    # g 6 + 4 + 6 = 16 beats p 15; missile 15 + 5 = 20 against 15; DC5 die 3 = 3 Wounds; e saves on 1
    b = play(s, [attack("g", "e", "genius_gun", [6, 5, 5, 3, 1], option="blast:5")])
    assert only(checked(b, "grapple_free"))["success"] is True
    assert only(checked(b, "genius_missile"))["total"] == 20 and wounds(b, "e") == 3
    assert who(b, "g").res["ammo"]["genius_gun"] == 19
    # the preliminary roll lost (15 against 15): no missile, no charge spent, the action gone
    b = play(s, [attack("g", "e", "genius_gun", [5, 5], option="blast:5")])
    assert checked(b, "genius_missile") == [] and who(b, "g").res["ammo"]["genius_gun"] == 24
    assert not can(b, "attack", target="e", weapon="genius_gun", option="blast:5")


def test_in_a_grapple_a_called_head_shot_at_the_partner_has_no_point_blank_bonus():
    """seed 004, Grapple: 'If you succeed, you may make the regular check with a -2 penalty ... (NB you do
    not get the +5 WA bonus for pistols shooting at point blank range)'; Called Shots: '-3 to hit'."""
    s = _grappling("light_pistol")
    b = play(s)
    assert can(b, "attack", target="p", weapon="light_pistol", option="called:head")
    head = Action("attack", target="p", weapon="light_pistol", option="called:head")
    assert odds(b, head)["p_hit"] == p_beat(10, 10) * p_at_least(6 + 4 + 1 - 3 - 2, 10)
    # preliminary 16 against 15; REF 6 + handgun 4 + accuracy 1 - 3 - 2 + 8 = 14 against point blank 10;
    # DC2 die 10 = 3 Wounds (table), p saves on 1
    b = play(s, [attack("g", "p", "light_pistol", [6, 5, 8, 10, 1], option="called:head")])
    r = only(checked(b, "attack", "g"))
    assert mods(r) == {"called shot (head)": -3, "while grappling": -2} and r["total"] == 14
    assert r["difficulty"] == 10 and evs(b, "attack")[-1]["result"] == "hit"
    assert wounds(b, "p") == RS.table.wounds(2, 10)


def test_in_a_grapple_full_auto_and_a_throw_at_a_figure_outside():
    """seed 004, Grapple: 'To do anything else ... requires a successful opposed roll to even attempt it.
    If you succeed, you may make the regular check with a -2 penalty'; Full Automatic; Throwing."""
    s = _grappling("smg")
    b = play(s)
    assert can(b, "attack", target="e", weapon="smg", option="full_auto")
    # preliminary 16 against 15; REF 6 + smg 4 - 5 - 2 + 10 (+ second d10 4) = 17 against 15 (6 m):
    # margin 2; damage die 5 + 2 = 7: one DC2 hit
    b = play(s, [attack("g", "e", "smg", [6, 5, 10, 4, 5, 1], option="full_auto")])
    r = only(checked(b, "attack", "g"))
    assert mods(r) == {"full auto": -5, "while grappling": -2} and r["total"] == 17
    assert wounds(b, "e") == RS.table.wounds(2, 7) and who(b, "g").res["ammo"]["smg"] == 20
    s = _grappling("knife")
    b = play(s)
    assert can(b, "attack", target="e", weapon="knife", option="throw")
    # preliminary 16 against 15; REF 6 + athletics 4 - 2 + 9 = 17 against 15 (6 m of 50); DC2 die 4
    b = play(s, [attack("g", "e", "knife", [6, 5, 9, 4, 1], option="throw")])
    r = only(checked(b, "attack", "g"))
    assert mods(r) == {"while grappling": -2} and r["total"] == 17 and wounds(b, "e") == RS.table.wounds(2, 4)
    assert "knife" not in {w.name for w in RS.weapons_of(who(b, "g"))}


def test_in_a_grapple_a_grenade_at_the_partner_blasts_the_thrower_too():
    """seed 004, Grapple: 'To do anything else ... requires a successful opposed roll to even attempt it';
    Grenades: 'Delver a blast that extends 5m around point of impact' - everyone in it, the thrower too."""
    s = _grappling("frag_grenade")
    b = play(s)
    assert can(b, "attack", target="p", weapon="frag_grenade")
    # preliminary 16 against 15; REF 6 + athletics 4 - 2 + 5 = 13 against point blank 10: lands on p;
    # DC5 dice (g 2, p 3, e 4) each with its stun save (1)
    b = play(s, [attack("g", "p", "frag_grenade", [6, 5, 5, 2, 1, 3, 1, 4, 1])])
    r = only(checked(b, "attack", "g"))
    assert mods(r) == {"while grappling": -2} and r["total"] == 13 and r["difficulty"] == 10
    t = RS.table.wounds
    assert (wounds(b, "g"), wounds(b, "p"), wounds(b, "e")) == (t(5, 2), t(5, 3), t(5, 4))
