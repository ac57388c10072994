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

so a policy can follow it, weigh it, or learn where to overrule it. With `parts` (the env's
`advice_parts=True`), a second key `advice_parts` (PARTS_ROWS x n_actions, 0..1) shows what
those scores are made of, per ranked action, as the advisor's own ranking pass computed them
(agents/tactical_types.py `ScoreParts`; no second ranking, no score or decision changes):

- row 0 `hit`: the attack's chance to hit; for a move to a firing position the advisor
  priced, that of the best attack it found from there this turn (0 otherwise),
- row 1 `damage`: the same attack's expected damage / the target's health left, at most 1,
- row 2 `exposure`: the expected share of the acting figure's health a turn of the enemies'
  fire costs at the action's end cell (the figure's own cell but for a move), at most 1:
  from the enemies' own odds where the advisor priced them, else its geometric estimate,

all 0 at actions the advisor did not rank, at illegal ones and at a rules question's answers
(where several ranked actions share an index, the parts of the best-scored one, whose score
row 1 shows).

The advisor keeps its in-fight memory (what it saw enemies do, what its own figures did this
turn) as it would when playing: it ranks once per decision of its team and is told the action actually
played (`commit`), whoever chose it.
"""

from __future__ import annotations

import numpy as np

from agents.base import make_policy
from envs.encoding import ADVICE_PARTS, ADVICE_ROWS, PARTS_ROWS, Layout
from rules.actions import Action
from rules.errors import TacticaError
from rules.state import BattleState, Combatant

#: scripted policies that can advise (they rank their options: `rank` and `commit`; `bold` is
#: tactical at a tenth of its caution)
ADVISORS = ("tactical", "bold")
#: row 1's value for a ranked action far below the best (so "ranked" differs from "not ranked")
FLOOR = 0.05


def check_advisor(source: str | None, parts: bool = False) -> None:
    """Refuse a policy that cannot advise (an error naming the `advice` field), and parts
    without an advisor (an error naming `advice_parts`)."""
    if source is None:
        if parts:
            raise TacticaError("advice_parts without an advisor", field="advice_parts",
                               expected=f"advice={ADVISORS[0]!r} or {ADVISORS[1]!r} with it (or advice_parts=False)")
        return
    if source not in ADVISORS:
        raise TacticaError(f"advisor {source!r}", field="advice", expected=" or ".join(ADVISORS))


class Advisor:
    """One team's advisor for one fight."""

    def __init__(self, layout: Layout, source: str = "tactical", seed=None, parts: bool = False) -> None:
        check_advisor(source, parts)
        self.layout = layout
        self.source = source
        self.parts = bool(parts)
        self.policy = make_policy(source, seed)
        if self.parts:   # the ranking fills in every choice's ScoreParts (the same scores and picks)
            self.policy.want_parts = True
        #: the advisor's pick at the last `advise` (None when the layout cannot express it)
        self.pick: Action | None = None
        self.pick_reason = ""

    def blank(self) -> dict[str, np.ndarray]:
        """The observation keys of a decision no figure of the team takes: zeros."""
        out = {"advice": np.zeros((ADVICE_ROWS, self.layout.n_actions), dtype=np.float32)}
        if self.parts:
            out["advice_parts"] = np.zeros((PARTS_ROWS, self.layout.n_actions), dtype=np.float32)
        return out

    def advise(self, state: BattleState, actor: Combatant, legal_map: dict[int, Action],
               legal: list[Action] | None = None) -> dict[str, np.ndarray]:
        """This decision's observation keys (call once per decision): `advice`, (ADVICE_ROWS,
        n_actions), and with `parts` `advice_parts`, (PARTS_ROWS, n_actions). `legal`: the
        ruleset's `legal_actions(state)` where the caller has them (`legal_map` is built from
        them and may hold fewer), so the advisor's ranking does not list them again."""
        keys = self.blank()
        out = keys["advice"]
        if state.pending is not None:    # a choice the rules give the figure: the advisor's answer
            q = state.pending.question
            mine = Action("choose", option=self.policy.choose(state, q))
            self.pick, self.pick_reason = None, f"{q.key}: {mine.option}"
            for i, a in legal_map.items():
                if a == mine:
                    self.pick = a
                    out[0, i] = 1.0
                out[1, i] = 1.0 if a == mine else FLOOR
            return keys
        choices = self.policy.rank(state, actor, legal)
        parts = keys.get("advice_parts")
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
            v = max(FLOOR, min(1.0, 1.0 + c.score - best))
            if parts is not None and v > out[1, i] and c.parts is not None:   # the parts of the score row 1 shows
                parts[:, i] = [_unit(getattr(c.parts, name)) for name in ADVICE_PARTS]
            out[1, i] = max(out[1, i], v)
        return keys

    def commit(self, state: BattleState, actor: Combatant, action: Action) -> None:
        """Tell the advisor which action its team's figure played (before it is applied)."""
        if action.kind != "choose":
            self.policy.commit(state, actor, action)


def _unit(x: float | None) -> float:
    """A part clipped to 0..1 (None, not computed: 0)."""
    return 0.0 if x is None else min(1.0, max(0.0, float(x)))
