"""Implementation worktrees and branches, named as the original names them, and the
project's test command run inside one."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

from ralph._secrets import redact
from ralph.artifacts import StreamNames
from ralph.errors import AgentUnusable, ConfigError
from ralph.git import by_products_removed
from ralph.phases._context import PhaseContext
from ralph.phases._group import plan_fields
from ralph.runtimes import environment_for_tests
from ralph.sandbox import confined_shell
from ralph.tracker import Issue
from ralph.workflow import OVERSIZED_ESTIMATES

__all__ = [
    "TestRun",
    "branch_for",
    "plan_stream",
    "project_tests",
    "run_tests",
    "worktree_id",
]

#: Longest a test command may run before the phase calls it failed.
TEST_TIMEOUT_SECONDS = 1800.0
#: How much of a failing run's output the next attempt's brief shows.
_OUTPUT_LINES = 40
_OUTPUT_CHARS = 4000


def _epic(ctx: PhaseContext, issue: Issue) -> int | None:
    """The issue's epic: its parent, when that is sized M or bigger."""
    if issue.parent is None:
        return None
    parent = ctx.tracker.get_issue(issue.parent)
    return parent.number if parent.estimate in OVERSIZED_ESTIMATES else None


def plan_stream(ctx: PhaseContext, members: Sequence[Issue]) -> StreamNames | None:
    """The work stream the issues' plan is for (its frontmatter says), or None."""
    primary = members[0]
    return StreamNames.from_frontmatter(plan_fields(ctx, primary), epic=_epic(ctx, primary))


def worktree_id(ctx: PhaseContext, members: Sequence[Issue]) -> str:
    """``GH-<epic>-stream-<issues>`` for a stream plan, ``GH-<epic>`` for an epic's
    children, ``GH-<primary>`` for a group, ``GH-<n>`` for one issue."""
    stream = plan_stream(ctx, members)
    if stream is not None:
        return stream.worktree
    epic = _epic(ctx, members[0])
    return f"GH-{epic if epic is not None else members[0].number}"


def branch_for(worktree: str) -> str:
    return f"feature/{worktree}"


@dataclass(frozen=True)
class TestRun:
    passed: bool
    command: str
    #: The last lines of the output, for the report.
    tail: str = ""
    #: More of the output's end, for the agent's next attempt.
    output: str = ""


def run_tests(
    command: str,
    cwd: Path,
    timeout: float = TEST_TIMEOUT_SECONDS,
    *,
    network: bool = False,
    allow_unsandboxed: bool = False,
    passed_env: Sequence[str] = (),
) -> TestRun:
    """Run the project's test command (from ralph.toml, so trusted) in ``cwd``, sandboxed:
    the tests an agent wrote write only to ``cwd`` and ``/tmp``, and reach the network
    only with ``network``; their environment holds what they need to run and the
    variables ``passed_env`` names. AgentUnusable (nothing can be tested here until a
    person acts) when the sandbox cannot start and ``allow_unsandboxed`` is false."""
    if not command.strip():
        return TestRun(True, "")
    # The tests run code an agent wrote: no token of Ralph's is one `env` away, and
    # whatever they print is redacted before it can reach a comment or the store.
    env = environment_for_tests(os.environ, passed_env)
    try:
        argv = confined_shell(
            command,
            cwd,
            allow_unsandboxed=allow_unsandboxed,
            what="the test command",
            env=env,
            network=network,
        )
    except ConfigError as refused:
        raise AgentUnusable(str(refused)) from None
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, env=env
        )
    except subprocess.TimeoutExpired:
        return TestRun(False, command, f"timed out after {timeout:g}s")
    lines = redact(done.stdout + done.stderr).strip().splitlines()
    output = "\n".join(lines[-_OUTPUT_LINES:])[-_OUTPUT_CHARS:]
    return TestRun(done.returncode == 0, command, "\n".join(lines[-5:]), output)


def project_tests(ctx: PhaseContext, cwd: Path, *, scratch: bool = False) -> TestRun:
    """The project's test command in ``cwd``, sandboxed as its ralph.toml says; the new
    files it leaves there (bytecode, caches, coverage) are removed after it, unless
    ``cwd`` is a ``scratch`` checkout, removed whole right after (two git processes
    fewer a run)."""
    config = ctx.project.config
    with nullcontext() if scratch else by_products_removed(ctx.project.git, cwd):
        return run_tests(
            config.test_command,
            cwd,
            network=config.sandbox_network == "on",
            allow_unsandboxed=config.allow_unsandboxed,
            passed_env=config.sandbox_env,
        )
