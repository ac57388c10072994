"""`tactical`'s positions and moves: what standing at a cell is worth (`offence_at`,
`exposure`, the quick scores of agents/positions.py, the exact value of agents/refine.py),
the moves before attacking (firing positions, progress towards a goal within two turns)
and after (falling back), and the words for them. A mixin of `TacticalPolicy`
(agents/tactical.py), whose attributes (`charge`, `refine`, `goal`, `lite`, `dice`,
`move_margin`, `_tier_cache` ...) it reads."""

from __future__ import annotations

from rules.actions import Action
from rules.state import Combatant

from agents import assess as A
from agents import positions as P
from agents import refine as R
from agents.refine import ATTACKS_PER_TURN
from agents.tactical_types import Choice, Ctx, ScoreParts, TurnMemory


class MoveChoices:
    # positions ----------------------------------------------------------------------
    def exposure(self, ctx: Ctx, cell: int) -> tuple[float, int]:
        """(expected damage fraction a turn of enemy fire at `cell` costs, enemies that see it)."""
        g = ctx.state.grid
        w = g.width
        cx, cy = cell % w, cell // w
        total = 0.0
        charging: list[float] = []
        seen = 0
        for e, pos, ex, ey, reach, d, _prio in ctx.table:
            if reach <= A.MELEE_REACH_M:
                cheb = max(abs(ex - cx), abs(ey - cy))
                if cheb <= 1:
                    total += d
                else:
                    charging.append(d * self.melee_threat(cheb))
                continue
            if not g.los(pos, cell):
                continue
            seen += 1
            if g.distance_m(pos, cell) > reach:
                continue
            total += d * (1.0 - A.COVER_PROTECTION[g.cover(cell, pos)])
        return (total + R.charge_sum(charging)) * ATTACKS_PER_TURN, seen

    def offence_at(self, ctx: Ctx, cell: int) -> tuple[float, Combatant | None]:
        """Quick estimate of a turn's attack value from `cell` and the best target from there."""
        g = ctx.state.grid
        w = g.width
        cx, cy = cell % w, cell // w
        best, tgt = 0.0, None
        near = 1 << 30
        for e, pos, ex, ey, _reach, _d, prio in ctx.table:
            cheb = max(abs(ex - cx), abs(ey - cy))
            if cheb < near:
                near = cheb
            if ctx.melee:
                if cheb > 1:
                    continue
                f = 1.0
            else:
                if g.distance_m(cell, pos) > ctx.reach or not g.los(cell, pos):
                    continue
                f = 1.0 - A.COVER_PROTECTION[g.cover(pos, cell)]
            v = f * prio
            if v > best:
                best, tgt = v, e
        if tgt is not None:
            return best * ctx.offence * ATTACKS_PER_TURN * ctx.aggression, tgt
        # nobody to attack from there: a pull towards the enemies, to close in
        if ctx.melee:
            pull = 0.5 if near - 1 <= self.charge else 0.4 * max(0.0, 1.0 - (near - 1 - self.charge) / 24.0)
        else:
            pull = 0.3 * max(0.0, 1.0 - near / 30.0)
        return pull * ctx.offence * ctx.aggression, None

    def melee_threat(self, cheb: int) -> float:
        """How likely a hand-to-hand enemy `cheb` cells away strikes next turn."""
        if cheb <= 1:
            return 1.0
        return 0.5 if cheb - 1 <= self.charge else 0.0

    def _fill_quick(self, ctx: Ctx, cells: list[int]) -> None:
        """`quick_value` of many cells at once (agents/positions.py: the same numbers), kept in the memo."""
        todo = list(dict.fromkeys(c for c in cells if c not in ctx.parts))
        if len(todo) < P.MIN_CELLS or not self._plain_quick:
            return
        vals, off, aims, expo = P.quick_parts(ctx, todo, self.charge, ATTACKS_PER_TURN)
        ctx.memo.update(zip(todo, vals))
        ctx.parts.update(zip(todo, zip(off, aims, expo)))

    def _parts(self, ctx: Ctx, cell: int) -> tuple[float, bool, float]:
        """(offence_at(cell)[0], whether it names a target, exposure(cell)[0]): from `_fill_quick`'s
        numbers where it scored the cell, else the per-cell methods."""
        p = ctx.parts.get(cell)
        if p is None:
            off, tgt = self.offence_at(ctx, cell)
            p = (off, tgt is not None, self.exposure(ctx, cell)[0])
        return p

    @property
    def _plain_quick(self) -> bool:
        """Whether the quick scores are this class's own (a subclass may change a part of them)."""
        cls = type(self)
        return (cls.offence_at is MoveChoices.offence_at and cls.exposure is MoveChoices.exposure
                and cls.melee_threat is MoveChoices.melee_threat and cls.quick_value is MoveChoices.quick_value)

    def quick_value(self, ctx: Ctx, cell: int) -> float:
        v = ctx.memo.get(cell)
        if v is None:
            off, _ = self.offence_at(ctx, cell)
            expo, _ = self.exposure(ctx, cell)
            v = ctx.memo[cell] = off - ctx.def_weight * expo
        return v

    def exact_value(self, ctx: Ctx, cell: int, move: Action | None, bar: float | None = None,
                    bonus: float = 0.0) -> tuple[float, float, float]:
        """(value, offence, exposure) of standing at `cell`, from the rules' odds on a copy
        (agents/refine.py; `bar`, `bonus`: where an upper bound will do)."""
        return R.exact_value(self, ctx, cell, move, bar, bonus)

    def _move_choices(self, ctx: Ctx, mem: TurnMemory, moves: list[Action], best_atk: float,
                      worth: bool) -> list[Choice]:
        state = ctx.state
        me = ctx.me
        firing = mem.moves == 0 and mem.attacks == 0
        if not firing and (mem.moves >= 2 or worth):
            return []  # attack first; falling back comes when attacking is no longer worth it
        tiers = A.move_tiers(ctx.rs, state, moves, self.dice, self._tier_cache)
        if firing:
            g = state.grid
            reach = [g.chebyshev(me.pos, m.cell) for m in moves if not tiers.get(m.cell, (0, False))[1]]
            if reach:
                self.charge = max(2, max(reach))
            # where to fight from: attacks allowed against fire drawn, plus progress towards
            # the best position within two turns' movement (flanking, closing in)
            progress = self._goal_progress(ctx, moves, tiers) if self.goal else {}
            self._fill_quick(ctx, [m.cell for m in moves])
            cand = []
            expo_of: dict[int, float] = {}   # cell -> the exposure its value was scored with (ScoreParts)
            for m in moves:
                used, ends = tiers.get(m.cell, (0.0, False))
                q = self.quick_value(ctx, m.cell) - 0.08 * used
                if ends:  # a run: no attack this turn, but it closes in or reaches cover
                    off_q, aims, expo = self._parts(ctx, m.cell)
                    expo_of[m.cell] = expo
                    # a shot next turn is worth less the longer a stand-off lasts: the enemy
                    # moves before then, and two sides that only ever run to a firing spot
                    # dance until the round limit (seen in cybergeneration and metalface)
                    later = ctx.later if aims else 0.5
                    q = later * off_q - ctx.def_weight * expo - 0.1
                cand.append((q + progress.get(m.cell, 0.0), m))
            cand.sort(key=lambda x: (-x[0], x[1].cell))
            if self.refine:
                base, _, ctx.expo_here = self.exact_value(ctx, me.pos, None)
            else:
                base = self.quick_value(ctx, me.pos)
            scored: list[tuple[float, Action]] = []
            for q, m in cand[:max(self.refine, 1)]:
                used, ends = tiers.get(m.cell, (0.0, False))
                if self.refine and not ends:
                    # only the best three are kept: below the third so far, an upper bound will do
                    # (and the exposure of a cell kept is complete: its value reached the bar)
                    bonus = progress.get(m.cell, 0.0)
                    v, _, expo_of[m.cell] = self.exact_value(ctx, m.cell, m, R.third_best(scored), bonus)
                    v += bonus
                else:
                    v = q
                scored.append((v, m))
            scored.sort(key=lambda x: (-x[0], x[1].cell))
            out = []
            for v, m in scored[:3]:
                gain = v - base
                reason = self._move_words(ctx, m.cell, "moves to")
                parts = self._move_parts(ctx, m.cell, expo_of.get(m.cell))
                if gain > self.move_margin:
                    out.append(Choice(m, best_atk + gain + 0.01, reason, parts))
                else:
                    out.append(Choice(m, gain - self.move_margin, reason, parts))
            return out
        # after attacking (or with nothing worth attacking): fall back to the safest free cell
        free = [m for m in moves if tiers.get(m.cell, (0.0, False)) == (0.0, False)]
        if not free and not worth and mem.attacks == 0:
            free = [m for m in moves if not tiers.get(m.cell, (0.0, False))[1]]
        if not free:
            return []
        self._fill_quick(ctx, [me.pos] + [m.cell for m in free])
        off_here, _, expo_here = self._parts(ctx, me.pos)
        ctx.expo_here = expo_here
        keep = 0.6  # how much being able to attack from there next turn counts
        base = -ctx.def_weight * expo_here + keep * off_here
        cand = []
        for m in free:
            off, _, expo = self._parts(ctx, m.cell)
            v = -ctx.def_weight * expo + keep * off
            cand.append((v, m, expo))
        cand.sort(key=lambda x: (-x[0], x[1].cell))
        out = []
        for v, m, expo in cand[:2]:
            gain = v - base
            verb = "falls back to" if gain > 0 and expo_here > 0 else "moves to"
            score = gain - self.move_margin + (0.05 if gain > self.move_margin else 0.0)
            out.append(Choice(m, score, self._move_words(ctx, m.cell, verb), ScoreParts(exposure=expo)))
        return out

    @staticmethod
    def _move_parts(ctx: Ctx, cell: int, expo: float | None) -> ScoreParts:
        """A firing move's `ScoreParts`: the best attack the exact value found from `cell` this
        turn (`ctx.shots`), and the exposure the cell was scored with (None: quick-scored)."""
        shot = ctx.shots.get(cell)
        if shot is None:
            return ScoreParts(exposure=expo)
        t = ctx.state.by_id[shot.action.target]
        return ScoreParts(shot.p_hit, shot.exp_damage / A.hp_left(ctx.rs, t), expo)

    def _goal_progress(self, ctx: Ctx, moves: list[Action], tiers: dict) -> dict[int, float]:
        """cell -> bonus for getting closer to the best position within two turns' movement.

        The goal is the cell (beyond this turn's reach too) with the best quick value; a move
        earns part of the goal's advantage over standing still, in proportion to the path
        it saves towards it."""
        state, me = ctx.state, ctx.me
        g = state.grid
        costs = A.move_costs(state, me, (m.cell for m in moves))
        one_turn = max((costs[m.cell] for m in moves), default=0)
        if one_turn <= 0:
            return {}
        blockers = [e.pos for e in ctx.enemies]
        region = g.reachable(me.pos, 2 * one_turn, blockers)
        occupied = {c.pos for c in state.combatants if not c.down and c.id != me.id}
        sparse = self.lite  # quick version: only cells by cover or next to an enemy can be goals
        looks = [(cell, cost) for cell, cost in region.items()
                 if not (cost > 2 * one_turn or cell in occupied)
                 and not (sparse and not g.cover_near(cell) and all(g.chebyshev(cell, e.pos) > 1 for e in ctx.enemies))]
        self._fill_quick(ctx, [me.pos] + [cell for cell, _ in looks])
        here = self.quick_value(ctx, me.pos)
        best_v, goal = here, None
        for cell, cost in looks:
            v = self.quick_value(ctx, cell) - 0.002 * cost
            if v > best_v + 1e-9:
                best_v, goal = v, cell
        if goal is None or best_v - here < self.move_margin:
            return {}
        back = g.reachable(goal, 2 * one_turn, blockers)
        d0 = back.get(me.pos)
        if not d0:
            return {}
        gain = 0.6 * (best_v - here)
        out = {}
        for m in moves:
            d = back.get(m.cell)
            if d is not None and d < d0:
                out[m.cell] = gain * (d0 - d) / d0
        return out

    def _move_words(self, ctx: Ctx, cell: int, verb: str) -> str:
        g = ctx.state.grid
        seeing = [e for e in ctx.enemies if g.los(e.pos, cell)]
        levels = [g.cover(cell, e.pos) for e in seeing]
        if seeing and min(levels) > 0:
            words = A.cover_words(ctx.state, cell, seeing[levels.index(min(levels))].pos)
            where = f"{words} vs {len(seeing)} {'enemy' if len(seeing) == 1 else 'enemies'}"
        elif not seeing:
            where = "out of every enemy's sight"
        else:
            exposed = sum(1 for lv in levels if lv == 0)
            where = f"exposed to {exposed} of {len(seeing)} enemies in sight"
        _, tgt = self.offence_at(ctx, cell)
        aim = ""
        shot = ctx.shots.get(cell)
        if shot is not None:
            t = ctx.state.by_id[shot.action.target]
            wounded = " (wounded)" if A.health_frac(ctx.rs, t) < 0.5 else ""
            verb2 = "attack" if g.chebyshev(cell, t.pos) <= 1 else "fire at"
            aim = f" to {verb2} {t.name}{wounded}: {shot.p_hit:.0%} to hit"
        elif tgt is not None:
            cov = A.cover_name(g.cover(tgt.pos, cell))
            aim = f", {tgt.name} in {cov} cover from there" if cov != "none" else f", {tgt.name} in the open from there"
        x, y = g.xy(cell)
        return f"{verb} [{x}, {y}] ({where}){aim}"
