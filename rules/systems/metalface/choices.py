"""The choices seed 003 gives a figure, asked as its decisions (rules/choices.py).

The engine made these itself before issue #32; each is now a question with the engine's
old choice as its default (so the scripted policies, which answer the default, play as
before):

- `defence` (the defender, in a body attack, after the attack roll): "block" (STR +
  melee) or "dodge" (AGL + dodge). seed 003, Body Attacks: "The defender must also roll
  to defend. Dodging is done in the same way, but uses the AGL value." Default: the
  better expected total (assumption body_attack_rolls).
- `end_facing` (the mover, when more than one cheapest path leads to the cell): the
  compass facing of the last step. seed 003, Move: "Turning or changing direction counts
  as one meter per 90 degrees" - equally cheap paths are the figure's to pick. Default:
  the last step nearest the bearing to the destination (assumption path_turns).
- `face_turn` (the attacker, when its target is outside its front arc): how far to turn,
  as the facing it ends in - any facing on the shorter way towards the target that brings
  the target into the front arc. Default: facing the target (assumption front_arc).
- `repair_method` (the healer, when it has more than one way to treat the patient):
  "tekker", "kit" or "no_kit". seed 003, Repairing / Healing. Default: the fastest
  (assumption repair_who).

The starting facing is a scenario field (`facing`, or `state: {facing: ...}`), not a
question.
"""

from __future__ import annotations

from rules.actions import Action
from rules.choices import decide
from rules.events import Event, event
from rules.state import BattleState, Combatant
from rules.systems.metalface.geometry import NAMES, STEPS
from rules.systems.metalface.paths import end_headings

METHOD_ANSWER = {"tekker": "tekker", "repair kit": "kit", "medikit": "kit", "no kit": "no_kit"}
ANSWERS = ("block", "dodge") + NAMES + ("tekker", "kit", "no_kit")


class ChoicesMixin:
    """`answers`, `may_ask` and the questions of `MetalfaceRuleset`."""

    #: every answer of every question (the envs' answer block, in this order)
    answers = ANSWERS

    def may_ask(self, state: BattleState, action: Action) -> bool:
        """Body attacks (defence), attacks that turn the attacker (face_turn), moves with
        more than one cheapest path (end_facing), heal and heal_self (repair_method)."""
        k = action.kind
        a = state.actor
        if k == "attack":
            w = a.weapons.get(action.weapon or "")
            if w is None or not w.ranged:
                return True
            t = state.by_id.get(action.target or "")
            return t is not None and self.face_plan(state.grid, a, t.pos)[0] > 0
        if k == "move":
            return len(self._end_headings(state, a, action.cell, 2)) > 1
        return k == "heal" or (k == "use" and action.option == "heal_self")

    # -- end_facing --------------------------------------------------------------------
    def _end_headings(self, state: BattleState, a: Combatant, cell: int, enough: int = 8) -> tuple[int, ...]:
        blockers, _ = state.blockers_and_occupied(a.team)
        return end_headings(state.grid, a.pos, a.res["facing"], cell, self.move_left(a, state.economy),
                            self.turn_m_per_45, blockers, cap=2 * self.walk_m(a), enough=enough)

    def choose_end_facing(self, state: BattleState, a: Combatant, cell: int,
                          hs: tuple[int, ...] | None = None) -> tuple[int | None, list[Event]]:
        """(the heading of the last step the mover picks, None for the engine's; the choice
        event) among the cheapest paths to `cell` (seed 003, Move). `hs`: `_end_headings`'
        answer when the caller has it (with no asker its first two are enough)."""
        if hs is None:
            hs = self._end_headings(state, a, cell)
        if len(hs) < 2:
            return None, []
        if state.asking is None:
            way = NAMES[hs[0]]       # decide's answer with no asker, without the question's text
        else:
            x, y = state.grid.xy(cell)
            way = decide(state, a, "end_facing", tuple(NAMES[h] for h in hs), NAMES[hs[0]],
                         f"{a.id} moves to ({x}, {y}): equally cheap paths end facing "
                         + ", ".join(NAMES[h] for h in hs) + "; which?")
        return NAMES.index(way), [event("choice", actor=a.id, key="end_facing", choice=way)]

    # -- face_turn ---------------------------------------------------------------------
    def face_options(self, a: Combatant, b: int) -> tuple[int, ...]:
        """Facings that bring bearing `b` into the front arc, turning the shorter way
        towards it (both ways when it is right behind) and no farther than facing it:
        `b` first, then nearest to the facing now."""
        f = a.res["facing"]
        st = STEPS[f][b]
        ways = (1, -1) if st == 4 else ((1,) if (f + st) % 8 == b else (-1,))
        out = {(f + d * k) % 8 for d in ways for k in range(1, st + 1) if STEPS[(f + d * k) % 8][b] <= 2}
        return (b,) + tuple(sorted(out - {b}, key=lambda h: (STEPS[f][h], h)))

    def choose_face(self, state: BattleState, a: Combatant, t: Combatant) -> tuple[float, int, list[Event]]:
        """(turning metres, facing afterwards, the choice event) for `a` to attack `t`
        (assumption front_arc; the figure picks how far it turns: question face_turn)."""
        turn_m, facing = self.face_plan(state.grid, a, t.pos)
        if turn_m <= 0:
            return turn_m, facing, []
        opts = self.face_options(a, facing)
        if len(opts) < 2:
            return turn_m, facing, []
        way = decide(state, a, "face_turn", tuple(NAMES[h] for h in opts), NAMES[facing],
                     f"{t.id} is outside {a.id}'s front arc: turn to face which way before attacking "
                     f"(1 m per 90 degrees; facing {t.id}: {NAMES[facing]})?")
        facing = NAMES.index(way)
        return self.turn_cost(a.res["facing"], facing), facing, [event("choice", actor=a.id, key="face_turn",
                                                                       choice=way)]

    # -- defence -----------------------------------------------------------------------
    def choose_defence(self, state: BattleState, t: Combatant, default: str, attack_total: int
                       ) -> tuple[str, list[Event]]:
        """Block or dodge: the defender's choice (seed 003, Body Attacks)."""
        way = decide(state, t, "defence", ("block", "dodge"), default,
                     f"{t.id} is attacked (attack roll {attack_total}): block (STR + melee) or dodge (AGL + dodge)?")
        return way, [event("choice", actor=t.id, key="defence", choice=way)]

    # -- repair_method -------------------------------------------------------------------
    def choose_method(self, state: BattleState, healer: Combatant, patient: Combatant
                      ) -> tuple[tuple[int, str | None], list[Event]]:
        """(rate, method) the healer treats the patient with, and the choice event."""
        ms = self.heal_methods(healer, patient)
        if len(ms) < 2:
            return (ms[0] if ms else (0, None)), []
        names = tuple(METHOD_ANSWER[m] for _, m in ms)
        way = decide(state, healer, "repair_method", names, names[0],
                     f"{healer.id} treats {patient.id}: "
                     + ", ".join(f"{n} ({r / 60:g} a minute)" for n, (r, _) in zip(names, ms)) + "?")
        return ms[names.index(way)], [event("choice", actor=healer.id, key="repair_method", choice=way)]


__all__ = ["ChoicesMixin", "ANSWERS"]
