"""The choices seed 004 gives a figure, asked as its decisions (issue #32, rules/choices.py).

Each question's default is the engine's own choice before #32, so the scripted policies
play as they did (docs/cybergeneration.md, Choices; data.yaml assumptions):

- `crit_success` (attacker, natural 10 on an attack that hits without the second die):
  "you can either roll a second d10 and add it as normal, or roll 2 damage dice and take
  the higher" - `second_die` | `damage_dice`; default two damage dice, full auto the die.
- `point_blank` (attacker, a pistol or SMG at point blank, before the roll): "pistols and
  SMGs may add + 5 to roll" - `add_bonus` | `forgo_bonus`; default add.
- `bow_skill` (a tribal shooting a bow, before the roll): "Tribals may use their yogang skill
  instead with a +2 accuracy bonus" - `streetfighting` | `yogang`; default the higher.
- `suppression_line` (the suppressing shooter, when an enemy's move touches its zone): "you
  may roll to hit against them" - `fire` | `hold_fire`; default fire.
- `held_fire` (the holder, when an enemy's action matches its held action): "if he draws, I
  will fire" - `fire` | `wait` (keep holding for another figure); default fire.
- `stun_fail` (the figure that failed a stun save): "you pass out / go into shock - you may
  opt to still be conscious, just fallen prone" - `pass_out` | `shock`; default the stat
  block's `stun_fail`.
"""

from __future__ import annotations

from rules.actions import Action
from rules.choices import decide
from rules.dice import Dice
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.cybergeneration.checks import Check, crit_call

#: every answer of every question, in a fixed order (the envs' answer block)
ANSWERS = ("second_die", "damage_dice", "add_bonus", "forgo_bonus", "streetfighting", "yogang", "fire",
           "hold_fire", "wait", "pass_out", "shock")

#: the actions whose resolution can always ask: attacks and grapples (criticals, stun saves)
ALWAYS_ASK = frozenset({"attack", "grapple"})
#: the actions that ask only when some figure holds an action, suppresses, or the map drops:
#: the held shot (on_attack, on_draw, on_move), the suppression-line shot, a fall's stun save
WHEN_ARMED = frozenset({"suppress", "move", "ready", "pick_up"})


def ask(state: BattleState, c: Combatant, key: str, options: tuple[str, ...], default: str, text: str,
        evs: list[Event], **extra) -> str:
    """`decide` a question; a `choice` event is logged when the answer departs from the default
    (the engine's choice before #32), so the scripted fights' logs stay event for event."""
    way = decide(state, c, key, options, default, text)
    if way != default:
        evs.append(event("choice", actor=c.id, key=key, choice=way, **extra))
    return way


class AsksMixin:
    """The questions of seed 004 for `CybergenerationRuleset`."""

    answers = ANSWERS

    def may_ask(self, state: BattleState, action: Action) -> bool:
        """Attacks and grapples; suppressing, moving, drawing and picking up only while a held
        action or a suppression zone is in play or the map has drops (kept narrow: the battle
        keeps a copy of the fight for every action this answers True for)."""
        k = action.kind
        if k in ALWAYS_ASK:
            return True
        if k not in WHEN_ARMED:
            return False
        if k == "move" and state.settings.get("drops"):
            return True
        return any(c.res["trigger"] is not None or c.res["zone"] is not None for c in state.combatants)

    def settle_crit(self, state: BattleState, a: Combatant, dice: Dice, c: Check, label: str, need: int | None,
                    damage_ok: bool, full: bool = False) -> tuple[Check, list[Event]]:
        """seed 004, Critical Success: "you can either roll a second d10 and add it as normal, or
        roll 2 damage dice and take the higher" (assumption crit_success_choice). Asked only when
        the attack hits without the second die: otherwise the damage dice would be for a miss."""
        if c.crit != "success" or c.second is not None or c.two_damage_dice:
            return c, []
        evs: list[Event] = []
        if damage_ok and need is not None and c.total >= need:
            default = "second_die" if full else "damage_dice"
            way = ask(state, a, "crit_success", ("second_die", "damage_dice"), default,
                      "critical success: add a second d10, or roll two damage dice and keep the higher?", evs)
            if way == "damage_dice":
                c.two_damage_dice = True
                return c, evs
        dice.announce(crit_call(c.call, label + " (critical success)"))
        s = dice.roll(10, label + " (critical success)")
        c.second = s
        c.faces.append([10, s])
        c.total += s
        return c, evs

    def take_point_blank(self, state: BattleState, a: Combatant, evs: list[Event]) -> bool:
        """seed 004: "At point blank range pistols and SMGs may add + 5 to roll" (assumption point_blank_choice)."""
        way = ask(state, a, "point_blank", ("add_bonus", "forgo_bonus"), "add_bonus",
                  "point blank: add +5 to the roll?", evs)
        return way == "add_bonus"

    def pick_bow_skill(self, state: BattleState, a: Combatant, sf: int, yg: int, evs: list[Event]) -> bool:
        """seed 004, Bows: "Tribals may use their yogang skill instead with a +2 accuracy bonus"
        (assumption bow_yogang; default the higher). True: yogang."""
        default = "yogang" if yg > sf else "streetfighting"
        return ask(state, a, "bow_skill", ("streetfighting", "yogang"), default,
                   f"shoot the bow with streetfighting ({sf}) or yogang + 2 ({yg})?", evs) == "yogang"

    def line_shot_wanted(self, state: BattleState, s: Combatant, m: Combatant, evs: list[Event]) -> bool:
        """seed 004, Suppression: "If anyone moves through the suppression line you may roll to hit
        against them" (assumption suppression_line)."""
        way = ask(state, s, "suppression_line", ("fire", "hold_fire"), "fire",
                  f"{m.id} moves through the suppression line: fire at it?", evs, at=m.id)
        return way == "fire"

    def held_shot_wanted(self, state: BattleState, h: Combatant, t: Combatant, evs: list[Event]) -> bool:
        """seed 004, Your Turn: "you can use your move to draw a pistol on someone and say 'if he
        draws, I will fire'": the holder fires at this figure or keeps holding (assumption held_actions)."""
        way = ask(state, h, "held_fire", ("fire", "wait"), "fire",
                  f"{t.id} triggers the held action: fire now, or keep holding?", evs, at=t.id)
        return way == "fire"

    def stun_fail_way(self, state: BattleState, t: Combatant, evs: list[Event]) -> str:
        """seed 004, Stun/Shock Saves: "If you fail you pass out / go into shock - you may opt to
        still be conscious, just fallen prone, unable to act or speak coherently" (assumption
        stun_fail_choice: the stat block's `stun_fail` is the default answer)."""
        return ask(state, t, "stun_fail", ("pass_out", "shock"), t.stats["stun_fail"],
                   "failed stun save: pass out, or stay conscious in shock (prone, unable to act)?", evs)
