"""The GM commands of the `tactica` CLI: `autopilot`, `suggest`, `serve` and `view`.

They live here so that `tactica/cli.py` only registers them (`register(app, ...)`); the
logic is in `tactica/table/`, `tactica/server.py` and `tactica/web/`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Callable, Optional

import typer
from rich.markup import escape

from rules.limits import MAX_SAVE_BYTES, MAX_SEED

ALLOW_HOST_HELP = ("A name the server answers to in the Host header, besides the address it is bound to "
                   "(and, on loopback or 0.0.0.0, localhost): NAME or NAME:PORT (repeatable). Other "
                   "names are refused, so a web page cannot reach the server by DNS rebinding.")


def register(app: typer.Typer, friendly: Callable, out, err) -> None:
    """Add the GM commands to the CLI app."""

    @app.command()
    @friendly
    def autopilot(
        scenario: Optional[str] = typer.Argument(None, help="A bundled scenario name or a scenario file "
                                                 "(not needed with --resume)."),
        npc: list[str] = typer.Option([], "--npc", help="TEAM=POLICY: an NPC team and its policy (default "
                                      "best, the ruleset's strongest player, where it decides fast enough, "
                                      "else tactical; repeatable; *=POLICY: every team, a demo that plays itself)."),
        pc: list[str] = typer.Option([], "--pc", help="TEAM: a PC team the GM plays (TEAM=POLICY: a policy "
                                     "plays it, a dry run; repeatable; * for every team)."),
        dice: list[str] = typer.Option([], "--dice", help="engine (default) or manual: type in every roll; "
                                       "NAME=manual (a team or figure: its rolls by hand, the engine rolls "
                                       "the rest; repeatable): --dice crew=manual."),
        confirm: Optional[bool] = typer.Option(None, "--confirm/--no-confirm",
                                               help="Ask before resolving an NPC's plan (default: ask)."),
        save: Optional[Path] = typer.Option(None, "--save", help="Save file (written after every action; "
                                            "default: autopilot-SCENARIO-TIME.json)."),
        resume: Optional[Path] = typer.Option(None, "--resume", help="Continue a saved session."),
        seed: Optional[int] = typer.Option(None, "--seed", min=0, max=MAX_SEED, help="Seed of the dice and the policies (default 0)."),
    ) -> None:
        """Run a fight at the table: NPCs plan and explain, the GM confirms or overrides.

        The GM plays the PCs (or lets a policy play them), may type in real dice
        (--dice manual), undo, save and resume. Type `help` at any prompt."""
        from tactica.table import Session, SessionError, Terminal, default_save_path
        from tactica.textsafe import SafeConsole

        if resume is not None:
            if scenario is not None:
                raise SessionError("give a scenario or --resume, not both", field="scenario",
                                   expected="tactica autopilot --resume FILE")
            sess = Session.resume(resume, npc=npc, pc=pc, seed=seed, dice_mode=dice or None, confirm=confirm,
                                  save_path=save)
        else:
            if scenario is None:
                raise SessionError("missing", field="scenario", expected="a scenario name or file, or --resume FILE")
            from rules.scenario import load_scenario

            spec, _ = load_scenario(scenario)
            sess = Session.new(scenario, npc=npc, pc=pc, seed=seed or 0, dice_mode=dice or "engine",
                               confirm=True if confirm is None else confirm,
                               save_path=save or default_save_path(spec.name))
        console = SafeConsole(highlight=False)
        Terminal(sess, console).run()

    @app.command()
    @friendly
    def suggest(
        state_file: Path = typer.Argument(..., help="A Tactica state file (an autopilot save, or GET /fights/ID's state)."),
        actor: Optional[str] = typer.Option(None, "--actor", help="The figure (default: the acting one)."),
        policy: Optional[str] = typer.Option(None, "--policy", help="The policy to ask: a name or a .npz file "
                                              "(default: tactical; `best` answers as the autopilot's NPCs do)."),
        seed: int = typer.Option(0, "--seed", min=0, max=MAX_SEED),
        alternatives: int = typer.Option(4, "--alternatives", "-n", min=0, max=20),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    ) -> None:
        """The suggested action for one figure, with its reasons and the next alternatives."""
        from agents.base import DEFAULT_POLICY, check_policy
        from rules.serialize import battle_from_dict
        from tactica.table import command_for, describe_action, read_save, suggest as plan_for

        policy = check_policy(policy or DEFAULT_POLICY, "--policy")
        from rules.state_check import untrusted

        d = read_save(state_file)
        with untrusted(str(state_file)):  # a state the checks let through: one line naming the file
            battle = battle_from_dict(d, source=str(state_file))
            plan = plan_for(battle.state, actor, policy, seed, alternatives)
        s = battle.state
        if as_json:
            print(json.dumps(plan.to_json(s), indent=2))
            return
        from tactica.textsafe import safe as escape

        who = s.by_id[plan.actor]
        hyp = " (if it were its turn now)" if plan.hypothetical else ""
        out.print(escape(f"{who.name} ({who.id}){hyp}: {describe_action(s, plan.action)}  "
                         f"[{command_for(s, plan.action)}]"), highlight=False)
        out.print(escape(f"  why: {plan.reason}"), highlight=False)
        for i, a in enumerate(plan.alternatives, 1):
            sc = f" (score {a.score:.2f})" if a.score is not None else ""
            out.print(escape(f"  {i}. {command_for(s, a.action)}{sc} - {a.reason}"), highlight=False)

    @app.command()
    @friendly
    def serve(
        host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (loopback by default)."),
        port: int = typer.Option(8765, "--port", min=0, max=65535),
        token: Optional[str] = typer.Option(None, "--token", envvar="TACTICA_TOKEN", show_envvar=True,
                                            help="Require 'Authorization: Bearer TOKEN'. Prefer the "
                                            "TACTICA_TOKEN environment variable: a token given on the "
                                            "command line shows in `ps` to every user of the machine."),
        max_body: int = typer.Option(MAX_SAVE_BYTES, "--max-body", min=1024, max=MAX_SAVE_BYTES,
                                     help="Largest request body, bytes."),
        data: Optional[Path] = typer.Option(None, "--data", help="Folder where every fight is saved after each "
                                            "change and resumed from at start (default: "
                                            "~/.local/share/tactica/fights)."),
        memory: bool = typer.Option(False, "--memory", help="Keep fights in memory only (lost when the server stops)."),
        cors_origin: list[str] = typer.Option([], "--cors-origin", help="A web origin (https://vtt.example) whose "
                                              "pages may call the API from a browser (repeatable)."),
        allow_host: list[str] = typer.Option([], "--allow-host", help=ALLOW_HOST_HELP),
    ) -> None:
        """The battle map (open / in a browser) and its HTTP JSON API (reference at /docs)."""
        from tactica.server import serve as run

        if host not in ("127.0.0.1", "localhost", "::1") and not token:
            err.print("[yellow]warning:[/] serving beyond loopback without --token: anyone who can reach "
                      f"{host}:{port} can play", highlight=False)
        need = " - token required: open /#token=TOKEN" if token else ""
        if port == 0:
            port = _free_port(host, port)   # the Host check names the real port
        folder = None if memory else (data or default_data_folder())
        where = "fights kept in memory only" if folder is None else f"fights saved in {folder}"
        print(f"tactica battle map on http://{_url_host(host)}:{port}/ (API docs at /docs){need}; {where}",
              file=sys.stderr)
        run(host, port, token, max_body, data=folder, cors_origins=cors_origin or None, allow_hosts=allow_host)

    @app.command()
    @friendly
    def view(
        log_file: Path = typer.Argument(..., help="A `tactica simulate --log` file, a replay file or an autopilot "
                                        "save (any Tactica state file)."),
        fight: Optional[int] = typer.Option(None, "--fight", min=0, help="Which fight of a simulate log (default: "
                                            "the first; the page can switch)."),
        scenario: Optional[str] = typer.Option(None, "--scenario", help="The scenario the log was played on "
                                               "(default: the bundled scenario the log names)."),
        host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (loopback by default)."),
        port: int = typer.Option(8766, "--port", min=0, max=65535, help="Port (0: any free port)."),
        no_open: bool = typer.Option(False, "--no-open", help="Do not open a browser; just print the address."),
        allow_host: list[str] = typer.Option([], "--allow-host", help=ALLOW_HOST_HELP),
    ) -> None:
        """Replay a recorded fight on the battle map in the browser: step, play/pause, scrub.

        The server only shows the recording: it answers GET requests and refuses any other."""
        from tactica.server import serve as run
        from tactica.web.replay import Replay, load_recording

        if host not in ("127.0.0.1", "localhost", "::1"):
            err.print(f"[yellow]warning:[/] serving beyond loopback: anyone who can reach {escape(host)}:{port} "
                      "can see this fight", highlight=False)
        rp = Replay(load_recording(log_file, scenario))
        first = rp.fights[0] if fight is None else fight
        followed = rp.followed(first)  # a log that cannot be followed fails here, before serving
        port = _free_port(host, port)
        url = f"http://{_url_host(host)}:{port}/?fight={first}"
        print(f"replaying {log_file}: {followed.scenario}, {len(followed.frames) - 1} steps"
              f"{f' (fight {first} of {len(rp.fights)})' if len(rp.fights) > 1 else ''} - open {url}",
              file=sys.stderr)
        if followed.warning:
            err.print(f"[yellow]warning:[/] {escape(followed.warning)}", highlight=False)
        if not no_open:
            import threading
            import webbrowser

            threading.Timer(1.0, webbrowser.open, [url]).start()
        run(host, port, None, replay=rp, log_level="warning", allow_hosts=allow_host)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def default_data_folder() -> Path:
    """Where `tactica serve` keeps its fights: $XDG_DATA_HOME/tactica/fights, or
    ~/.local/share/tactica/fights."""
    import os

    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tactica" / "fights"


def _free_port(host: str, port: int) -> int:
    """`port` if it can be bound (0: a free one), else a clear error."""
    import socket

    from rules.errors import TacticaError

    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as e:
            raise TacticaError(f"cannot listen on {host}:{port} ({e.strerror or e})", field="--port",
                               expected="a free port (another --port N, or 0 for any)") from None
        return s.getsockname()[1]
