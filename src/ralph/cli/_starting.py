"""What ``ralph hero``, ``team``, ``loop`` and ``serve`` do before their sessions run: open
the agent runtime, warn and check, make the session options (ralph.toml's with the
command's on top, the live view their observer), say what runs, and take Ctrl-C over
while the view shows."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ralph.cli._console import Console
from ralph.cli._live import LiveView
from ralph.cli._project import check_before_run, warn_if_untested
from ralph.cli._run import project_runtime

if TYPE_CHECKING:
    from ralph.orchestrate import Interrupt, SessionOptions
    from ralph.project import Project
    from ralph.runtimes import AgentRuntime

__all__ = ["Started", "at_once", "roots_banner", "session_console", "signals", "started"]

#: What a command says as its sessions start, from their options and the runtime.
Banner = Callable[["SessionOptions", "AgentRuntime"], str]


def session_console() -> Console:
    return Console(highlight=False, soft_wrap=True)


@contextmanager
def signals(interrupt: Interrupt) -> Iterator[None]:
    """First Ctrl-C/SIGTERM/SIGHUP: stop claiming, finish tasks in hand; second: hand them
    back. SIGHUP is a closed terminal or a lost SSH session: without a handler the process
    would die at once, its claims held until their leases ran out."""
    console = Console(stderr=True, highlight=False, soft_wrap=True)

    def handle(signum: int, frame: object) -> None:
        if interrupt.signal():
            said = "Stopping now: handing running tasks back to the store."
        else:
            said = (
                "Stopping: no new tasks; the running ones finish first "
                "(Ctrl-C again hands them back now)."
            )
        # The terminal may be gone (SIGHUP): saying so must not stop the stopping.
        with suppress(OSError):
            console.print(said, markup=False)

    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {sig: signal.signal(sig, handle) for sig in stops}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def at_once(roots: int, agents: int) -> str:
    """``1 root and 3 agents at once``: what a loop or the service runs side by side."""
    return (
        f"{roots} root{'' if roots == 1 else 's'} and "
        f"{agents} agent{'' if agents == 1 else 's'} at once"
    )


def roots_banner(command: str, detail: str = "") -> Banner:
    """``loop — hero, 1 root and 3 agents at once — RUNTIME``: what a loop or the service
    says as it starts (``detail`` after the counts)."""

    def banner(options: SessionOptions, runtime: AgentRuntime) -> str:
        counts = at_once(options.max_roots, options.max_agents)
        return f"{command} — {options.mode}, {counts}{detail} — {runtime.description}"

    return banner


@dataclass(frozen=True)
class Started:
    runtime: AgentRuntime
    options: SessionOptions
    view: LiveView
    console: Console


@contextmanager
def started(
    project: Project,
    agent: str | None,
    banner: Banner,
    *,
    many: bool = False,
    **asked: Any,
) -> Iterator[Started]:
    """The runtime ``--agent`` names (or ralph.toml's), the checks before a run, and the
    session options: ralph.toml's with ``asked`` on top (an option not given is None),
    the live view their observer (``many``: of a loop's or the service's roots). The
    block runs with the view on screen and Ctrl-C stopping the sessions."""
    from ralph.orchestrate import SessionOptions

    console = session_console()
    runtime = project_runtime(project, agent)
    warn_if_untested(project.config)
    check_before_run(project)
    view = LiveView(project.store, project.tracker, console, many=many)
    options = SessionOptions.from_config(project.config, observer=view, **asked)
    console.print(banner(options, runtime), markup=False)
    with signals(options.interrupt), view.showing():
        yield Started(runtime, options, view, console)
