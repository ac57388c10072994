"""`tactical`: utility scoring with the ruleset's own odds, for any rule system.

Each decision scores every kind of legal action on one scale, "fractions of a figure's
health", and takes the best:

- attacks: expected damage relative to the target's remaining health, plus a bonus for
  the chance to take it out, weighted by how dangerous the target is (focus fire on the
  hurt and the dangerous). Options (called shots, bursts ...) are compared by expected
  value; an option that precludes the turn's further attacks must beat the plain attack
  plus the follow-up attacks it gives up (found by trying them on copies of the state).
  Attacks stop when the multiple-action penalty leaves too small a chance to hit.
- moving, before attacking: to the firing position that best trades the attacks it allows
  (with the target's cover from there: flanking) against the fire it draws (each enemy's
  threat, whether it sees the cell, the cover the cell gives against it); after attacking,
  or when no attack is worth it: back to the safest free cell (fall back behind cover).
- defensive stances and dropping prone: by how much they cut the expected damage of the
  enemies' next attacks, from the enemies' own odds on a copy of the state.
- aiming, reloading, standing up, picking up weapons, first aid: when they pay.

Only the generic `Ruleset` interface and rules-level state are used (see agents/assess.py).
`rank` returns the scored candidates, which the planner uses to pick what to try.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from rules.actions import END_TURN, Action, option_words, use_words, weapon_words
from rules.dice import Dice
from rules.ruleset import Ruleset
from rules.state import BattleState, Combatant

from agents import assess as A
from agents import reasons
from agents.refine import ATTACKS_PER_TURN
from agents.base import Policy
from agents.tactical_moves import MoveChoices
from agents.tactical_types import Choice, Ctx, ScoreParts, TurnMemory
from agents.threat_memo import ThreatMemo

__all__ = ["ATTACKS_PER_TURN", "BoldPolicy", "Choice", "Ctx", "ScoreParts", "TacticalPolicy", "TurnMemory"]


class TacticalPolicy(MoveChoices, Policy):
    """Utility scoring with the ruleset's hit chances and expected damage."""

    name = "tactical"
    #: an attack with a smaller chance to hit is not worth an action
    p_min = 0.12
    #: an attack must be worth at least this (fraction of the target's health) to be made
    v_min = 0.02
    kill_bonus = 0.6
    #: a move must improve the position by this much to be made
    move_margin = 0.03
    #: expected damage (fraction of health) an enemy's attack is taken to cost, for positioning
    base_danger = 0.15
    #: below this fraction of its health a figure weighs its own safety more
    hurt = 0.5
    #: x the weight of the fire a figure draws (its exposure); `bold` lowers it
    caution = 1.0
    #: x how much attacks, and the positions that allow them, weigh against exposure
    boldness = 1.0
    #: True: `rank` gives every choice its complete `ScoreParts` (the exposures the ranking did
    #: not compute are then the quick geometric ones; no dice, no score changes): envs/advice.py
    want_parts = False
    #: shared by a snapshot's copy (Policy.shared_memos): the probe dice and threat memo of a
    #: decision (set in `rank`), the last ranking (replaced by `act`, never changed), the
    #: fight's threat profiles and move tiers (exact memos)
    shared_memos = ("dice", "threats", "last_ranked", "threat_memo", "_tier_cache")
    #: the move tiers of an economy are found once a fight, with the probe dice of the decision
    #: that first asked (agents/assess.py `move_tiers`; in cortex_hu the search may roll them):
    #: an exact copy copies them
    history_memos = ("_tier_cache",)
    #: its decisions never draw from its own generator (`Policy.rng`): they are a function of the
    #: state and of its memory of the fight alone (the probe dice are seeded from the state), so
    #: two copies of it decide alike whatever their seeds (agents/planner.py shares the prefix of
    #: its rollouts on it). A subclass that draws must set it False.
    seed_free = True

    def __init__(self, seed=None, *, refine: int = 6, exact: bool = True, lite: bool = False) -> None:
        """`refine`: how many of the best-looking cells are re-scored with the rules' odds on
        copies; `exact`: enemies' threat and defensive options from their odds on copies;
        `lite`: a quick version for lookahead rollouts (options only for the best plain
        attacks, goals only among cells by cover, stances only when exposed)."""
        super().__init__(seed)
        self.lite = lite
        self.plain_only = False  # True: attacks without ruleset options only
        self.goal = True         # the two-turn goal for moves (sparse in the lite version)
        self.dice: Dice | None = None  # probe dice, set per decision (assess.probe_dice)
        #: per decision: enemies' expected damage on states it tried (assess.incoming's memo)
        self.threats: dict = {}
        #: over the fight: enemies' expected damage by what it reads (agents/threat_memo.py)
        self.threat_memo = ThreatMemo()
        self.refine = refine
        self.exact = exact
        self.odds_threat = exact
        self.odds_exposure = exact
        self.mem = TurnMemory()
        self.seen_threat: dict[str, float] = {}
        self.my_offence: dict[str, float] = {}
        self._danger_at: dict[str, tuple] = {}
        self._tier_cache: dict = {}
        self._quiet_key: tuple = ()
        self._quiet_turns = 0
        self._snap: tuple = ()
        #: how many cells a figure covers in a turn and still attacks (learnt from own moves)
        self.charge = 6

    # -- the policy interface --------------------------------------------------------
    def act(self, state: BattleState, actor: Combatant) -> Action:
        choices = self.rank(state, actor)
        best = choices[0]
        self.commit(state, actor, best.action)
        self.last_reason, self.last_action, self.last_ranked = best.reason, best.action, choices
        return best.action

    def explain(self, state: BattleState, actor: Combatant, action: Action) -> str:
        """The action's numbers, why not the best other candidate (agents/reasons.py)."""
        ranked = getattr(self, "last_ranked", None) if getattr(self, "last_action", None) == action else None
        if ranked is None:   # not the action act() chose last (or act() was not asked: a wrapper ranked)
            ranked = self.rank(state, actor)
        own = next((c.reason for c in ranked if c.action == action), reasons.label(state, action))
        return reasons.explain(state, actor, action, ranked, own)

    def fork(self) -> "TacticalPolicy":
        """A copy that decides on from here as this one would, on a memory of its own: the turn
        memory and every dict, list and set it holds are copied (one level: their values are
        numbers and tuples), the memos of pure functions and per-decision scratch
        (`shared_memos`) shared. Cheaper than a deep copy, which copies the maps the memos hold."""
        p = copy.copy(self)
        d = p.__dict__
        shared = self.shared_memos
        for k, v in list(d.items()):
            t = type(v)
            if k in shared:
                continue
            if t is dict or t is list or t is set:
                d[k] = v.copy()
            elif t is TurnMemory:
                d[k] = replace(v)
        return p

    def commit(self, state: BattleState, actor: Combatant, action: Action) -> None:
        """Record a decision in the turn memory."""
        m = self._memory(state, actor)
        m.actions += 1
        if action.kind == "move":
            m.moves += 1
        elif action.kind in A.ATTACK_KINDS:
            m.attacks += 1

    def _memory(self, state: BattleState, actor: Combatant) -> TurnMemory:
        key = (state.round, state.turn_index, actor.id)
        if self.mem.key != key:
            self.mem = TurnMemory(key)
        return self.mem

    # -- scoring ---------------------------------------------------------------------
    def rank(self, state: BattleState, actor: Combatant, legal: list[Action] | None = None) -> list[Choice]:
        """Every candidate worth considering, best first (end_turn is always there).

        `legal`: `legal_actions(state)` where the caller has just listed them for this very
        state (an env's mask, a network's legal map): the same list, not listed twice."""
        rs = self.ruleset(state)
        if legal is None:
            legal = rs.legal_actions(state)
        mem = self._memory(state, actor)
        self.dice = A.probe_dice(state, actor, mem.actions)
        self.threats = {}
        ctx = self.context(rs, state, actor, legal)
        out = [Choice(END_TURN, 0.0, "ends the turn")]
        if not ctx.enemies:
            return out
        kinds: dict[str, list[Action]] = {}
        for a in legal:
            kinds.setdefault(a.kind, []).append(a)
        attacks = self._attack_choices(ctx, kinds)
        out += attacks
        best_atk = max((c.score for c in attacks), default=0.0)
        worth = best_atk >= self.v_min
        moves = kinds.get("move", [])
        if moves:
            out += self._move_choices(ctx, mem, moves, best_atk, worth)
        if not worth:
            out += self.guard_choices(ctx, kinds)
        out += self._other_choices(ctx, mem, kinds, best_atk, worth)
        out.sort(key=lambda c: -c.score)
        if self.want_parts:
            self._complete_parts(ctx, out)
        return out

    def _complete_parts(self, ctx: Ctx, choices: list[Choice]) -> None:
        """Give every choice its `ScoreParts`: the exposure at its end cell where the ranking
        left it out (the own cell's as the move choices computed it, else `exposure`)."""
        here = ctx.expo_here
        for c in choices:
            p = c.parts or ScoreParts()
            if p.exposure is None:
                if c.action.kind == "move":
                    p = p._replace(exposure=self.exposure(ctx, c.action.cell)[0])
                else:
                    if here is None:
                        here = ctx.expo_here = self.exposure(ctx, ctx.me.pos)[0]
                    p = p._replace(exposure=here)
            c.parts = p

    def context(self, rs: Ruleset, state: BattleState, me: Combatant, legal: list[Action]) -> Ctx:
        """What every choice of this decision is scored against (enemies, allies, health, the
        weights); a hook a variant overrides to reweigh (experiments/planner_strength.py)."""
        enemies = A.foes(state, me)
        allies = A.friends(state, me)
        hp = A.hp_left(rs, me)
        frac = A.health_frac(rs, me)
        reach = rs.reach_m(me)
        where = (state.round, tuple(c.pos for c in state.combatants))
        threat = {e.id: self._danger(rs, state, e, where) for e in enemies}
        top = max(threat.values(), default=0.0) or 1.0
        prio = {e.id: 0.6 + 0.8 * threat[e.id] / top for e in enemies}
        # the fire a figure draws is weighed with one fixed guess of an enemy's sting,
        # scaled by how it compares with the others: estimates from the enemies' present
        # odds made figures too timid to win
        danger = {e.id: self.base_danger * (0.6 + 0.4 * threat[e.id] / top) for e in enemies}
        odds = self._odds(rs, state, me, legal)
        # my attack value against a target in the open, remembered per fight
        for o in odds:
            t = state.by_id[o.action.target]
            open_frac = 1.0 - A.protection(state.grid.cover(t.pos, me.pos))
            if open_frac > 0.2:
                v = o.exp_damage / A.hp_left(rs, t) / open_frac
                self.my_offence[me.id] = max(self.my_offence.get(me.id, 0.0), min(1.0, v))
        offence = self.my_offence.get(me.id, 0.2)
        def_weight = 1.0 if frac >= self.hurt else 1.6
        # draws win nothing: the longer the fight, the bolder the figure
        aggression = 1.3 + 0.7 * min(1.0, state.round / max(1, state.round_limit))
        quiet = self._quiet(rs, state, me)
        aggression += 0.5 * min(4, quiet)
        aggression *= self.boldness
        def_weight *= self.caution
        ereach = {e.id: rs.reach_m(e) for e in enemies}
        w = state.grid.width
        table = [(e, e.pos, e.pos % w, e.pos // w, ereach[e.id], danger[e.id], prio[e.id]) for e in enemies]
        return Ctx(rs, state, me, legal, enemies, allies, hp, frac, reach, A.is_melee(rs, me) if reach > 0 else True,
                   danger, prio, offence, def_weight, odds, aggression, ereach, table=table,
                   later=0.3 / (1 + quiet))

    def _odds(self, rs: Ruleset, state: BattleState, me: Combatant, legal: list[Action]) -> list[A.Odds]:
        """The odds of the attacks worth weighing: all of them, or in the lite version the plain
        ones plus the options (called shots, bursts ...) of the two best plain attacks."""
        if not self.lite:
            return A.attack_options(rs, state, me, legal, complete=True)
        plain = A.attack_options(rs, state, me, legal, plain_only=True, complete=True)
        if self.plain_only or not plain:
            return plain
        best = sorted(plain, key=lambda o: -o.exp_damage)[:2]
        keys = {(o.action.kind, o.action.target, o.action.weapon) for o in best}
        extra = [a for a in legal if a.option and (a.kind, a.target, a.weapon) in keys]
        return plain + A.attack_options(rs, state, me, extra)

    def _quiet(self, rs: Ruleset, state: BattleState, me: Combatant) -> int:
        """How many of this team's turns in a row passed with nobody hurt (a stand-off)."""
        key = (state.round, state.turn_index, me.id)
        if self._quiet_key != key:
            self._quiet_key = key
            snap = tuple(rs.health(c)[0] for c in state.combatants)
            self._quiet_turns = self._quiet_turns + 1 if snap == self._snap else 0
            self._snap = snap
        return self._quiet_turns

    def _danger(self, rs: Ruleset, state: BattleState, e: Combatant, where: tuple | None = None) -> float:
        """How much of a victim's health an enemy's best attack takes, as far as we know
        (`where`: the round and every figure's cell, when the caller has them)."""
        seen = self.seen_threat.get(e.id, 0.15)
        if not self.odds_threat:
            return seen
        if where is None:
            where = (state.round, tuple(c.pos for c in state.combatants))
        key = (where[0], e.pos, where[1])
        if self._danger_at.get(e.id) == key:
            return seen
        self._danger_at[e.id] = key
        t = A.best_threat(rs, state, e, self.dice, self.threats, self.threat_memo)
        if t > 0:
            seen = max(t, 0.5 * seen) if e.id in self.seen_threat else t
            self.seen_threat[e.id] = seen
        return seen

    # attacks ----------------------------------------------------------------------
    def attack_value(self, ctx: Ctx, o: A.Odds) -> float:
        t = ctx.state.by_id[o.action.target]
        hp = A.hp_left(ctx.rs, t)
        w = ctx.prio.get(t.id, 1.0)
        return w * (o.exp_damage / hp + self.kill_bonus * A.p_kill(o, hp)) + 0.02 * o.p_hit * w

    def _attack_choices(self, ctx: Ctx, kinds: dict[str, list[Action]]) -> list[Choice]:
        scored: list[tuple[float, A.Odds]] = []
        for o in ctx.odds:
            if o.p_hit < self.p_min or (self.plain_only and o.action.option):
                continue
            scored.append((self.attack_value(ctx, o), o))
        if not scored:
            return []
        scored.sort(key=lambda x: -x[0])
        out = []
        plain_best = max((v for v, o in scored if not o.action.option), default=0.0)
        follow = None
        for v, o in scored[:6]:
            a = o.action
            score = v
            if a.option and v > plain_best:
                if self._ends_attacks(ctx, a):
                    if follow is None:
                        follow = self._follow_up_value(ctx, scored)
                    score = v - follow
            parts = ScoreParts(o.p_hit, o.exp_damage / A.hp_left(ctx.rs, ctx.state.by_id[a.target]))
            out.append(Choice(a, score, self._attack_words(ctx, o), parts))
        return out

    def _ends_attacks(self, ctx: Ctx, a: Action) -> bool:
        """Whether an attack option leaves no further attack this turn (tried on a copy)."""
        s2 = A.after(ctx.rs, ctx.state, a, self.dice)
        if s2.over or A.turn_over(s2):
            return True
        if not A.foes(s2, s2.by_id[ctx.me.id]):
            return False
        return not any(x.kind in A.ATTACK_KINDS for x in ctx.rs.legal_attacks(s2))

    def _follow_up_value(self, ctx: Ctx, scored: list[tuple[float, A.Odds]]) -> float:
        """The value of the attacks after the best plain one, as far as they are worth it."""
        plain = [o for v, o in scored if not o.action.option]
        if not plain:
            return 0.0
        s = ctx.state
        total = 0.0
        a = plain[0].action
        for _ in range(3):
            s = A.after(ctx.rs, s, a, self.dice)
            if s.over or A.turn_over(s) or s.actor is None:
                break
            me = s.by_id[ctx.me.id]
            sub = ctx.sub(s, me, A.foes(s, me))
            best = None
            for o in A.attack_options(ctx.rs, s, me):
                if o.p_hit < self.p_min or o.action.option:
                    continue
                v = self.attack_value(sub, o)
                if best is None or v > best[0]:
                    best = (v, o)
            if best is None or best[0] < self.v_min:
                break
            total += best[0]
            a = best[1].action
        return total

    def _attack_words(self, ctx: Ctx, o: A.Odds) -> str:
        a = o.action
        t = ctx.state.by_id[a.target]
        frac = A.health_frac(ctx.rs, t)
        adj = " (wounded)" if frac < 0.5 else ""
        verb = "fires at" if not ctx.melee and ctx.state.grid.chebyshev(ctx.me.pos, t.pos) > 1 else "attacks"
        if a.kind == "grapple":
            verb = "grapples"
        how = f" with the {weapon_words(a.weapon)}" if a.weapon and a.weapon != "unarmed" else ""
        opt = f" ({option_words(a.option)})" if a.option else ""
        cover = A.cover_words(ctx.state, t.pos, ctx.me.pos)
        behind = f", target in {cover}" if cover != "no cover" else ""
        return (f"{verb} {t.name}{adj}{how}{opt}: {o.p_hit:.0%} to hit, "
                f"{o.exp_damage:.1f} expected damage{behind}")

    # defence ----------------------------------------------------------------------
    def guard_choices(self, ctx: Ctx, kinds: dict[str, list[Action]]) -> list[Choice]:
        """The scored defend and drop-prone choices (a hook, as `context`)."""
        opts = list(kinds.get("defend", [])) + list(kinds.get("drop_prone", []))
        if not opts:
            return []
        threats = sorted(ctx.enemies, key=lambda e: -ctx.danger[e.id])
        g = ctx.state.grid
        threats = [e for e in threats if g.los(e.pos, ctx.me.pos) or g.chebyshev(e.pos, ctx.me.pos) <= 4][:3]
        if not threats or (self.lite and self.exposure(ctx, ctx.me.pos)[0] < 0.05):
            return []
        if not self.exact:
            threats = threats[:1]

        def expected(s: BattleState) -> float:
            return sum(A.incoming(ctx.rs, s, e, ctx.me.id, self.dice, self.threats, keyed=self.threat_memo)
                       for e in threats) / ctx.hp

        base = expected(ctx.state)
        if base <= 0:
            return []
        out = []
        for a in opts:
            s2 = A.after(ctx.rs, ctx.state, a, self.dice)
            gain = (base - expected(s2)) * ATTACKS_PER_TURN * ctx.def_weight
            cost = 0.02
            if a.kind == "drop_prone":
                cost = 0.06 + (0.2 if ctx.melee else 0.0)
            if a.kind == "defend" and A.turn_over(s2):
                cost += 0.02
            what = a.option.replace("_", " ") if a.option else a.kind.replace("_", " ")
            head = f"takes a defensive stance ({what})" if a.kind == "defend" else "drops prone"
            out.append(Choice(a, gain - cost, f"{head}: {reasons.guard_words(gain / ATTACKS_PER_TURN / ctx.def_weight * ctx.hp)}"))
        return out

    # everything else ----------------------------------------------------------------
    def _other_choices(self, ctx: Ctx, mem: TurnMemory, kinds: dict[str, list[Action]], best_atk: float,
                       worth: bool) -> list[Choice]:
        rs, me, state = ctx.rs, ctx.me, ctx.state
        out: list[Choice] = []
        # reload
        for a in kinds.get("reload", []):
            f = rs.ammo_frac(me)
            if f <= 0:
                out.append(Choice(a, 0.5 + best_atk, f"reloads the {weapon_words(a.weapon)}: the magazine is empty"))
            elif not worth and f < 0.5:
                out.append(Choice(a, 0.05, f"reloads the {weapon_words(a.weapon)} while there is nothing to shoot at"))
            elif not worth and f < 1:
                out.append(Choice(a, 0.01, f"tops up the {weapon_words(a.weapon)}"))
        # stand up: to move and fight normally
        for a in kinds.get("stand", []):
            if mem.actions == 0 and (ctx.melee or not worth):  # never up and down in one turn
                out.append(Choice(a, 0.3 + best_atk, "gets up"))
            else:
                out.append(Choice(a, -0.01, "gets up"))
        # pick up a weapon when unarmed
        picks = kinds.get("pick_up", [])
        if picks:
            unarmed = all(a.weapon in (None, "unarmed") for a in ctx.legal if a.kind == "attack") and ctx.melee
            for a in picks[:4]:
                gain = self._gain_after(ctx, a, best_atk) if self.exact else 0.0
                score = max(gain - 0.03, 0.3 if unarmed and rs.reach_m(me) <= 0 else 0.0)
                if unarmed and gain >= 0:
                    score = max(score, 0.08)
                out.append(Choice(a, score, f"picks up the {weapon_words(a.weapon)}"))
        # aim (where the ruleset has it): when the aimed attack beats shooting now
        for a in kinds.get("aim", []):
            v_after = best_atk + self._gain_after(ctx, a, best_atk)
            out.append(Choice(a, 0.9 * v_after - 0.5 * best_atk, "takes aim"))
        # ready / unjam a weapon when there is nothing to attack with
        for a in kinds.get("ready", []):
            out.append(Choice(a, -0.01 if worth else self._ready_score(ctx, a),
                              f"readies the {weapon_words(a.weapon or 'weapon')}"))
        # first aid for a fallen or badly hurt friend
        for a in kinds.get("first_aid", []):
            t = state.by_id.get(a.target or "")
            if t is None:
                continue
            need = 1.0 - A.health_frac(rs, t)
            out.append(Choice(a, (0.25 if t.down else 0.1) * need if not worth else -0.01,
                              f"gives first aid to {t.name}"))
        # grapple escapes and the like: getting free when held
        for a in kinds.get("grapple", []):
            if a.option == "escape":
                out.append(Choice(a, 0.12 if not worth else best_atk - 0.01, "tries to break free"))
        # things to use (healing, bonuses): by what they change, tried on a copy
        if self.exact:
            for a in kinds.get("use", [])[:3]:
                gain = self._gain_after(ctx, a, best_atk)
                out.append(Choice(a, gain - 0.05, use_words(a.option, third=True) if a.option
                                  else f"uses the {weapon_words(a.weapon or 'item')}"))
        return out

    @staticmethod
    def _ready_score(ctx: Ctx, a: Action) -> float:
        """A `ready` while nothing is worth attacking: worth a little, but not a steadied aim that
        no shot this turn uses (seed 004: "Steady a weapon you have drawn for +1 to hit", for the
        turn), and, where only the drawn weapon attacks (`Ruleset.hand_and_reach`), only the weapon that
        reaches farther than the one in hand (the farthest first when none is): drawing one and
        then the other back, turn after turn, wastes the moves the fight needs."""
        if a.option == "steady":
            return -0.01
        hand = ctx.rs.hand_and_reach(ctx.me) if a.option in ("draw", "change") else None
        if hand is None:
            return 0.2
        held, reach = hand
        r = reach.get(a.weapon or "", 0.0)
        if held is None:
            return 0.2 + 0.01 * min(r, 100.0) / 100.0
        return 0.2 if r > reach.get(held, 0.0) + 1e-9 else -0.01

    def _gain_after(self, ctx: Ctx, a: Action, best_atk: float) -> float:
        """Health regained plus attack value gained by doing `a` first (tried on a copy)."""
        s2 = A.after(ctx.rs, ctx.state, a, self.dice)
        me2 = s2.by_id[ctx.me.id]
        heal = A.health_frac(ctx.rs, me2) - ctx.frac
        if A.turn_over(s2) or s2.actor is not me2:
            return heal
        sub = ctx.sub(s2, me2)
        vals = [self.attack_value(sub, o) for o in A.attack_options(ctx.rs, s2, me2) if o.p_hit >= self.p_min]
        return heal + max(0.0, max(vals, default=0.0) - best_atk)


class BoldPolicy(TacticalPolicy):
    """`tactical` that weighs the fire it draws at a tenth (`caution`). Where tactical is too
    timid to finish its fights (metalface, cybergeneration) that wins more of them: in 640
    paired development fights against tactical, 301-237 (102 drawn) in metalface and
    330-234 (76 drawn) in cybergeneration (docs/results.md, Where is the headroom?)."""

    name = "bold"
    caution = 0.1
