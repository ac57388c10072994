"""`selective`: a learned network that searches only where it is unsure (issue 31, method 2).

At each decision the network (`NumpyPolicy`, numpy only) gives its action probabilities. Where
its top two are at least `margin` apart it plays its most likely action at once, at the
network's cost. Where they are closer, its `top_k` most likely actions are looked ahead with
the planner's paired rollouts (`PlannerPolicy.lookahead`: every candidate meets the same dice,
keyed by the turn; the planner's `guide`, `bold` by default, plays this side in the rollouts
and `tactical` the enemies), and another candidate replaces the network's pick only where it
beats it on those rollouts by more than `confidence` standard errors of the paired
differences (`PlannerPolicy.pick`). So the search is spent where the network hesitates, and
the network's choice stands unless the dice clearly say otherwise.

Registry names: `selective` searches over the ruleset's shipped network (`ppo`), `selective-wide`
the same at a wider margin (0.5: twice the decisions searched, 17% against 8% of the network's
decisions in 12 cortex_hu fights against `tactical`; cortex_hu's `best` until 2026-12-07), `planner-net` the
planner's search over the network's three most likely actions at every decision, `tactical`
playing this side in the rollouts as in `planner`'s (cortex's `best`), `planner-net-bold` the
same with `bold` playing them as in `planner-bold`'s (`best` in metalface and cybergeneration), their `-steady`
variants with the network's immediate undo masked (`planner-net-bold-steady`: cortex_hu's `best`),
`planner-net-proven` with the undo played only on the rollouts' proof, and `selective:PATH.npz` over an exported one. `searched` / `decisions` count how often it looked
ahead (`last_reason` says what it found).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np

from agents import net_words, reasons
from agents.base import Policy
from agents.learned import ALTERNATIVES, UNDO, NumpyPolicy
from agents.planner import PlannerPolicy
from agents.tactical import Choice
from rules.actions import END_TURN, Action
from rules.state import BattleState, Combatant

#: the name prefix of a selective player over an exported network (`selective:runs/x/policy.npz`)
PREFIX = "selective:"


class _Weighed(NamedTuple):
    """What a `SelectivePolicy` decision weighed, for its words (agents/net_words.py)."""

    played: Action
    pick: Action                              # the network's most likely action
    likeliest: list[tuple[float, Action]]     # (probability, action), likeliest first
    cands: list[Action]                       # the candidates looked ahead ([] where it did not look)
    samples: dict[Action, list[float]]        # each candidate's rollout scores, on the same dice streams
    demoted: bool = False                     # the pick took back the last action: the next one was the default


def ranked(net: NumpyPolicy, state: BattleState, actor: Combatant
           ) -> tuple[dict[int, Action], np.ndarray, list[int], Action, float]:
    """The network's view of a decision: (the legal actions by index, the action probabilities, the legal
    indices from the most likely on, its pick, the probability gap between its two most likely actions; 1
    where it has one). Its advisor ranks but is not told the action (`NumpyPolicy.scores`)."""
    lmap, p = net.scores(state, actor)
    order = [int(i) for i in np.argsort(-p, kind="stable") if p[i] > 0 and int(i) in lmap]
    pick = lmap.get(order[0], END_TURN) if order else END_TURN
    gap = float(p[order[0]] - p[order[1]]) if len(order) >= 2 else 1.0
    return lmap, p, order, pick, gap


class SelectivePolicy(Policy):
    """A learned network that looks ahead with paired rollouts only where its top two actions are close."""

    name = "selective"
    #: an open question is the network's to answer (`NumpyPolicy.asks`): no search over answers
    answers_in_act = True
    #: the default `margin` and `guide` (the registered variants below change only these)
    MARGIN = 0.2
    GUIDE = "bold"
    #: the network's `no_undo` (agents/learned.py): mask the action that takes back the figure's last one at once
    NO_UNDO = False
    #: where the network's pick takes back the figure's last action at once, the search's default is its next
    #: candidate, and the undo plays only where the rollouts show it better with confidence
    UNDO_ON_PROOF = False

    def __init__(self, seed=None, *, policy: str | Path | None = None, margin: float | None = None, top_k: int = 3,
                 budget: int = 16, horizon: int = 1, confidence: float = 1.5, guide: str | None = None) -> None:
        """`policy`: the network's `.npz` (None: the ruleset's shipped one); `margin`: search when
        the network's two most likely actions are closer than this in probability (None: `MARGIN`);
        `top_k`, `budget`, `horizon`, `confidence`, `guide` (None: `GUIDE`): the planner's settings
        (agents/planner.py)."""
        super().__init__(seed)
        margin = self.MARGIN if margin is None else margin
        guide = self.GUIDE if guide is None else guide
        ss = np.random.SeedSequence(int(self.rng.integers(1 << 62)))
        net_seed, plan_seed = ss.spawn(2)
        self.net = NumpyPolicy(policy, seed=net_seed, no_undo=self.NO_UNDO)
        self.planner = PlannerPolicy(seed=plan_seed, budget=budget, top_k=top_k, horizon=horizon,
                                     confidence=confidence, guide=guide)
        self.margin = float(margin)
        self.top_k = max(2, int(top_k))
        self.searched = 0
        self.decisions = 0
        #: the last decision the network weighed; None after an answer (`explain`, `last_choices`)
        self._last: _Weighed | None = None

    def asks(self, state: BattleState) -> bool:
        return self.net.asks(state)

    def act(self, state: BattleState, actor: Combatant) -> Action:
        self._last = None
        if state.pending is not None:
            action = self.net.act(state, actor)
            self.last_reason = self.net.last_reason
            return action
        lmap, p, order, pick, gap = ranked(self.net, state, actor)
        action = pick
        self.decisions += 1
        self.last_reason = f"learned policy: {pick} {p[order[0]]:.0%}" if order else "learned policy: end turn"
        cands: list[Action] = []
        samples: dict[Action, list[float]] = {}
        if gap < self.margin:
            cands = [lmap[i] for i in order[:self.top_k]]
            demoted = self.UNDO_ON_PROOF and len(cands) > 1 and self._undoes(state, actor, cands[0])
            if demoted:
                cands[0], cands[1] = cands[1], cands[0]
            guide = self.planner.guide
            guide.rank(state, actor)   # the guide's fight memory, as the planner's own decisions keep it
            values = self.planner.lookahead(state, actor, cands)
            action = self.planner.pick([Choice(a, 0.0, "") for a in cands], values).action
            self.searched += 1
            self.last_reason += (f", {gap:.0%} ahead of the next: looked ahead over {len(cands)} candidates, "
                                 + ", ".join(f"{a} {values[a]:+.2f}" for a in cands if a in values)
                                 + (f"; plays {action}" if action != pick else "; keeps it"))
            samples = {a: list(v) for a, v in self.planner._samples.items()}
        self._last = _Weighed(action, pick, [(float(p[i]), lmap[i]) for i in order[:ALTERNATIVES]], cands, samples,
                              bool(cands) and cands[0] != pick)
        self.commit(state, actor, action)
        return action

    def _undoes(self, state: BattleState, actor: Combatant, action: Action) -> bool:
        """Whether `action` takes back the figure's last action of this very turn (`UNDO`: stand up right
        after dropping prone, or the reverse)."""
        last = self.net._turn_last
        return (last is not None and last[:3] == (state.round, state.turn_index, actor.id)
                and UNDO.get(last[3]) == action.kind)

    @property
    def last_choices(self) -> list[tuple[Action, str]]:
        """The last decision's likeliest actions, with the network's probability and, where it looked ahead,
        each one's mean result (the table's alternatives: tactica/table/suggest.py)."""
        if self._last is None:
            return self.net.last_choices
        return net_words.choices(self._last.likeliest, self._last.samples)

    def explain(self, state: BattleState, actor: Combatant, action: Action | None) -> str:
        """The action's numbers (hit odds, damage, cover, the path), what the network gave it and the
        next likeliest, and what the lookahead found where it looked (agents/net_words.py)."""
        if self._last is None:
            return self.net.explain(state, actor, action)
        played, pick, probs, cands, samples, demoted = self._last
        action = played if action is None else action
        if action != played:
            return super().explain(state, actor, action)
        line = f"{net_words.head(state, actor, action)} - " + net_words.network(state, action, probs[:3])
        if demoted:
            line += (f"; {reasons.label(state, pick)} would take back its last action at once, so it plays only "
                     "where the rollouts show it better with confidence")
        found = net_words.search(state, action, cands[0] if demoted else pick, cands, samples,
                                 self.planner.guide.name, self.planner.horizon, self.planner.confidence,
                                 choice="the next choice" if demoted else "")
        if found:
            return line + "; " + found
        return line + ("; sure enough not to look ahead" if len(probs) > 1 else "; its only choice")

    def commit(self, state: BattleState, actor: Combatant, action: Action) -> None:
        """Tell the network's advisor and the rollouts' guide (their turn memories) the action
        played at this decision: after each `act`, and from a table session for an action the
        GM chose instead, or after a load."""
        self.net.commit(state, actor, action)
        self.planner.guide.commit(state, actor, action)

    def _ensure(self, state: BattleState) -> None:
        """Load the network (the ruleset's shipped one unless a path was given)."""
        self.net._ensure(state)

    def check_fits(self, ruleset: str, height: int, width: int, field: str = "policy") -> None:
        """Refuse a fight the network cannot play (another ruleset's, a larger map): `best`
        then falls back to `tactical`, as it does for the network alone."""
        self.net.check_fits(ruleset, height, width, field)


class WideSelectivePolicy(SelectivePolicy):
    """The shipped network searching at more of its decisions: `selective` at margin 0.5 (its top two less than
    0.5 apart), cortex_hu's `best` from 2026-12-06 to 2026-12-07 (docs/baselines.md)."""

    name = "selective-wide"
    #: the margin `selective-wide` searches under (experiments/selective_margin.py's `sel50`)
    MARGIN = 0.5


class NetPlannerPolicy(SelectivePolicy):
    """`planner`'s search over the shipped network's candidates: at every decision where the network gives two
    actions or more a chance (its advisor's candidates), its three most likely are looked ahead with paired rollouts,
    `tactical` playing this side in them as in `planner`'s, and the network's pick stands unless another beats it
    with confidence (cortex's `best`)."""

    name = "planner-net"
    #: a gap between two probabilities is always below 1: every decision with two chances or more is searched
    MARGIN = 1.0
    GUIDE = "tactical"


class BoldNetPlannerPolicy(NetPlannerPolicy):
    """`planner-bold`'s search over the shipped network's candidates: `planner-net` with `bold` playing this side
    in the rollouts, as in `planner-bold`'s (the stronger model of play where `bold` beats `tactical`:
    cybergeneration, cortex_hu). `best` in metalface and cybergeneration, and with the undo masked in cortex_hu
    (agents/best.py)."""

    name = "planner-net-bold"
    GUIDE = "bold"


class SteadyBoldNetPlannerPolicy(BoldNetPlannerPolicy):
    """`planner-net-bold` whose network never takes back the figure's last action of the turn at once, as
    `planner-net-steady` is `planner-net`'s. cortex_hu's `best` since 2026-12-07: `planner-net-bold` (before) drops
    prone and stands up again in 5 of its 10 turns at one table session, this one in none; on the table's first 100
    cortex_hu maps (800 fights) it wins 66.4% against `tactical`, +0.1 against `planner-net-bold` on the same fights
    (paired 95% -1.4 to +1.7), on 1,248 -0.2 (-1.4 to +1.1), on 2,400 +0.0 (-0.9 to +1.0), on all 3,200
    67.5% (Wilson 65.8-69.1%), -0.1 (-0.8 to +0.7; docs/results.md, cortex_hu, The steady one is cortex_hu's
    `best`): level."""

    name = "planner-net-bold-steady"
    NO_UNDO = True


class SteadyNetPlannerPolicy(NetPlannerPolicy):
    """`planner-net` whose network never takes back the figure's last action of the turn at once (no standing up
    right after dropping prone, or the reverse: `NumpyPolicy(no_undo=True)`). cortex's network drops prone and
    stands up again up to five times in a turn; a GM who finds that NPC unconvincing at the table picks this one.
    In 12 generated cortex fights 1 of its 97 turns has two stand-ups or more (`planner-net`: 8 of 99); on the
    table's first 800 fights it wins 66.4% against `tactical`, 1.6 points below `planner-net` on the same fights
    (paired 95% -3.9 to +0.7; docs/results.md, cortex, The network that takes back its own last action), so it is not
    `best`."""

    name = "planner-net-steady"
    NO_UNDO = True


class ProvenNetPlannerPolicy(NetPlannerPolicy):
    """`planner-net` that takes back the figure's last action at once (stands up right after dropping prone, or
    the reverse) only where the rollouts show the undo better than the network's next candidate with confidence:
    the undo loses the network's benefit of the doubt, not its place among the candidates (`planner-net-steady`
    masks it). In 12 generated cortex fights 1 of its 96 turns toggles (`planner-net`: 8 of 99); on the table's
    first 800 fights it wins 67.1% against `tactical`, -0.9 against `planner-net` on the same fights (paired 95%
    -3.2 to +1.5; the mask -1.6; docs/results.md, cortex, The undo on proof): the steady NPC a GM should pick in
    cortex, not `best` on this evidence."""

    name = "planner-net-proven"
    UNDO_ON_PROOF = True


def make_selective(name: str, seed=None) -> SelectivePolicy:
    """`selective:PATH.npz` -> a selective player over that network."""
    return SelectivePolicy(seed=seed, policy=name[len(PREFIX):])
