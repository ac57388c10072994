"""Making a `Session`: a new fight from a scenario, or one resumed from a save file or a
save's contents (any Tactica state file will do). A mixin of `Session`, whose classmethods
these are."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from rules.dice import Dice
from rules.errors import TacticaError
from rules.scenario import new_battle, resolve_scenario
from rules.serialize import battle_from_dict
from rules.state_check import untrusted
from tactica.table.base import SessionError
from tactica.table.dice import DiceOwners
from tactica.table.memory import replayed_policies
from tactica.table.roles import Role, parse_team_options
from tactica.table.saves import _SessionBlock, _set_policy_rng_state, check_writable_target, probe, read_save
from tactica.table.settings import check_behaviour

if TYPE_CHECKING:  # pragma: no cover
    from tactica.table.session import Session


class BuildingMixin:
    """`Session.new`, `Session.resume` and `Session.from_dict` (see the module)."""

    @classmethod
    def new(cls, scenario: str | Mapping[str, Any], *, npc: Iterable[str] = (), pc: Iterable[str] = (),
            seed: int = 0, dice_mode: str = "engine", confirm: bool = True,
            save_path: str | Path | None = None, ask_all: bool = False) -> "Session":
        from rules.scenario import parse_scenario

        if isinstance(scenario, Mapping):
            doc, src = dict(scenario), "<scenario>"
        else:
            doc, src = resolve_scenario(scenario)
        spec = parse_scenario(doc, src)
        doc = dict(doc)
        roles = parse_team_options([(t.name, t.pc) for t in spec.teams], npc, pc, ruleset=spec.ruleset)
        if save_path is not None:
            check_writable_target(Path(save_path))
        battle = new_battle(spec, Dice(seed), src)
        return cls(battle, doc, roles, seed=seed, dice_mode=dice_mode, confirm=confirm, save_path=save_path,
                   ask_all=ask_all)

    @classmethod
    def resume(cls, path: str | Path, *, npc: Iterable[str] = (), pc: Iterable[str] = (), seed: int | None = None,
               dice_mode: str | None = None, confirm: bool | None = None,
               save_path: str | Path | None = None, ask_all: bool = False) -> "Session":
        """Load a save file (or any Tactica state file) and continue where it stopped."""
        d = read_save(path)
        target = Path(save_path) if save_path else Path(path)
        check_writable_target(target, own=Path(path))
        with untrusted(str(path)):
            s = cls.from_dict(d, str(path), npc=npc, pc=pc, seed=seed, dice_mode=dice_mode, confirm=confirm,
                              save_path=target, ask_all=ask_all)
        probe(s.battle, str(path))
        return s

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], src: str, *, npc: Iterable[str] = (), pc: Iterable[str] = (),
                  seed: int | None = None, dice_mode: str | None = None, confirm: bool | None = None,
                  save_path: str | Path | None = None, ask_all: bool = False) -> "Session":
        """A session from a save's contents (or any Tactica state), e.g. one posted to the API."""
        battle = battle_from_dict(d, source=src)
        sess = d.get("session")
        spec_teams = [(t["name"], bool(t.get("pc", False))) for t in d["scenario"]["teams"]]
        base = None
        history: list[dict[str, Any]] = []
        start_dice: list[int] | None = None
        undo: list[dict[str, Any]] = []
        policy_states: dict[str, Any] = {}
        saved_seed, saved_mode, saved_confirm = 0, "engine", True
        if sess is not None:
            try:
                info = _SessionBlock.check(sess)
            except SessionError as e:
                raise e.at(src, "session")
            base = {t: Role(t, r["role"], r.get("policy")) for t, r in info["teams"].items()}
            history = info["history"]
            start_dice = info["start_dice"]
            undo = info["undo"]
            policy_states = info["policy_states"]
            saved_seed, saved_mode, saved_confirm = info["seed"], info["dice_mode"], info["confirm"]
        roles = parse_team_options(spec_teams, npc, pc, base, ruleset=battle.state.ruleset)
        s = cls(battle, d["scenario"], roles, seed=saved_seed if seed is None else seed,
                dice_mode=saved_mode, confirm=saved_confirm if confirm is None else confirm,
                save_path=save_path, ask_all=ask_all)
        if sess is not None and info.get("behaviour"):
            try:
                s.set_behaviour(check_behaviour(s, info["behaviour"], "session.behaviour"))
            except TacticaError as e:
                raise e.at(src) from None
        s.dice.by = {k: v for k, v in (info["dice_by"] if sess is not None else {}).items()
                     if k in battle.state.teams or k in battle.state.by_id}
        if dice_mode is not None:
            s.dice = DiceOwners.parse(dice_mode, battle.state, s.dice)
        s.history = history
        s.start_dice = start_dice
        s.undo_stack = undo
        s.created = (sess or {}).get("created", s.created)
        rebuilt = replayed_policies(s) if sess is not None else None   # their memory of the fight
        if rebuilt is not None:
            s.policies = rebuilt
        for t, st in policy_states.items():
            if t in s.policies and isinstance(st, Mapping):
                try:
                    _set_policy_rng_state(s.policies[t], st)
                except Exception:  # noqa: BLE001 - a policy that changed shape starts afresh
                    pass
        if rebuilt is None:
            s._rebuild_turn_memory()
        else:
            s._set_decisions()
        if sess is None:
            s.notes.append("a plain state file: no history before this point (undo starts here; export, "
                           "which needs the whole fight, is not available)")
        return s
