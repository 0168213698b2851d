"""The project's workspace hooks (``[hooks]`` in ralph.toml), run in an implementation
worktree: ``after_create`` once per worktree, ``before_run`` and ``after_run`` around each
agent run there, ``before_remove`` before Ralph removes it.

A hook runs code an agent may have written (package.json scripts, a Makefile), so it is
confined as the test command is: it writes only to the worktree and ``/tmp``, reaches
the network only with ``sandbox_network = "on"``, and gets the test command's
environment (what it needs to run, and ``sandbox_env``). It runs in a session of its
own, which is killed whole at ``timeout_seconds``; its output is kept bounded (its
end), redacted, in the phase's report and the log.

``after_create`` and ``before_run`` prepare the worktree, so their failure fails the
task (HookFailed, with the output's last lines); ``after_run`` and ``before_remove``
failing is reported and the phase goes on. ``after_create`` counts as done for a
worktree once it succeeded there (a mark in the worktree's git admin folder, which
goes when the worktree goes): a worktree reused on a rerun does not run it again, one
whose hook failed or was interrupted does.

The new files a hook leaves are not the agent's work (``ralph.git._byproducts``): those
of ``after_run`` and ``before_remove`` are removed, those of the preparing hooks stay,
noted, out of the check for uncommitted changes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ralph._secrets import redact
from ralph.errors import AgentUnusable, ConfigError, RalphError
from ralph.git import by_products_removed, new_files_noted
from ralph.phases._context import PhaseContext
from ralph.runtimes import environment_for_tests
from ralph.sandbox import confined_shell

__all__ = ["HookFailed", "HookRun", "after_create", "run_hook"]

logger = logging.getLogger(__name__)

#: The hooks whose failure fails the task: the worktree is not ready without them.
_REQUIRED = ("after_create", "before_run")
#: How much of a hook's output is read back (its end), and shown.
_OUTPUT_BYTES = 16_000
_OUTPUT_LINES = 20
#: The mark of a successful after_create, in the worktree's git admin folder.
_MARK = "ralph-after-create"


class HookFailed(RalphError):
    """A workspace hook the worktree needs (after_create, before_run) failed or timed
    out; the message has its last lines."""


@dataclass(frozen=True)
class HookRun:
    hook: str
    command: str
    ok: bool
    seconds: float
    #: The end of its output (stdout and stderr together), redacted.
    tail: str
    timed_out: bool = False

    def line(self) -> str:
        """One line for the phase's report."""
        if self.ok:
            return f"Hook {self.hook} (`{self.command}`) passed in {self.seconds:.1f}s."
        why = f"timed out after {self.seconds:.0f}s and was killed" if self.timed_out else "failed"
        last = " | ".join(self.tail.splitlines()[-3:])
        return f"Hook {self.hook} (`{self.command}`) {why}" + (f": {last}" if last else ".")


def _argv(ctx: PhaseContext, command: str, worktree: Path, env: dict[str, str]) -> list[str]:
    config = ctx.project.config
    try:
        return confined_shell(
            command,
            worktree,
            allow_unsandboxed=config.allow_unsandboxed,
            what="workspace hooks",
            env=env,
            network=config.sandbox_network == "on",
        )
    except ConfigError as refused:
        raise AgentUnusable(str(refused)) from None


def _tail(output: IO[bytes]) -> str:
    size = output.seek(0, os.SEEK_END)
    output.seek(max(0, size - _OUTPUT_BYTES))
    text = output.read().decode("utf-8", errors="replace")
    return "\n".join(redact(text).strip().splitlines()[-_OUTPUT_LINES:])


def run_hook(ctx: PhaseContext, hook: str, worktree: Path) -> HookRun | None:
    """Run ``hook`` in ``worktree`` (None when the project has none). Reports it; raises
    HookFailed when a hook the worktree needs fails."""
    settings = ctx.project.config.hooks
    command = settings.command(hook)
    if not command:
        return None
    env = environment_for_tests(os.environ, ctx.project.config.sandbox_env)
    env |= {"RALPH_HOOK": hook, "RALPH_WORKTREE": str(worktree)}
    argv = _argv(ctx, command, worktree, env)
    # What a hook leaves is not the agent's work: a preparing hook's new files stay
    # (they are what it is for) and are noted, any other's are removed.
    git = ctx.project.git
    kept_apart = (
        new_files_noted(git, worktree) if hook in _REQUIRED else by_products_removed(git, worktree)
    )
    with kept_apart:
        ran, code = _run(hook, command, argv, worktree, env, settings.timeout_seconds)
    ctx.say(ran.line())
    logger.info(
        "hook ran",
        extra={"hook": hook, "ok": ran.ok, "seconds": round(ran.seconds, 1), "output": ran.tail},
    )
    if not ran.ok and hook in _REQUIRED:
        raise HookFailed(
            f"hook {hook} (`{command}`) in {worktree.name} "
            + ("timed out" if ran.timed_out else f"exited with {code}")
            + (f"; last lines:\n{ran.tail}" if ran.tail else "")
        )
    return ran


def _run(
    hook: str, command: str, argv: list[str], worktree: Path, env: dict[str, str], limit: float
) -> tuple[HookRun, int]:
    """Run the hook's process to its end (killed whole at ``limit`` seconds)."""
    started = time.monotonic()
    timed_out = False
    with tempfile.TemporaryFile() as output:
        try:
            process = subprocess.Popen(
                argv,
                cwd=worktree,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            raise HookFailed(f"hook {hook} (`{command}`) cannot start: {exc.strerror}") from None
        try:
            code = process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)  # the whole session, not just sh
            code = process.wait(timeout=30)
        ran = HookRun(
            hook,
            command,
            code == 0 and not timed_out,
            time.monotonic() - started,
            _tail(output),
            timed_out,
        )
    return ran, code


def _admin_dir(worktree: Path) -> Path | None:
    """The worktree's own folder in the repository's git directory."""
    dot_git = worktree / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        pointer = dot_git.read_text().strip()
    except OSError:
        return None
    if not pointer.startswith("gitdir: "):
        return None
    return (worktree / pointer.removeprefix("gitdir: ")).resolve()


def after_create(ctx: PhaseContext, worktree: Path) -> None:
    """Run ``after_create`` in ``worktree`` unless it already succeeded there (with the
    same command)."""
    command = ctx.project.config.hooks.command("after_create")
    admin = _admin_dir(worktree)
    mark = admin / _MARK if admin is not None else None
    if not command or (mark is not None and mark.is_file() and mark.read_text() == command):
        return
    run_hook(ctx, "after_create", worktree)
    if mark is not None:
        mark.write_text(command)
