"""The legal actions of the acting figure (seed 004, Your Turn, Grapple).

seed 004: "Each round you get 1 movement and 1 action"; the move (walk, crawl, get up,
draw, steady, get an item, reload a clip) and the action (attack, reload a loose weapon,
change weapons, aim, access a concealed weapon, dodge) lists; "Elect not to move and
perform 2 actions"; in a grapple: "Just continue grappling, Make an unarmed attack,
Attempt to upgrade the grapple ..., Attempt to break the grapple, Make a special attack,
Attempt another action"; the victim of a hold "can only attempt to escape the hold".
"""

from __future__ import annotations

from rules.actions import END_TURN, Action
from rules.state import BattleState, Combatant


class ChoicesMixin:
    """`legal_actions` and its parts for `CybergenerationRuleset`."""

    def legal_actions(self, state: BattleState) -> list[Action]:
        a = state.actor
        acts = [END_TURN]
        if a is None or a.down or state.over:
            return acts
        e = state.economy
        g = state.grid
        mv = g.move_actions
        found = self.reach_now(state, a)  # `move_options`' cells, without building its dict
        if found is not None:
            ends = found[1]
            acts.extend(map(mv.__getitem__, sorted([c for c in found[0] if c not in ends])))
        A = self.action
        if a.res["held_by"] is not None:
            acts.extend(self.held_actions(state, a))
            return acts
        can_act = e["actions"] < e["max_actions"] and e["suppress"] != "fail"
        move_free = e["move"] == "" and not e["two"]
        if self.in_grapple(a):
            # seed 004: '... Make a special attack, Attempt another action' (grapple.py: another_action)
            if can_act:
                acts.extend(self.grapple_round_actions(state, a))
                acts.extend(self.suppress_actions(state, a))
            acts.extend(self.other_actions(state, a, can_act, move_free))
            acts.extend(self.delay_actions(state, a, can_act, allow_triggers=False))
            return acts
        if can_act:
            acts.extend(self.attack_actions(state, a))
            acts.extend(self.suppress_actions(state, a))
            acts.extend(self.grapple_start_actions(state, a))
        acts.extend(self.other_actions(state, a, can_act, move_free))
        if "prone" not in a.conditions:
            acts.append(A("drop_prone"))
        acts.extend(self.delay_actions(state, a, can_act and e["actions"] == 0 and not e["two"]
                                       and e["suppress"] != "fail", allow_triggers=True))
        if e["move"] == "" and e["actions"] == 0 and not e["two"] and not e["woke"] and e["suppress"] != "fail":
            acts.append(A("use", option="two_actions"))
        return acts

    def other_actions(self, state: BattleState, a: Combatant, can_act: bool, move_free: bool) -> list[Action]:
        """The actions and uses of the move that are not attacks, walking, delays or two actions."""
        A = self.action
        e = state.economy
        acts: list[Action] = []
        if can_act:
            if not a.res["dodge"]:
                acts.append(A("defend", option="dodge"))
            if e["actions"] == 0 and not e["two"]:
                acts.append(A("aim"))
            for w in self.weapons_of(a):
                if w.implant:
                    continue
                if a.res["drawn"] != w.name and not w.grapple_only:
                    acts.append(A("ready", weapon=w.name, option="change"))
                if w.name in a.res["jammed"]:
                    acts.append(A("ready", weapon=w.name, option="unjam"))
                if w.reload == "loose" and a.res["ammo"].get(w.name, 0) < w.magazine:
                    acts.append(A("reload", weapon=w.name))
            acts.extend(self.first_aid_actions(state, a, ""))
        if move_free:
            if "prone" in a.conditions:
                acts.append(A("stand"))
            for w in self.weapons_of(a):
                if w.implant:
                    continue
                if (a.res["drawn"] != w.name and w.access in ("holster", "sheath", "slung")
                        and e["suppress"] != "fail"):
                    acts.append(A("ready", weapon=w.name, option="draw"))
                if (a.res["drawn"] == w.name and e["steady"] is None and e["suppress"] != "fail"
                        and (w.ranged or w.melee)):
                    acts.append(A("ready", weapon=w.name, option="steady"))
                if w.reload == "clip" and e["suppress"] != "fail" and a.res["ammo"].get(w.name, 0) < w.magazine:
                    if w.name not in a.res["ammo_ready"]:
                        acts.append(A("ready", weapon=w.name, option="ammo"))
                    if w.name in a.res["ammo_ready"] or can_act and e["actions"] == 0:
                        acts.append(A("reload", weapon=w.name))
            if e["suppress"] != "fail":
                acts.extend(self.pick_up_actions(state, a))
                if can_act and e["actions"] == 0:
                    acts.extend(self.first_aid_actions(state, a, "wake"))
        return acts

    def legal_attacks(self, state: BattleState, target: str | None = None) -> list[Action]:
        """The attack-like legal actions, as `legal_actions` lists them (its other branches skipped)."""
        a = state.actor
        if a is None or a.down or state.over:
            return []
        e = state.economy
        can_act = e["actions"] < e["max_actions"] and e["suppress"] != "fail"
        if a.res["held_by"] is not None:
            out = self.held_actions(state, a)
        elif self.in_grapple(a):
            out = self.grapple_round_actions(state, a) if can_act else []
        elif can_act:
            out = self.attack_actions(state, a) + self.grapple_start_actions(state, a)
        else:
            out = []
        return [x for x in out if x.kind in ("attack", "grapple") and (target is None or x.target == target)]

    def pick_up_actions(self, state: BattleState, a: Combatant) -> list[Action]:
        if not state.objects:
            return []
        g = state.grid
        out = []
        for cell in (a.pos, *g._ring[a.pos]):
            for item in sorted(set(state.objects.get(cell, ()))):
                out.append(self.action("pick_up", cell=cell, weapon=item))
        return out
