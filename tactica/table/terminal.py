"""`Terminal`: the interactive loop behind `tactica autopilot`."""


from __future__ import annotations

import collections
import re
from typing import Callable, Iterable


from rules.actions import Action
from rules.errors import TacticaError
from rules.events import Event, narrate
from rules.narration import question_words
from rules.state import Combatant
from tactica.table.base import ADVISOR_POLICY, CommandError
from tactica.table.commands import Command, parse_command, parse_faces
from tactica.table.dice import DiceRequest
from tactica.table.overrule import WORDS as OVERRIDES
from tactica.table.overrule import entry_words as override_words
from tactica.table.overrule import parse_override
from tactica.table.roles import Abort
from tactica.table.session import Session
from tactica.table.suggest import Plan, _make_policy, _ranked
from tactica.table.words import action_note, cannot_succeed, command_for, describe_action
from tactica.textsafe import one_line, safe


class Quit(Exception):
    pass


def _faces(sides: list[int] | tuple[int, ...]) -> str:
    """"1 face (d10)", "2 faces (d8 d8)": what a dice prompt wants."""
    return f"{len(sides)} face{'' if len(sides) == 1 else 's'} ({' '.join('d%d' % x for x in sides)})"


class Terminal:
    """The interactive loop: shows the fight, asks the GM, resolves and narrates."""

    def __init__(self, session: Session, console, input_fn: Callable[[str], str] | None = None) -> None:
        self.s = session
        self.con = console
        self.input_fn = input_fn or input
        self.numbered: list[Action] = []
        self._shown_turn: tuple | None = None
        #: the lines an open question's action told before it (`with_question_context`)
        self._told: list[str] = []

    # -- output ------------------------------------------------------------------------
    def say(self, text: str = "", style: str | None = None) -> None:
        self.con.print(safe(text) if style is None else f"[{style}]{safe(text)}[/]", highlight=False)

    def show_map(self, highlight: Iterable[int] = ()) -> None:
        from tactica.render import battle_view

        s = self.s
        self.con.print(battle_view(s.state, s.rs, s.pc_teams(),
                                   {t: "PC" for t, r in s.roles.items() if r.role == "pc"}, highlight))

    def narrate(self, evs: list[Event], shown: Iterable[str] = ()) -> None:
        """Print `evs`, but the lines of `shown` (each once): what an asked action already told before its
        question (`with_question_context`), which its answer resolves again from the start."""
        names = {c.id: c.name for c in self.s.state.combatants}   # told as the plans tell them
        left = collections.Counter(shown)
        for e in evs:
            if e.get("type") == "roll" and e.get("purpose") == "initiative":
                continue
            if e.get("type") in ("turn_start",):
                continue
            line = narrate(e, names)
            if left[line] > 0:
                left[line] -= 1
                continue
            style = {"round_start": "bold", "battle_end": "bold green", "down": "bold red", "dead": "bold red",
                     "attack": "yellow", "damage": "red"}.get(e.get("type", ""))
            self.say("  " + line, style)

    def ask(self, prompt: str) -> str:
        try:
            return self.input_fn(one_line(prompt))
        except EOFError:
            raise Quit() from None

    # -- meta commands -----------------------------------------------------------------
    def meta(self, cmd: Command, at_dice: bool = False) -> None:
        """Run a command available at any prompt (undo/quit raise to unwind)."""
        s = self.s
        n, args = cmd.name, cmd.args
        if n in ("moves", "list", "hint") and not s.state.over and s.state.actor is None:
            # at the initiative dice of a new round: nobody acts yet (`hint` crashed the table here)
            raise CommandError("no figure is acting now: the round's initiative is being rolled", field=n,
                               expected="the dice first")
        if n == "help":
            from tactica.table.helptext import help_text
            self.con.print(help_text(s.rs, s.state, s.legal() if s.state.actor and not s.state.over else []),
                           highlight=False, markup=False)
        elif n == "map":
            self.show_map()
        elif n == "moves":
            cells = [a.cell for a in s.legal() if a.kind == "move"]
            self.show_map(cells)
            self.say(f"{len(cells)} reachable cells (+): type move X Y")
        elif n == "list":
            self.show_actions()
        elif n in OVERRIDES or (n == "order" and args):
            if at_dice:
                raise CommandError("an action is waiting for its dice", field=n,
                                   expected="the dice, or cancel, before overruling the engine")
            spec = parse_override(n, args, s.state)
            self.narrate(s.override(spec))
            self._shown_turn = None
            raise Abort("overruled")   # the prompt starts again on the changed fight
        elif n == "order":
            from tactica.render import order_line
            self.con.print(order_line(s.state))
        elif n == "status":
            if not args and (s.state.over or s.state.actor is None):   # over, or between rounds (initiative)
                raise CommandError("status needs a figure: no figure is acting now", field="status",
                                   expected="status FIGURE")
            c = s.figure(" ".join(args)) if args else s.state.actor   # alone: the figure to act
            self.show_status(c)
        elif n == "log":
            k = int(args[0]) if args and args[0].isdigit() else 15
            evs = [e for e in s.battle.events if not (e.get("type") == "roll" and e.get("purpose") == "initiative")]
            self.narrate(evs[-k:])
        elif n == "hint":
            if s.state.over:
                raise CommandError("the fight is over", field="hint", expected="undo, export or quit")
            self.show_plan(s.advise(), title="advice")
        elif n == "undo":
            raise Abort("undo")
        elif n == "cancel":
            if at_dice:
                raise Abort("cancel")
            self.say("nothing pending to cancel")
        elif n == "dice":
            if not args:
                raise CommandError("dice needs a setting", field="dice",
                                   expected="dice engine, dice manual, or dice NAME=manual|engine (a team or figure)")
            s.set_dice(args)
            self.say(f"dice: {self.dice_words()}" + (" (from the next action on)" if at_dice else ""))
        elif n == "behave":
            from tactica.table.settings import behave_command
            self.say(f"behaviour: {behave_command(s, args)}")
        elif n == "confirm":
            if not args or args[0] not in ("on", "off"):
                raise CommandError(f"confirm {' '.join(args)!r}", field="confirm", expected="confirm on or confirm off")
            s.confirm = args[0] == "on"
            s.save()
            self.say(f"confirm NPC plans: {args[0]}")
        elif n == "save":
            p = s.save(args[0] if args else None)
            self.say(f"saved to {p}" if p else "no save file (start with --save FILE)")
        elif n == "export":
            if not args:
                raise CommandError("export needs a file name", field="export", expected="export FILE.yaml")
            p = s.export(args[0])
            n = len(s.history)
            self.say(f"replay written to {p} ({n} step{'' if n == 1 else 's'}): tactica replay {p}")
        elif n == "quit":
            raise Quit()

    def show_status(self, c: Combatant) -> None:
        s = self.s
        st = s.state
        hp, mx = s.rs.health(c)
        self.say(f"{c.name} ({c.id}) [{c.team}, {s.role_of(c).label()}] at {list(st.grid.xy(c.pos))}: "
                 f"{hp:g}/{mx:g} {', '.join(sorted(c.conditions)) or 'no conditions'}")
        from tactica.table.status import status_lines
        acting = st.actor is not None and st.actor.id == c.id
        for line in status_lines(s.rs.tracked(st, c), acting, frozenset(s.rs.weapon_slots(c))):
            self.say("  " + line)

    def show_actions(self) -> None:
        """The acting figure's legal actions, grouped and numbered (moves: a few, and `moves`)."""
        s = self.s
        st = s.state
        legal = s.legal()
        groups: dict[str, list[Action]] = {}
        order = ("choose", "attack", "grapple", "defend", "reload", "use", "pick_up", "stand", "drop_prone", "end_turn")
        for a in legal:
            if a.kind == "move":
                continue
            groups.setdefault(a.kind if a.kind in order else "other", []).append(a)
        moves = [a for a in legal if a.kind == "move"]
        numbered: list[Action] = []
        q = st.pending.question if st.pending is not None else None
        titles = {"choose": f"Answer: {question_words(q.key)}" if q else "Answer", "attack": "Attacks",
                  "grapple": "Grapple", "defend": "Defence", "reload": "Reload", "use": "Use", "pick_up": "Pick up", "stand": "Stand", "drop_prone": "Prone", "end_turn": "End",
                  "other": "Other"}
        lines: list[tuple[str, list[Action]]] = []
        for k in (*order[:-1], "other", "end_turn"):
            if k in groups:
                # options that cannot succeed (0% to hit) come last in their group
                lines.append((titles[k], sorted(groups[k], key=lambda a: cannot_succeed(st, a))))
        if moves:
            adv = []
            try:
                adv = [a for a, _, _ in _ranked(_make_policy(ADVISOR_POLICY, s.seed), st, st.actor) if a.kind == "move"][:3]
            except TacticaError:
                pass
            lines.insert(0, (f"Moves ({len(moves)} cells reachable: move X Y, `moves` shows them; suggested)", adv))
        for title, acts in lines:
            self.say(title, "bold")
            for a in acts:
                numbered.append(a)
                note = action_note(st, a)
                self.say(f"  {len(numbered):>2}. {command_for(st, a):<34}" + (f" {note}" if note else ""))
        self.numbered = numbered

    def show_plan(self, plan: Plan, title: str = "plan") -> None:
        st = self.s.state
        self.con.print(f"[bold magenta]{safe(title)}[/] ({safe(plan.policy)}): [bold]{safe(describe_action(st, plan.action))}[/]"
                       f"  {safe('[' + command_for(st, plan.action) + ']')}", highlight=False)
        self.say(f"  why: {plan.reason}")
        if plan.alternatives:
            self.say("  or (Enter accepts the plan; a number picks; or type any action):")
        scores = [a.score for a in plan.alternatives if a.score is not None]
        for i, alt in enumerate(plan.alternatives, 1):
            # scores only as a tie-break: shown where two choices are within 0.05
            close = alt.score is not None and sum(1 for x in scores if abs(x - alt.score) <= 0.05) > 1
            sc = f" (a close call: score {alt.score:.2f})" if close else ""
            self.say(f"  {i}. {command_for(st, alt.action):<34} {alt.reason}{sc}")
        self.numbered = [a.action for a in plan.alternatives]

    # -- dice ---------------------------------------------------------------------------
    def dice_words(self) -> str:
        """'manual' / 'engine, by hand for crew' ..."""
        d = self.s.dice
        hand = [k for k, v in d.by.items() if v == "manual"]
        eng = [k for k, v in d.by.items() if v == "engine"]
        return d.default + (f", by hand for {', '.join(hand)}" if hand else "") + (
            f", the engine's for {', '.join(eng)}" if eng else "")

    def dice_provider(self, req: DiceRequest) -> list[int] | None:
        self.say(req.text(), "bold yellow")
        while True:
            line = self.ask("dice> ").strip()
            if line.lower() in ("r", "roll"):
                return None
            if re.fullmatch(r"[\d\s,+-]+", line or "x"):  # faces, a negative one refused as a face
                try:
                    return parse_faces(line, req.sides)
                except CommandError as e:
                    self.say(f"refused: {e.line()}", "red")
                    continue
            try:
                cmd = parse_command(line)
            except CommandError as e:
                self.say(f"{e.line()}", "red")
                self.say(f"enter {_faces(req.sides)} or r", "red")
                continue
            if cmd.kind != "meta":
                self.say(f"enter {_faces(req.sides)}, r to roll, "
                         f"or a command (cancel, undo, map, help, quit)", "red")
                continue
            try:
                self.meta(cmd, at_dice=True)
            except TacticaError as e:   # a bad setting (`behave`) is said here; the roll is still wanted
                self.say(e.line() if isinstance(e, CommandError) else f"error: {e.line()}", "red")
            self.say(req.text(), "bold yellow")

    # -- the loop -----------------------------------------------------------------------
    def resolve(self, action: Action, by: str, reason: str = "") -> bool:
        s = self.s
        st = s.state
        actor = st.actor
        self.say(f"> {actor.name}: {describe_action(st, action, with_odds=False)}", "bold")
        try:
            evs = s.resolve(action, self.dice_provider, by=by, reason=reason)
        except Abort as a:
            if a.then == "undo":
                self.do_undo()
            else:
                s.drop_plan()
                self.say("cancelled: nothing was resolved")
            return False
        shown = self._told if action.kind == "choose" else []
        self.narrate(self.with_question_context(evs), shown)
        return True

    def with_question_context(self, evs: list[Event]) -> list[Event]:
        """`evs` with, before a question that ends them, what the asked action has told so far
        (`Battle.before_question`: the hit, the damage, the failed save): the log gets those
        events only once the question is answered, and the GM must see why it is asked. Their
        lines are kept (`_told`): the answer resolves the action again from the start, and what
        it tells again is not printed twice (the roll, now with what it was against, is)."""
        self._told = []
        if evs and evs[-1].get("type") == "question" and self.s.state.pending is not None:
            told = self.s.battle.before_question()
            names = {c.id: c.name for c in self.s.state.combatants}
            self._told = [narrate(e, names) for e in told]
            return evs[:-1] + told + evs[-1:]
        return evs

    def do_undo(self) -> None:
        self._told = []
        h = self.s.undo()
        if h is None:
            self.say("nothing to undo")
        elif h.get("override") is not None:
            self.say(f"undone: {override_words(h, self.s.state)}", "bold")
        else:
            st = self.s.state            # back before the action: its figure is acting again
            a = Action.from_dict(h["action"], st.grid.width)
            who = st.by_id[h["actor"]].name if h["actor"] in st.by_id else h["actor"]
            self.say(f"undone: {who}: {describe_action(st, a, with_odds=False)}  [{command_for(st, a)}]", "bold")
        self._shown_turn = None

    def turn_header(self) -> None:
        s = self.s
        st = s.state
        key = (st.round, st.turn_index)
        if key == self._shown_turn:
            return
        self._shown_turn = key
        self.show_map()
        a = st.actor
        self.con.print(f"[bold]{safe(f'Round {st.round}: {a.name} ({a.id}, {a.team}, {s.role_of(a).label()}) to act')}[/]",
                       highlight=False)

    def _plays_as(self, team: str) -> str:
        """' (plays as planner-net)' for a team `best` plays: the player it is in this fight, and why
        where it is not the ruleset's table entry (a larger fight, a map the network cannot play)."""
        from agents.best import playing

        got = playing(self.s.policies.get(team), self.s.state)
        if got is None:
            return ""
        player, note = got
        return f" (plays as {player}{'; ' + note if note else ''})"

    def run(self) -> None:
        s = self.s
        st = s.state
        self.say(f"{st.scenario} ({st.ruleset}) - seed {s.seed}, dice {self.dice_words()}, "
                 f"{'confirm' if s.confirm else 'no confirm'}; saving to {s.save_path}", "bold")
        for t, r in s.roles.items():
            self.say(f"  {t}: {r.label()}{self._plays_as(t)}")
        for n in s.notes:
            self.say(f"  note: {n}")
        self.say("  type help for the commands")
        try:
            if not s.started:
                while True:
                    try:
                        self.narrate(s.begin(self.dice_provider))
                        break
                    except Abort as a:
                        if a.then == "undo":
                            self.say("nothing to undo yet")
                        self.say("the fight must start: its initiative dice are needed")
            elif st.pending is not None:        # resumed at an open question: say what led to it
                self.narrate(self.with_question_context([st.pending.question.as_event()]))
            while True:
                try:
                    self.step()
                except CommandError as e:
                    self.say(e.line(), "red")
                except TacticaError as e:
                    self.say(f"error: {e.line()}", "red")
        except (Quit, KeyboardInterrupt):
            s.drop_plan()
            p = s.save()
            self.say(f"\nsaved to {p}; continue with: tactica autopilot --resume {p}" if p else "bye")

    def step(self) -> None:
        s = self.s
        st = s.state
        if st.over:
            self._shown_turn = None
            self.show_map()
            self.say(f"The fight is over: {st.winner or 'draw'} ({st.end_reason}). "
                     f"undo, export FILE, log, map or quit.", "bold green")
            line = self.ask("over> ")
            cmd = parse_command(line)
            if cmd.kind == "meta":
                try:
                    self.meta(cmd)
                except Abort as a:
                    if a.then == "undo":
                        self.do_undo()
            elif cmd.kind != "empty":
                raise CommandError("the fight is over", field="command", expected="undo, export FILE, log, map, quit")
            return
        self.turn_header()
        actor = st.actor
        legal = s.legal()
        if not s.gm_plays(actor):
            plan = s.plan()
            self.show_plan(plan, title=f"{actor.name}'s plan")
            if not s.confirm:
                self.resolve(plan.action, "policy", plan.reason)
                return
            while True:
                line = self.ask(f"npc {actor.id}> ")
                try:
                    cmd = parse_command(line, st, legal)
                except CommandError as e:
                    self.say(e.line(), "red")
                    continue
                if cmd.kind == "empty" or line.strip().lower() in ("y", "yes", "ok", "accept"):
                    self.resolve(plan.action, "plan", plan.reason)
                    return
                if cmd.kind == "pick":
                    if not 1 <= cmd.number <= len(self.numbered):
                        self.say(f"no choice {cmd.number} (1..{len(self.numbered)})", "red")
                        continue
                    a = self.numbered[cmd.number - 1]
                    alt = next((x for x in plan.alternatives if x.action == a), None)
                    self.resolve(a, "alternative" if alt else "gm", alt.reason if alt else "picked by the GM")
                    return
                if cmd.kind == "action":
                    self.resolve(cmd.action, "gm", "typed by the GM")
                    return
                if cmd.kind == "meta":
                    try:
                        self.meta(cmd)
                    except Abort as a:
                        if a.then == "undo":
                            self.do_undo()
                        return
                    except CommandError as e:
                        self.say(e.line(), "red")
                    continue
        # the GM plays this figure
        self.show_actions()
        while True:
            line = self.ask(f"pc {actor.id}> ")
            try:
                cmd = parse_command(line, st, legal)
            except CommandError as e:
                self.say(e.line(), "red")
                continue
            if cmd.kind == "empty":
                # Enter accepts an NPC's plan; a PC's turn has none to accept: say what is wanted
                self.say("pick a number from the list or type an action (`list` shows them again, `help` the "
                         "commands)" + (f"; {actor.name} must answer first" if st.pending is not None else ""))
                continue
            if cmd.kind == "pick":
                if not 1 <= cmd.number <= len(self.numbered):
                    self.say(f"no action {cmd.number} (1..{len(self.numbered)}); `moves` for cells, `help`", "red")
                    continue
                self.resolve(self.numbered[cmd.number - 1], "gm")
                return
            if cmd.kind == "action":
                self.resolve(cmd.action, "gm")
                return
            try:
                self.meta(cmd)
            except Abort as a:
                if a.then == "undo":
                    self.do_undo()
                return
            except CommandError as e:
                self.say(e.line(), "red")
