"""The `Ruleset` interface and the registry of rule systems.

A ruleset builds figures from stat blocks, rolls initiative, lists the legal actions of the
acting figure, applies an action (returning events), starts and ends turns, and describes
the acting figure's action economy as named numbers. `Battle` (rules/battle.py) drives a
whole fight through this interface, the same way for every rule system.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import Any, Callable, Iterable, Mapping

from rules.actions import Action
from rules.dice import Dice
from rules.errors import IllegalActionError, UnknownNameError
from rules.events import Event, event
from rules.features import Feature
from rules.names import did_you_mean
from rules.state import DOWN_CONDITIONS, BattleState, Combatant


def _answers(state: BattleState) -> list[Action]:
    return [Action("choose", option=o) for o in state.pending.question.options]


def _asks_first(name: str, f: Callable) -> Callable:
    """`f` for a state with no open question; with one, its answers (rules/choices.py)."""
    if name == "legal_actions":
        def wrapped(self, state, *a, **k):
            return f(self, state, *a, **k) if state.pending is None else _answers(state)
    elif name == "legal_attacks":
        def wrapped(self, state, *a, **k):
            return f(self, state, *a, **k) if state.pending is None else []
    else:  # check_legal
        def wrapped(self, state, action, *a, **k):
            if state.pending is None:
                return f(self, state, action, *a, **k)
            if action not in _answers(state):
                q = state.pending.question
                raise IllegalActionError(f"{q.figure} must answer {q.key} first ({q.text})", field="action",
                                         expected="choose with option one of " + ", ".join(q.options))
    wrapped.__name__, wrapped.__doc__, wrapped.__wrapped__ = f.__name__, f.__doc__, f
    return wrapped


def condition_events(c: Combatant, before: set[str], cause: str) -> list[Event]:
    """The `condition` events (and a `down` event when `c` fell) of a change of `c`'s conditions
    from `before` to what they are now, in a fixed order."""
    evs: list[Event] = []
    was_down = not DOWN_CONDITIONS.isdisjoint(before)
    gained = sorted(c.conditions - before)
    for name in sorted(before - c.conditions):
        evs.append(event("condition", target=c.id, condition=name, on=False, cause=cause))
    if c.down and not was_down:
        down = [n for n in gained if n in DOWN_CONDITIONS]
        evs.append(event("down", target=c.id, reason=f"{', '.join(down)} ({cause})"))
        gained = [n for n in gained if n not in DOWN_CONDITIONS]
    for name in gained:
        evs.append(event("condition", target=c.id, condition=name, on=True, cause=cause))
    return evs


class Ruleset(ABC):
    """One rule system.

    While a figure answers a question (`state.pending`), `legal_actions` lists its answers,
    `legal_attacks` nothing and `check_legal` accepts only an answer, for every ruleset:
    `__init_subclass__` puts that check in front of each ruleset's own methods."""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        for name in ("legal_actions", "legal_attacks", "check_legal"):
            f = getattr(cls, name, None)      # its own, or a mixin's: whichever the class uses
            if f is not None and not getattr(f, "__isabstractmethod__", False) \
                    and not getattr(f, "__wrapped__", None):
                setattr(cls, name, _asks_first(name, f))

    name: str = ""
    version: int = 1
    description: str = ""
    #: action kind -> options it takes (empty tuple when none)
    supported_actions: Mapping[str, tuple[str, ...]] = {}
    #: cover level (0-4) -> what that level gives, in the system's own terms
    cover_table: Mapping[int, Any] = {}
    #: scenario `settings` the ruleset reads: name -> (default, what it does), for GMs
    #: (`tactica rulesets NAME`, docs/reference/<name>.md)
    scenario_settings: Mapping[str, tuple[Any, str]] = {}
    #: names of the numbers `economy()` returns, in order
    economy_features: tuple[str, ...] = ()
    #: one `rules.features.Feature` row per name of `economy_features`, in its order: what the
    #: number means, its scaling and range (docs/observations.md is rendered from it); a
    #: ruleset may leave it empty (the docs then name the numbers only)
    economy_table: tuple[Feature, ...] = ()
    #: map cell size the system's scenarios assume, in metres
    default_cell_m: float = 1.5
    @property
    def settings_keys(self) -> tuple[str, ...]:
        """The keys a scenario's `settings:` may give: those of `scenario_settings`
        (`check_settings` checks their values); any other key is refused with the closest of
        these (rules/names.py)."""
        return tuple(self.scenario_settings)

    #: every answer any question of the ruleset can take (rules/choices.py), in a fixed
    #: order: the environments' answer block
    answers: tuple[str, ...] = ()

    # -- building -------------------------------------------------------------------
    @abstractmethod
    def build_combatant(self, spec: Mapping[str, Any], *, id: str, team: str, pos: int,
                        order: int, source: str | None, field: str) -> Combatant:
        """A figure from a scenario entry (a template with overrides or a full stat block)."""

    def templates(self) -> list[str]:
        """Names of the bestiary templates."""
        return []

    def validate_object(self, item: str) -> bool:
        """Whether `item` can lie on the map (scenario `objects`)."""
        return False

    def check_settings(self, settings: Mapping[str, Any], teams: list[str], ids: list[str],
                       source: str | None) -> None:
        """Raise `ScenarioError` naming `source` and the field when scenario `settings` are bad
        (called when a scenario is loaded, so `tactica validate` finds it)."""

    def setup(self, state: BattleState, dice: Dice) -> list[Event]:
        """Anything done once when a fight starts (after the figures are placed)."""
        return []

    def start_turn_touches(self, state: BattleState, actor: Combatant) -> set[str] | None:
        """The ids of the figures `start_turn(state, actor, dice)` may change (besides
        `state.economy`), read off the ruleset's own turn start; `None` (the default) when not
        known. A policy then reads an enemy's threat from a copy of just those figures
        (agents/acting.py; tests/test_tactical_acting.py checks it in play)."""
        return None

    def start_turn_rolls(self, state: BattleState, actor: Combatant) -> bool:
        """Whether `start_turn(state, actor, dice)` may roll dice; False only where the
        ruleset's own turn start provably rolls none (True, this default: it may). A policy
        that only wants the dice to draw as they would skips the turn start where it rolls
        nothing (agents/assess.py `incoming`; tests/test_threat_profile.py checks it in play)."""
        return True

    def threat_profile(self, state: BattleState, attacker: Combatant) -> Callable[[Combatant], float] | None:
        """The threat query in two parts, where the ruleset splits it: on a state where
        `attacker` acts, a function of one figure `victim` giving
        `best_expected_damage(state, attacker, [victim.id])[victim.id]`, the work that does
        not depend on the victim done once. The function must read of `state` only the
        attacker, what of the turn economy a fresh turn start sets from the attacker figure
        alone, and the map, so that it answers for the victim as it stands in any state of the
        fight where a fresh turn of the same attacker figure starts (agents/threat_memo.py
        keeps one per enemy over a fight; tests/test_threat_profile.py checks it in play).
        The function may answer None for a victim whose answer would read more of the state
        (other figures): the caller then asks the long way. With `threat_profile_by_round`
        the fresh turn start depends on the round as well, and a profile holds for one round.
        None (this default): not split; callers ask `best_expected_damage`."""
        return None

    #: whether a fresh turn start of the same figure may differ from round to round, so that a
    #: `threat_profile` holds for the round it was made in only
    threat_profile_by_round = False

    # -- turn structure -------------------------------------------------------------
    @abstractmethod
    def roll_initiative(self, state: BattleState, dice: Dice) -> tuple[list[str], list[Event]]:
        """The order of this round's turns (ids of figures that may act) and its events."""

    @abstractmethod
    def start_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> tuple[bool, list[Event]]:
        """Reset the actor's economy; return whether it can act this turn."""

    def end_turn(self, state: BattleState, actor: Combatant, dice: Dice) -> list[Event]:
        return []

    def upkeep_down(self, state: BattleState, actor: Combatant, dice: Dice) -> list[Event]:
        """At the turn of a figure that is down but in the order (recovery rolls): no action."""
        return []

    def end_round(self, state: BattleState, dice: Dice) -> list[Event]:
        return []

    # -- actions --------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self, state: BattleState) -> list[Action]:
        """Every legal action of the acting figure (always includes end_turn)."""

    def legal_attacks(self, state: BattleState, target: str | None = None) -> list[Action]:
        """The attack-like legal actions (`attack`, `grapple`), in `legal_actions` order
        (`target`: only those on that figure)."""
        return [a for a in self.legal_actions(state) if a.kind in ("attack", "grapple")
                and (target is None or a.target == target)]

    def check_legal(self, state: BattleState, action: Action) -> None:
        """Raise `IllegalActionError` unless `action` is legal now."""
        if action not in self.legal_actions(state):
            actor = state.actor
            raise IllegalActionError(f"{action} is not legal for {actor.id if actor else 'nobody'} now",
                                     field="action", expected="one of the legal actions")

    @abstractmethod
    def apply(self, state: BattleState, action: Action, dice: Dice) -> list[Event]:
        """Resolve a legal action. Set `state.economy['turn_over']` when the turn must end."""

    def move_price(self, state: BattleState, action: Action) -> tuple[float, bool] | None:
        """What applying `action`, a move of the acting figure, on a copy of the state would
        leave: (`economy()['actions_left']`, whether `economy['turn_over']` is set), read off
        the rules' own movement economy without applying it; None when only trying the move
        says (it could roll dice or ask a question, or the ruleset gives no price: the
        default). Policies price many moves with it (agents/assess.py move_tiers);
        tests/test_move_price.py checks each ruleset's answer against trying the move."""
        return None

    def move_touches(self, state: BattleState, action: Action) -> set[str] | None:
        """The ids of the figures `apply(state, action)`, a move of the acting figure, may
        change (besides `state.economy`), where the move rolls no die and asks nothing; None
        (the default) when not known. A policy then tries the move on a copy of just those
        figures (agents/refine.py; tests/test_offence_query.py checks it in play)."""
        return None

    # -- views ----------------------------------------------------------------------
    def may_ask(self, state: BattleState, action: Action) -> bool:
        """Whether resolving `action` can ask a figure a question (rules/choices.py). The
        battle keeps a copy of the fight to go back to only for such actions."""
        return False

    @abstractmethod
    def economy(self, state: BattleState) -> dict[str, float]:
        """The acting figure's action economy as named numbers (`economy_features`)."""

    @abstractmethod
    def health(self, c: Combatant) -> tuple[float, float]:
        """(remaining, maximum) health of a figure in the system's own units."""

    def tracked(self, state: BattleState, c: Combatant) -> dict[str, Any]:
        """Everything the rules track for figure `c` beyond its position, team, conditions and
        plain resources, as JSON-able data (the replay's final state shows it under
        `combatants[id].rules`, see `rules.replay.state_summary`).

        A ruleset puts here, under names in its own terms: life or status points AND their
        thresholds (e.g. `{"wound": 3, "wound_max": 12}`); weapons carried, held and dropped;
        every condition with its remaining duration (`{"stunned": {"rounds": 2}}`); the
        figure's turn economy while it acts (actions used, metres moved, aim steps, prepared
        defences); jams and breakage; grapple partners; held or delayed actions. Values must
        be JSON: dicts with string keys, lists, strings, numbers, booleans and None (sets as
        sorted lists). The default tracks nothing beyond the generic part.
        """
        return {}

    def attack_odds(self, state: BattleState, actor: Combatant, action: Action) -> dict[str, float] | None:
        """For an attack-like action: {'p_hit', 'exp_damage', ...} in the system's health units.

        Policies weigh options with it; None when the action is not an attack."""
        return None

    def attack_odds_many(self, state: BattleState, actor: Combatant, actions: list[Action]
                         ) -> list[dict[str, float] | None]:
        """`attack_odds` of each action, in order (a ruleset may share work between them)."""
        return [self.attack_odds(state, actor, a) for a in actions]

    def best_expected_damage(self, state: BattleState, actor: Combatant, victims: Iterable[str]
                             ) -> dict[str, float] | None:
        """The threat query: for each figure id in `victims`, max(0.0, the `exp_damage` of each
        attack the acting figure `actor` could make on it now), i.e. of the `attack` and plain
        `grapple` actions `legal_attacks(state, victim)` lists, priced by `attack_odds_many`
        (grapple options such as escape and release left out), bit for bit the same float.
        None when not provided, and callers list and price the attacks themselves. This default
        asks `threat_profile` (None where a ruleset has none); a ruleset may answer it otherwise.
        A ruleset that provides it must answer without changing the state and without dice."""
        damage = self.threat_profile(state, actor)
        if damage is None:
            return None
        out = {vid: damage(state.by_id[vid]) for vid in dict.fromkeys(victims)}
        return None if None in out.values() else out

    def priced_attacks(self, state: BattleState, actor: Combatant, plain_only: bool = False
                       ) -> list[tuple[Action, float, float, float]] | None:
        """The offence query: (action, p_hit, exp_damage, damage_if_hit) of each attack-like
        action `legal_attacks(state)` lists that `attack_odds_many` gives odds for (`plain_only`:
        those without an option), in order, as `agents.assess.attack_options` reads the odds,
        bit for bit. None (this default): not provided, and callers list and price the attacks
        themselves. A ruleset that provides it must answer without changing the state and
        without dice (tests/test_offence_query.py)."""
        return None

    def reach_m(self, c: Combatant) -> float:
        """The longest distance (metres) at which the figure can attack now (0 if it cannot)."""
        return 0.0

    def hand_and_reach(self, c: Combatant) -> tuple[str | None, dict[str, float]] | None:
        """For a ruleset where a weapon must be drawn before it attacks: the weapon the figure
        holds (None: none) and how far each weapon it carries reaches once in hand (metres, 0
        when it cannot attack now, as unloaded). None where every weapon is always at hand."""
        return None

    def weapon_slots(self, c: Combatant) -> list[str]:
        """The figure's weapons in a stable order (the env's weapon slots)."""
        return []

    def ammo_frac(self, c: Combatant) -> float:
        """Fraction of ammunition left in the figure's main ranged weapon (1 when none is needed)."""
        return 1.0

    def unit_numbers(self, figures: list[Combatant]) -> list[tuple[float, float]]:
        """(`reach_m`, `ammo_frac`) of each figure, in order: what an observation reads of the
        standing figures, in one call (a ruleset may answer from one look at each figure's
        weapons; tests/test_env_shortcuts.py checks each against the two calls)."""
        reach, ammo = self.reach_m, self.ammo_frac
        return [(reach(c), ammo(c)) for c in figures]

    # -- the GM's overrides (rules/overrides.py) ---------------------------------------
    def damage_tracks(self, c: Combatant) -> dict[str, tuple[int, int]]:
        """The figure's damage tracks in the system's own terms: name -> (value now, the
        largest value a GM may set). Empty (the default): the ruleset gives none."""
        return {}

    def set_track(self, state: BattleState, c: Combatant, name: str, value: int) -> list[Event]:
        """Set track `name` of `c` to `value` (checked against `damage_tracks` by the caller)
        and re-derive what it means under the rules (down, unconscious, dying, dead, back up),
        with the ruleset's own thresholds and no dice; return the condition/down/dead events."""
        raise IllegalActionError(f"{self.name} has no track {name!r} to set", field="track",
                                 expected="one of " + (", ".join(self.damage_tracks(c)) or "(none)"))

    #: what each `defend` option does, in a few words for the GM's lists (the ruleset's data file
    #: says it in full, with its assumptions)
    defend_words: dict[str, str] = {}

    def gm_conditions(self) -> tuple[str, ...]:
        """The conditions a GM may put on or take off a figure directly. Conditions that follow a
        damage track (dying, dead, Status levels) are set through the track instead
        (`track_conditions`); those that tie two figures or follow an action are not offered."""
        return ()

    def track_conditions(self) -> dict[str, str]:
        """Condition name -> the damage track that decides it (set that track instead)."""
        return {}

    def set_condition(self, state: BattleState, c: Combatant, name: str, on: bool) -> list[Event]:
        """Put condition `name` (one of `gm_conditions`) on `c` or take it off, with what the
        rules tie to it; return the condition events (and `down` when the figure falls)."""
        before = set(c.conditions)
        (c.conditions.add if on else c.conditions.discard)(name)
        return condition_events(c, before, "GM")

    def detach(self, state: BattleState, c: Combatant, why: str) -> list[Event]:
        """End what ties `c` to other figures before the GM moves it (`why` "place") or takes it
        out of the fight ("remove"): grapples, holds, feints, suppression. Default: nothing."""
        return []

    def join(self, state: BattleState, c: Combatant) -> list[Event]:
        """A figure the GM added mid-fight, after it is placed: what `setup` does per figure."""
        return []

    def describe(self, c: Combatant) -> str:
        """A one-line summary of a figure for GMs."""
        hp, mx = self.health(c)
        cond = ",".join(sorted(c.conditions)) or "ok"
        return f"{c.name} [{c.team}] {hp:g}/{mx:g} {cond}"

    def __reduce__(self) -> tuple:
        """Pickled and copied by name: a ruleset is the registry's one shared instance (it holds
        per-thread memos that cannot be pickled, and tables that need not be)."""
        return get_ruleset, (self.name,)

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "description": self.description,
                "actions": {k: list(v) for k, v in self.supported_actions.items()},
                "economy_features": list(self.economy_features),
                "templates": self.templates()}


_FACTORIES: dict[str, str | Callable[[], Ruleset]] = {
    "cortex": "rules.systems.cortex:CortexRuleset",
    "cybergeneration": "rules.systems.cybergeneration:CybergenerationRuleset",
    "cortex_hu": "rules.systems.cortex_hu:CortexHuRuleset",
    "metalface": "rules.systems.metalface:MetalfaceRuleset",
}
_INSTANCES: dict[str, Ruleset] = {}


def register_ruleset(name: str, factory: str | Callable[[], Ruleset]) -> None:
    """Register a ruleset by name: a factory or an import path 'module:Class'."""
    _FACTORIES[name] = factory
    _INSTANCES.pop(name, None)


def available_rulesets() -> list[str]:
    return sorted(_FACTORIES)


def get_ruleset(name: str) -> Ruleset:
    """The ruleset registered under `name` (one shared instance: rulesets hold no fight state)."""
    inst = _INSTANCES.get(name)
    if inst is not None:
        return inst
    factory = _FACTORIES.get(name)
    if factory is None:
        raise UnknownNameError(f"unknown ruleset {name!r}{did_you_mean(name, available_rulesets())}",
                               field="ruleset", expected="one of " + ", ".join(available_rulesets()))
    if isinstance(factory, str):
        mod, _, cls = factory.partition(":")
        inst = getattr(importlib.import_module(mod), cls)()
    else:
        inst = factory()
    _INSTANCES[name] = inst
    return inst


for _name in ("legal_attacks", "check_legal"):
    setattr(Ruleset, _name, _asks_first(_name, Ruleset.__dict__[_name]))
