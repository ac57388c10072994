"""`planner`: Monte Carlo lookahead over the tactical policy's best candidate actions.

At each decision the `tactical` policy ranks the acting figure's actions; the planner
takes the top few (at most two of a kind, so moves, attacks and stances all get a
look) and plays each forward several times on copies of the state: the candidate first,
then every figure of both sides played by `tactical` itself until each standing figure
has had `horizon` more turns, or the fight ends. (Rollouts once used a quicker `lite`
tactical, `LITE`; on 192 development fights in cortex the full one won 61.5% against
tactical where the lite one won 50.5%: the lookahead is only as good as its model of
play, and the enemies' full tactical is what the planner usually faces.) A copy is
scored by the health of both sides (`evaluate`). tactical's choice is played unless
another candidate beats it on the same rollouts by more than `confidence` standard
errors (a paired comparison): the lookahead corrects tactical where the dice clearly say
so.

Rollouts never touch the real fight: each runs on `BattleState.clone()` with its own
`Dice`, seeded from the planner's generator, and `Battle(..., record=False)`. Rollout j
uses the same dice seed for every candidate (common random numbers), so candidates are
compared on the same luck; the dice are keyed by the turn (`TurnDice`), so the luck
stays paired turn by turn even when one candidate rolls more dice early. The number of
rollouts is fixed (`budget`), so the same seed gives the same decisions; `time_budget`
(seconds) may cut a decision short, at the price of that determinism.

What a candidate's rollouts do before their first roll of the dice (its own step, the
decisions after it) is the same for every seed, since the rollouts' players decide from the
state and their memory alone (`TacticalPolicy.seed_free`): it is played once a decision and
each rollout goes on from a copy of where the dice stopped it (`_Prefix`; issue 30).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from rules.actions import Action
from rules.battle import Battle
from rules.dice import Dice
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant

from agents import net_words, reasons
from agents.base import Policy
from agents.tactical import BoldPolicy, Choice, TacticalPolicy, TurnMemory
from rules.errors import TacticaError

#: scripted players the planner can search around (`guide`): their ranking gives the
#: candidates and their choice the default, and they play the planner's own side in rollouts
GUIDES = {"tactical": TacticalPolicy, "bold": BoldPolicy}


def evaluate(rs: Ruleset, state: BattleState, team: str) -> float:
    """How well `team` stands: its share of health and figures standing minus the enemies'.

    In [-1.5, 1.5]: +-0.5 for a won or lost fight, plus the difference of each side's mean
    of (0.6 x health fraction + 0.4 x still standing)."""
    def strength(cs: list[Combatant]) -> float:
        if not cs:
            return 0.0
        total = 0.0
        for c in cs:
            hp, mx = rs.health(c)
            total += 0.6 * (hp / mx if mx > 0 else 0.0) + (0.0 if c.down else 0.4)
        return total / len(cs)

    ours = [c for c in state.combatants if c.team == team]
    theirs = [c for c in state.combatants if c.team != team]
    v = strength(ours) - strength(theirs)
    if state.over and state.winner is not None:
        v += 0.5 if state.winner == team else -0.5
    return v


#: the quick tactical the rollouts used before (pass as `rollout_policy` for speed)
LITE = dict(refine=0, exact=False, lite=True)


class TurnDice(Dice):
    """Rollout dice keyed by the turn: every turn (round, acting figure) draws from its own
    stream, seeded from the rollout's seed and that key.

    Two candidates rolled out with the same seed so meet the same luck turn by turn, even
    when one of them rolls more dice earlier (an extra attack, a reaction): with one
    stream for the whole rollout every later roll would shift and the paired comparison
    would compare different luck."""

    __slots__ = ("_state", "_key", "_root", "_index")
    batch = 32  # a turn rolls a few dice: a short batch per stream

    def __init__(self, state: BattleState, root: tuple[int, ...]) -> None:
        super().__init__(0)
        self._state = state
        self._root = tuple(root)
        self._key = None
        self._index = {c.id: i for i, c in enumerate(state.combatants)}

    def _uniform(self) -> float:
        s = self._state
        a = s.actor
        key = (s.round, self._index[a.id] if a is not None else len(self._index) + s.turn_index + 1)
        if key != self._key:  # a new turn: its own stream, from the start
            self._key = key
            self._rng = np.random.default_rng([*self._root, *key])
            self._buf, self._pos = [], 0
        return super()._uniform()


class _Rolled(BaseException):
    """A rollout's shared prefix reached its first roll of the dice (a BaseException, so that no
    `except Exception` of the rules takes it for an error of theirs)."""


#: stands in for `_NoDice`'s generator (never drawn from)
_NEVER = np.random.default_rng(0)


class _NoDice(Dice):
    """The dice of a rollout's shared prefix: the first roll stops it (`_Rolled`), so the
    part of a rollout played on them is the same for every seed."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_NEVER)

    def _uniform(self) -> float:
        raise _Rolled


@dataclass(slots=True)
class _Prefix:
    """The part of a candidate's rollouts that every seed shares (`PlannerPolicy.rollout`):
    the fight just before its first roll of the dice, with the players as they are there, the
    action about to be resolved and the rollout's counters; or, where it ended before any
    roll, its score (`value`)."""

    value: float | None
    battle: Battle | None = None
    pols: dict | None = None
    action: Action | None = None
    last: tuple = ()
    turns: int = 0
    limit: int | None = None
    steps: int = 0


def candidates(ranked: list[Choice], top_k: int = 3, close: float = 0.25) -> list[Choice]:
    """tactical's best actions worth a look: within `close` of the best, at most two per kind,
    `top_k` at most; the first is the guide's own pick."""
    out: list[Choice] = []
    per_kind: dict[str, int] = {}
    top = ranked[0].score
    for c in ranked:
        if len(out) >= top_k:
            break
        if out and c.score < top - close:
            break
        k = c.action.kind
        if per_kind.get(k, 0) >= 2 or any(o.action == c.action for o in out):
            continue
        if out and k == "end_turn":
            continue  # the horizon is too short to see what acting sets up: never trade it for idling
        per_kind[k] = per_kind.get(k, 0) + 1
        out.append(c)
    return out


class PlannerPolicy(Policy):
    """Monte Carlo rollouts over tactical's top candidates."""

    name = "planner"

    def __init__(self, seed=None, *, budget: int = 16, top_k: int = 3, horizon: int = 1,
                 time_budget: float | None = None, close: float = 0.25, confidence: float = 1.5,
                 rollout_policy: dict | None = None, opponent_rollout: dict | None = None,
                 guide: str = "tactical") -> None:
        """`budget`: rollouts per decision (split between the candidates); `top_k`: how many
        candidates; `horizon`: turns each standing figure gets in a rollout; `time_budget`:
        optional seconds per decision; `close`: only candidates scored within this of the
        best are tried (tactical's clear choices are kept without lookahead); `confidence`:
        how many standard errors better than tactical's choice an alternative must be;
        `rollout_policy` / `opponent_rollout`: TacticalPolicy settings of the rollouts' own
        and enemy players (default: tactical's own; `LITE` is quicker and weaker); `guide`:
        the scripted player searched around (`tactical` or `bold`): it ranks the candidates,
        its pick is the default, and it plays the planner's side in the rollouts (the
        enemies are always played by tactical there)."""
        super().__init__(seed)
        if guide not in GUIDES:
            raise TacticaError(f"planner guide {guide!r}", field="guide", expected=" or ".join(GUIDES))
        self.guide_cls = GUIDES[guide]
        self.guide = self.guide_cls(seed=int(self.rng.integers(1 << 62)))
        self.budget = max(1, int(budget))
        self.top_k = max(1, int(top_k))
        self.horizon = max(1, int(horizon))
        self.time_budget = time_budget
        self.close = close
        #: how the rollouts' tactical players are set up (see TacticalPolicy)
        self.rollout_policy = {} if rollout_policy is None else dict(rollout_policy)
        self.opponent_rollout = dict(self.rollout_policy) if opponent_rollout is None else dict(opponent_rollout)
        self.confidence = confidence
        self.last_values: dict[Action, float] = {}
        self._samples: dict[Action, list[float]] = {}
        #: None, or a function (state, actor, ranked) -> ranked that filters or re-ranks the
        #: guide's choices before the lookahead (agents/behaved.py: a GM's NPC behaviour)
        self.screen = None

    # -- the policy interface --------------------------------------------------------
    def act(self, state: BattleState, actor: Combatant) -> Action:
        ranked = self.guide.rank(state, actor)
        if self.screen is not None:
            ranked = self.screen(state, actor, ranked)
        cands = self.candidates(ranked)
        self._looked = None
        if len(cands) == 1:
            best = cands[0]
            self.last_values = {}
            self.last_reason = best.reason
        else:
            values = self.lookahead(state, actor, [c.action for c in cands])
            self.last_values = values
            best = self.pick(cands, values)
            self._looked = ([c.action for c in cands], {a: list(v) for a, v in self._samples.items()})
            others = sorted((c for c in cands if c is not best and c.action in values), key=lambda c: -values[c.action])
            vs = f", next best {others[0].action.kind} {values[others[0].action]:+.2f}" if others else ""
            self.last_reason = (f"{best.reason} [lookahead: {values[best.action]:+.2f} over "
                                f"{len(self._samples[best.action])} rollouts{vs}]")
        self.guide.commit(state, actor, best.action)
        self.last_action, self.last_ranked = best.action, ranked
        return best.action

    def pick(self, cands: list[Choice], values: dict[Action, float]) -> Choice:
        """tactical's choice, unless the rollouts show another is better with some confidence.

        An alternative must beat tactical's choice on the rollouts they share (the same
        dice: a paired comparison) by more than `confidence` standard errors."""
        top = cands[0]
        best, best_edge = top, 0.0
        base = self._samples.get(top.action, [])
        for c in cands[1:]:
            xs = self._samples.get(c.action, [])
            k = min(len(xs), len(base))
            if k < 3:
                continue
            d = np.array(xs[:k]) - np.array(base[:k])
            mean = float(d.mean())
            se = float(d.std(ddof=1)) / np.sqrt(k)
            if mean > self.confidence * se + 1e-3 and mean > best_edge:
                best, best_edge = c, mean
        return best

    def explain(self, state: BattleState, actor: Combatant, action: Action) -> str:
        """The action's numbers and why not tactical's other candidates (agents/reasons.py),
        then what the lookahead found."""
        if getattr(self, "last_action", None) == action and self.last_reason:
            own = self.last_reason.partition(" [lookahead")[0]
            line = reasons.explain(state, actor, action, self.last_ranked, own)
            looked = getattr(self, "_looked", None)
            if looked is None:
                return line
            cands, samples = looked
            g = self.guide.name
            found = net_words.search(state, action, cands[0], cands, samples, g, self.horizon, self.confidence,
                                     whose=f"{g}'s", noun="best")
            return line + (f"; {found}" if found else "")
        return self.guide.explain(state, actor, action)

    def candidates(self, ranked: list[Choice]) -> list[Choice]:
        """The guide's best actions worth a look (`candidates`, with this planner's settings)."""
        return candidates(ranked, self.top_k, self.close)

    # -- lookahead ------------------------------------------------------------------
    def lookahead(self, state: BattleState, actor: Combatant, actions: list[Action]) -> dict[Action, float]:
        """Mean rollout score of each action for the actor's team (successive halving).

        The budget is spent in rounds: every surviving candidate gets the same new rollouts
        (the same dice seeds: common random numbers), then the worse half of the
        alternatives to the first action (tactical's choice, always kept) is dropped, so
        most rollouts go to the close contenders. When the first two rollouts give every
        candidate the same score, the choice makes no difference within the horizon and
        the lookahead stops."""
        rs = self.ruleset(state)
        base = int(self.rng.integers(1 << 62))
        seeds = [(base, j) for j in range(self.budget)]
        totals = {a: 0.0 for a in actions}
        counts = {a: 0 for a in actions}
        samples: dict[Action, list[float]] = {a: [] for a in actions}
        prefix: dict = {}   # candidate -> its rollouts' shared start (`rollout`)
        alive = list(actions)
        rounds = max(1, int(np.ceil(np.log2(len(actions)))))
        per_round = self.budget // rounds
        used = 0
        start = time.perf_counter()
        for r in range(rounds):
            n = max(1, per_round // len(alive))
            for _ in range(n):
                if used >= len(seeds):
                    break
                ss = seeds[used]
                used += 1
                for a in alive:
                    v = self.rollout(rs, state, actor, a, ss, prefix)
                    samples[a].append(v)
                    totals[a] += v
                    counts[a] += 1
                if used == 2 and all(len(set(vals)) == 1 for vals in zip(*(samples[a] for a in alive))):
                    break  # the candidates lead to the same outcomes so far: nothing to learn here
            else:
                if self.time_budget is None or time.perf_counter() - start <= self.time_budget:
                    if r < rounds - 1 and len(alive) > 2:
                        # tactical's choice (the first) stays: the others are measured against it
                        rest = sorted(alive[1:], key=lambda a: -totals[a] / max(1, counts[a]))
                        alive = [alive[0]] + rest[:max(1, (len(alive) - 1) // 2)]
                    continue
            break
        self._samples = samples
        return {a: totals[a] / max(1, counts[a]) for a in actions if counts[a]}

    def rollout(self, rs: Ruleset, state: BattleState, actor: Combatant, first: Action,
                seed: tuple[int, ...], prefix: dict | None = None) -> float:
        """Play `first` and then the next turns of every figure on a copy; score the result.

        `seed` names the rollout's random streams (dice, and one per team's policy), so two
        candidates rolled out with the same seed meet the same luck. `prefix` (a dict per
        decision, `lookahead`'s): the part of `first`'s rollouts before their first roll of the
        dice is the same whatever the seed, so it is played once and kept there, and each
        rollout goes on from a copy of where it stopped (`_Prefix`)."""
        if prefix is not None and self._shares_prefix():
            p = prefix.get(first)
            if p is None:
                p = prefix[first] = self._prefix(rs, state, actor, first, seed)
            if p.value is not None:   # it ended before any roll: every seed scores it alike
                return p.value
            s = p.battle.state.clone()
            battle = p.battle.clone(TurnDice(s, (*seed, 0)), events=False, state=s)
            pols = {t: q.fork() for t, q in p.pols.items()}
            return self._play(rs, battle, pols, actor.team, p.action, p.last, p.turns, p.limit, p.steps)
        s = state.clone()
        battle = Battle(s, rs, TurnDice(s, (*seed, 0)), record=False)
        pols = self._rollout_players(s, actor, first, seed)
        return self._play(rs, battle, pols, actor.team, first, (s.round, s.turn_index), 0, None, 0)

    def _shares_prefix(self) -> bool:
        """Whether the rollouts' players decide alike whatever their seeds (`seed_free`)."""
        return bool(getattr(self.guide_cls, "seed_free", False) and TacticalPolicy.seed_free)

    def _rollout_players(self, s: BattleState, actor: Combatant, first: Action, seed: tuple[int, ...]) -> dict:
        """A rollout's player per team (seeded from `seed`), the actor's own with the guide's
        memory of this turn and `first` committed to it."""
        pol_ss = [np.random.SeedSequence([*seed, 1 + i]) for i in range(len(s.teams))]
        pols = {t: self._rollout_policy(pol_ss[i], self.rollout_policy, self.guide_cls) if t == actor.team
                else self._rollout_policy(pol_ss[i], self.opponent_rollout, TacticalPolicy)
                for i, t in enumerate(s.teams)}
        mine = pols[actor.team]
        mine.mem = replace(self.guide.mem) if self.guide.mem.key == (s.round, s.turn_index, actor.id) \
            else TurnMemory((s.round, s.turn_index, actor.id))
        mine.commit(s, s.actor, first)
        return pols

    def _prefix(self, rs: Ruleset, state: BattleState, actor: Combatant, first: Action,
                seed: tuple[int, ...]) -> "_Prefix":
        """`first`'s rollout played on dice that stop it at their first roll (`_NoDice`)."""
        s = state.clone()
        battle = Battle(s, rs, _NoDice(), record=False)
        pols = self._rollout_players(s, actor, first, seed)
        return self._play(rs, battle, pols, actor.team, first, (s.round, s.turn_index), 0, None, 0, prefix=True)

    def _play(self, rs: Ruleset, battle: Battle, pols: dict, team: str, action: Action, last: tuple,
              turns: int, limit: int | None, steps: int, prefix: bool = False):
        """Resolve `action`, then play every figure's turns by its team's player until each
        standing figure has had `horizon` more turns (`limit`, counted after the rollout's first
        action, None before it), the fight ends or 400 steps; the score of where it got to.
        `prefix`: the battle's dice are `_NoDice`; the `_Prefix` where they stopped it (the fight
        as it was before the step that rolled), or of the score where none rolled."""
        s = battle.state
        while True:
            if prefix:
                pre, counts = s.clone(), (battle.actions_resolved, battle._decisions)
                try:
                    battle.step(action, check=False)
                except _Rolled:
                    battle.state = pre
                    battle.actions_resolved, battle._decisions = counts
                    return _Prefix(None, battle, pols, action, last, turns, limit, steps)
            else:
                battle.step(action, check=False)
            if limit is None:
                limit = self.horizon * max(1, sum(1 for c in s.combatants if not c.down))
            else:
                steps += 1
            if s.over or steps >= 400:
                break
            cur = (s.round, s.turn_index)
            if cur != last:
                turns += 1
                last = cur
                if turns > limit:
                    break
            who = s.actor
            action = pols[who.team].act(s, who)
        v = evaluate(rs, s, team)
        return _Prefix(v) if prefix else v

    def _rollout_policy(self, ss: np.random.SeedSequence, kwargs: dict, cls: type = TacticalPolicy) -> TacticalPolicy:
        p = cls(seed=ss, **kwargs)
        g = self.guide
        p.seen_threat = dict(g.seen_threat)
        p.my_offence = dict(g.my_offence)
        p.charge = g.charge
        # shared, as since the planner was written: the thresholds are the economy's, but whether a
        # decision finds them here or tries moves on copies (which may roll its probe dice, and so
        # move later looks' numbers) depends on what was asked before (docs/benchmarks.md, issue 30,
        # an eleventh look); the fights' digests hold this sharing as it is
        p._tier_cache = g._tier_cache
        p.threat_memo = g.threat_memo  # exact profiles by figure version (agents/threat_memo.py)
        return p


class BoldPlannerPolicy(PlannerPolicy):
    """`planner-bold`: the planner searching around `bold` (tactical at a tenth of its
    caution) instead of tactical: bold ranks the candidates and plays the planner's own side
    in the rollouts. In cortex_hu it won 67.8% of 320 paired development fights against
    tactical, where bold alone won 57.8% of the same fights, at ~18 CPU s a fight
    (docs/results.md, cortex_hu)."""

    name = "planner-bold"

    def __init__(self, seed=None, **kwargs) -> None:
        kwargs.setdefault("guide", "bold")
        super().__init__(seed, **kwargs)
