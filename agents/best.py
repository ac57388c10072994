"""`best`: each ruleset's strongest player, under one policy name.

`BestPolicy` reads `state.ruleset` at its first decision and hands every call (`act`,
`choose`, `explain`) to the policy the `BEST` table names for that ruleset, built with the
`best` policy's own seed (so `best` decides exactly as that policy with the same seed). A
ruleset with no entry plays `tactical` (`FALLBACK`), and so does a fight the named player
cannot play (a shipped learned policy refuses a map larger than the one it learned on).
A search player's decisions cost more the more figures a fight holds: in a fight with more
figures than its entry's `max_figures` (every figure in the fight, standing or not, so the
choice is a function of the state and changes only when a GM adds or removes figures),
`best` plays the entry's `light` player, whose decisions stay inside the limits.

The table also holds the evidence for each pick and the player's decision time on this
machine (`benchmarks/decision_time.py`), which decide whether `best` is a front end's default
NPC (`agents.base.default_policy`). docs/baselines.md ("The `best` player") has the table
in words. Nothing here imports torch: the learned players are `ppo`, numpy only.
"""

from __future__ import annotations

from typing import NamedTuple

from agents.base import Policy, make_policy
from rules.actions import Action
from rules.errors import TacticaError
from rules.state import BattleState, Combatant


#: the player of a ruleset with no entry, or of a fight the entry's player cannot play
FALLBACK = "tactical"


class BestEntry(NamedTuple):
    """One ruleset's strongest player: the registry name it plays as, the measurement that
    says so, and the median and 95th percentile CPU seconds of one of its decisions
    (`benchmarks/decision_time.py`, docs/benchmarks.md). `max_figures`: the largest fight
    (figures in all) in which those stay inside the default NPC's limits (0: no limit;
    `decision_time.py --team-size`); in a larger one `best` plays `light`."""

    policy: str
    evidence: str
    median_s: float
    p95_s: float
    max_figures: int = 0
    light: str = FALLBACK


#: the player `best` is in each ruleset (docs/baselines.md, "The `best` player"). `max_figures`: the largest
#: fight measured (N a side on generated 22x16 maps, 2 fights: `benchmarks/decision_time.py --team-size N --size
#: 22x16`, docs/benchmarks.md "Fights larger than the table's") whose decisions kept a median of at most 0.5 s and a
#: 95th percentile of at most 2 s (`agents.base.BEST_MEDIAN_S`, `BEST_P95_S`); every bundled scenario is inside it
BEST: dict[str, BestEntry] = {
    "metalface": BestEntry(
        "planner-net-bold", "planner-bold's search (bold playing the rollouts) over the shipped network's three most "
        "likely actions at every decision: 73.2% of the player table's 3,200 held-out fights (400 maps x 4 dice "
        "seeds x 2 sides) vs tactical (Wilson 71.6-74.7%), +6.5 over the network alone on the same fights (66.7%; "
        "paired 95%: 4.8-8.2); 75.4% of the first 800, where it was chosen, 72.5% of the 2,400 after them; the "
        "network was best until 2026-12-07 (selective over it, searching only its close calls, adds nothing: 69.8% "
        "vs 70.0% of the first 800)", 0.040, 0.175, max_figures=40),
    "cortex": BestEntry(
        "planner-net", "planner's search (tactical playing the rollouts) over the shipped network's three most likely "
        "actions at every decision: 65.7% of the player table's 3,200 held-out fights (400 maps x 4 dice seeds x 2 "
        "sides) vs tactical (Wilson 64.1-67.3%), +5.7 over planner on the same fights (60.1%, best until 2026-12-06; "
        "paired 95%: 3.8-7.5) and +11.7 over the network alone (54.0%; 10.0-13.5); 68.0% of the first 800",
        0.065, 0.243, max_figures=20),
    "cortex_hu": BestEntry(
        "planner-net-bold-steady", "planner-net-bold whose network never takes back its own last action at once "
        "(at the table planner-net-bold dropped prone and stood up again, up to six times in one turn): level with "
        "it on all 3,200 of the player table's held-out fights (400 maps x 4 dice seeds x 2 sides): 67.5% vs "
        "tactical (Wilson 65.8-69.1%), -0.1 points against planner-net-bold (draws half, paired 95%: -0.8 to "
        "+0.7), planner-net-bold itself 67.5% of the same 3,200 (Wilson 65.8-69.1%), +3.0 over "
        "selective-wide (best from 2026-12-06 to 2026-12-07; paired 95%: 1.6-4.4), +2.9 over planner-bold "
        "(1.3-4.5) and +6.9 over the network alone (5.5-8.3) on the same fights",
        0.098, 0.389, max_figures=16),
    "cybergeneration": BestEntry(
        "planner-net-bold", "planner-bold's search (bold playing the rollouts) over the shipped network's three most "
        "likely actions at every decision: 67.5% of the player table's 3,200 held-out fights (400 maps x 4 dice seeds "
        "x 2 sides) vs tactical (Wilson 65.9-69.1%), +13.6 over the network alone on the same fights (53.9%; the "
        "network was best until 2026-12-06; paired 95%: 11.7-15.5); on the first 800 69.5%, planner-bold 57.6%; against "
        "tactical since its ready fix (2026-12-07) 66.2% of the first 800 (paired 95% against the old: -7.3 to +0.8)",
        0.070, 0.190, max_figures=20),
}

def best_name(ruleset: str, figures: int = 0) -> str:
    """The registry name `best` plays as in `ruleset`, in a fight of `figures` figures (0: any
    fight its entry's player decides fast enough in)."""
    e = BEST.get(ruleset)
    if e is None:
        return FALLBACK
    return e.light if too_big(e, figures) else e.policy


def too_big(e: BestEntry, figures: int) -> bool:
    """Whether a fight of `figures` figures is larger than `e`'s player decides fast enough in."""
    return bool(e.max_figures) and figures > e.max_figures


class BestPolicy(Policy):
    """The strongest player we have in the fight's ruleset: learned, search, or scripted
    (the `BEST` table in agents/best.py)."""

    name = "best"
    #: an open question goes to the player it plays as (whose own `act` answers it)
    answers_in_act = True

    def __init__(self, seed=None) -> None:
        super().__init__(seed)
        self.seed = seed
        #: the policy playing for `best` (None before the first decision) and its ruleset
        self.delegate: Policy | None = None
        #: the (ruleset, figures over the entry's limit) the delegate was built for
        self.ruleset_name: str | None = None
        self.big = False
        self.player = ""
        #: why the table's player was not taken ('' when it was)
        self.note = ""

    def resolve(self, state: BattleState) -> Policy:
        """The policy playing `state`'s fight (built at the first call, again if the ruleset
        changes or a GM's figures take the fight across its entry's `max_figures`): the
        table's, its `light` player in a larger fight, or `FALLBACK` for a fight the player
        cannot play."""
        e = BEST.get(state.ruleset)
        big = e is not None and too_big(e, len(state.combatants))
        if self.delegate is not None and self.ruleset_name == state.ruleset and self.big == big:
            return self.delegate
        name = best_name(state.ruleset, len(state.combatants))
        self.note = (f"a fight of {len(state.combatants)} figures, more than the {e.max_figures} {e.policy} "
                     f"decides fast enough in" if big else "")
        p = make_policy(name, self.seed)
        cannot = _cannot_play(p, state, name)
        if cannot:
            self.note = "; ".join(x for x in (self.note, cannot) if x)
            name, p = FALLBACK, make_policy(FALLBACK, self.seed)
        self.delegate, self.ruleset_name, self.big, self.player = p, state.ruleset, big, name
        return p

    def choose(self, state: BattleState, question) -> str:
        return self.resolve(state).choose(state, question)

    def asks(self, state: BattleState) -> bool:
        return self.resolve(state).asks(state)

    def act(self, state: BattleState, actor: Combatant) -> Action:
        p = self.resolve(state)
        a = p.act(state, actor)
        self.last_reason = f"{self._tag()}{getattr(p, 'last_reason', '')}"
        return a

    def explain(self, state: BattleState, actor: Combatant, action: Action) -> str:
        """The delegate's explanation, after which player it is: 'best (planner): ...'."""
        return self._tag() + self.resolve(state).explain(state, actor, action)

    def commit(self, state: BattleState, actor: Combatant, action: Action) -> None:
        """Tell the player what the figure did this turn, where it keeps a turn memory (a
        table session rebuilds it after a load)."""
        commit = getattr(self.resolve(state), "commit", None)
        if commit is not None:
            commit(state, actor, action)

    @property
    def last_choices(self) -> list:
        """The player's own view of its last decision's alternatives, where it keeps one (a learned player:
        (action, words), likeliest first); [] otherwise."""
        return list(getattr(self.delegate, "last_choices", []) or []) if self.delegate is not None else []

    def _tag(self) -> str:
        return f"best ({self.player}{'; ' + self.note if self.note else ''}): "


def playing(p: Policy | None, state: BattleState | None = None) -> tuple[str, str] | None:
    """For `best` (or a GM's behaviour wrapping it, agents/behaved.py): the player it is in `state`'s fight and why,
    where that is not its ruleset's table entry ('' where it is); None for another policy or before its first
    decision without a state. Front ends show it beside the policy's name."""
    p = getattr(p, "inner", p)
    if not isinstance(p, BestPolicy):
        return None
    if state is not None:
        p.resolve(state)
    return (p.player, p.note) if p.player else None


# every entry (and the fallback) answers the rules' questions with the default, as `Policy`
# does: `Battle.run` need not ask `best` (tests/test_best_policy.py checks the entries)
BestPolicy.answers_by_default = True


def _cannot_play(p: Policy, state: BattleState, name: str) -> str:
    """Why `p` (registered as `name`) cannot play `state`'s fight ('' when it can): a learned
    policy refuses another ruleset or a larger map than it learned on."""
    check = getattr(p, "check_fits", None)
    if check is None:
        return ""
    try:
        p._ensure(state)
        check(state.ruleset, state.grid.height, state.grid.width)
    except TacticaError as e:
        return f"{name} cannot play this fight: {e.detail}"
    return ""
