"""`cortex_hu`'s attack listing and offence query (issue #30): the acting figure's attacks
listed (`attack_list`, what `CombatHu.attack_actions` gives) and listed and priced in one walk
(`priced_attacks`, what `agents.assess.attack_options` finds with `legal_attacks` and
`attack_odds_many`).

Both are exact because of how seed 002's ladder decides an attack (`ladder.ladder_pool`): the
pool exists iff the stepped die - the skill die, or the attribute die (after its own steps)
when unskilled - stays at d2 or above, i.e. iff `steps >= 1 - D` with D that die's index. So
with K = (the steps every option of a weapon's kind shares: ladder, run, prone, range band,
aim, an all-out attack under way) - (1 - D), an option is listed iff `K + its own steps >= 0`
(its called-shot, disarm or all-out steps: `option_steps`, `all_out_steps`), and its pool is
the unstepped die and Step(1 + K + its own steps). The walk finds K for the plain options,
the throw and the choke of each target and weapon with the same reach, line-of-sight, rate
of fire, ammunition and range checks as `attack_actions` had (kept in
tests/test_cortex_hu_offence.py), so what it lists is a function of (target, weapon, the
K's, whether the target holds a weapon to disarm, whether an all-out attack may start), and
is kept per ruleset on those (`_LISTED`): the same attacks from many cells are worked out once.

The priced rows follow `odds.attack_odds` operation for operation (the same pool dice, sorted;
the same `expected_defence`, which reads the attack only through the weapon's name and
whether the attack is ranged; the same damage die mean and float arithmetic), so the floats
are the same bit for bit; they are a function of the listed rows, the pool's unstepped die,
the defences and the armour, and are kept on those too (`_PRICED`).
tests/test_cortex_hu_offence.py compares both with the long ways on every decision of
seeded fights.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from rules.actions import Action
from rules.dice import Step
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.odds import hit_stats
from rules.systems.cortex_hu.odds import NO_EXTRAORDINARY

Priced = tuple[Action, float, float, float]

#: kinds of option: the plain kind (every option but two), the improvised throw, the choke
PLAIN, THROW, CHOKE = 0, 1, 2
#: what a hit does: damage, a choke's all-Stun damage, nothing (a disarm, a grapple)
HURT, CHOKES, NO_DAMAGE = 0, 1, 2
#: the memos are emptied when they grow past this many entries
_MAX = 8192


def _statics(rs: Any, w: Any) -> tuple[tuple, ...]:
    """(option, kind, its own steps, all-out, disarm, damage steps a hit adds or None) of each
    attack option a weapon like `w` may have, in `attack_options` order: the options
    `attack_actions` skips for the weapon itself (a throw of anything but a melee weapon, a
    choke but bare-handed, a disarm with a thrown weapon) left out. A function of the
    weapon's kind, whether it is bare hands and whether it is ranged (`option_steps` reads
    only that), kept per ruleset."""
    key = (w.kind, w.name == "unarmed", w.ranged)
    memo = rs.__dict__.setdefault("_hu_statics", {})
    hit = memo.get(key)
    if hit is not None:
        return hit
    areas = rs.called["areas"]
    out = []
    for opt in rs.attack_options:
        if opt == "throw":
            if w.kind != "melee" or w.name == "unarmed":
                continue
            kind = THROW
        elif opt == "choke":
            if w.name != "unarmed":
                continue
            kind = CHOKE
        else:
            if opt == "disarm" and w.kind == "thrown":
                continue
            kind = PLAIN
        steps = rs.option_steps(w, opt) + (rs.all_out_steps if opt == "all_out" else 0)
        dsteps = None
        if opt.startswith("called:") and not opt.endswith("_waive"):
            dsteps = int(areas[rs.area_of(opt)]["damage_steps"])
        out.append((opt, kind, steps, opt == "all_out", opt == "disarm", dsteps))
    memo[key] = res = tuple(out)
    return res


class _Walk:
    """What `attack_actions` works out once per call: the figure's ladder, stance and aim,
    and per weapon the index D of the die its plain attack and its throw step."""

    __slots__ = ("rs", "state", "a", "shift", "aim", "ao_ok", "ds", "tw")

    def __init__(self, rs: Any, state: BattleState, a: Combatant) -> None:
        e = state.economy
        self.rs, self.state, self.a = rs, state, a
        # `attack_actions`' sum: whole numbers, so any order gives the same
        self.shift = rs.turn_steps(state, a) + (rs.all_out_steps if e["all_out"] else 0)
        self.aim = a.res["aim"] * int(rs.aim_rules["steps_per_round"])
        self.ao_ok = not (e["acted"] or e["carried"] or e["full_defence"] or e["all_out"])
        self.ds: dict[tuple[str, bool], tuple[int, Step | None]] = {}
        self.tw: dict[str, int | None] = {}

    def die(self, w: Any, throw: bool) -> tuple[int, Step | None]:
        """(D, the unstepped die of the pool or None when the stepped die is the only one):
        `ladder_pool(a, attr, skill, steps, attr_steps)` is (unstepped, Step(D + steps)) when
        D + steps >= 1, else None."""
        key = (w.name, throw)
        hit = self.ds.get(key)
        if hit is None:
            rs, a = self.rs, self.a
            sk = rs.weapon_skill(a, w, "throw" if throw else "")[1]
            attr = "agility" if throw else w.attribute
            at = Step(max(1, a.stats["attributes"][attr].index + rs.attr_steps(a, attr)))
            hit = self.ds[key] = (sk.index, at) if sk else (at.index, None)
        return hit

    def throw_top(self, w: Any) -> int | None:
        """The most own steps of a throw row of `w` (`_statics`), None when it has none."""
        hit = self.tw.get(w.name, False)
        if hit is False:
            hit = self.tw[w.name] = max((st for _, kind, st, *_ in _statics(self.rs, w) if kind == THROW),
                                        default=None)
        return hit


def _listed(rs: Any, walk: _Walk, t: Combatant, w: Any, los: bool, adj: bool, holder: str | None,
            grappling: str | None, throw_band: list, disarm: bool = True) -> tuple[tuple, tuple[tuple, ...]] | None:
    """(key, rows) of the attacks on `t` with `w` that `attack_actions` lists, each row
    (action, kind, the pool's K + own steps, damage steps or None, what a hit does); None
    when there is none. `throw_band`: [range steps of a throw at `t`], worked out once.
    `disarm` False: disarms left out (the threat query: they do no damage); then what is
    listed reads of `t` only its id and where it stands."""
    state, a = walk.state, walk.a
    e = state.economy
    if w.ranged:
        reach = (holder is None and los and e["shots"].get(w.name, 0) < w.rof
                 and not (w.magazine and a.res["ammo"].get(w.name, 0) <= 0))
    else:
        reach = adj
    aim = walk.aim if w.ranged else 0
    kp = kt = kc = None
    if reach:
        band = rs.range_steps(state, a, t, w, "")
        if band is not None:
            kp = walk.shift + band + aim - (1 - walk.die(w, False)[0])
    tid = t.id
    unarmed = w.name == "unarmed"
    if unarmed:
        if grappling == tid:
            b = rs.range_steps(state, a, t, w, "choke")  # held fast: no reach check
            if b is not None:
                kc = walk.shift + b + aim - (1 - walk.die(w, False)[0])
    elif holder is None and w.kind == "melee" and los:
        if not throw_band:
            throw_band.append(rs.range_steps(state, a, t, w, "throw"))
        if throw_band[0] is not None:
            kt = walk.shift + throw_band[0] + walk.aim - (1 - walk.die(w, True)[0])
            top = walk.throw_top(w)
            if top is None or kt + top < 0:
                kt = None  # no throw row is listed (K + own steps < 0): the rows are those of kt None
    if kp is None and kt is None and kc is None:
        return None
    dis = disarm and kp is not None and w.kind != "thrown" and rs.held_weapon(t) is not None
    key = (tid, w.name, w.kind, unarmed, kp, kt, kc, dis, walk.ao_ok)
    memo = rs.__dict__.setdefault("_hu_listed", {})
    rows = memo.get(key)
    if rows is None:
        act = rs.action
        out = []
        for opt, kind, steps, all_out, disarm, dsteps in _statics(rs, w):
            k = kp if kind == PLAIN else kt if kind == THROW else kc
            if k is None or k + steps < 0 or (all_out and not walk.ao_ok) or (disarm and not dis):
                continue
            out.append((act("attack", target=tid, weapon=w.name, option=opt or None), kind, k + steps, dsteps,
                        CHOKES if kind == CHOKE else NO_DAMAGE if disarm else HURT))
        if len(memo) >= _MAX:
            memo.clear()
        memo[key] = rows = tuple(out)
    return (key, rows) if rows else None


def attack_list(rs: Any, state: BattleState, a: Combatant) -> list[Action]:
    """`CombatHu.attack_actions(state, a)`: every legal attack of `a`, in its order."""
    ws = rs.usable_weapons(a)
    if not ws:
        return []
    return attacks_on(rs, state, a, ws, [t for t in state.combatants if t.team != a.team and not t.down])


def attacks_on(rs: Any, state: BattleState, a: Combatant, ws: list, foes: list[Combatant]) -> list[Action]:
    """`attack_list` given `a`'s usable weapons `ws` (not empty) and the standing figures of
    other teams `foes`, in figure order (the listing has both already)."""
    out: list[Action] = []
    g = state.grid
    walk = _Walk(rs, state, a)
    holder = a.res["grappled_by"]
    grappling = a.res["grappling"]
    apos = a.pos
    for t in foes:
        if holder is not None and t.id != holder:
            continue  # a held figure fights only its holder
        los = g.los(apos, t.pos)
        adj = g.adjacent(apos, t.pos)
        throw_band: list = []
        for w in ws:
            got = _listed(rs, walk, t, w, los, adj, holder, grappling, throw_band)
            if got is not None:
                out.extend(r[0] for r in got[1])
    return out


def _price(att: tuple[int, ...], dfn: tuple[tuple[int, ...], int], mean: float, dtype: str, does: int,
           aw: int, as_: int) -> tuple[float, float, float]:
    """(p_hit, exp_damage, damage_if_hit) as `attack_odds` and `attack_options` work them out."""
    p_hit, e_margin, _ = hit_stats(att, dfn[0], dfn[1], 0, 0, NO_EXTRAORDINARY)
    if does == NO_DAMAGE:
        return p_hit, 0.0, 0.0
    basic = e_margin
    if does == CHOKES:
        stun, wound = basic + mean, 0.0
    else:
        stun, wound = basic / 2, basic / 2
        if dtype == "S":
            stun += mean
        elif dtype == "W":
            wound += mean
        else:
            stun += mean / 2
            wound += mean / 2
    dmg = max(0.0, wound - aw) + max(0.0, stun - as_)
    return p_hit, p_hit * dmg, dmg


def priced_on(rs: Any, walk: _Walk, t: Combatant, ws: list, los: bool, adj: bool, holder: str | None,
              grappling: str | None, defence: Callable[[Combatant, Any, bool, str], tuple]
              ) -> Iterator[tuple[Any, tuple[Priced, ...], float]]:
    """Per weapon of `ws` with an attack on `t` that `attack_actions` lists: (the weapon, its
    priced rows (action, p_hit, exp_damage, damage_if_hit) in order, max(0.0, their
    exp_damage)). `defence(t, w, ranged, option)`: `expected_defence`, dice sorted."""
    throw_band: list = []
    aw = as_ = None
    for w in ws:
        got = _listed(rs, walk, t, w, los, adj, holder, grappling, throw_band)
        if got is None:
            continue
        if aw is None:
            aw = sum(x.W for x in t.armour)
            as_ = sum(x.S for x in t.armour)
        yield priced_rows(rs, walk, t, w, got[0], got[1], defence, aw, as_)


def priced_rows(rs: Any, walk: _Walk, t: Combatant, w: Any, lkey: tuple, rows: tuple, defence: Callable,
                aw: int, as_: int) -> tuple[Any, tuple[Priced, ...], float]:
    """`priced_on`'s answer for one weapon's listed `rows` (`_listed`) on `t`, armour (aw, as_)."""
    dp = defence(t, w, w.ranged, "") if any(r[1] != THROW for r in rows) else None
    dt = defence(t, w, True, "throw") if any(r[1] == THROW for r in rows) else None
    pk = (lkey, id(w), walk.die(w, False)[1] if dp is not None else None,
          walk.die(w, True)[1] if dt is not None else None, dp, dt, aw, as_)
    memo = rs.__dict__.setdefault("_hu_priced", {})
    hit = memo.get(pk)
    if hit is None or hit[0] is not w:
        priced = []
        best = 0.0
        for x, kind, n, dsteps, does in rows:
            throw = kind == THROW
            fixed = walk.die(w, throw)[1]
            stepped = Step(1 + n)
            att = tuple(sorted(stepped.dice if fixed is None else fixed.dice + stepped.dice))
            die = w.damage
            if dsteps is not None:
                die = die + dsteps
            row = _price(att, dt if throw else dp, die.mean, w.dtype, does, aw, as_)
            if row[1] > best:
                best = row[1]
            priced.append((x, *row))
        if len(memo) >= _MAX:
            memo.clear()
        hit = memo[pk] = (w, tuple(priced), best)
    return hit


def priced_attacks(rs: Any, state: BattleState, a: Combatant, plain_only: bool = False) -> list[Priced] | None:
    """[(action, p_hit, exp_damage, damage_if_hit)] of each attack-like action `legal_attacks`
    lists that `attack_odds_many` prices (`plain_only`: those without an option), in order;
    None when `a` is not the acting figure, a question is open, or a weapon's name is shared
    (the long way then answers)."""
    if state.pending is not None or a is None or a is not state.actor:
        return None
    out: list[Priced] = []
    e = state.economy
    if a.down or e["aimed"] or e["full_defence"]:
        return out  # `legal_attacks` lists at most the release (a grapple option: no odds)
    ws = rs.usable_weapons(a)
    for w in ws:
        if rs.weapon_named(a, w.name) is not w:  # as `attack_odds` looks the weapon up
            return None
    g = state.grid
    holder = a.res["grappled_by"]
    grappling = a.res["grappling"]
    apos = a.pos
    dfns: dict[tuple, tuple] = {}

    def defence(t: Combatant, w: Any, ranged: bool, option: str) -> tuple:
        """`expected_defence` of `t`, dice sorted, as `attack_odds_many` shares it."""
        key = (t.id, w.name, ranged)
        hit = dfns.get(key)
        if hit is None:
            hit = dfns[key] = rs.sorted_defence(state, a, t, w, option, innate_only=t.res["feinted_by"] is not None)
        return hit

    if ws:
        walk = _Walk(rs, state, a)
        for t in state.combatants:
            if t.team == a.team or t.down:
                continue
            if holder is not None and t.id != holder:
                continue
            for hit in priced_on(rs, walk, t, ws, g.los(apos, t.pos), g.adjacent(apos, t.pos), holder, grappling,
                                 defence):
                if plain_only:
                    out.extend(r for r in hit[1] if r[0].option is None)
                else:
                    out.extend(hit[1])
    if holder is None:
        pool = None
        unarmed = rs.weapons["unarmed"]
        for t in state.combatants:
            if not rs.can_grapple(state, a, t):
                continue
            if pool is None:
                p = rs.grapple_pool(state, a)
                pool = tuple(sorted(p[0].dice + p[1].dice))
            dfn = defence(t, unarmed, False, "grapple")
            p_hit = hit_stats(pool, dfn[0], dfn[1], 0, 0, NO_EXTRAORDINARY)[0]
            out.append((rs.action("grapple", target=t.id), p_hit, 0.0, 0.0))
    return out


class OffenceHu:
    """`priced_attacks` for `CortexHuRuleset` (the offence query: `Ruleset.priced_attacks`)."""

    def priced_attacks(self, state: BattleState, actor: Combatant, plain_only: bool = False
                       ) -> list[Priced] | None:
        return priced_attacks(self, state, actor, plain_only)


__all__ = ["OffenceHu", "attack_list", "attacks_on", "priced_attacks", "priced_on"]

