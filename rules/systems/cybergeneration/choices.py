"""The legal actions of the acting figure (seed 004, Your Turn, Grapple).

seed 004: "Each round you get 1 movement and 1 action"; the move (walk, crawl, get up,
draw, steady, get an item, reload a clip) and the action (attack, reload a loose weapon,
change weapons, aim, access a concealed weapon, dodge) lists; "Elect not to move and
perform 2 actions"; in a grapple: "Just continue grappling, Make an unarmed attack,
Attempt to upgrade the grapple ..., Attempt to break the grapple, Make a special attack,
Attempt another action"; the victim of a hold "can only attempt to escape the hold".
"""

from __future__ import annotations

from bisect import bisect_left
from functools import cached_property

from rules.actions import END_TURN, Action
from rules.state import BattleState, Combatant

#: the (kind, option) of every action the listing gives with no target, cell or weapon
FIXED = (("drop_prone", None), ("use", "two_actions"), ("defend", "dodge"), ("aim", None), ("stand", None),
         ("delay", None), ("delay", "end_of_round"), ("delay", "on_move"), ("delay", "on_attack"),
         ("delay", "on_draw"))


class ChoicesMixin:
    """`legal_actions` and its parts for `CybergenerationRuleset`."""

    @cached_property
    def _fixed(self) -> dict[tuple[str, str | None], Action]:
        """(kind, option) -> `self.action(kind, option=option)` for the listing's actions with
        no target, cell or weapon: looked up once, not interned again on every listing."""
        return {(k, o): self.action(k, option=o) for k, o in FIXED}

    def legal_actions(self, state: BattleState) -> list[Action]:
        """End turn; moves (cell order); then, held: the escapes; grappling: the grapple's
        options, suppression, the other actions, delays; else attacks, suppression, grapples,
        the other actions, dropping prone, delays and two actions.

        The movement budget (`move_cap`) and the weapons the figure has (`weapons_of`) are
        worked out once and handed to the parts that read them; the moves are the reach's
        cells sorted with the few cells no move may end on deleted (found by bisection), not
        a walk over every cell. tests/test_cybergeneration_listing.py holds the long way."""
        a = state.actor
        acts = [END_TURN]
        if a is None or a.down or state.over:
            return acts
        e = state.economy
        cap = self.move_cap(state, a)
        found = self.reach_now(state, a, cap)
        if found is not None:
            reach, ends = found
            cells = sorted(reach)
            for c in sorted(ends, reverse=True):   # the last first: the earlier places stay put
                i = bisect_left(cells, c)
                if i < len(cells) and cells[i] == c:
                    del cells[i]
            acts.extend(map(state.grid.move_actions.__getitem__, cells))
        if a.res["held_by"] is not None:
            acts.extend(self.held_actions(state, a))
            return acts
        can_act = e["actions"] < e["max_actions"] and e["suppress"] != "fail"
        move_free = e["move"] == "" and not e["two"]
        ws = self.weapons_of(a)
        if self.in_grapple(a):
            # seed 004: '... Make a special attack, Attempt another action' (grapple.py: another_action)
            if can_act:
                acts.extend(self.grapple_round_actions(state, a, ws))
                acts.extend(self.suppress_actions(state, a))
            acts.extend(self.other_actions(state, a, can_act, move_free, ws))
            acts.extend(self.delay_actions(state, a, can_act, allow_triggers=False, cap=cap))
            return acts
        if can_act:
            acts.extend(self.attack_actions(state, a, ws))
            acts.extend(self.suppress_actions(state, a))
            acts.extend(self.grapple_start_actions(state, a))
        acts.extend(self.other_actions(state, a, can_act, move_free, ws))
        if "prone" not in a.conditions:
            acts.append(self._fixed["drop_prone", None])
        acts.extend(self.delay_actions(state, a, can_act and e["actions"] == 0 and not e["two"]
                                       and e["suppress"] != "fail", allow_triggers=True, cap=cap))
        if e["move"] == "" and e["actions"] == 0 and not e["two"] and not e["woke"] and e["suppress"] != "fail":
            acts.append(self._fixed["use", "two_actions"])
        return acts

    def other_actions(self, state: BattleState, a: Combatant, can_act: bool, move_free: bool,
                      ws: list | None = None) -> list[Action]:
        """The actions and uses of the move that are not attacks, walking, delays or two actions.
        `ws`: `weapons_of(a)`, when the caller has it."""
        A = self.action
        fixed = self._fixed
        e = state.economy
        acts: list[Action] = []
        if ws is None:
            ws = self.weapons_of(a)
        if can_act:
            if not a.res["dodge"]:
                acts.append(fixed["defend", "dodge"])
            if e["actions"] == 0 and not e["two"]:
                acts.append(fixed["aim", None])
            for w in ws:
                if w.access == "implant":   # `w.implant`
                    continue
                if a.res["drawn"] != w.name and not w.grapple_only:
                    acts.append(A("ready", weapon=w.name, option="change"))
                if w.name in a.res["jammed"]:
                    acts.append(A("ready", weapon=w.name, option="unjam"))
                if w.reload == "loose" and a.res["ammo"].get(w.name, 0) < w.magazine:
                    acts.append(A("reload", weapon=w.name))
            acts.extend(self.first_aid_actions(state, a, ""))
        if move_free:
            if "prone" in a.conditions and e["suppress"] != "fail":   # pinned: standing up is no cover
                acts.append(fixed["stand", None])
            for w in ws:
                if w.access == "implant":   # `w.implant`
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
        objects = state.objects
        out = []
        for cell in (a.pos, *g._ring[a.pos]):
            here = objects.get(cell)
            if here:
                for item in sorted(set(here)):
                    out.append(self.action("pick_up", cell=cell, weapon=item))
        return out
