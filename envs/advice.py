"""Advice: a scripted policy's ranking of the acting figure's options, as observation rows.

A learned policy that sees only the map and the figures has to rediscover everything a
scripted policy such as `tactical` estimates during a fight: each enemy's danger as seen so
far, its own offence, how far it can charge and still attack, near-ties between cells. The
cortex clone of `tactical` agreed with it on only ~60% of its decisions whatever the head,
the data or DAgger (docs/results.md). `Advisor` shows those estimates the only way that
does not depend on the ruleset: the advisor's own ranking, written over the action layout,

- row 0: 1 at the advisor's pick (the best-scored action the layout can express),
- row 1: `max(FLOOR, 1 + score - best score)` at every action the advisor ranked (scores are
  in fractions of a figure's health), 0 at legal actions it did not rank and at illegal ones,

so a policy can follow it, weigh it, or learn where to overrule it. The advisor keeps its
in-fight memory (what it saw enemies do, what its own figures did this turn) as it would
when playing: it ranks once per decision of its team and is told the action actually
played (`commit`), whoever chose it.
"""

from __future__ import annotations

import numpy as np

from agents.base import make_policy
from envs.encoding import ADVICE_ROWS, Layout
from rules.actions import Action
from rules.errors import TacticaError
from rules.state import BattleState, Combatant

#: scripted policies that can advise (they rank their options: `rank` and `commit`; `bold` is
#: tactical at a tenth of its caution)
ADVISORS = ("tactical", "bold")
#: row 1's value for a ranked action far below the best (so "ranked" differs from "not ranked")
FLOOR = 0.05


def check_advisor(source: str) -> None:
    """Refuse a policy that cannot advise (an error naming the `advice` field)."""
    if source not in ADVISORS:
        raise TacticaError(f"advisor {source!r}", field="advice", expected=" or ".join(ADVISORS))


class Advisor:
    """One team's advisor for one fight."""

    def __init__(self, layout: Layout, source: str = "tactical", seed=None) -> None:
        check_advisor(source)
        self.layout = layout
        self.source = source
        self.policy = make_policy(source, seed)
        #: the advisor's pick at the last `advise` (None when the layout cannot express it)
        self.pick: Action | None = None
        self.pick_reason = ""

    def advise(self, state: BattleState, actor: Combatant, legal_map: dict[int, Action]) -> np.ndarray:
        """The (ADVICE_ROWS, n_actions) rows for this decision (call once per decision)."""
        out = np.zeros((ADVICE_ROWS, self.layout.n_actions), dtype=np.float32)
        if state.pending is not None:    # a choice the rules give the figure: the advisor's answer
            q = state.pending.question
            mine = Action("choose", option=self.policy.choose(state, q))
            self.pick, self.pick_reason = None, f"{q.key}: {mine.option}"
            for i, a in legal_map.items():
                if a == mine:
                    self.pick = a
                    out[0, i] = 1.0
                out[1, i] = 1.0 if a == mine else FLOOR
            return out
        choices = self.policy.rank(state, actor)
        index = {a: i for i, a in legal_map.items()}
        self.pick = None
        best = choices[0].score if choices else 0.0
        for c in choices:
            i = index.get(c.action)
            if i is None:
                continue
            if self.pick is None:
                self.pick, self.pick_reason = c.action, c.reason
                out[0, i] = 1.0
            out[1, i] = max(out[1, i], max(FLOOR, min(1.0, 1.0 + c.score - best)))
        return out

    def commit(self, state: BattleState, actor: Combatant, action: Action) -> None:
        """Tell the advisor which action its team's figure played (before it is applied)."""
        if action.kind != "choose":
            self.policy.commit(state, actor, action)
