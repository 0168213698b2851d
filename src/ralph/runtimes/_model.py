"""What a phase hands an agent and what it gets back. Plain frozen data, no I/O: the
same brief drives the scripted agents, Claude Code and any other agent CLI. The
things in a brief that change are its stop signal, set from another thread, and its
activity feed, which the runtime fills as its agent works."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph.runtimes._activity import ActivityFeed
from ralph.runtimes._stop import StopSignal

__all__ = [
    "AgentBrief",
    "AgentResult",
    "AgentStatus",
    "Document",
    "Feedback",
    "IssueContext",
    "Limits",
]


class AgentStatus(enum.StrEnum):
    OK = "ok"
    #: The agent ran and said it could not do the work (or returned an error).
    FAILED = "failed"
    TIMEOUT = "timeout"
    BUDGET_EXCEEDED = "budget_exceeded"
    TURNS_EXCEEDED = "turns_exceeded"
    #: The agent process died or the runtime broke before a result came back.
    CRASHED = "crashed"
    #: The agent cannot work here at all: its key or login was refused, its account
    #: cannot pay, its model does not exist. No retry helps; a person fixes the setup.
    MISCONFIGURED = "misconfigured"
    #: Ralph stopped the agent (``AgentBrief.stop``): a person took its issue away.
    STOPPED = "stopped"
    #: The provider refused for now: a 429, an overload, a subscription's usage window
    #: ("usage limit reached ... resets at T"). Nothing is wrong with the work: it is
    #: waited out (``AgentResult.resets_at``), never counted as an attempt.
    RATE_LIMITED = "rate_limited"


@dataclass(frozen=True)
class Limits:
    max_turns: int = 50
    #: US dollars for this run; 0 means no cap.
    max_usd: float = 0.0
    timeout_seconds: float = 1800.0
    #: No message from the agent for this long counts as a stall (runtimes that stream).
    stall_seconds: float = 300.0


@dataclass(frozen=True)
class Document:
    """A research document, plan or critique linked from an issue."""

    kind: str
    path: str
    text: str


@dataclass(frozen=True, kw_only=True)
class Feedback:
    """What someone said of a pull request, for the agent to act on: a review, a review
    thread or a failing check's log. The text is other people's (untrusted)."""

    #: "review", "thread" or "check".
    kind: str
    #: Ralph's own words for where it is: ``review by alice``, ``src/app.py:3``.
    where: str
    text: str
    #: A thread's id, which the agent's result names when it answers the thread.
    id: str = ""


@dataclass(frozen=True, kw_only=True)
class IssueContext:
    """One issue as the agent sees it."""

    number: int
    title: str
    body: str
    url: str = ""
    state: str | None = None
    estimate: str | None = None
    labels: tuple[str, ...] = ()
    comments: tuple[str, ...] = ()
    parent: int | None = None
    #: (number, title) of each sub-issue.
    children: tuple[tuple[int, str], ...] = ()
    blocked_by: tuple[int, ...] = ()
    documents: tuple[Document, ...] = ()

    def document(self, kind: str) -> Document | None:
        found = [d for d in self.documents if d.kind == kind]
        return found[-1] if found else None


@dataclass(frozen=True, kw_only=True)
class AgentBrief:
    phase: str
    role: str
    #: The issues the phase works on; the first is the primary (a group's plan has all).
    issues: tuple[IssueContext, ...]
    #: The phase's prompt, rendered from its template.
    instructions: str
    workdir: Path
    #: Tool names the role may use (Claude Code's names: Read, Write, Edit, Bash...).
    tools: tuple[str, ...]
    #: Ralph's read-only tracker tools it is offered too (where the runtime has them), by
    #: name (``get_issue``): only these, as each definition rides along with every request.
    tracker_tools: tuple[str, ...] = ()
    #: Sub-agents it may start (where the runtime has them): names of the plugin's agents.
    helpers: tuple[str, ...] = ()
    #: Whether it may search and read the web (research with ``research_web``): its
    #: tools include the web's, and its egress proxy reaches public hosts.
    web: bool = False
    limits: Limits = field(default_factory=Limits)
    #: The model to ask for (an alias or id); empty for the runtime's default.
    model: str = ""
    #: Which of the opened agents runs it (``codex``): best of N names one per attempt;
    #: empty for the phase's own.
    agent: str = ""
    #: The JSON schema the structured result must satisfy.
    result_schema: Mapping[str, Any] = field(default_factory=dict)
    #: Files the phase expects the agent to write, by name (``document``, ``critique``),
    #: relative to ``workdir``.
    outputs: Mapping[str, str] = field(default_factory=dict)
    #: Facts the phase passes on (``test_command``, ``branch``, ``base_branch``...).
    facts: Mapping[str, str] = field(default_factory=dict)
    #: Documents Ralph itself wrote for this task (the reviewer's critique of the plan
    #: being redone): context to act on, unlike the issues' text.
    trusted: tuple[Document, ...] = ()
    #: Why Ralph rejected the earlier attempts at this task, oldest first (empty on the
    #: first attempt): validation errors, failing tests, refused tool calls.
    rejections: tuple[str, ...] = ()
    #: Reviews, review threads and failing checks of the pull request the task is about
    #: (addressing them is the task), fenced as untrusted text like the issues.
    feedback: tuple[Feedback, ...] = ()
    #: A folder where the runtime may keep this agent run's transcript as a file (the
    #: run's, which keeps it beside the task's log); None: only where the agent itself
    #: keeps one, if anywhere.
    transcripts: Path | None = None
    #: Set from another thread when the agent's work can no longer be used; the runtime
    #: then ends the run at once with status ``stopped``.
    stop: StopSignal = field(default_factory=StopSignal, compare=False, repr=False)
    #: Where the runtime reports what its agent does as it happens (turns, tokens, tool
    #: calls, words): the worker holding the task keeps it in the store for every view.
    activity: ActivityFeed = field(default_factory=ActivityFeed, compare=False, repr=False)

    @property
    def primary(self) -> IssueContext:
        return self.issues[0]


@dataclass(frozen=True, kw_only=True)
class AgentResult:
    status: AgentStatus
    #: The structured result (parsed JSON), when the agent returned one.
    result: Mapping[str, Any] | None = None
    cost_usd: float = 0.0
    #: A model the agent used whose price Ralph does not know: the cost is then
    #: unknown (``cost_usd`` counts only the priced models' tokens).
    unpriced_model: str = ""
    #: Input tokens not read from or written to the prompt cache.
    input_tokens: int = 0
    output_tokens: int = 0
    #: Input tokens read from the prompt cache, and written to it.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    turns: int = 0
    duration_seconds: float = 0.0
    #: Where the transcript is kept (a file path or session id), if anywhere.
    transcript: str | None = None
    error: str = ""
    #: Tool calls the agent was refused (tool names), for the report.
    denied_tools: tuple[str, ...] = ()
    #: Who did the work, as reports should name it ("simulated agent (scripted)").
    agent: str = ""
    #: Files the agent's own tool calls wrote, absolute, as far as the runtime sees them
    #: (what an agent CLI's shell does is not seen): the confinement check blames a
    #: change in the person's checkout on an unsandboxed agent only when named here.
    wrote: tuple[str, ...] = ()
    #: RATE_LIMITED: when the provider said its limit lifts (epoch seconds); 0 when it
    #: did not say (the caller backs off).
    resets_at: float = 0.0
    #: The agent CLI that ran, by name (``claude``, ``codex``): the phase runner fills it,
    #: and the run's charge is that agent's (a phase may continue on a fallback agent).
    agent_name: str = ""

    @property
    def ok(self) -> bool:
        return self.status is AgentStatus.OK

    @property
    def tokens(self) -> int:
        """Every token the model counted, cached input included."""
        cached = self.cache_read_tokens + self.cache_write_tokens
        return self.input_tokens + self.output_tokens + cached
