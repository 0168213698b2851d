"""``ralph hero N --background`` and ``ralph team N --background``: the same command
started detached (its own session, so a Claude Code Bash call that times out does not
take it down), its output in a log under ``.ralph/background/``; this process waits
only until the run is in the store, says its number, and returns. ``ralph runs show N
--json`` follows it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ralph.cli._console import Console
from ralph.errors import InvalidInput, NeedsPerson

if TYPE_CHECKING:
    from ralph.project import Project

__all__ = ["BACKGROUND_FOLDER", "ENDED", "BackgroundOpt", "start_in_background"]

#: Under the project's ``.ralph``: one log per background run.
BACKGROUND_FOLDER = Path(".ralph") / "background"
#: How long a run may take to appear in the store (the child opens the project, checks
#: the agent, plans the run).
_APPEAR_SECONDS = 60.0
#: The last line of every background log, with the command's exit code.
ENDED = "ralph: the background run ended with exit"


def start_in_background(
    ctx: typer.Context, project: Project, root: int, *, mode: str, skip: Sequence[str] = ()
) -> int:
    """Start this command again without ``--background`` (nor the parameters in ``skip``,
    done here already), detached; print the run's number once the store has it; the exit
    code. A run that stops before it is in the store (nothing to do, a refusal) is
    printed from its log with its own exit code."""
    from ralph.tasks import RunStatus

    store_url = (ctx.find_root().obj or {}).get("store_url")
    if (store_url or project.config.store_url).startswith("memory:"):
        raise InvalidInput(
            "--background needs a store the detached run shares, and memory:// is this "
            "process's own: use sqlite:///path or postgresql://... (--store or ralph.toml)"
        )
    store = project.store
    known = {run.id for run in store.list_runs(root_issue=root)}
    active = store.list_runs(root_issue=root, status=RunStatus.ACTIVE)
    folder = project.config.root / BACKGROUND_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / f"{mode}-{root}-{datetime.now():%Y%m%d-%H%M%S-%f}.log"
    argv = [sys.executable, "-m", "ralph", *_command_line(ctx, ("background", *skip))]
    env = dict(os.environ)
    if store_url:
        env["RALPH_STORE_URL"] = store_url
    child = subprocess.Popen(
        ["sh", "-c", f'exec >>"$0" 2>&1 </dev/null; "$@"; echo "{ENDED} $?"', str(log), *argv],
        cwd=Path.cwd(),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    started = time.monotonic()
    console = Console(highlight=False, soft_wrap=True)
    shown = _relative(log)
    while time.monotonic() - started < _APPEAR_SECONDS:
        fresh = [run for run in store.list_runs(root_issue=root) if run.id not in known]
        alive = child.poll() is None
        # A run already active is the one the child resumes, once it has got going.
        run = fresh[0] if fresh else (active[0] if active and alive and _since(started) else None)
        if run is not None:
            console.print(
                f"Run {run.id} ({mode} #{root}) runs in the background (pid {child.pid}); "
                f"its output goes to {shown}."
            )
            console.print(
                f"Follow it: ralph runs show {run.id} --json (status stays active until it "
                "ends; report.needsPerson lists what waits for you)."
            )
            return 0
        if not alive:
            console.print(f"The {mode} run stopped before it started ({shown}):")
            console.print(_tail(log))
            return _exit_code(log)
        time.sleep(0.2)
    raise NeedsPerson(
        f"the {mode} run did not appear in the store within {_APPEAR_SECONDS:.0f} seconds; "
        f"it is still starting (pid {child.pid}): see {shown}"
    )


def _since(started: float) -> bool:
    return time.monotonic() - started > 1.0


def _relative(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _tail(log: Path, lines: int = 15) -> str:
    said = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
    ended = [line for line in said if not line.startswith(ENDED)]
    return "\n".join(ended[-lines:])


def _exit_code(log: Path) -> int:
    """The command's exit code, from the log's last line (1 when it has none)."""
    lines = log.read_text(errors="replace").splitlines()
    code = lines[-1].removeprefix(ENDED).strip() if lines else ""
    return int(code) if code.isdigit() and int(code) else 1


def _command_line(ctx: typer.Context, skip: Sequence[str]) -> list[str]:
    """The command's own arguments, as given (the root's options travel in the
    environment)."""
    names = [ctx.info_name or ""]
    at = ctx.parent
    while at is not None and at.parent is not None:
        names.insert(0, at.info_name or "")
        at = at.parent
    options: list[str] = []
    positional: list[str] = []
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        if param.name in skip or value is None or value == param.default:
            continue
        values = value if isinstance(value, list | tuple) else [value]
        texts = [str(getattr(v, "value", v)) for v in values]
        if param.param_type_name == "argument":
            positional += texts
        elif getattr(param, "is_flag", False):
            options.append(param.opts[0] if value else param.secondary_opts[0])
        else:
            for text in texts:
                options += [param.opts[0], text]
    return [*names, *options, "--", *positional] if positional else [*names, *options]


BackgroundOpt = Annotated[
    bool,
    typer.Option(
        "--background",
        help="Start the run detached and return once it is in the store, saying its number "
        "and its log (.ralph/background/); follow it with ralph runs show N --json. For "
        "callers with a time limit, such as Claude Code's Bash tool.",
    ),
]
