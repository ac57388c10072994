"""A GM's NPC behaviour (agents/behaviour.py) played on top of any policy.

`BehavedPolicy(inner, book)` asks the wrapped policy as usual and then filters or re-ranks
its choices by the acting figure's settings:

- a figure whose settings are the default gets exactly the wrapped policy's action (the
  same calls, so the same fights: tests/fight_digests.py);
- policies that rank their choices (`tactical`, `bold`: `rank` and `commit`) are ranked,
  screened and committed; the planner screens its guide's ranking before its lookahead
  (`PlannerPolicy.screen`; its rollouts play without behaviour); every other policy
  (`aggressive`, `cautious`, `random`, learned ones) acts, and an action the settings forbid
  is replaced by the best allowed attack (expected damage) or the end of the turn;
- broken morale (fall back, surrender) and moves back into a held position or to a
  protected figure are the wrapper's own choices.

`explain` says which setting changed a choice: "Rook fires at Ganger ...; spares the
downed Mal (behaviour: spare)".
"""

from __future__ import annotations

from rules.actions import END_TURN, Action, option_words, target_of, weapon_words
from rules.state import BattleState, Combatant

from agents import assess as A
from agents.base import Policy
from agents.behaviour import PROTECT_CELLS, Behaviour, BehaviourBook
from agents.tactical import Choice

#: grapple options that free a figure rather than attack one
_FREEING = frozenset({"escape", "release", "break"})
#: a safety net: more decisions than this in one turn end it
MAX_DECISIONS = 40
#: at most this many moves a turn while falling back
FALL_BACK_MOVES = 4
#: an alternative attack must have at least this chance to hit
P_MIN = 0.12


def hostile(a: Action) -> bool:
    """Whether an action is aimed at an enemy (attack, grapple, feint, suppress)."""
    return target_of(a.kind) == "enemy" and not (a.kind == "grapple" and a.option in _FREEING)


def side_down(state: BattleState, team: str) -> tuple[int, int]:
    """(figures of the team that are down, figures of the team)."""
    side = [c for c in state.combatants if c.team == team]
    return sum(1 for c in side if c.down), len(side)


def morale_broken(state: BattleState, team: str, b: Behaviour) -> bool:
    """Whether at least `b.break_at` of the team is down (and `b` has a morale setting)."""
    if b.morale == "none":
        return False
    down, n = side_down(state, team)
    return n > 0 and down >= b.break_at * n - 1e-9


def hold_cell(state: BattleState, b: Behaviour) -> int | None:
    if b.hold is None or not state.grid.in_bounds(*b.hold.cell):
        return None
    return state.grid.index(*b.hold.cell)


def leader(state: BattleState, actor: Combatant, b: Behaviour) -> Combatant | None:
    """The standing figure of the actor's team it protects, if any."""
    c = state.by_id.get(b.protect) if b.protect else None
    if c is None or c is actor or c.team != actor.team or c.down:
        return None
    return c


class BehavedPolicy(Policy):
    """Any policy with the behaviour a GM set per team or figure."""

    #: an open question goes to the wrapped policy (whose own `act` answers it)
    answers_in_act = True

    def __init__(self, inner: Policy, book: BehaviourBook | Behaviour | dict | None) -> None:
        super().__init__(0)
        self.inner = inner
        self.book = BehaviourBook.of(book)
        self.name = inner.name
        self.answers_by_default = inner.answers_by_default
        self.last_action: Action | None = None
        self.note = ""
        self._turn: tuple = ()
        self._moves = 0
        self._decisions = 0
        self._dropped = False
        self._plain = True

    # -- the policy interface --------------------------------------------------------
    def choose(self, state: BattleState, question) -> str:
        return self.inner.choose(state, question)

    def asks(self, state: BattleState) -> bool:
        return self.inner.asks(state)

    def act(self, state: BattleState, actor: Combatant) -> Action:
        self._plain = True   # the wrapped player decides alone (`last_choices`)
        if state.pending is not None:   # a question the rules ask: the wrapped policy answers it
            a = self.inner.act(state, actor)
            self.last_action, self.last_reason, self.note = a, getattr(self.inner, "last_reason", ""), ""
            return a
        b = self.book.resolve(actor.team, actor.id)
        self.note = ""
        self._plain = b.is_default
        if b.is_default:
            a = self.inner.act(state, actor)
            self.last_action, self.last_reason = a, getattr(self.inner, "last_reason", "")
            return a
        key = (state.round, state.turn_index, actor.id)
        if key != self._turn:
            self._turn, self._moves, self._decisions, self._dropped = key, 0, 0, False
        self._decisions += 1
        if self._decisions > MAX_DECISIONS:
            c, self.note = Choice(END_TURN, 0.0, "ends the turn"), "(behaviour: too many decisions this turn)"
        else:
            c = self._decide(state, actor, b)
        a = c.action
        if a.kind == "move":
            self._moves += 1
        self.last_action = a
        self.last_reason = f"{c.reason}; {self.note}" if self.note else c.reason
        return a

    @property
    def last_choices(self) -> list:
        """The wrapped player's view of its last decision's alternatives (a learned player's candidates) where
        the behaviour is the default; [] where a behaviour screened the decision (its candidates may break it)."""
        return list(getattr(self.inner, "last_choices", []) or []) if self._plain else []

    def explain(self, state: BattleState, actor: Combatant, action: Action) -> str:
        if action == self.last_action and self.note:
            return f"{actor.name} {self.last_reason}"
        return self.inner.explain(state, actor, action)

    def _player(self, state: BattleState) -> Policy:
        """The policy that decides: the wrapped one, or the player `best` plays as
        (agents/best.py) in this fight."""
        resolve = getattr(self.inner, "resolve", None)
        return resolve(state) if resolve is not None else self.inner

    # -- deciding --------------------------------------------------------------------
    def _decide(self, state: BattleState, actor: Combatant, b: Behaviour) -> Choice:
        rs = self.ruleset(state)
        legal = rs.legal_actions(state)
        if morale_broken(state, actor.team, b):
            c = self._surrender(state, actor, legal, b) if b.morale == "surrender" else \
                self._fall_back(state, actor, legal, b)
            if c is not None:
                self._commit(state, actor, c.action)
                return c
        inner = self._player(state)
        if hasattr(inner, "screen") and hasattr(inner, "guide"):   # the planner
            inner.screen = lambda s, me, ranked: self._screen(s, me, b, ranked, legal)
            try:
                a = inner.act(state, actor)
            finally:
                inner.screen = None
            return Choice(a, 0.0, inner.last_reason)
        if hasattr(inner, "rank") and hasattr(inner, "commit"):   # tactical, bold
            best = self._screen(state, actor, b, inner.rank(state, actor), legal)[0]
            inner.commit(state, actor, best.action)
            inner.last_reason, inner.last_action = best.reason, best.action
            return best
        a = inner.act(state, actor)
        first = Choice(a, 1.0, getattr(inner, "last_reason", "") or str(a))
        return self._screen(state, actor, b, [first] + self._alternatives(state, actor, b, legal, a), legal)[0]

    def _commit(self, state: BattleState, actor: Combatant, a: Action) -> None:
        """Tell a ranking policy (or the planner's guide) the action taken, for its turn memory."""
        inner = self._player(state)
        p = getattr(inner, "guide", inner)
        if hasattr(p, "commit") and hasattr(p, "rank"):
            p.commit(state, actor, a)

    def _alternatives(self, state: BattleState, actor: Combatant, b: Behaviour, legal: list[Action],
                      wanted: Action) -> list[Choice]:
        """For policies that do not rank: the allowed move nearest the cell the policy wanted
        (when it gets closer), attacks by expected damage, then the end of the turn."""
        out = []
        g = state.grid
        if wanted.kind == "move" and wanted.cell is not None:
            moves = [a for a in legal if a.kind == "move" and a.cell is not None and a != wanted
                     and not self._allowed(state, actor, b, a)]
            m = min(moves, key=lambda a: (g.distance_m(a.cell, wanted.cell), a.cell), default=None)
            if m is not None and g.distance_m(m.cell, wanted.cell) < g.distance_m(actor.pos, wanted.cell) - 1e-9:
                out.append(Choice(m, 0.9, f"moves towards {list(g.xy(wanted.cell))} as far as it may, "
                                          f"to {list(g.xy(m.cell))}"))
        odds = [o for o in A.attack_options(self.ruleset(state), state, actor, legal) if o.p_hit >= P_MIN]
        odds.sort(key=lambda o: (-o.exp_damage, o.action.option or "", o.action.target or ""))
        out += [Choice(o.action, 0.5 - 0.001 * i, _attack_words(state, o)) for i, o in enumerate(odds)]
        return out + [Choice(END_TURN, 0.0, "ends the turn")]

    # -- screening the policy's choices ---------------------------------------------------
    def _allowed(self, state: BattleState, actor: Combatant, b: Behaviour, a: Action) -> str:
        """'' when the settings allow `a`, else the note that says which forbids it."""
        g = state.grid
        if b.downed == "spare" and hostile(a) and a.target in state.by_id and state.by_id[a.target].down:
            return f"spares the downed {state.by_id[a.target].name} (behaviour: spare)"
        if a.kind != "move" or a.cell is None:
            return ""
        h = hold_cell(state, b)
        if h is not None:
            here, there = g.distance_m(actor.pos, h), g.distance_m(a.cell, h)
            if there > b.hold.radius + 1e-9 and not there < here - 1e-9:
                return f"holds its position within {b.hold.radius:g} m of {list(b.hold.cell)} (behaviour: hold)"
        lead = leader(state, actor, b)
        if lead is not None:
            here, there = g.chebyshev(actor.pos, lead.pos), g.chebyshev(a.cell, lead.pos)
            if there > PROTECT_CELLS and not there < here:
                return f"stays near {lead.name} (behaviour: protect)"
        return ""

    def _screen(self, state: BattleState, actor: Combatant, b: Behaviour, ranked: list,
                legal: list[Action]) -> list:
        """The choices the settings allow, the ones they prefer first; sets `self.note`."""
        allowed, note = [], ""
        for c in ranked:
            why = self._allowed(state, actor, b, c.action)
            if not why:
                allowed.append(c)
            elif not note and not allowed:
                note = why
        if not any(c.action == END_TURN for c in allowed):
            allowed.append(Choice(END_TURN, min((c.score for c in allowed), default=0.0) - 1.0, "ends the turn"))
        top = max((c.score for c in allowed), default=0.0) + 1.0
        pref = self._preferred(state, actor, b, allowed, legal)
        if pref is not None and pref[0].action != allowed[0].action:
            c, note = pref
            allowed = [Choice(c.action, top, c.reason)] + [x for x in allowed if x.action != c.action]
        self.note = note
        return allowed

    def _preferred(self, state: BattleState, actor: Combatant, b: Behaviour, allowed: list,
                   legal: list[Action]) -> tuple[Choice, str] | None:
        """(the choice a setting prefers, its note), in order: back into a held position,
        back to a protected figure, finish a downed enemy, attack the leader's worst threat,
        cover the leader."""
        g = state.grid
        moves = [a for a in legal if a.kind == "move" and a.cell is not None
                 and not self._allowed(state, actor, b, a)]
        h = hold_cell(state, b)
        if h is not None and g.distance_m(actor.pos, h) > b.hold.radius + 1e-9 and moves:
            m = min(moves, key=lambda a: (g.distance_m(a.cell, h), a.cell))
            if g.distance_m(m.cell, h) < g.distance_m(actor.pos, h) - 1e-9:
                return (Choice(m, 0.0, f"moves back towards {list(b.hold.cell)}"),
                        f"returns to the position it holds (behaviour: hold, {b.hold.radius:g} m)")
        lead = leader(state, actor, b)
        if lead is not None and g.chebyshev(actor.pos, lead.pos) > PROTECT_CELLS and moves:
            m = min(moves, key=lambda a: (g.chebyshev(a.cell, lead.pos), g.distance_m(a.cell, lead.pos), a.cell))
            if g.chebyshev(m.cell, lead.pos) < g.chebyshev(actor.pos, lead.pos):
                return Choice(m, 0.0, f"moves back to {lead.name}"), f"keeps near {lead.name} (behaviour: protect)"
        rs = self.ruleset(state)
        if b.downed == "finish":
            acts = [a for a in legal if hostile(a) and a.target in state.by_id and state.by_id[a.target].down]
            odds = [o for o in A.attack_options(rs, state, actor, acts) if o.p_hit > 0]
            if odds:
                o = max(odds, key=lambda o: (o.exp_damage, not o.action.option))
                t = state.by_id[o.action.target]
                return Choice(o.action, 0.0, _attack_words(state, o)), f"finishes the downed {t.name} (behaviour: finish)"
        if lead is None:
            return None
        threat = _worst_threat(rs, state, actor, lead)
        first = allowed[0].action
        if threat is not None and hostile(first) and first.target != threat.id:
            on = [c for c in allowed if hostile(c.action) and c.action.target == threat.id]
            if not on:
                acts = [a for a in legal if hostile(a) and a.target == threat.id]
                odds = [o for o in A.attack_options(rs, state, actor, acts) if o.p_hit >= P_MIN]
                on = [Choice(o.action, 0.0, _attack_words(state, o))
                      for o in sorted(odds, key=lambda o: (-o.exp_damage, o.action.option or ""))]
            if on:
                return on[0], f"attacks {threat.name}, the worst threat to {lead.name} (behaviour: protect)"
        if threat is not None and first.kind == "move":
            best = allowed[0].score
            d0 = g.chebyshev(lead.pos, threat.pos)
            cover = [c for c in allowed if c.action.kind == "move" and c.score >= best - 0.15
                     and g.chebyshev(c.action.cell, threat.pos) < d0]
            if cover and cover[0].action != first:
                return cover[0], f"covers {lead.name} from {threat.name} (behaviour: protect)"
        return None

    # -- broken morale -------------------------------------------------------------------
    def _morale_words(self, state: BattleState, actor: Combatant, b: Behaviour) -> str:
        down, n = side_down(state, actor.team)
        return f"(behaviour: {b.morale}, morale broken: {down} of {n} of its side down)"

    def _surrender(self, state: BattleState, actor: Combatant, legal: list[Action], b: Behaviour) -> Choice:
        """Drop prone (or lie down) once where the rules allow it, else end the turn."""
        self.note = self._morale_words(state, actor, b) + "; the fight goes on until the GM ends it"
        prone = "prone" in actor.conditions or actor.res.get("posture") == "lie"
        if not prone and not self._dropped:
            for a in legal:
                if a.kind == "drop_prone" or (a.kind == "posture" and a.option == "lie"):
                    self._dropped = True
                    return Choice(a, 0.0, "surrenders and lies down")
        return Choice(END_TURN, 0.0, "surrenders and ends the turn")

    def _fall_back(self, state: BattleState, actor: Combatant, legal: list[Action], b: Behaviour) -> Choice | None:
        """A move away from the enemies (towards cover and the map edge), or the end of the
        turn; None when cornered (no move gets away and an enemy stands next to it)."""
        enemies = A.foes(state, actor)
        if not enemies:
            return None
        g = state.grid

        def safety(cell: int) -> float:
            near = min(g.distance_m(cell, e.pos) for e in enemies)
            seen = sum(1.0 - A.protection(g.cover(cell, e.pos)) for e in enemies if g.los(e.pos, cell))
            x, y = g.xy(cell)
            edge = min(x, y, g.width - 1 - x, g.height - 1 - y)
            return near - g.cell_m * seen - 0.1 * g.cell_m * edge

        here = safety(actor.pos)
        moves = [a for a in legal if a.kind == "move" and a.cell is not None
                 and not self._allowed(state, actor, b, a)] if self._moves < FALL_BACK_MOVES else []
        best = max(moves, key=lambda a: (safety(a.cell), -a.cell), default=None)
        words = self._morale_words(state, actor, b)
        if best is not None and safety(best.cell) > here + 1e-6:
            near = min(enemies, key=lambda e: g.distance_m(best.cell, e.pos))
            self.note = words
            cover = A.cover_words(state, best.cell, near.pos)
            return Choice(best, 0.0, f"falls back to {list(g.xy(best.cell))}, {g.distance_m(best.cell, near.pos):.1f} m "
                                     f"from {near.name}, {cover}")
        if any(g.chebyshev(actor.pos, e.pos) <= 1 for e in enemies) and self._moves == 0:
            self.note = ""
            return None
        self.note = words
        return Choice(END_TURN, 0.0, "keeps its distance and ends the turn")


def _worst_threat(rs, state: BattleState, actor: Combatant, lead: Combatant) -> Combatant | None:
    """The enemy that threatens `lead` most: one that can reach and see it, then the nearest."""
    g = state.grid
    enemies = A.foes(state, actor)
    if not enemies:
        return None

    def key(e: Combatant) -> tuple:
        d = g.distance_m(e.pos, lead.pos)
        return (not (d <= rs.reach_m(e) and g.los(e.pos, lead.pos)), d, e.order)
    return min(enemies, key=key)


def _attack_words(state: BattleState, o: A.Odds) -> str:
    t = state.by_id[o.action.target]
    how = f" with the {weapon_words(o.action.weapon)}" if o.action.weapon and o.action.weapon != "unarmed" else ""
    opt = f" ({option_words(o.action.option)})" if o.action.option else ""
    down = " (down)" if t.down else ""
    return f"attacks {t.name}{down}{how}{opt}: {o.p_hit:.0%} to hit, {o.exp_damage:.1f} expected damage"
