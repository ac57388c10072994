"""Choices the rules give a figure, asked as decisions of the side that plays it.

The seeds give some choices to the figure, not to the engine: "may choose to fall prone",
"the attacker may choose to bypass the victim's body armor". Rule code asks them with
`decide(state, figure, key, options, default, text)`. Who answers is the fight's business
(`Battle.deciders`, one entry per team):

- no entry: the default answer, which is the choice the engine made before #32 (so the
  scripted policies play as they did);
- an object with `choose(state, question) -> str` (a policy): it answers at once;
- `ASK`: the question goes out. `Battle.step` puts the fight back as it was before the
  action, keeps the question in `state.pending`, and the figure asked becomes the acting
  figure until an `Action("choose", option=...)` answers. The action is then resolved
  again from the start with the answers so far and the same dice (the rolls made before
  the question are forced again), so nothing a rule code keeps in local variables is lost
  and a fight saved with an open question resumes exactly.

A state with no asker (a planner's copy, a probe of `tactical`) always takes the default.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rules.errors import IllegalActionError

#: a `Battle.deciders` value: the team's questions go out as decisions (env agent, GM, replay)
ASK = "ask"


@dataclass(frozen=True, slots=True)
class Question:
    """One choice a figure makes: `key` names the rule, `options` the answers."""

    figure: str
    key: str
    options: tuple[str, ...]
    default: str
    text: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"figure": self.figure, "key": self.key, "options": list(self.options),
                "default": self.default, "text": self.text}

    def as_event(self) -> dict[str, Any]:
        """The `question` event that puts it to the figure (the log's, and a resumed table's)."""
        from rules.events import event
        return event("question", actor=self.figure, key=self.key, options=list(self.options),
                     default=self.default, text=self.text)

    @staticmethod
    def from_dict(d: dict[str, Any]) -> "Question":
        return Question(str(d["figure"]), str(d["key"]), tuple(str(o) for o in d["options"]),
                        str(d["default"]), str(d.get("text", "")))


class NeedChoice(Exception):
    """Raised inside rule code when a question must go out; `Battle.step` catches it."""

    def __init__(self, question: Question) -> None:
        super().__init__(f"{question.figure} must choose {question.key}")
        self.question = question


@dataclass(slots=True)
class Pending:
    """An open question: the action being resolved, the answers given so far and the dice
    rolled before the question (forced again when the action is resolved again)."""

    question: Question
    action: Any                      # rules.actions.Action
    actor: str                       # whose turn it is
    answers: tuple[str, ...] = ()
    rolls: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question.to_dict(), "action": self.action.to_dict(), "actor": self.actor,
                "answers": list(self.answers), "rolls": list(self.rolls)}


@dataclass(slots=True)
class Asker:
    """The answers of one action's resolution, in the order the rules ask."""

    answers: list[str] = field(default_factory=list)
    deciders: dict[str, Any] = field(default_factory=dict)
    pos: int = 0
    #: False when the fight kept no copy to go back to (`Ruleset.may_ask` said no)
    can_ask: bool = True

    def answer(self, state: Any, team: str, q: Question) -> str:
        if self.pos < len(self.answers):
            a = self.answers[self.pos]
        else:
            d = self.deciders.get(team)
            if d is None:
                a = q.default
            elif d == ASK:
                if not self.can_ask:
                    raise RuntimeError(f"the rules asked {q.key} during an action that the ruleset's "
                                       "may_ask() said asks nothing: may_ask must cover it")
                raise NeedChoice(q)
            else:
                a = d.choose(state, q)
            self.answers.append(a)
        self.pos += 1
        if a not in q.options:
            raise IllegalActionError(f"{a!r} is not an answer to {q.key} for {q.figure}",
                                     field="action.option", expected="one of " + ", ".join(q.options))
        return a


def decider_for(policy: Any, state: Any) -> Any:
    """The `Battle.deciders` entry for a team `policy` plays: `ASK` when it answers the rules'
    questions as decisions of its own (`policy.asks(state)`: a learned network answers through its
    answer actions, as it learned to in the env), the policy itself when its `choose` answers at
    once, None when it takes every default (the rules then need not ask it)."""
    asks = getattr(policy, "asks", None)
    if asks is not None and asks(state):
        return ASK
    if hasattr(policy, "choose") and not getattr(policy, "answers_by_default", False):
        return policy
    return None


def decide(state: Any, figure: Any, key: str, options: list[str] | tuple[str, ...], default: str,
           text: str = "") -> str:
    """The figure's answer to a choice the rules give it (see the module docstring).

    With one option or none there is nothing to ask: the default is the answer."""
    asker = state.asking
    if asker is None or len(options) <= 1:
        return default
    if default not in options:
        raise ValueError(f"default {default!r} of {key} is not among {options}")
    return asker.answer(state, figure.team, Question(figure.id, key, tuple(options), default, text))
