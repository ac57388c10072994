"""The choices seed 000 gives a figure during an attack, asked as its side's decisions
(rules/choices.py; issue #32, second wave):

- `innate_defence` (roll, stand): "A defender may choose not to roll innate defense and
  remain a stationary Easy target (Difficulty 3)", asked only of a figure whose stat block
  says `decline_innate: auto`;
- `dodge_cover` (compass points): which cover a ranged dodge dives to, "A targeted character
  can dodge against ranged attacks only if there is some kind of cover in the area";
- `improvised_skill` (melee_weapons, unarmed): "Attacking with an improvised weapon uses
  Unarmed Combat/Brawling or the Melee Weapons general skill";
- `krav_maga_rifle` (use, not_use): "an assault rifle may be used to add d6B damage to an
  Unarmed attack";
- `plot_points_damage` (pp_0 ... pp_N): how many Plot Points to spend against a hit
  (RULES-NOTES: "PP spent just after taking damage reduce it by the same die").

Each default is the engine's choice before these were questions, so scripted fights keep
their play. These come up at almost every attack, so the rules log a `choice` event for
them only when the answer departs from the default (the `question` event shows where a
fight waited for one); what the default did is in the `defence` and `roll` events as before.
"""

from __future__ import annotations

import math

from rules.choices import decide
from rules import calls
from rules.calls import RollCall, step_sides
from rules.dice import D0, Dice, Step, roll_steps
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cortex.explosions import DIRECTIONS
from rules.systems.cortex.model import Weapon, brawling, make_pool
from rules.systems.cortex.modifiers import bonus_dice
from rules.systems.cortex.traits import plot_point_die

#: the answers of these questions, appended to `CortexRuleset.answers` ("stand" and the
#: compass points are there already); plot points up to `max_spend` are added per data file
ASKED_ANSWERS = ("roll", "use", "not_use", "melee_weapons", "unarmed")


def compass(dx: int, dy: int) -> str:
    """The compass point (n, ne, ... as explosions.DIRECTIONS; north is -y) nearest to a vector."""
    return DIRECTIONS[round(math.atan2(dx, -dy) / (math.pi / 4)) % 8]


def _chose(d: Combatant, key: str, way: str) -> Event:
    return event("choice", actor=d.id, key=key, choice=way)


class AskedMixin:
    """The attack-time questions of seed 000 for `CortexRuleset` (see the module docstring)."""

    # -- innate defence ---------------------------------------------------------------
    def innate_or_stand(self, state: BattleState, d: Combatant, dice: Dice, cover_bonus: int,
                        against: dict | None = None) -> tuple[int, list[Event]]:
        """Innate defence, or Easy (3) when the figure declines: its choice when its stat
        block says `auto` (default: assumption innate_decline), else the stat block's."""
        if d.stats["decline_innate"] != "auto" or state.asking is None or not self.ask_innate:
            return self.innate_defence(d, dice, cover_bonus, against=against)
        default = "stand" if self.declines_innate(d) else "roll"
        way = decide(state, d, "innate_defence", ("roll", "stand"), default,
                     f"{d.id} is attacked: roll innate defence (Agility) or stand as an Easy (3) target?")
        if way == default:
            return self.innate_defence(d, dice, cover_bonus, against=against)
        if way == "stand":
            diff = self.diff["easy"] + cover_bonus
            return diff, [_chose(d, "innate_defence", way),
                          event("defence", actor=d.id, mode="declined innate", difficulty=diff,
                                cover_bonus=cover_bonus)]
        agi = Step(max(1, d.stats["attributes"]["agility"].index + self.attr_steps(d, "agility")))
        r = roll_steps(dice, (agi,), "innate defence",
                       RollCall(d.id, "innate defence", "innate_defence", f"Agility {agi}", step_sides((agi,)),
                                against=against, modifiers=calls.mods(self.attr_modifiers(d, "agility")),
                                label="innate defence"))
        diff = r.total + cover_bonus
        return diff, [_chose(d, "innate_defence", way),
                      event("roll", actor=d.id, purpose="innate defence", check="innate_defence",
                            modifiers=self.attr_modifiers(d, "agility"), pool=f"Agility {agi}",
                            dice=[list(f) for f in r.faces], total=r.total),
                      event("defence", actor=d.id, mode="innate", difficulty=diff, cover_bonus=cover_bonus)]

    # -- the cover of a ranged dodge -------------------------------------------------
    def dodge_cover(self, state: BattleState, d: Combatant, attacker: Combatant
                    ) -> tuple[tuple[int, int, list[int]] | None, list[Event]]:
        """(cell, skill steps, path) of the cover a ranged dodge dives to, and the choice event.

        The engine's cell is the nearest cover within 30 ft (assumption ranged_dodge); the
        figure may pick another direction: the nearest cover cell in each compass direction
        (as seen from where it stands) is offered.

        A held figure (assumption grapple: "the target is held (cannot move ...)") dives nowhere:
        it dodges only where it stands, when that cell has cover against the attacker (seed 000's
        "Adjacent, within arm's reach", no penalty); otherwise it has no dodge (None)."""
        if d.res["grappled_by"] is not None:
            return ((d.pos, 0, [d.pos]) if state.grid.cover(d.pos, attacker.pos) > 0 else None), []
        if state.asking is None or state.grid.cover(d.pos, attacker.pos) > 0:
            return self.dodge_destination(state, d, attacker), []
        found = self.dodge_candidates(state, d, attacker)
        if found is None:
            return None, []
        best, far, blockers = found
        if len(best) == 1:
            return self.dodge_to(state, d, far, blockers, *next(iter(best.values()))), []
        default = min(best, key=lambda k: best[k])
        way = decide(state, d, "dodge_cover", tuple(n for n in DIRECTIONS if n in best), default,
                     f"{d.id} dodges {attacker.id}'s shot behind cover: which way?")
        dest = self.dodge_to(state, d, far, blockers, *best[way])
        return dest, ([_chose(d, "dodge_cover", way)] if way != default else [])

    def dodge_candidates(self, state: BattleState, d: Combatant, attacker: Combatant
                         ) -> tuple[dict[str, tuple[int, int]], int, list[int]] | None:
        """({direction: (cost, cell) of its nearest cover}, budget, blockers), or None when
        there is no cover in reach."""
        g = state.grid
        far, blockers, cands = self.dodge_reach(state, d, attacker)
        if not cands:
            return None
        x0, y0 = g.xy(d.pos)
        best: dict[str, tuple[int, int]] = {}
        for key in cands:
            x, y = g.xy(key[1])
            k = compass(x - x0, y - y0)
            if k not in best or key < best[k]:
                best[k] = key
        return best, far, blockers

    # -- improvised weapons ----------------------------------------------------------
    def improvised_skills(self, c: Combatant) -> tuple[dict[str, tuple[str, Step]], str]:
        """({answer: (skill name, die)}, the better one): seed 000, Improvised Weapons."""
        sk = c.stats["skills"]
        opts = {"melee_weapons": ("melee_weapons", sk.get("melee_weapons", D0)), "unarmed": brawling(c.stats)}
        better = "unarmed" if opts["unarmed"][1] > opts["melee_weapons"][1] else "melee_weapons"
        return opts, better

    def improvised_choice(self, state: BattleState, a: Combatant, w: Weapon, option: str,
                          dd: tuple[str, Step, str, Step]) -> tuple[tuple[str, Step, str, Step], list[Event]]:
        """The attack's dice with the skill the attacker picks for an improvised weapon
        (`dd` is `attack_dice` with the better skill, the engine's choice)."""
        opts, better = self.improvised_skills(a)
        steps, attr = self.attack_steps(state, a, w, option, 0)
        pools = {}
        for k, (name, die) in opts.items():
            p = make_pool(a, attr, die, steps, self.attr_steps(a, attr, {"attack"}))
            if p is not None:
                pools[k] = (attr, p[0], name, p[1])
        way = decide(state, a, "improvised_skill", tuple(pools), better,
                     f"{a.id} attacks with the improvised {w.name}: Melee Weapons or Unarmed Combat/Brawling?")
        if way == better:
            return dd, []
        return pools[way], [_chose(a, "improvised_skill", way)]

    # -- Krav Maga --------------------------------------------------------------------
    def krav_maga_rifle(self, state: BattleState, a: Combatant, evs: list[Event]) -> Step | None:
        """seed 000, Krav Maga: "an assault rifle may be used to add d6B damage to an Unarmed
        attack": the d6 Basic die when the fighter carries a usable assault rifle and uses it."""
        if not any(x.name == "assault_rifle" for x in self.usable_weapons(a)):
            return None
        way = decide(state, a, "krav_maga_rifle", ("use", "not_use"), "use",
                     f"{a.id} hits unarmed (Krav Maga): use the assault rifle to add d6 Basic damage?")
        if way == "use":
            return Step.parse("d6")
        evs.append(_chose(a, "krav_maga_rifle", way))
        return None

    # -- Plot Points against damage --------------------------------------------------
    def pp_against_damage(self, state: BattleState, t: Combatant, stun: int, wound: int, blunt: bool,
                          dice: Dice) -> tuple[int, int, list[Event]]:
        """(stun, wound, events) after the Plot Points the figure spends against a hit
        (RULES-NOTES: they reduce it by the same die). Default (assumption plot_points_use):
        all it can, up to max_spend, when the hit would take it down; none otherwise."""
        cap = min(t.res["pp"], int(self.pp_rules["max_spend"]))
        down = t.res["stun"] + t.res["wound"] + stun + wound >= t.stats["life"]
        n = cap if down else 0
        evs: list[Event] = []
        if state.asking is not None:
            way = decide(state, t, "plot_points_damage", tuple(f"pp_{k}" for k in range(cap + 1)), f"pp_{n}",
                         f"{t.id} takes {stun} Stun and {wound} Wound: spend how many Plot Points against it?")
            if way != f"pp_{n}":
                evs.append(_chose(t, "plot_points_damage", way))
                n = int(way[3:])
        if not n:
            return stun, wound, evs
        t.res["pp"] -= n
        ctx = {"plot_points", "reduce_stun"} | ({"unarmed_or_bludgeoning"} if blunt else set())
        bonus = self.traitbook.modifiers(t.traits, ctx, None).plot_point_bonus if (t.traits and stun) else 0
        die = plot_point_die(n + bonus)
        r = roll_steps(dice, (die,), "plot points",
                       RollCall(t.id, f"spends {n} Plot Points against damage", "plot_points_against_damage", str(die),
                                step_sides((die,)), modifiers=calls.mods(bonus_dice([die])), label="plot points"))
        evs.append(event("roll", actor=t.id, purpose=f"spends {n} Plot Points against damage",
                         check="plot_points_against_damage", modifiers=bonus_dice([die]), pool=str(die),
                         dice=[list(f) for f in r.faces], total=r.total))
        if bonus:   # assumption takes_a_punch_pp: points improved to reduce Stun go to the Stun first
            ds = min(stun, r.total)
            return stun - ds, wound - min(wound, r.total - ds), evs
        dw = min(wound, r.total)
        return stun - min(stun, r.total - dw), wound - dw, evs
