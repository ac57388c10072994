"""Defences under seed 002 (`cortex_hu`), and the choices seed 002 gives the defender.

seed 002 rules implemented here (headings of /work/shared/seeds/002_*.txt):
- Kitérés/blokkolás: parries and dodges declared on the figure's turn answer the next
  hand-to-hand attack even after its turn; reactions after its turn are carried into its
  next turn;
- Ösztönös kitérés: innate defence, Easy (3) when not watching, Plot Points;
- Hárítás, Kitérés: parry (not against firearms or energy weapons; a thrown object may be
  parried by reaction; bare-handed against a weapon still takes its damage die) and dodge;
- Teljes körű támadás, Meglepetésből támadás, Csel: innate defence only;
- Fedezékek: cover adds to the Difficulty of ranged attacks.
"""

from __future__ import annotations

from typing import Any

from rules.choices import decide
from rules.calls import RollCall, step_sides
from rules.dice import Dice, Step, roll_steps
from rules.events import Event, event
from rules.snapshot import NOT_PLAIN, PLAIN, plain_copy
from rules.state import BattleState, Combatant
from rules.systems.cortex_common.mechanics import faces
from rules.systems.cortex_common.model import Weapon, plot_point_die, roll_pool
from rules.systems.cortex_hu.combat import named_skill
from rules.systems.cortex_hu.ladder import ladder_pool
from rules.systems.cortex_hu.rolls import fill, mods, tag


#: answers of the `plot_points` question: how many Plot Points to add (seed 002 caps nothing;
#: the data's `plot_points.max_spend`, 6, does: assumption innate_plot_points)
SPEND = tuple(f"spend_{n}" for n in range(7))


class DefenceHu:
    """The defence against an attack for `CortexHuRuleset` (with `CombatHu`'s weapons and skills)."""

    # -- defence ---------------------------------------------------------------------------
    def watches(self, state: BattleState, d: Combatant, a: Combatant) -> bool:
        """seed 002, Ösztönös kitérés: whether the defender watches its attacker."""
        return not d.res["surprised"] and state.grid.los(d.pos, a.pos)

    def innate_only_reason(self, d: Combatant, feinted: bool) -> str | None:
        if feinted:
            return "feinted"
        if d.res["surprised"]:
            return "surprised"
        if d.res["all_out"]:
            return "all-out attack"
        return None

    def cover_against(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str) -> int:
        """seed 002, Fedezékek: the Difficulty bonus of d's cover against a's ranged attack."""
        if not self.ranged_attack(w, option):
            return 0
        g = state.grid
        level = g.cover(d.pos, a.pos)
        if "prone" in d.conditions and g.distance_m(d.pos, a.pos) > self.rng["point_blank_m"] + 1e-9:
            level = max(level, int(self.prone_rules["ranged_cover_level"]))
        return self.cover_table[level]

    def defence_pool(self, d: Combatant, mode: str, steps: int) -> tuple[Step, Step, str] | None:
        """Agility + the parry or dodge skill with `steps` on the ladder (None if impossible)."""
        if mode == "dodge":
            sname, sk = named_skill(d, "athletics", "dodge")
        else:
            sname, sk = self.weapon_skill(d, self.parry_weapon(d))
        p = ladder_pool(d, "agility", sk, steps, self.attr_steps(d, "agility"))
        return None if p is None else (p[0], p[1], sname)

    def parry_weapon(self, d: Combatant) -> Weapon:
        """The figure's best hand-to-hand weapon by skill, size and name (unarmed if none).

        A function of its stat block (never changed in a fight) and its usable weapons, so it
        is kept per ruleset on their identities (the memo holds them, so the ids stay theirs):
        `defence_pool` asks it for every parry listed or weighed."""
        ws = self.usable_weapons(d)
        key = (id(d.stats), *map(id, ws))
        memo = self.__dict__.setdefault("_hu_parry", {})
        hit = memo.get(key)
        if hit is not None:
            return hit[2]
        melee = [w for w in ws if not w.ranged]
        melee.sort(key=lambda w: (self.weapon_skill(d, w)[1].index, w.size, w.name), reverse=True)
        best = melee[0] if melee else self.weapons["unarmed"]
        if len(memo) >= 4096:
            memo.clear()
        memo[key] = (d.stats, ws, best)
        return best

    def prepared_for(self, d: Combatant, w: Weapon, option: str) -> int | None:
        """Index of the first prepared defence that can answer this attack: a parry or dodge
        declared on the turn answers the next hand-to-hand attack (seed 002, Kitérés/blokkolás:
        "közelharcban/kézitusában"); gunfire is dodged by reaction only."""
        if self.ranged_attack(w, option) or not d.res["prepared"]:
            return None
        return 0

    def prone_steps(self, d: Combatant) -> int:
        """The -2 of a figure lying on the ground, now (assumption prone_penalty)."""
        return int(self.prone_rules["steps"]) if "prone" in d.conditions else 0

    def run_steps(self, d: Combatant) -> int:
        """The run's -2 on the figure's actions until its next turn starts, reactions and innate
        defence included (seed 002: "-2 kockafokozatos büntetést ad az utána következő
        cselekvésekre"; assumption run): set by the run, cleared at its next turn start."""
        return int(self.mv["run_penalty_steps"]) if d.res["ran"] else 0

    def prepared_steps(self, d: Combatant, p: dict[str, Any]) -> int:
        """The steps a prepared defence is rolled at: those of its declaration (the ladder, a run,
        full defence) and lying prone as the figure lies when it is rolled (assumption prone_penalty)."""
        return p["steps"] + self.prone_steps(d)

    def reaction_steps(self, d: Combatant) -> int:
        """The ladder step of a reaction: after the actions of its last turn and earlier reactions,
        a run's -2 until its next turn, prone, full defence."""
        steps = -(d.res["last_actions"] + d.res["debt"]) + self.prone_steps(d) + self.run_steps(d)
        if d.res["full_defence"]:
            steps += self.full_defence_steps
        return steps

    def innate_mean(self, state: BattleState, d: Combatant, a: Combatant) -> float:
        if not self.watches(state, d, a) or self.declines_innate(d):
            return float(self.diff["easy"])
        return self.innate_die(d).mean

    def innate_steps(self, d: Combatant) -> list[dict[str, Any]]:
        """seed 002: innate defence "szabad cselekvésnek számít" (counts as a free action), so the
        steps on the figure's actions move its Agility die too: lying on the ground, "-2
        kockafokozat büntetést ... addig" (assumption prone_penalty); after a run, "-2
        kockafokozatos büntetést ad az utána következő cselekvésekre" until its next turn
        (assumption run); full defence's "+2 kockafokozat bónuszt a dobásokra" (assumption
        full_defence). `innate_die` keeps the die at d2 at worst: innate defence is always rolled."""
        return mods(("prone", self.prone_steps(d)), ("running", self.run_steps(d)),
                    ("full defence", self.full_defence_steps if d.res["full_defence"] else 0))

    def innate_more(self, d: Combatant) -> int:
        """`innate_steps` summed without building their list (`innate_die`: `declines_innate` and
        the odds ask it often)."""
        return self.prone_steps(d) + self.run_steps(d) + (self.full_defence_steps if d.res["full_defence"] else 0)

    def reaction_options(self, state: BattleState, d: Combatant, a: Combatant, w: Weapon, option: str
                         ) -> tuple[int, dict[str, tuple[Step, Step, str]], str] | None:
        """(ladder steps, {mode: pool} of the parries and dodges d could make by reaction now,
        the engine's pick): the pick is the mode with the better average when it beats innate
        defence, else "innate" (assumption reactions). None: no reaction is possible."""
        if d.stats["reactions"] == "never" or d.res["debt"] >= self.reaction_limit:
            return None
        steps = self.reaction_steps(d)
        pools: dict[str, tuple[Step, Step, str]] = {}
        best = None
        for mode in ("parry", "dodge"):
            if mode == "parry" and not self.can_parry(w, option):
                continue
            p = self.defence_pool(d, mode, steps)
            if p is None:
                continue
            pools[mode] = p
            mean = p[0].mean + p[1].mean
            if best is None or mean > best[0]:
                best = (mean, mode)
        if best is None:
            return None
        return steps, pools, best[1] if best[0] > self.innate_mean(state, d, a) else "innate"

    def reaction(self, state: BattleState, d: Combatant, a: Combatant, w: Weapon, option: str
                 ) -> tuple[str, tuple[Step, Step, str], int] | None:
        """The reactive parry or dodge the engine picks for d against this attack, if any
        (assumption reactions; the default answer of the `reaction` question)."""
        ro = self.reaction_options(state, d, a, w, option)
        if ro is None or ro[2] == "innate":
            return None
        return ro[2], ro[1][ro[2]], ro[0]

    @staticmethod
    def ask(state: BattleState, d: Combatant, key: str, options: tuple[str, ...], default: str, text: str,
            evs: list[Event]) -> str:
        """The figure's answer to one of seed 002's choices (rules/choices.py). The `choice`
        event is logged when the answer departs from the default, the engine's own pick
        before #32: the default's own events already show it, so fights that take the
        defaults keep their logs byte for byte."""
        way = decide(state, d, key, options, default, text)
        if way != default:
            evs.append(event("choice", actor=d.id, key=key, choice=way))
        return way

    def resolve_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                        atk_total: int, dice: Dice, innate_only: bool = False) -> tuple[int, dict, list[Event]]:
        """The Difficulty to hit d, the events of its defence, and what the defence was.

        The defender's choices (docs/cortex_hu.md, Choices) are asked here, in this order:
        `reaction` (parry, dodge or innate), `parry_weapon`, `innate_defence` (roll or easy),
        `plot_points` (spend_0 ... spend_6)."""
        cb = self.cover_against(state, a, d, w, option)
        info: dict[str, Any] = {}
        pre: list[Event] = []
        why = self.innate_only_reason(d, innate_only)
        if why is None:
            i = self.prepared_for(d, w, option)
            if i is not None:
                p = d.res["prepared"].pop(i)
                steps = self.prepared_steps(d, p)
                pool = self.defence_pool(d, p["mode"], steps)
                if pool is not None:
                    declared = p.get("modifiers", mods(("declared", p["steps"]))) + mods(("prone", self.prone_steps(d)))
                    if p.get("round", state.round) < state.round:
                        # seed 002: a defence brought over from the previous round ("áthozol ...
                        # akár védekezést is"): its next turn may not be full defence or all-out
                        d.res["carried_defence"] = True
                    return self._active_defence(state, a, d, w, p["mode"], pool, steps, cb, dice, "prepared",
                                                declared + self.attr_mods(d, "agility"), atk_total)
            ro = self.reaction_options(state, d, a, w, option)
            if ro is not None:
                steps, pools, default = ro
                # seed 002: "Ha a köröd vége után még felbukkan egyéb támadó is, akkor az ő
                # támadásukat is megpróbálhatod elhárítani" (you may try to ward them off too)
                mode = self.ask(state, d, "reaction", (*pools, "innate"), default,
                                f"{d.id} is attacked by {a.id} off its turn: parry or dodge (a reaction: its next "
                                "turn starts a step lower), or innate defence only?", pre)
                if mode != "innate":
                    modifiers = self.reaction_mods(d) + self.attr_mods(d, "agility")
                    d.res["debt"] += 1
                    self.lose_aim(d)
                    diff, info, evs = self._active_defence(state, a, d, w, mode, pools[mode], steps, cb, dice,
                                                           "reaction", modifiers, atk_total)
                    evs.append(event("effect", target=d.id, effect=f"reacts off its turn: its next turn starts "
                                     f"{d.res['debt']} step{'s' if d.res['debt'] > 1 else ''} lower",
                                     carried=d.res["debt"]))
                    return diff, info, pre + evs
        if not self.watches(state, d, a):
            diff = self.diff["easy"] + cb
            return diff, info, pre + [event("defence", actor=d.id, mode="innate, not watching", difficulty=diff,
                                            cover_bonus=cb)]
        decline = self.declines_innate(d)
        if d.stats["decline_innate"] == "auto":
            # seed 002: "Ha figyeled a támadó(ka)t tehetsz egy Fürgeség próbát" (you may roll Agility)
            decline = self.ask(state, d, "innate_defence", ("roll", "easy"), "easy" if decline else "roll",
                               f"{d.id}'s innate defence against {a.id}: roll Agility or stand as Easy (3)?",
                               pre) == "easy"
        diff, evs = self.innate_defence(d, dice, cb, decline,
                                        against={"figure": a.id, "what": "attack", "total": atk_total})
        fill(evs, "innate_defence", lambda _id: self.attr_mods(d, "agility"))
        if why:
            evs[-1]["mode"] += f" only ({why})"
        if not decline:  # rolled: Plot Points may be added (seed 002, Ösztönös kitérés)
            diff, pev = self.innate_plot_points(state, a, d, atk_total, diff, dice)
            if pev:
                evs[-1:-1] = pev
                evs[-1]["difficulty"] = diff
        return diff, info, pre + evs

    def parry_choice(self, state: BattleState, a: Combatant, d: Combatant, steps: int,
                     pool: tuple[Step, Step, str], evs: list[Event]) -> tuple[Weapon, tuple[Step, Step, str]]:
        """The weapon d parries with, and its pool: the figure's choice among its hand-to-hand
        weapons (seed 002, Hárítás: "Fürgeség+ szükséges képzettség mint pl. közelharc");
        the default is the best melee skill (assumption parry), whose pool is `pool`."""
        best = self.parry_weapon(d)
        if state.asking is None:
            return best, pool
        cands: dict[str, tuple[Weapon, tuple[Step, Step, str]]] = {best.name: (best, pool)}
        agi = self.attr_steps(d, "agility")
        for x in self.usable_weapons(d):
            if x.ranged or x.name in cands:
                continue
            sname, sk = self.weapon_skill(d, x)
            p = ladder_pool(d, "agility", sk, steps, agi)
            if p is not None:
                cands[x.name] = (x, (p[0], p[1], sname))
        if len(cands) == 1:
            return best, pool
        names = tuple(sorted(cands, key=lambda n: (n != best.name, n)))
        return cands[self.ask(state, d, "parry_weapon", names, best.name,
                              f"{d.id} parries {a.id}'s attack: with which weapon?", evs)]

    def _active_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, mode: str,
                        pool: tuple[Step, Step, str], steps: int, cb: int, dice: Dice, how: str,
                        modifiers: list[dict[str, Any]], atk_total: int | None = None
                        ) -> tuple[int, dict, list[Event]]:
        evs: list[Event] = []
        if mode == "parry":
            wp, pool = self.parry_choice(state, a, d, steps, pool, evs)
        r, ev = roll_pool(dice, d.id, f"{mode} ({how})", "agility", pool[0], pool[2], pool[1],
                          extra={"steps": steps, "check": mode, "modifiers": modifiers},
                          against={"figure": a.id, "what": "attack", "total": atk_total})
        diff = r.total + cb
        info: dict[str, Any] = {"mode": mode, "roll": r.total}
        if mode == "parry" and w.name != "unarmed" and wp.name == "unarmed":
            info["bare_parry"] = True
        return diff, info, evs + [ev, event("defence", actor=d.id, mode=f"{mode} ({how})", difficulty=diff,
                                            cover_bonus=cb)]

    def innate_plot_points(self, state: BattleState, a: Combatant, d: Combatant, atk_total: int, diff: int,
                           dice: Dice) -> tuple[int, list[Event]]:
        """Plot Points added to a rolled innate defence that the attack would beat (seed 002:
        "Persze adhatsz bele Plot pontot is, ha gondolod."): how many is the figure's choice
        (question `plot_points`, spend_0 up to its points, at most `max_spend`); the default
        is the fewest whose die could lift the roll over the attack, none when no number
        could (assumption innate_plot_points). The die is added to the Difficulty."""
        if d.res["pp"] <= 0 or atk_total < diff:
            return diff, []
        gap = atk_total - diff + 1
        cap = min(d.res["pp"], int(self.pp_rules["max_spend"]))
        n = next((k for k in range(1, cap + 1) if plot_point_die(k).maximum >= gap), 0)
        out: list[Event] = []
        n = int(self.ask(state, d, "plot_points", SPEND[:cap + 1], SPEND[n],
                         f"{d.id}'s innate defence {diff} against {a.id}'s {atk_total}: add how many of its "
                         f"{d.res['pp']} Plot Points?", out)[len("spend_"):])
        if n == 0:
            return diff, out
        d.res["pp"] -= n
        die = plot_point_die(n)
        purpose = f"spends {n} Plot Point{'s' if n > 1 else ''} on innate defence"
        r = roll_steps(dice, (die,), "plot points",
                       RollCall(d.id, purpose, "plot_points", str(die), step_sides((die,)),
                                against={"figure": a.id, "what": "attack", "total": atk_total}, label="plot points"))
        return diff + r.total, out + [tag(event("roll", actor=d.id, purpose=f"spends {n} Plot Point"
                                                f"{'s' if n > 1 else ''} on innate defence", pool=str(die),
                                                dice=faces(r), total=r.total, points=n), "plot_points")]

    def expected_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                         innate_only: bool = False) -> tuple[tuple[int, ...], int]:
        """(defence dice sides, flat addition) that `resolve_defence` would use now, without rolling."""
        return self._expected(state, a, d, w, option, innate_only)[::2]

    def sorted_defence(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                       innate_only: bool = False) -> tuple[tuple[int, ...], int]:
        """`expected_defence` with its dice sorted (as `attack_odds` prices them)."""
        return self._expected(state, a, d, w, option, innate_only)[1:]

    def _expected(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                  innate_only: bool) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """(dice, dice sorted, flat addition) of `expected_defence`: the part read of the
        defender alone kept per its version (`_defender_part`), the cover added."""
        f = defender(self, d)
        answers = None if f is None else f.answers
        key = (w.name == "unarmed", self.ranged_attack(w, option), self.can_parry(w, option), innate_only,
               self.watches(state, d, a))
        part = None if answers is None else answers.get(key)
        if part is None:
            part = self._defence_part(state, a, d, w, option, innate_only)
            if answers is not None:
                answers[key] = part
        dice, sdice, flat, covered = part
        return dice, sdice, (flat + self.cover_against(state, a, d, w, option) if covered else flat)

    def _defence_part(self, state: BattleState, a: Combatant, d: Combatant, w: Weapon, option: str,
                      innate_only: bool) -> tuple[tuple[int, ...], tuple[int, ...], int, bool]:
        """(dice, dice sorted, flat addition, whether the cover bonus is added) of
        `expected_defence`: what it reads of the attack is whether the weapon is bare hands,
        whether the attack is ranged and whether it can be parried; of the state and the
        attacker, whether the defender watches it, and the cover (left out here)."""
        if d.res["grappled_by"] is not None and w.name == "unarmed":
            return (), (), self.held_difficulty, False
        if self.innate_only_reason(d, innate_only) is None:
            i = self.prepared_for(d, w, option)
            pool = None
            if i is not None:
                p = d.res["prepared"][i]
                pool = self.defence_pool(d, p["mode"], self.prepared_steps(d, p))
            if pool is None:
                react = self.reaction(state, d, a, w, option)
                pool = react[1] if react is not None else None
            if pool is not None:
                dice = pool[0].dice + pool[1].dice
                return dice, tuple(sorted(dice)), 0, True
        if not self.watches(state, d, a) or self.declines_innate(d):
            return (), (), self.diff["easy"], True
        dice = self.innate_die(d).dice
        return dice, tuple(sorted(dice)), 0, True


#: leaves a defender's resources may hold that a snapshot keeps as they are (never changed)
_LEAF = PLAIN | {Weapon}
#: versions kept per figure id (the newest first)
_VERSIONS = 8


class _Defender:
    """A figure as it was, less its position: the parts `_defence_part` may read (its stat
    block, weapons, armour and traits, shared by its copies; its conditions and resources,
    copied deep), and the answers worked out for it."""

    __slots__ = ("stats", "weapons", "armour", "traits", "conditions", "res", "answers")

    def __init__(self, d: Combatant, res: dict) -> None:
        self.stats, self.weapons, self.armour, self.traits = d.stats, d.weapons, d.armour, d.traits
        self.conditions = frozenset(d.conditions)
        self.res = res
        self.answers: dict[tuple, tuple] = {}


def defender(rs: Any, d: Combatant) -> _Defender | None:
    """The version of a figure equal to `d` but for its position (a new one for a figure not
    seen yet), whose `answers` are those of `rs._defence_part`; None when `d` holds something a
    snapshot cannot copy (then the caller works its answer out each time). The answers are
    keyed by what `_defence_part` reads of the attack, the state and the attacker (bare hands,
    ranged, can be parried, innate only, watching), exact because of all the rest it reads only
    what `_Defender` keeps: the defender's stat block, weapons, armour, conditions and resources."""
    memo = rs.__dict__.setdefault("_hu_defenders", {})
    seen = memo.get(d.id)
    if seen is None:
        seen = memo[d.id] = []
    for i, f in enumerate(seen):
        if (f.stats is d.stats and f.weapons is d.weapons and f.armour is d.armour and f.traits is d.traits
                and f.conditions == d.conditions and f.res == d.res):
            if i:
                seen.insert(0, seen.pop(i))
            return f
    res = plain_copy(d.res, _LEAF)
    if res is NOT_PLAIN:
        return None
    f = _Defender(d, res)
    seen.insert(0, f)
    del seen[_VERSIONS:]
    return f
