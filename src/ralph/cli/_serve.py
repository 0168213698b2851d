"""``ralph serve``: ``ralph loop`` as a service, thin over ``ralph.orchestrate.serve``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ralph.cli._exits import EXIT_INTERRUPTED
from ralph.cli._orchestrate import (
    EXIT_AGENT_UNUSABLE,
    AgentOpt,
    AttemptsOpt,
    MaxRootsOpt,
    ReviewOpt,
    _conclude_root,
)
from ralph.cli._project import open_project_of
from ralph.cli._starting import roots_banner, started
from ralph.errors import InvalidInput

if TYPE_CHECKING:
    from ralph.orchestrate import RootRun
    from ralph.pipeline import QueuedRoot

__all__ = ["serve_command"]


def _status_path(text: str) -> Path:
    """A file the status can be written to: in a folder that exists, not a folder."""
    path = Path(text)
    if "\x00" in text or not text.strip():
        raise InvalidInput(f"--status-file {text!r} is not a file name")
    if path.is_dir():
        raise InvalidInput(f"--status-file {text}: is a folder; name a file")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise InvalidInput(f"--status-file {text}: no writable folder {folder}")
    return path.resolve()


def serve_command(
    ctx: typer.Context,
    poll_seconds: Annotated[
        float | None,
        typer.Option(
            "--poll-seconds",
            help="Seconds between two reads of the board (default: poll_seconds in "
            "ralph.toml; a root ending, or a change on the local tracker, reads it too).",
            show_default=False,
        ),
    ] = None,
    max_roots: MaxRootsOpt = None,
    status_file: Annotated[
        str | None,
        typer.Option(
            "--status-file",
            metavar="PATH",
            help="Keep this JSON file current: running roots and their tasks, retries, "
            "who waits, what was spent today (rewritten whole).",
            show_default=False,
        ),
    ] = None,
    agent: AgentOpt = None,
    attempts: AttemptsOpt = 2,
    review_mode: ReviewOpt = None,
) -> None:
    """`ralph loop` as a service: read the board every poll (and at once when the local
    board changes), start roots as capacity frees, stop an agent whose issue a person
    takes away, one lease per root in the store (several processes share one store).
    New issues are routed by .ralph-routing.yml when there is one, and the hygiene
    report is logged every hygiene_interval hours (ralph.toml; off by default).
    SIGTERM, SIGHUP or Ctrl-C: finish the tasks in hand and exit 0; a second: hand them
    back, exit 130."""
    from ralph.config import MAX_POLL_SECONDS, MIN_POLL_SECONDS
    from ralph.orchestrate import serve

    if poll_seconds is not None and not MIN_POLL_SECONDS <= poll_seconds <= MAX_POLL_SECONDS:
        raise InvalidInput(  # nan too
            f"--poll-seconds {poll_seconds} is not valid; give at least "
            f"{MIN_POLL_SECONDS:g} and at most {MAX_POLL_SECONDS} seconds"
        )
    status = _status_path(status_file) if status_file is not None else None
    with open_project_of(ctx, working=True) as project:
        poll = poll_seconds or project.config.poll_seconds
        with started(
            project,
            agent,
            roots_banner("serve", f", the board read every {poll:g}s"),
            many=True,
            max_roots=max_roots,
            attempts=attempts,
            review_mode=review_mode,
        ) as service:
            console, view = service.console, service.view

            def on_start(queued: QueuedRoot) -> None:
                console.print(f"→ #{queued.root}: {queued.next_phase} next", markup=False)

            def on_end(done: RootRun) -> None:
                if done.result.run is not None:  # without a run, the service's note says why
                    view.forget(done.result.run.id)
                    _conclude_root(project, done, console)

            def on_note(text: str) -> None:
                console.print(text, markup=False)

            serve(
                project,
                service.runtime,
                service.options,
                poll_seconds=poll,
                status_file=status,
                on_start=on_start,
                on_end=on_end,
                on_note=on_note,
            )
    interrupt = service.options.interrupt
    if interrupt.unusable:
        console.print(f"Stopped: {interrupt.unusable}", markup=False)
        raise typer.Exit(EXIT_AGENT_UNUSABLE)
    if interrupt.aborting.is_set():
        console.print("Stopped: running tasks were handed back. `ralph serve` resumes.")
        raise typer.Exit(EXIT_INTERRUPTED)
    console.print("Stopped: the tasks in hand finished. `ralph serve` resumes.", markup=False)
