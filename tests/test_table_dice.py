"""Issue #33, 'The engine says which roll comes next': the rules announce each roll
(rules/calls.py) and the table reads the announcement, instead of replaying the action three
times and guessing from the log; 'dice per side, the usual table setup: `--dice crew=manual`
rolls the players' dice by hand and the engine rolls the NPCs' (and the reverse, or per
figure)'."""

from __future__ import annotations

import pytest

from rules.actions import Action
from rules.narration import keys_told
from rules.replay import play_replay
from tactica.table import Session
from tactica.table.dice import DiceOwners, next_request


def play(s: Session, provider, n=14):
    for _ in range(n):
        if s.state.over:
            return
        s.resolve(s.plan().action, provider)


@pytest.mark.parametrize("dice,hand", [(["crew=manual"], {"mal"}), (["outlaws=manual"], {"jubal"}),
                                       (["manual", "mal=engine"], {"jubal", None})])
def test_dice_per_side_asks_only_the_hand_rolls(dice, hand):
    s = Session.new("cortex/duel", seed=3, npc=["crew", "outlaws"], dice_mode=dice)
    asked = []

    def provider(req):
        asked.append(req)
        return [min(x, 2) for x in req.sides]

    s.begin(provider)
    play(s, provider)
    assert asked, "no roll by hand was asked for"
    names = {c.name: c.id for c in s.state.combatants}
    assert {names.get(r.roller) for r in asked} <= hand
    # every roll by a hand roller shows the faces typed; the engine's show its own
    ev_rolls = [e for e in s.battle.events if e["type"] == "roll" and e.get("dice")]
    by_hand = [e for e in ev_rolls if e["actor"] in hand]
    assert by_hand and all(f == min(sd, 2) for e in by_hand for sd, f in e["dice"])
    others = [e for e in ev_rolls if e["actor"] not in hand]
    assert others and any(f != min(sd, 2) for e in others for sd, f in e["dice"])
    # the mixed fight is a replay like any other: its history forces every die
    assert play_replay(s.replay_doc()).battle.events == s.battle.events


def test_r_for_every_hand_roll_is_the_engine_fight():
    a = Session.new("cortex/duel", seed=5, npc=["crew", "outlaws"])
    b = Session.new("cortex/duel", seed=5, npc=["crew", "outlaws"], dice_mode=["crew=manual"])
    a.begin()
    b.begin(lambda req: None)
    for _ in range(10):
        if a.state.over:
            break
        act = a.plan().action
        a.resolve(act)
        b.resolve(act, lambda req: None)
    assert a.battle.events == b.battle.events


def test_the_next_roll_is_read_from_one_run_of_the_announcements():
    """No replaying the action three times: one run on a copy finds the request, and the
    request carries the rules' own words and modifiers."""
    s = Session.new("cortex/duel", seed=2, npc=["outlaws=planner"])   # an NPC that answers questions by default
    s.begin()
    while s.state.actor.id != "mal":
        s.resolve(Action("end_turn"))
    act = next(a for a in s.legal() if a.kind == "attack" and a.option is None)
    runs = []

    def fn(b):
        runs.append(1)
        return b.step(act, check=False)

    req, used = next_request(s.battle, fn, [], DiceOwners("manual"))
    assert len(runs) == 1 and used == 0
    assert req.roller == "Mal" and req.purpose.startswith("attack") and req.call["check"] == "attack"
    assert "against Jubal's defence" in req.text()
    req2, used2 = next_request(s.battle, fn, [3, 3], DiceOwners("manual"))
    assert used2 == 2 and req2 is not None and req2.roller == "Jubal"


def test_dice_settings_are_checked_and_saved(tmp_path):
    from tactica.table import SessionError

    with pytest.raises(SessionError, match="no team or figure 'nobody'"):
        Session.new("cortex/duel", dice_mode=["nobody=manual"])
    with pytest.raises(SessionError, match="engine, manual"):
        Session.new("cortex/duel", dice_mode=["crew=loaded"])
    s = Session.new("cortex/duel", seed=1, dice_mode=["crew=manual"], save_path=tmp_path / "s.json")
    s.begin(lambda r: None)
    again = Session.resume(tmp_path / "s.json")
    assert again.dice.by == {"crew": "manual"} and again.dice_mode == "engine"
    again.set_dice(["outlaws=manual"])
    assert again.dice.by == {"crew": "manual", "outlaws": "manual"}


def test_api_hand_dice_and_per_side_settings():
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from tactica.server import create_app

    with TestClient(create_app()) as c:
        fid = c.post("/fights", json={"scenario": "cortex/duel", "seed": 2}).json()["id"]
        r = c.put(f"/fights/{fid}/settings", json={"dice": {"crew": "manual"}})
        assert r.status_code == 200 and r.json()["dice"] == {"crew": "manual"}
        assert c.put(f"/fights/{fid}/settings", json={"dice": {"nobody": "manual"}}).status_code == 422
        v = c.get(f"/fights/{fid}/view").json()
        for _ in range(12):
            legal = c.get(f"/fights/{fid}/legal").json()
            if legal["actor"] is None:
                break
            act = next((a for a in legal["actions"] if a["type"] == "attack"), legal["actions"][-1])
            faces: list[int] = []
            while True:
                nxt = c.post(f"/fights/{fid}/dice", json={"action": act, "dice": faces}).json()
                if nxt["request"] is None:
                    break
                assert nxt["request"]["roller"] == "Mal"      # only the crew's rolls are asked for
                faces += [1] * len(nxt["request"]["sides"])
            r = c.post(f"/fights/{fid}/actions", json={"action": act, "hand_dice": faces})
            assert r.status_code == 200, r.text
            for e in r.json()["events"]:
                if e["type"] == "roll" and e["actor"] == "mal":
                    assert all(f == 1 for _, f in e["dice"])
        bad = c.post(f"/fights/{fid}/actions", json={"action": {"type": "end_turn"}, "hand_dice": [1]})
        assert bad.status_code in (409, 422)
        assert v["settings"]["dice"] == {"crew": "manual"}


def test_prompts_show_every_modifier_in_the_rulesets_words():
    """'Roll lines and prompts show every modifier: "Agility d10 + Guns d8 (d10, stepped down
    twice: wounds) vs 9 + 8 (medium cover) = 17"; metalface shows the kept die and the
    modifiers'."""
    texts = []
    for scenario in ("cortex/warehouse", "metalface/scrapyard"):
        for seed in range(3):
            npc = {"cortex/warehouse": "syndicate", "metalface/scrapyard": "gang"}[scenario]
            s = Session.new(scenario, seed=seed, dice_mode="manual", npc=[f"{npc}=tactical"])   # fast NPCs
            s.begin(lambda r: None)

            def prov(req):
                texts.append((scenario, req))
                return None

            for _ in range(40):
                if s.state.over:
                    break
                s.resolve(s.plan().action, prov)
    cover = [r for sc, r in texts if sc.startswith("cortex") and (r.call["against"] or {}).get("cover")]
    assert cover and all(f"(+{r.call['against']['cover']} cover)" in r.text() for r in cover)
    modded = [r for sc, r in texts if r.modifiers]
    # each modifier by its name, a key told as words ("tactical vest: agility stepped down once")
    assert modded and all(keys_told(n.split(" (")[0].split(":")[0]) in r.text()
                          for r in modded for n, v in r.modifiers if v)
    assert any("stepped down" in r.text() for sc, r in texts if sc.startswith("cortex"))   # wound steps
    mf = [r for sc, r in texts if sc.startswith("metalface") and r.call["check"] == "targeting"]
    assert mf and all("highest of" in r.text() and "range" in r.text() for r in mf)
