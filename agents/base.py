"""The policy interface and the one registry used by the env, the CLI and evaluation."""

from __future__ import annotations

import copy
import importlib
from typing import Any, Callable, Iterable

import numpy as np

from rules.actions import Action
from rules.choices import Question
from rules.errors import UnknownNameError
from rules.ruleset import Ruleset, get_ruleset
from rules.state import BattleState, Combatant


def _answering(act: Callable) -> Callable:
    """`act` for a state with no open question; with one, `Action("choose", ...)` with the
    policy's `choose` (rules/choices.py)."""
    def wrapped(self, state, actor, *a, **k):
        if state.pending is None:
            return act(self, state, actor, *a, **k)
        return self.answer(state)
    wrapped.__name__, wrapped.__doc__, wrapped.__wrapped__ = act.__name__, act.__doc__, act
    return wrapped


class Policy:
    """Decides the acting figure's next action from the rules-level state.

    A choice the rules give a figure mid-action (rules/choices.py) is answered by
    `choose(state, question)`: at once when the policy is a `Battle.deciders` entry, or as
    the figure's next decision (`act` answers it: every subclass's `act` is wrapped so)."""

    name = "policy"

    #: True when `choose` is the default answer (`Battle.run` then need not ask it at all)
    answers_by_default = True
    #: attributes a copy of the policy for an env snapshot may share with it (envs/snapshot.py):
    #: memos of pure functions and per-decision scratch set before it is read, which change no
    #: decision however they are shared
    shared_memos: tuple[str, ...] = ()
    #: those of `shared_memos` whose content a decision may depend on (filled in an order, an
    #: entry made with an earlier decision's probe dice): a copy that must replay exactly
    #: (`policy_copy`: the table's undo, an env snapshot) copies them; dicts of immutable keys
    #: and values (tuples of numbers), so a shallow copy is an exact one
    history_memos: tuple[str, ...] = ()

    #: True when the subclass's own `act` answers an open question (`state.pending`); others'
    #: `act` is wrapped to answer it with `choose`
    answers_in_act = False

    def __init_subclass__(cls, **kw) -> None:
        super().__init_subclass__(**kw)
        f = cls.__dict__.get("act")
        if f is not None and not getattr(f, "__wrapped__", None) and not cls.__dict__.get("answers_in_act"):
            cls.act = _answering(f)
        cls.answers_by_default = cls.choose is Policy.choose

    def choose(self, state: BattleState, question: Question) -> str:
        """The answer to a question the rules ask one of this policy's figures. The default
        answer is the engine's own choice before #32; scripted policies keep it."""
        return question.default

    def answer(self, state: BattleState) -> Action:
        """The `choose` action answering the open question (`state.pending`) with `choose`."""
        q = state.pending.question
        option = self.choose(state, q)
        self.last_reason = f"{q.key}: {option}"
        return Action("choose", option=option)

    def asks(self, state: BattleState) -> bool:
        """True when the policy answers the rules' questions as decisions of its own (its `act`
        at a state with `pending`), not with `choose` mid-action: a fight it plays then asks
        them (`ASK`, rules/choices.py `decider_for`). Scripted policies answer at once."""
        return False

    def __init__(self, seed: int | np.random.SeedSequence | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self._buf: list[float] = []
        self._pos = 0
        self.last_reason = ""

    def uniform(self) -> float:
        """A uniform number in [0, 1) from the policy's own generator (batched for speed)."""
        if self._pos >= len(self._buf):
            self._buf = self.rng.random(1024).tolist()
            self._pos = 0
        u = self._buf[self._pos]
        self._pos += 1
        return u

    def choice(self, items: list):
        return items[int(self.uniform() * len(items))]

    def act(self, state: BattleState, actor: Combatant) -> Action:  # pragma: no cover - interface
        raise NotImplementedError

    def explain(self, state: BattleState, actor: Combatant, action: Action) -> str:
        """One line a GM can read about why `action` was chosen."""
        return self.last_reason or f"{self.name} chose {action}"

    @staticmethod
    def ruleset(state: BattleState) -> Ruleset:
        return get_ruleset(state.ruleset)


_REGISTRY: dict[str, str | Callable[..., Policy]] = {
    "random": "agents.scripted:RandomPolicy",
    "aggressive": "agents.scripted:AggressivePolicy",
    "cautious": "agents.cautious:CautiousPolicy",
    "tactical": "agents.tactical:TacticalPolicy",
    "bold": "agents.tactical:BoldPolicy",
    "planner": "agents.planner:PlannerPolicy",
    "planner-bold": "agents.planner:BoldPlannerPolicy",
    #: the trained policy shipped for the scenario's ruleset (tactica/policies/<ruleset>.npz)
    "ppo": "agents.learned:NumpyPolicy",
    #: each ruleset's strongest player (agents/best.py's BEST table)
    "best": "agents.best:BestPolicy",
    #: the shipped network, searching where it is unsure (agents/selective.py; `selective:PATH.npz`
    #: over an exported one)
    "selective": "agents.selective:SelectivePolicy",
    #: `selective` searching at more of its decisions (margin 0.5; cortex_hu's `best` from 2026-12-06 to 2026-12-07)
    "selective-wide": "agents.selective:WideSelectivePolicy",
    #: `planner`'s search (`tactical` in the rollouts) over the shipped network's top three, at every decision
    #: (agents/selective.py; cortex's `best`)
    "planner-net": "agents.selective:NetPlannerPolicy",
    #: the same with `bold` playing the rollouts, as in `planner-bold`'s
    "planner-net-bold": "agents.selective:BoldNetPlannerPolicy",
    #: `planner-net` whose network never takes back its last action at once (drop prone, stand up, ...): steadier
    #: at the table, 1.6 points below it in cortex (agents/selective.py)
    "planner-net-steady": "agents.selective:SteadyNetPlannerPolicy",
    #: `planner-net` that takes back its last action only where the rollouts show it pays (agents/selective.py)
    "planner-net-proven": "agents.selective:ProvenNetPlannerPolicy",
    #: `planner-net-bold` without the network's immediate undo (agents/selective.py)
    "planner-net-bold-steady": "agents.selective:SteadyBoldNetPlannerPolicy",
}


#: the NPC policy every command uses when none is named (simulate, difficulty, tune, suggest,
#: and the autopilot's and the API's NPCs where `best` is too slow: `default_policy`): the
#: strongest scripted player that decides in well under a second
DEFAULT_POLICY = "tactical"
#: `best` is a front end's default NPC where its decisions take at most these CPU seconds
#: (median, 95th percentile; agents/best.py's BEST table, benchmarks/decision_time.py)
BEST_MEDIAN_S = 0.5
BEST_P95_S = 2.0


def default_policy(ruleset: str | None) -> str:
    """The NPC policy the autopilot and the API server give a team of a `ruleset` fight when
    none is named: `best` where that ruleset's entry decides fast enough (median at most
    `BEST_MEDIAN_S`, 95th percentile at most `BEST_P95_S`), else `DEFAULT_POLICY`."""
    from agents.best import BEST

    e = BEST.get(ruleset) if ruleset is not None else None
    if e is not None and e.median_s <= BEST_MEDIAN_S and e.p95_s <= BEST_P95_S:
        return "best"
    return DEFAULT_POLICY


def register_policy(name: str, factory: str | Callable[..., Policy]) -> None:
    _REGISTRY[name] = factory


def available_policies() -> list[str]:
    return sorted(_REGISTRY)


def policy_summary(name: str) -> str:
    """The first sentence of a registered policy's docstring ('' when it has none)."""
    f = _REGISTRY.get(name)
    if isinstance(f, str):
        mod, _, cls = f.partition(":")
        f = getattr(importlib.import_module(mod), cls)
    para = " ".join((getattr(f, "__doc__", None) or "").strip().split("\n\n")[0].split())
    return para.split(". ")[0].rstrip(".") + "." if para else ""


def check_policy(name: str, field: str = "policy") -> str:
    """`name` if it names a policy (a registry name, or an existing exported `.npz` file);
    otherwise an error naming the field and what was expected."""
    if name in _REGISTRY:
        return name
    if name.endswith(".npz"):
        from pathlib import Path
        if not Path(name.removeprefix("selective:")).is_file():
            raise UnknownNameError("no such file", source=name, field=field,
                                   expected="an exported policy (.npz) from `tactica export-policy`")
        return name
    import difflib
    close = difflib.get_close_matches(name, available_policies(), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise UnknownNameError(f"unknown policy {name!r}", field=field,
                           expected="one of " + ", ".join(available_policies()) + ", or a .npz policy file" + hint)


def make_policy(name: str, seed: int | np.random.SeedSequence | None = None, behaviour=None) -> Policy:
    """A fresh policy by registry name (or the path of an exported `.npz` policy), seeded;
    with `behaviour` (a `BehaviourBook`, one `Behaviour` for every figure, or their JSON;
    agents/behaviour.py) it plays the NPC behaviour a GM set (agents/behaved.py)."""
    if behaviour is None:
        return _make(name, seed)
    from agents.behaved import BehavedPolicy
    from agents.behaviour import BehaviourBook
    book = BehaviourBook.of(behaviour)  # bad settings fail before the policy is built
    return BehavedPolicy(_make(name, seed), book)


def _make(name: str, seed: int | np.random.SeedSequence | None) -> Policy:
    if name.startswith("selective:") and name.endswith(".npz"):
        from agents.selective import make_selective
        return make_selective(name, seed)
    if name.endswith(".npz"):
        from agents.learned import NumpyPolicy
        return NumpyPolicy(name, seed=seed)
    f = _REGISTRY.get(name)
    if f is None:
        raise UnknownNameError(f"unknown policy {name!r}", field="policy",
                               expected="one of " + ", ".join(available_policies()))
    if isinstance(f, str):
        mod, _, cls = f.partition(":")
        f = getattr(importlib.import_module(mod), cls)
    return f(seed=seed)


def _generator_copy(g: np.random.Generator) -> np.random.Generator:
    """A generator in the same state as `g`, its own (faster than a deep copy)."""
    bg = type(g.bit_generator)(0)
    bg.state = g.bit_generator.state
    return np.random.Generator(bg)


def seed_copy_memo(p: Any, memo: dict[int, Any], depth: int = 0) -> None:
    """Put into `memo` (a `copy.deepcopy` memo) what a copy of policy `p` (and of the policies
    and advisors it holds: a planner's guide, a learned policy's advisor, an advisor's policy)
    shares with it or gets ready-made: its declared memos (`Policy.shared_memos`), a shallow
    copy of the history ones (`Policy.history_memos`), a copy of its generator and of its
    number buffer."""
    if isinstance(p, Policy):
        own = p.history_memos
        for name in p.shared_memos:
            v = getattr(p, name, None)
            if v is not None:
                memo[id(v)] = v.copy() if name in own else v
        rng, buf = p.__dict__.get("rng"), p.__dict__.get("_buf")
        if isinstance(rng, np.random.Generator):
            memo[id(rng)] = _generator_copy(rng)
        if type(buf) is list:
            memo[id(buf)] = list(buf)   # numbers: a shallow copy is a full one
    if depth < 6 and hasattr(p, "__dict__"):
        for v in p.__dict__.values():
            if isinstance(v, Policy) or isinstance(getattr(v, "policy", None), Policy):
                seed_copy_memo(v, memo, depth + 1)


def policy_copy(obj: Any, keep: Iterable[Any] = ()) -> Any:
    """A copy of a policy, or of a dict, list or tuple of them (`None` values allowed), that
    decides on from here exactly as the original would, sharing no changing part with it: a
    deep copy that shares the memos the policies declare safe (`seed_copy_memo`) and the
    objects in `keep` (what never changes in a fight: the ruleset, the map). A plain deep copy
    of a `tactical` mid-fight copied its threat memo's map and ruleset and the states of its
    last decision's scratch: 45 ms a copy on cortex/warehouse, four copies a table decision."""
    memo: dict[int, Any] = {id(k): k for k in keep}
    items = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else (obj,)
    for p in items:
        if p is not None:
            seed_copy_memo(p, memo)
    return copy.deepcopy(obj, memo)
