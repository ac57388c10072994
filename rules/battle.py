"""`Battle`: drives one fight through a `Ruleset`, the same way for every rule system.

It owns the state, the dice and the event log; it starts rounds and turns, checks and
applies actions, skips figures that cannot act, and ends the fight when one team is left
standing (or none) or the round limit passes (a draw).

Choices the rules give a figure mid-action (rules/choices.py) are answered by
`deciders[team]`: a policy answers at once, `ASK` makes the question the next decision
(the figure asked acts with `Action("choose", option=...)`), no entry takes the default.

Every event the battle emits carries `round` (0 before the first round) and `step`: 0 for
the set-up, k for the events of the fight's k-th decision.
"""

from __future__ import annotations

from typing import Callable

from rules.actions import Action
from rules.choices import ASK, Asker, NeedChoice, Pending, Question, decider_for
from rules.dice import Dice
from rules.errors import IllegalActionError
from rules.events import Event, captured, event
from rules.ruleset import Ruleset
from rules.state import BattleState

MAX_DECISIONS_PER_TURN = 40


class Battle:
    """One fight in progress."""

    def __init__(self, state: BattleState, ruleset: Ruleset, dice: Dice,
                 on_event: Callable[[Event], None] | None = None, record: bool = True) -> None:
        self.state = state
        self.ruleset = ruleset
        self.dice = dice
        self.events: list[Event] = []
        self.record = record
        self.on_event = on_event
        self.actions_resolved = 0
        self._decisions = 0
        #: team -> who answers its figures' questions (a policy, ASK); missing: the default
        self.deciders: dict[str, object] = {}

    def clone(self, dice: Dice | None = None, *, events: bool = True, state: BattleState | None = None) -> "Battle":
        """A copy that plays on independently: its own state (or `state`, which it takes
        over), the same ruleset, `dice` (default: a copy of this battle's dice, the same
        numbers to come, without forced results or hooks), the event log (a new list of the
        same events; none with `events=False`), the deciders and the decision counters.
        `on_event` is not copied. This is the one way to copy a fight: the table's undo and
        probes, the API and the replay viewer use it."""
        if dice is None:
            dice = Dice(0)
            dice.set_state(self.dice.get_state())
        nb = Battle(self.state.clone() if state is None else state, self.ruleset, dice, record=self.record)
        nb.deciders = dict(self.deciders)
        if events:
            nb.events = list(self.events)
        nb.actions_resolved = self.actions_resolved
        nb._decisions = self._decisions
        return nb

    # -- event plumbing -----------------------------------------------------------
    def _emit(self, evs: list[Event]) -> None:
        if self.record or self.on_event is not None:
            r = self.state.round
            k = self.actions_resolved
            for e in evs:
                e.setdefault("round", r)
                e["step"] = k
        if self.record:
            self.events.extend(evs)
        if self.on_event is not None:
            for e in evs:
                self.on_event(e)

    # -- flow -----------------------------------------------------------------------
    def start(self) -> list[Event]:
        """Begin the fight: set-up, the first round and the first turn."""
        s = self.state
        evs = [event("battle_start", ruleset=s.ruleset, scenario=s.scenario,
                     combatants=[{"id": c.id, "name": c.name, "team": c.team,
                                  "pos": list(s.grid.xy(c.pos))} for c in s.combatants])]
        evs += self.ruleset.setup(s, self.dice)
        self._emit(evs)
        out = list(evs)
        out += self._check_end()
        if not s.over:
            out += self._next_turn()
        return out

    def _check_end(self) -> list[Event]:
        s = self.state
        if s.over:
            return []
        standing = s.standing_teams()
        if len(standing) <= 1:
            s.over = True
            s.winner = standing[0] if standing else None
            s.end_reason = "last team standing" if standing else "no one left standing"
            evs = [event("battle_end", winner=s.winner, rounds=s.round, reason=s.end_reason)]
            self._emit(evs)
            return evs
        return []

    def _start_round(self) -> list[Event]:
        s = self.state
        s.round += 1
        if s.round > s.round_limit:
            s.round = s.round_limit
            s.over = True
            s.winner = None
            s.end_reason = "round limit"
            evs = [event("battle_end", winner=None, rounds=s.round, reason="round limit")]
            self._emit(evs)
            return evs
        evs = [event("round_start", round=s.round)]
        order, ev2 = self.ruleset.roll_initiative(s, self.dice)
        s.order = order
        s.turn_index = -1
        evs += ev2
        self._emit(evs)
        return evs

    def _next_turn(self) -> list[Event]:
        """Advance to the next figure that can act (across rounds), or to the end."""
        s = self.state
        out: list[Event] = []
        while not s.over:
            s.turn_index += 1
            if s.turn_index >= len(s.order):
                evs = self.ruleset.end_round(s, self.dice) if s.round > 0 else []
                self._emit(evs)
                out += evs
                out += self._check_end()
                if s.over:
                    break
                out += self._start_round()
                continue
            actor = s.actor
            if actor is None:
                continue
            if actor.down:
                evs = self.ruleset.upkeep_down(s, actor, self.dice)
                self._emit(evs)
                out += evs
                out += self._check_end()
                if actor.down:
                    continue
            can_act, evs = self.ruleset.start_turn(s, actor, self.dice)
            evs = [event("turn_start", round=s.round, actor=actor.id)] + evs
            self._emit(evs)
            out += evs
            out += self._check_end()
            if s.over:
                break
            self._decisions = 0
            if can_act and not actor.down:
                break
            out += self._finish_turn()
        return out

    def _finish_turn(self) -> list[Event]:
        s = self.state
        actor = s.actor
        evs = self.ruleset.end_turn(s, actor, self.dice)
        evs.append(event("turn_end", round=s.round, actor=actor.id))
        self._emit(evs)
        evs2 = self._check_end()
        return evs + evs2

    # -- acting ---------------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        if self.state.over or self.state.actor is None:
            return []
        return self.ruleset.legal_actions(self.state)

    @property
    def question(self) -> Question | None:
        """The open question, if the acting figure is answering one."""
        p = self.state.pending
        return p.question if p is not None else None

    def before_question(self) -> list[Event]:
        """What the open question's action has told so far: its events built before the question
        (the hit, the damage, the failed save a stun choice follows), as they stood when it was
        asked, in the order the action's log gives them. The fight log has none of them yet (the
        action is resolved again from the start when answered, rules/choices.py), so a GM or a
        client would otherwise be asked without seeing why. Played on copies with the rolls made
        before the question; the fight, its dice and its log are untouched. Empty when nothing is
        asked.

        Rule code may tell an event before one it built earlier (cortex_hu's Plot Point roll
        before the innate defence it raises), so the order is taken from a second run that goes
        on past the question with its default answer (and later rolls from spare dice): the
        events are built in the same sequence up to the question, and that run's list orders them."""
        p = self.state.pending
        if p is None:
            return []
        asked = {t: ASK for t in {c.team for c in self.state.combatants}}

        def run(answers: list[str], deciders: dict, strict: bool) -> tuple[list[Event], list[Event] | None]:
            st = self.state.clone()
            st.pending = None
            dice = Dice(0)
            dice.force(p.rolls, strict=strict)
            st.asking = Asker(answers, deciders)
            with captured() as built:
                try:
                    return built, self.ruleset.apply(st, p.action, dice)
                except NeedChoice:
                    return built, None
                except Exception:  # noqa: BLE001 - a copy's telling must never break the fight it tells of
                    return built, None

        built, _ = run(list(p.answers), asked, True)
        told = [dict(e) for e in built]                     # as they stood when the question was asked
        built2, out = run(list(p.answers) + [p.question.default], {}, False)
        if out is None:                                     # cannot happen: nobody is asked in the second run
            return told
        place = {id(e): i for i, e in enumerate(out)}
        at = [place.get(id(e)) for e in built2[:len(told)]]
        return [told[i] for i in sorted((i for i in range(len(told)) if at[i] is not None), key=lambda i: at[i])]

    def step(self, action: Action, check: bool = True) -> list[Event]:
        """Resolve one action of the acting figure and advance the turn when it ends."""
        s = self.state
        if s.over:
            raise IllegalActionError("the fight is over", field="action", expected="no more actions")
        p = s.pending
        if p is not None:
            q = p.question
            if action.kind != "choose" or action.option not in q.options:
                raise IllegalActionError(f"{q.figure} must answer {q.key} first ({q.text})", field="action",
                                         expected="choose with option one of " + ", ".join(q.options))
            s.pending = None
            self.dice.force_first(p.rolls)
            answers = list(p.answers) + [action.option]
            again = len(p.rolls)
            action = p.action
        else:
            if check:
                self.ruleset.check_legal(s, action)
            answers = None
            again = 0
        self.actions_resolved += 1
        self._decisions += 1
        out: list[Event] = []
        if action.kind != "end_turn":
            evs = self._apply(action, answers, again)
            if evs is None:                      # a question went out: the fight waits for it
                return out + self._asked()
            self._emit(evs)
            out += evs
            out += self._check_end()
            if s.over:
                return out
        actor = s.actor
        if (action.kind == "end_turn" or s.economy.get("turn_over") or actor.down
                or self._decisions >= MAX_DECISIONS_PER_TURN):
            out += self._finish_turn()
            if not s.over:
                out += self._next_turn()
        return out

    def _apply(self, action: Action, answers: list[str] | None, again: int = 0) -> list[Event] | None:
        """The ruleset's resolution of `action` with the answers so far; None when a new
        question must go out (the state is then, in place, as before the action, with
        `pending` set).

        The dice's record keeps each roll once, with the decision that rolled it: the rolls
        made before a question stay recorded with the step that asked, and the `again` rolls
        forced anew when the action is resolved again are not recorded twice."""
        s = self.state
        may = answers is not None or (bool(self.deciders) and self.ruleset.may_ask(s, action))
        ask = may and (answers is not None or ASK in self.deciders.values())
        if not ask:
            if may:
                s.asking = Asker([], self.deciders, can_ask=False)
                try:
                    return self.ruleset.apply(s, action, self.dice)
                finally:
                    s.asking = None
            return self.ruleset.apply(s, action, self.dice)
        before = s.clone()
        record = self.dice.record
        mark = len(record)
        asker = s.asking = Asker(list(answers or ()), self.deciders)
        try:
            return self.ruleset.apply(s, action, self.dice)
        except NeedChoice as need:
            rolls = tuple(r for _, r in record[mark:])
            actor = s.turn_owner
            s.restore(before)
            s.pending = Pending(need.question, action, actor.id if actor else "", tuple(asker.answers), rolls)
            return None
        finally:
            s.asking = None
            del record[mark:mark + again]

    def _asked(self) -> list[Event]:
        evs = [self.state.pending.question.as_event()]
        self._emit(evs)
        return evs

    def run(self, policies: dict, max_actions: int = 1_000_000) -> BattleState:
        """Play to the end with a policy per team (objects with `act(state, actor)`)."""
        if self.state.round == 0 and not self.state.over:
            self.start()
        # a policy that answers every question with its default need not be asked: the rules
        # take the default without it; one that answers as its own decision is asked (ASK), and
        # the figure asked acts next (rules/choices.py)
        for t, p in policies.items():
            d = decider_for(p, self.state)
            if d is not None:
                self.deciders[t] = d
        n = 0
        while not self.state.over and n < max_actions:
            s = self.state
            actor = s.actor
            action = policies[actor.team].act(s, actor)
            self.step(action, check=False)
            n += 1
        return self.state

