"""`Session`: one fight at the table (battle, roles, dice, history, undo, saving)."""


from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any, Callable, Mapping


from agents.base import policy_copy
from rules.actions import Action
from rules.battle import Battle
from rules.choices import ASK, decider_for
from rules.errors import IllegalActionError, TacticaError
from rules.events import Event
from rules.serialize import battle_from_dict, battle_to_dict
from rules.state import BattleState, Combatant
from tactica.table.building import BuildingMixin
from tactica.table.base import ADVISOR_POLICY, CommandError, SESSION_FORMAT, SESSION_VERSION, SessionError, UNDO_KEEP, UNDO_SAVED
from tactica.table.commands import _match_name, _suggest_words
from tactica.table.dice import DiceOwners, run_with_dice
from tactica.table.settings import check_behaviour, set_behaviour, wrap
from tactica.table.roles import Abort, DiceProvider, Role, parse_team_options  # noqa: F401 - Abort: the terminal's
from tactica.table.saves import write_replay, write_save
from tactica.table.saves import _policy_rng_state, _set_policy_rng_state, replay_from_history
from tactica.table.suggest import Plan, _make_policy, alternatives_for
from tactica.table.words import action_json


class Session(BuildingMixin):
    """One fight at the table: the battle, who plays whom, dice, history, undo and saving."""

    def __init__(self, battle: Battle, scenario_doc: Mapping[str, Any], roles: dict[str, Role], *, seed: int = 0,
                 dice_mode: str = "engine", confirm: bool = True, save_path: str | Path | None = None,
                 ask_all: bool = False) -> None:
        self.battle = battle
        #: who rolls which dice by hand (`--dice manual`, `--dice crew=manual`)
        self.dice = DiceOwners.parse(dice_mode, battle.state)
        self.scenario_doc = dict(scenario_doc)
        self.roles = roles
        self.seed = int(seed)
        self.confirm = confirm
        self.save_path = Path(save_path) if save_path else None
        self.start_dice: list[int] | None = []
        self.history: list[dict[str, Any]] = []
        self.undo_stack: list[dict[str, Any]] = []
        self.policies: dict[str, Any] = {}
        self._pending: tuple | None = None   # (key, plan, policy copy before deciding)
        self.created = _dt.datetime.now().isoformat(timespec="seconds")
        self.notes: list[str] = []
        #: the NPC behaviour a GM set (agents/behaviour.py BehaviourBook; None: the policies' own)
        self.behaviour = None
        #: when the session was last written (None: never), and how many changes it has seen
        #: (every change saves; a front end that follows the fight compares revisions)
        self.saved: str | None = None
        self.revision = 0
        #: the API's client answers every figure's choices; at the terminal the GM answers for
        #: the figures the GM plays and an NPC's take its policy's default
        self.ask_all = ask_all
        for i, t in enumerate(battle.state.teams):
            r = roles.get(t)
            if r is not None and r.policy:
                self.policies[t] = wrap(_make_policy(r.policy, self.policy_seed(i), self.state), self.behaviour)
        self._set_deciders()

    def _set_deciders(self) -> None:
        """Who answers the choices the rules give a figure (rules/choices.py): the API's client
        or the GM as a decision; an NPC's policy as its next decision where it answers through
        its own decisions (a learned network), or else with its default."""
        pols = self.policies
        self.battle.deciders = {t: ASK for t, r in self.roles.items()
                                if self.ask_all or r.policy is None
                                or (t in pols and decider_for(pols[t], self.state) == ASK)}

    # -- building (new, resume, from_dict: building.py) ---------------------------------
    def policy_seed(self, i: int) -> int:
        return (self.seed * 1_000_003 + 7919 * (i + 1)) % (1 << 62)

    # -- properties -------------------------------------------------------------------
    @property
    def state(self) -> BattleState:
        return self.battle.state

    @property
    def rs(self):
        return self.battle.ruleset

    @property
    def started(self) -> bool:
        s = self.state
        return s.round > 0 or s.over

    def set_role(self, team: str, role: str, policy: str | None) -> Role:
        """Who plays `team` from now on: "pc" (the GM; a policy makes it a dry run) or "npc"
        (a policy plans; default `agents.base.default_policy` of the fight's ruleset). Checked
        like `--npc`/`--pc`."""
        from agents.base import check_policy, default_policy

        teams = list(self.state.teams)
        if team not in teams:
            raise SessionError(f"no team {team!r}", field="teams", expected="one of " + ", ".join(teams)
                               + _suggest_words(team, teams))
        if role not in ("pc", "npc"):
            raise SessionError(f"role {role!r}", field=f"teams.{team}.role", expected="pc or npc")
        if role == "npc" and not policy:
            policy = default_policy(self.state.ruleset)
        if policy:
            try:
                check_policy(policy, f"teams.{team}.policy")
            except TacticaError as e:
                raise SessionError(e.detail, field=e.field, expected=e.expected) from None
        self.drop_plan()
        self.roles[team] = r = Role(team, role, policy or None)
        if policy:
            self.policies[team] = wrap(_make_policy(policy, self.policy_seed(teams.index(team)), self.state), self.behaviour)
        else:
            self.policies.pop(team, None)
        self._set_deciders()
        self.save()
        return r

    def check_behaviour(self, doc: Mapping[str, Any] | None):
        return check_behaviour(self, doc)

    def set_behaviour(self, book) -> None:
        """The NPC behaviour from now on (a checked BehaviourBook, or None for none)."""
        set_behaviour(self, book)

    def behaviour_json(self) -> dict[str, Any]:
        d = self.behaviour.to_json() if self.behaviour is not None else {}
        return {k: v for k, v in d.items() if v}

    @property
    def dice_mode(self) -> str:
        """Who rolls the dice no team or figure setting names: engine or manual."""
        return self.dice.default

    @dice_mode.setter
    def dice_mode(self, mode: str) -> None:
        if mode not in ("engine", "manual"):
            raise SessionError(f"dice mode {mode!r}", field="dice_mode", expected="engine or manual")
        self.dice.default = mode

    def set_dice_mode(self, mode: str) -> None:
        self.dice_mode = mode
        self.save()

    def set_dice(self, items: list[str] | str, replace: bool = False) -> DiceOwners:
        """Who rolls by hand: `manual`, `engine`, `crew=manual`, `mal=engine` (a figure's
        setting wins over its team's, a team's over the default). `replace`: start afresh."""
        base = DiceOwners(self.dice.default) if replace else self.dice
        self.dice = DiceOwners.parse(items, self.state, base, field_name="dice")
        self.save()
        return self.dice

    def pc_teams(self) -> list[str]:
        return [t for t, r in self.roles.items() if r.role == "pc"]

    def role_of(self, c: Combatant) -> Role:
        from agents.base import default_policy

        return self.roles.get(c.team) or Role(c.team, "npc", default_policy(self.state.ruleset))

    def gm_plays(self, c: Combatant) -> bool:
        """Whether the GM picks this figure's actions (a PC team without a policy)."""
        r = self.role_of(c)
        return r.policy is None

    def legal(self) -> list[Action]:
        return self.battle.legal_actions()

    def figure(self, name: str) -> Combatant:
        s = self.state
        lw = name.lower()
        hit = _match_name(lw, set(s.by_id), s)
        if hit is None:
            names = sorted(set(s.by_id) | {c.name.lower() for c in s.combatants})
            raise CommandError(f"no figure {name!r}", field="status", expected="one of " + ", ".join(sorted(s.by_id))
                               + _suggest_words(lw, names))
        return s.by_id[hit]

    # -- resolving ---------------------------------------------------------------------
    def _run(self, fn: Callable[[Battle], list[Event]], provider: DiceProvider | None,
             given: list[int] | None = None) -> tuple[list[Event], list[int]]:
        """Run `fn` on the fight with the engine's dice, the GM's (`provider`, asked for the
        rolls `self.dice` gives the GM) or exactly `given` (tactica/table/dice.py)."""
        return run_with_dice(self, fn, provider, given)

    def engine_faces(self, sides: list[int]) -> list[int]:
        """Faces for a manual roll the GM lets the engine roll (`r`, 'Roll for me'): drawn from
        the fight's seeded dice, which move on (and are saved)."""
        dice = self.battle.dice
        faces = []
        for sd in sides:
            faces.append(dice.roll(int(sd), "rolled for the GM"))
            dice.record.pop()
        self.save()
        return faces

    def begin(self, provider: DiceProvider | None = None) -> list[Event]:
        """Start the fight (set-up and the first round's initiative)."""
        if self.started:
            return []
        evs, used = self._run(lambda b: b.start(), provider)
        self.start_dice = used
        self.save()
        return evs

    def _decision_policies(self) -> dict[str, Any]:
        """The policies as they were at this decision point (before a plan shown was made)."""
        pols = dict(self.policies)
        if self._pending is not None and self._pending[0] == self.decision_key() and self._pending[2] is not None:
            actor = self.state.by_id.get(self._pending[1].actor)
            if actor is not None and actor.team in pols:
                pols[actor.team] = self._pending[2]
        return pols

    def _policy_copy(self, pol: Any) -> Any:
        """An exact copy of a policy (or a dict of them) that shares the fight's ruleset and
        map and the memos the policies declare safe (agents/base.py `policy_copy`)."""
        return policy_copy(pol, keep=(self.rs, self.state.grid))

    def _snapshot(self) -> dict[str, Any]:
        st = battle_to_dict(self.battle, self.scenario_doc, include_events=False)  # the scenario: to tell added figures
        st.pop("scenario", None)
        pols = self._decision_policies()
        snap = {"state": st, "events": len(self.battle.events), "history": len(self.history),
                "policy_states": {t: _policy_rng_state(p) for t, p in pols.items()}}
        snap["_policies"] = self._policy_copy(pols)  # in memory only (not saved)
        return snap

    def resolve(self, action: Action, provider: DiceProvider | None = None, by: str = "gm",
                reason: str = "", dice: list[int] | None = None) -> list[Event]:
        """Check and resolve one action of the acting figure, record it and save. `dice`: every
        die the action rolls, in order (instead of the engine or the provider); on any error
        the session is as it was."""
        s = self.state
        if s.over:
            raise IllegalActionError("the fight is over", field="action", expected="no more actions")
        actor = s.actor
        self.rs.check_legal(s, action)
        snap = self._snapshot()
        pending = self._pending
        key = self.decision_key()
        before_state = s.clone()
        turn = (s.round, s.turn_index)
        try:
            evs, used = self._run(lambda b: b.step(action, check=False), provider, dice)
        except BaseException:
            self._restore(snap, keep_policies=True)
            raise
        # policy memory: a plan that was not followed is forgotten, the action taken is committed
        if pending is not None and pending[0] == key:
            plan, before = pending[1], pending[2]
            if action != plan.action and before is not None:
                self.policies[actor.team] = before
                commit = getattr(before, "commit", None)
                if commit is not None:
                    try:
                        commit(before_state, before_state.by_id[actor.id], action)
                    except Exception:  # noqa: BLE001 - memory is advice for the policy only
                        pass
        self._pending = None
        self.undo_stack.append(snap)
        del self.undo_stack[:-UNDO_KEEP]
        self.history.append({"actor": actor.id, "action": action_json(s, action) | {}, "dice": used,
                             "by": by, "reason": reason, "round": turn[0], "turn": turn[1],
                             # a plan of this decision was made first: the policy decided (and
                             # remembers it), which a resumed session plays again (table/memory.py)
                             "planned": pending is not None and pending[0] == key})
        self.history[-1]["action"].pop("at", None)
        if action.cell is not None:
            self.history[-1]["action"]["cell"] = list(s.grid.xy(action.cell))
        self.save()
        return evs

    def override(self, spec: Mapping[str, Any], by: str = "gm") -> list[Event]:
        """A GM override (rules/overrides.py): logged, undoable, saved, replayed."""
        from tactica.table.overrule import override
        return override(self, spec, by)

    def decision_key(self) -> tuple:
        s = self.state
        return (s.round, s.turn_index, s.actor.id if s.actor else None, len(self.history))

    def plan(self, alternatives: bool = True) -> Plan:
        """The acting figure's policy's plan (cached for this decision point). `alternatives=False`:
        without the alternatives the GM would be shown (the policy decides alike; a resume that
        plays the history again, tactica/table/memory.py)."""
        s = self.state
        actor = s.actor
        key = self.decision_key()
        if self._pending is not None and self._pending[0] == key:
            return self._pending[1]
        team = actor.team
        pol = self.policies.get(team)
        if self._pending is not None:  # an abandoned plan of another decision point
            self._pending = None
        before = self._policy_copy(pol) if pol is not None else None
        p = self._make_plan(pol, alternatives)
        self._pending = (key, p, before)
        return p

    def _make_plan(self, pol: Any, alternatives: bool = True) -> Plan:
        """`pol`'s plan for the acting figure (the advisor's, seeded per session, for a figure
        no policy plays); `pol` moves on as it decides."""
        s = self.state
        actor = s.actor
        if pol is None:
            pol = _make_policy(ADVISOR_POLICY, self.policy_seed(len(s.teams)))
        before = self._policy_copy(pol) if alternatives else None
        action = pol.act(s, actor)
        reason = pol.explain(s, actor, action)
        alts = []
        if alternatives:
            ranker = self._policy_copy(before) if hasattr(before, "rank") else None
            alts = alternatives_for(s, actor, action, ranker, 4, self.seed, getattr(pol, "last_choices", None))
        return Plan(actor.id, getattr(pol, "name", self.role_of(actor).policy or ADVISOR_POLICY), action, reason, alts)

    def advise(self) -> Plan:
        """What the acting figure's policy (or the advisor) would do; changes nothing. At a
        decision whose plan was shown it is that very plan, numbered alike (`hint` at an NPC's
        prompt); otherwise the plan `plan()` would make, from the policy as it stands before
        this decision."""
        key = self.decision_key()
        if self._pending is not None and self._pending[0] == key:
            return self._pending[1]
        pol = self._decision_policies().get(self.state.actor.team)
        return self._make_plan(self._policy_copy(pol) if pol is not None else None)

    def drop_plan(self) -> None:
        """Forget a plan that was shown but not resolved (its policy's memory too)."""
        if self._pending is not None:
            key, plan, before = self._pending
            actor = self.state.by_id.get(plan.actor)
            if actor is not None and before is not None and actor.team in self.policies:
                self.policies[actor.team] = before
            self._pending = None

    # -- undo, save, resume -------------------------------------------------------------
    def undo(self) -> dict[str, Any] | None:
        """Back one resolved action; returns the history entry undone (None if none)."""
        self.drop_plan()
        if not self.undo_stack or not self.history:
            return None
        snap = self.undo_stack.pop()
        entry = self.history[snap["history"]] if snap["history"] < len(self.history) else None
        self._restore(snap)
        self.save()
        return entry

    def _restore(self, snap: Mapping[str, Any], keep_policies: bool = False) -> None:
        events = self.battle.events
        d = dict(snap["state"])
        d["scenario"] = self.scenario_doc
        nb = battle_from_dict(d, source="(undo)")
        nb.events = events[:snap["events"]]
        nb.deciders = dict(self.battle.deciders)
        self.battle = nb
        del self.history[snap["history"]:]
        if keep_policies:  # an action that failed or was cancelled: the plan shown still stands
            self._set_decisions()
            return
        self._pending = None
        if "_policies" in snap:
            self.policies = self._policy_copy(snap["_policies"])
        else:
            for i, t in enumerate(self.state.teams):
                r = self.roles.get(t)
                if r is not None and r.policy:
                    self.policies[t] = wrap(_make_policy(r.policy, self.policy_seed(i), self.state), self.behaviour)
                    st = snap.get("policy_states", {}).get(t)
                    if st:
                        try:
                            _set_policy_rng_state(self.policies[t], st)
                        except Exception:  # noqa: BLE001
                            pass
            self._rebuild_turn_memory()
        self._set_decisions()

    def _set_decisions(self) -> None:
        s = self.state
        a = s.actor
        self.battle._decisions = sum(1 for h in self.history if (h.get("round"), h.get("turn"), h.get("actor"))
                                     == (s.round, s.turn_index, a.id if a else None))

    def _rebuild_turn_memory(self) -> None:
        """Tell the acting team's policy what its figure already did this turn (after a load)."""
        self._set_decisions()
        s = self.state
        a = s.actor
        if a is None or s.over:
            return
        pol = self.policies.get(a.team)
        commit = getattr(pol, "commit", None)
        if commit is None:
            return
        for h in self.history:
            if h.get("action") and (h.get("round"), h.get("turn"), h.get("actor")) == (s.round, s.turn_index, a.id):
                try:
                    commit(s, a, Action.from_dict(h["action"], s.grid.width))
                except Exception:  # noqa: BLE001
                    pass

    def to_dict(self) -> dict[str, Any]:
        d = battle_to_dict(self.battle, self.scenario_doc)
        d["session"] = {
            "format": SESSION_FORMAT, "format_version": SESSION_VERSION, "created": self.created,
            "saved": self.saved or self.created,
            "seed": self.seed, "dice_mode": self.dice_mode, "dice_by": dict(self.dice.by), "confirm": self.confirm,
            "behaviour": self.behaviour_json(),
            "teams": {t: r.to_json() for t, r in self.roles.items()},
            "start_dice": self.start_dice, "history": self.history,
            "undo": [{k: v for k, v in u.items() if not k.startswith("_")} for u in self.undo_stack[-UNDO_SAVED:]],
            "policy_states": {t: _policy_rng_state(p) for t, p in self._decision_policies().items()},
        }
        return d

    def save(self, path: str | Path | None = None) -> Path | None:
        """Write the session atomically (to `path` or the session's save file); a foreign
        file is never overwritten."""
        self.revision += 1
        target = Path(path) if path else self.save_path
        if target is None:
            return None
        self.saved = _dt.datetime.now().isoformat(timespec="seconds")
        return write_save(self, target, path)

    def replay_doc(self) -> dict[str, Any]:
        """The fight so far as a replay document (`tactica replay`): every step with its dice."""
        if self.start_dice is None:
            raise SessionError("this session was resumed from a plain state file: its start is unknown",
                               field="export", expected="a session started by tactica autopilot")
        return replay_from_history(self.scenario_doc, self.seed, self.start_dice, self.history,
                                   [t for t, d in self.battle.deciders.items() if d == ASK])

    def export(self, path: str | Path) -> Path:
        """The fight so far as a replay file; only a new file or an older replay is written."""
        return write_replay(self.replay_doc(), path)
