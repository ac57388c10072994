"""Who plays each team at the table (`Role`), read from the scenario and the options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar


from tactica.table.base import SessionError
from tactica.table.commands import _suggest_words
from tactica.table.dice import DiceRequest

T = TypeVar("T")


@dataclass
class Role:
    team: str
    role: str            # "npc" or "pc"
    policy: str | None   # a policy plays the team (a PC team with a policy is a dry run)

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "policy": self.policy}

    def label(self) -> str:
        return self.role.upper() + " " + (self.policy or "GM")


class Abort(Exception):
    """Raised by a dice provider to drop the pending action (`cancel`, `undo`, `quit`)."""

    def __init__(self, then: str = "cancel") -> None:
        super().__init__(then)
        self.then = then


DiceProvider = Callable[[DiceRequest], "list[int] | None"]

#: the team name that stands for every team: `--npc '*=POLICY'`, the API's teams setting
EVERY_TEAM = "*"


def team_settings(named: Iterable[tuple[str, T]], teams: Sequence[str]) -> list[tuple[str, T]]:
    """(team, setting) for each named setting, `EVERY_TEAM`'s spread over every team and put first,
    so that a team named beside it keeps its own setting wherever it is named (an unknown name is
    passed on as it is, for the caller's error)."""
    out: list[tuple[str, T]] = []
    for name, setting in sorted(named, key=lambda ns: ns[0] != EVERY_TEAM):
        out += [(t, setting) for t in (teams if name == EVERY_TEAM else [name])]
    return out


def parse_team_options(spec_teams: list[tuple[str, bool]], npc: Iterable[str] = (), pc: Iterable[str] = (),
                       base: Mapping[str, Role] | None = None, ruleset: str | None = None) -> dict[str, Role]:
    """Roles from the scenario (teams marked `pc: true` are PCs), a saved session and the
    `--npc TEAM[=POLICY]` / `--pc TEAM[=POLICY]` options, in that order (TEAM `*`: every team,
    as `behave *` and the API's `*`; a team named beside it keeps its own setting). An NPC team with no
    policy named gets `agents.base.default_policy(ruleset)`: `best` where it decides fast
    enough in that ruleset, else tactical."""
    from agents.base import check_policy, default_policy
    from rules.errors import TacticaError

    default = default_policy(ruleset)
    names = [t for t, _ in spec_teams]
    roles = {t: Role(t, "pc", None) if is_pc else Role(t, "npc", default) for t, is_pc in spec_teams}
    if base:
        roles.update({t: Role(t, r.role, r.policy) for t, r in base.items() if t in roles})
    for opt, role in (("--npc", "npc"), ("--pc", "pc")):
        items = npc if role == "npc" else pc
        for team, item in team_settings([(it.partition("=")[0].strip(), it) for it in items], names):
            if team not in roles:
                raise SessionError(f"no team {team!r}", field=opt, expected="one of " + ", ".join(names)
                                   + f" (or {EVERY_TEAM} for every team)" + _suggest_words(team, names))
            _, sep, pol = item.partition("=")
            pol = pol.strip() or None
            if sep and not pol:
                raise SessionError(f"{item!r}", field=opt, expected="TEAM or TEAM=POLICY")
            if role == "npc" and pol is None:
                pol = default
            if pol is not None:
                try:
                    check_policy(pol, opt)
                except TacticaError as e:
                    raise SessionError(e.detail, field=opt, expected=e.expected) from None
            roles[team] = Role(team, role, pol)
    return roles
