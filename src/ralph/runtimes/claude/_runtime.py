"""The Claude Code runtime: one headless Claude Code run per phase, through
claude-agent-sdk (whose wheel ships the CLI).

Each run gets Claude Code's system prompt with the phase's role appended, only the
role's tools (anything else is denied: nobody answers permission prompts), a guard that
refuses the file tools any path outside the working directory (reads too: the person's
home holds their credentials), Ralph's read-only tracker tools
in-process, the turn and dollar caps, the phase's JSON schema for the structured
result, and an environment without tracker or store credentials. A watchdog ends the
run at the wall-clock timeout, when no message came for the stall time, or when Ralph
asks it to stop (``AgentBrief.stop``: a person took the issue away). An API answer
that says the setup is wrong (a refused key, an account that cannot pay, an unknown
model) ends the run at once as misconfigured, saying what to fix: Claude Code itself
would retry a refused key for minutes. The provider's limit (a 429, an overload, a
subscription's spent window) ends the run rate limited with the reset Claude Code
passed on; Claude Code retrying one for long is stopped (``_limit_watch``).

Bash runs in Claude Code's own sandbox (see ``_sandbox``) unless a person allowed
unsandboxed agents; a sandbox that cannot start ends the run as misconfigured, saying
what to install.
"""

from __future__ import annotations

import logging
import os
import re
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from ralph.runtimes._claude_cli import login_command
from ralph.runtimes._claude_live import ClaudeLive
from ralph.runtimes._claude_outcome import (
    classify,
    sandbox_problem,
    setup_problem,
    structured_result,
)
from ralph.runtimes._limit_watch import LIMIT_RETRIES, claude_retry
from ralph.runtimes._model import AgentBrief, AgentResult, AgentStatus
from ralph.runtimes._prompt import render_brief
from ralph.runtimes._provider_limits import (
    LONG_WAIT_SECONDS,
    ProviderLimit,
    from_rate_limit_event,
    from_text,
)
from ralph.runtimes._runtime import AgentRuntime
from ralph.runtimes._stop import StopSignal
from ralph.runtimes.claude._options import (
    READ_TOOLS,
    TOOLS_SERVER,
    WRITE_TOOLS,
    option_values,
)
from ralph.runtimes.claude._sandbox import clear_traces, traces

__all__ = ["ClaudeRuntime"]

logger = logging.getLogger(__name__)

#: How often the watchdog looks at the clock.
_TICK_SECONDS = 0.1


@dataclass
class _Watch:
    """What one run has seen so far; the watchdog reads it."""

    timeout: float
    stall: float
    stop: StopSignal = field(default_factory=StopSignal)
    started: float = field(default_factory=time.monotonic)
    last_message: float = field(default_factory=time.monotonic)
    result: dict[str, Any] | None = None
    session_id: str = ""
    timed_out: str = ""
    #: Why Ralph stopped the run (``AgentBrief.stop``), once it did.
    stopped: str = ""
    crashed: str = ""
    #: What to fix, once an API answer said the setup is wrong.
    misconfigured: str = ""
    denied: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    #: The provider's limit, once a rate limit event refused the run or Ralph stopped
    #: Claude Code retrying one.
    limit: ProviderLimit | None = None
    #: How many times Claude Code retried a limit so far.
    limit_retries: int = 0

    def seen(self) -> None:
        self.last_message = time.monotonic()

    def overdue(self) -> str:
        if self.stop.stopped:
            self.stopped = self.stop.reason or "stopped"
            return self.stopped
        now = time.monotonic()
        if now - self.started > self.timeout:
            return f"no result within {self.timeout:g}s"
        if now - self.last_message > self.stall:
            return f"stalled: no message from Claude Code for {self.stall:g}s"
        return ""

    def on_stderr(self, line: str) -> None:
        self.stderr = [*self.stderr[-19:], line.rstrip()]


def _refusal(path: str, workdir: Path, *, write: bool = True) -> str:
    """Why a file tool may not write (or read) ``path``; "" when it may."""
    target = (Path(path) if os.path.isabs(path) else workdir / path).resolve()
    if not target.is_relative_to(workdir.resolve()):
        return f"{path} is outside your working directory {workdir}"
    if not write:
        return ""
    # A worktree's .git file, rewritten, would point Ralph's own git at a repository
    # the agent made.
    if target.relative_to(workdir.resolve()).parts[:1] == (".git",):
        return f"{path} is git's, not yours: change files, and commit with git"
    return ""


def _paths(tool: str, tool_input: Any) -> list[str]:
    """The paths a file tool's call names: its file or folder, and a Glob pattern's
    fixed start when the pattern is absolute (``/root/**``)."""
    found = [
        str(tool_input.get(key))
        for key in ("file_path", "notebook_path", "path")
        if tool_input.get(key)
    ]
    pattern = str(tool_input.get("pattern") or "") if tool == "Glob" else ""
    if pattern.startswith("/"):
        fixed = re.split(r"[*?\[{]", pattern, maxsplit=1)[0]
        found.append(fixed.rsplit("/", 1)[0] or "/")
    return found


def _transcript_path(config_dir: str, cwd: Path, session_id: str) -> Path:
    """Where Claude Code keeps the session: projects/<cwd with / as ->/<id>.jsonl."""
    folder = re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
    return Path(config_dir) / "projects" / folder / f"{session_id}.jsonl"


class ClaudeRuntime(AgentRuntime):
    name = "claude"
    description = "Claude Code"

    def __init__(
        self,
        *,
        model: str = "",
        permission_mode: str = "dontAsk",
        tools_server: Any = None,
        env: Mapping[str, str] | None = None,
        cli_path: str | Path | None = None,
        sandbox: bool = True,
        sandbox_env: Sequence[str] = (),
    ) -> None:
        """``tools_server``: an ``mcp`` MCPServer with the tracker tools agents may use.
        ``env``: variables laid over the person's environment for the CLI (after
        credentials were removed). ``cli_path``: a Claude Code other than the bundled one.
        ``sandbox``: False runs Bash without Claude Code's sandbox (a person's
        ``allow_unsandboxed = true``). ``sandbox_env``: the person's variables the CLI
        gets besides what it needs to run (ralph.toml's ``sandbox_env``).
        """
        self.model = model
        self.permission_mode = permission_mode
        self.tools_server = tools_server
        self.env = dict(env or {})
        self.cli_path = cli_path
        self.sandbox = sandbox
        self.sandbox_env = tuple(sandbox_env)

    def sandboxed(self, phase: str) -> bool:
        # Its Bash in Claude Code's sandbox; its file tools refused outside the workdir.
        return self.sandbox

    def run(self, brief: AgentBrief) -> AgentResult:
        watch = _Watch(brief.limits.timeout_seconds, brief.limits.stall_seconds, brief.stop)
        session_id = str(uuid.uuid4())
        before = traces(brief.workdir)
        try:
            anyio.run(self._run, brief, watch, session_id)
        except Exception as exc:  # the SDK or the CLI broke: the run crashed
            logger.warning("claude run broke", extra={"phase": brief.phase, "error": str(exc)})
            watch.crashed = watch.crashed or f"{type(exc).__name__}: {exc}"
        finally:
            clear_traces(brief.workdir, before)
        return self._result(brief, watch, session_id)

    def _tracker_tools(self, brief: AgentBrief) -> bool:
        return self.tools_server is not None and bool(brief.tracker_tools)

    def _server_tools(self) -> list[str]:
        """Every tool the tracker server has, by its name there (``ralph_hero__get_issue``)."""
        return list(self.tools_server.parameters) if self.tools_server is not None else []

    def _offered_tracker_tools(self, brief: AgentBrief) -> list[str]:
        """The server's tools the brief names (``get_issue``), by their names there."""
        if not self._tracker_tools(brief):
            return []
        return [n for n in self._server_tools() if n.split("__")[-1] in brief.tracker_tools]

    def _options(self, brief: AgentBrief, watch: _Watch, session_id: str) -> Any:
        from claude_agent_sdk import AgentDefinition, ClaudeAgentOptions, HookMatcher

        values = option_values(
            brief,
            permission_mode=self.permission_mode,
            default_model=self.model,
            session_id=session_id,
            extra_env=self.env,
            passed_env=self.sandbox_env,
            tracker_tools=self._offered_tracker_tools(brief),
            server_tools=self._server_tools(),
            cli_path=self.cli_path,
            sandbox=self.sandbox,
        )
        if self._tracker_tools(brief):
            values["mcp_servers"] = {
                TOOLS_SERVER: {
                    "type": "sdk",
                    "name": TOOLS_SERVER,
                    "instance": self.tools_server._lowlevel_server,
                }
            }

        async def guard_paths(data: Any, tool_use_id: str | None, context: Any) -> Any:
            tool_input = data.get("tool_input") or {}
            tool = str(data.get("tool_name"))
            paths = _paths(tool, tool_input)
            write = tool in WRITE_TOOLS
            refusal = next(
                filter(None, (_refusal(p, brief.workdir, write=write) for p in paths)), ""
            )
            if refusal:
                watch.denied.append(str(data.get("tool_name")))
                brief.activity.refused(str(data.get("tool_name")))
                return {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": refusal,
                    }
                }
            return {}

        if "agents" in values:
            values["agents"] = {
                name: AgentDefinition(**fields) for name, fields in values["agents"].items()
            }
        return ClaudeAgentOptions(
            **values,
            hooks={
                "PreToolUse": [
                    HookMatcher(matcher="|".join((*WRITE_TOOLS, *READ_TOOLS)), hooks=[guard_paths])
                ]
            },
            stderr=watch.on_stderr,
        )

    def _setup_problem(self, brief: AgentBrief, message: Any) -> str:
        """What to fix, when ``message`` is an API answer no retry can change: a
        ``system/api_retry`` frame (Claude Code retries a refused key for minutes) or an
        assistant message carrying an ``error``."""
        from claude_agent_sdk import AssistantMessage, SystemMessage

        status, kind, text = None, "", ""
        if isinstance(message, SystemMessage) and message.subtype == "api_retry":
            found = message.data.get("error_status")
            status = found if isinstance(found, int) else None
            kind = str(message.data.get("error") or "")
        elif isinstance(message, AssistantMessage) and message.error:
            kind = str(message.error)
            text = " ".join(getattr(block, "text", "") for block in message.content).strip()
        else:
            return ""
        model = brief.model or self.model
        return setup_problem(status, kind, text, model=model, login=login_command(self.cli_path))

    async def _run(self, brief: AgentBrief, watch: _Watch, session_id: str) -> None:
        from claude_agent_sdk import AssistantMessage, ClaudeSDKError, ResultMessage, query

        options = self._options(brief, watch, session_id)
        live = ClaudeLive(brief.activity, brief.workdir)
        async with anyio.create_task_group() as group:

            async def watchdog() -> None:
                while not (reason := watch.overdue()):
                    await anyio.sleep(_TICK_SECONDS)
                if not watch.stopped:
                    watch.timed_out = reason
                group.cancel_scope.cancel()

            group.start_soon(watchdog)
            try:
                async for message in query(prompt=render_brief(brief), options=options):
                    watch.seen()
                    live.frame(_live_frame(message))
                    if isinstance(message, ResultMessage):
                        watch.result = _frame(message)
                    elif _waits_on_limit(watch, message):
                        # Claude Code would sit out the wait (or retry on): Ralph waits
                        # it out instead, holding no process.
                        logger.info("claude rate limited", extra={"said": watch.limit})
                        group.cancel_scope.cancel()
                    elif problem := self._setup_problem(brief, message):
                        # The result frame follows an assistant error at once; a refused
                        # key is retried for minutes: stop it as the watchdog would.
                        watch.misconfigured = problem
                        logger.info("claude cannot work", extra={"problem": problem})
                        if not isinstance(message, AssistantMessage):
                            group.cancel_scope.cancel()
            except ClaudeSDKError as exc:
                # An error result is followed by an exception (the CLI exits 1); the
                # result says more than the exception.
                if watch.result is None:
                    tail = " | ".join(watch.stderr[-3:])
                    watch.crashed = f"{type(exc).__name__}: {exc}" + (f" ({tail})" if tail else "")
                    # A result at start-up comes only inside the exception.
                    said = "\n".join([*map(str, getattr(exc, "errors", None) or []), *watch.stderr])
                    if problem := sandbox_problem(said):
                        watch.misconfigured = problem
                        logger.warning("claude cannot work", extra={"problem": problem})
            group.cancel_scope.cancel()

    def _result(self, brief: AgentBrief, watch: _Watch, session_id: str) -> AgentResult:
        frame = watch.result
        outcome = classify(
            frame,
            timed_out=watch.timed_out,
            crashed=watch.crashed,
            misconfigured=watch.misconfigured,
            limited=watch.limit,
            model=brief.model or self.model,
            login=login_command(self.cli_path),
        )
        frame = frame or {}
        usage = frame.get("usage") or {}
        denied = [str(d.get("tool_name")) for d in frame.get("permission_denials") or []]
        config_dir = self.env.get("CLAUDE_CONFIG_DIR") or os.environ.get("CLAUDE_CONFIG_DIR")
        config_dir = config_dir or str(Path.home() / ".claude")
        transcript = _transcript_path(config_dir, brief.workdir, session_id)
        # A stopped run's result, if one came back, is not used; what it spent counts.
        status = AgentStatus.STOPPED if watch.stopped else outcome.status
        return AgentResult(
            status=status,
            result=structured_result(frame) if status is AgentStatus.OK else None,
            cost_usd=float(frame.get("total_cost_usd") or 0.0),
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
            cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0),
            turns=int(frame.get("num_turns") or 0),
            duration_seconds=time.monotonic() - watch.started,
            transcript=str(transcript) if transcript.is_file() else f"session {session_id}",
            error=watch.stopped or outcome.error,
            denied_tools=tuple(dict.fromkeys([*denied, *watch.denied])),
            agent=self.description,
            resets_at=outcome.resets_at if status is AgentStatus.RATE_LIMITED else 0.0,
        )


def _frame(message: Any) -> dict[str, Any]:
    """The core keys of a ResultMessage, as the CLI's JSON names them."""
    return {
        "subtype": message.subtype,
        "is_error": message.is_error,
        "num_turns": message.num_turns,
        "result": message.result,
        "structured_output": message.structured_output,
        "total_cost_usd": message.total_cost_usd,
        "usage": message.usage,
        "permission_denials": message.permission_denials,
        "errors": message.errors,
        "api_error_status": message.api_error_status,
        "terminal_reason": message.terminal_reason,
        "session_id": message.session_id,
    }


def _waits_on_limit(watch: _Watch, message: Any) -> bool:
    """Read ``message`` for the provider's limit: a rate limit event that refused the
    run (kept for its reset), or an ``api_retry`` of a limit; whether Claude Code is
    to be stopped now (a long wait, or the limit retried ``LIMIT_RETRIES`` times)."""
    from claude_agent_sdk import AssistantMessage, RateLimitEvent, SystemMessage

    if isinstance(message, AssistantMessage) and message.error == "rate_limit":
        # The result frame follows with the same words; kept should none come.
        text = " ".join(getattr(block, "text", "") for block in message.content).strip()
        found = from_text(text or "API Error: 429 rate limit", time.time(), status=429)
        if found is not None:
            watch.limit = found.reset_from(watch.limit)
        return False
    if isinstance(message, RateLimitEvent):
        found = from_rate_limit_event(message.rate_limit_info.raw)
        if found is not None:
            watch.limit = found.later(watch.limit)
        return False
    if not isinstance(message, SystemMessage):
        return False
    retry = claude_retry(
        {**message.data, "type": "system", "subtype": message.subtype}, time.time()
    )
    if retry is None:
        return False
    limit, wait = retry
    watch.limit_retries += 1
    if wait > LONG_WAIT_SECONDS or watch.limit_retries >= LIMIT_RETRIES:
        watch.limit = limit.later(watch.limit)
        return True
    return False


def _live_frame(message: Any) -> dict[str, Any]:
    """An SDK message as the CLI's ``stream-json`` frame (what ``ClaudeLive`` reads):
    {} for one the activity does not show."""
    from claude_agent_sdk import (
        AssistantMessage,
        ResultMessage,
        SystemMessage,
        TextBlock,
        ToolUseBlock,
    )

    if isinstance(message, AssistantMessage):
        content: list[dict[str, Any]] = []
        for block in message.content:
            if isinstance(block, TextBlock):
                content.append({"type": "text", "text": block.text})
            elif isinstance(block, ToolUseBlock):
                content.append({"type": "tool_use", "name": block.name, "input": block.input})
        frame = {"id": message.message_id, "usage": message.usage, "content": content}
        return {"type": "assistant", "message": frame}
    if isinstance(message, SystemMessage):
        return {**message.data, "type": "system", "subtype": message.subtype}
    if isinstance(message, ResultMessage):
        return {"type": "result", "usage": message.usage, "total_cost_usd": message.total_cost_usd}
    return {}
