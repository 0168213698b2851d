"""The scripted runtime: deterministic in-process agents that do real work from the
issue text, for tests and ``ralph demo``. Everything it reports says "simulated agent".

Faults make it misbehave on purpose, per phase and in order: ``ScriptedRuntime({"research":
[AgentFault.INVALID_RESULT]})`` returns one invalid research result, then behaves. The same
faults can come from ``RALPH_SCRIPTED_FAULTS`` (``research=invalid-result*2,review=
needs-iteration``) for tests that run Ralph as a subprocess.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ralph.errors import ConfigError
from ralph.runtimes._model import AgentBrief, AgentResult, AgentStatus
from ralph.runtimes._runtime import AgentRuntime
from ralph.runtimes.scripted import _analyst, _builder, _pull_request
from ralph.workflow import find_phase

__all__ = ["FAULTS_VARIABLE", "AgentFault", "ScriptedRuntime", "parse_faults"]

logger = logging.getLogger(__name__)

FAULTS_VARIABLE = "RALPH_SCRIPTED_FAULTS"
#: Seconds each scripted agent takes, and the (simulated) dollars and tokens each run
#: costs: for tests and benchmarks of orchestration that run Ralph as a subprocess.
DELAY_VARIABLE = "RALPH_SCRIPTED_DELAY"
COST_VARIABLE = "RALPH_SCRIPTED_COST"
TOKENS_VARIABLE = "RALPH_SCRIPTED_TOKENS"
DESCRIPTION = "simulated agent (scripted)"
#: How long a stopped agent's thread is given to give up before the run returns anyway.
_GIVE_UP_SECONDS = 1.0


class AgentFault(enum.StrEnum):
    FAIL = "fail"
    HANG = "hang"
    CRASH = "crash"
    EXCEED_BUDGET = "exceed-budget"
    EXCEED_TURNS = "exceed-turns"
    INVALID_RESULT = "invalid-result"
    NEEDS_ITERATION = "needs-iteration"
    ESCALATE = "escalate"
    #: Implementation writes a file in the main checkout, outside its worktree.
    WRITE_OUTSIDE = "write-outside"
    #: The agent does its work, but one Bash call of its was refused on the way.
    REFUSED_TOOL = "refused-tool"
    #: The agent cannot work here at all, as with a refused API key.
    MISCONFIGURED = "misconfigured"
    #: Implementation also commits a file its plan does not name.
    UNPLANNED_FILE = "unplanned-file"


Agent = Callable[[AgentBrief], dict[str, Any]]

_AGENTS: Mapping[str, Agent] = {
    "triage": _analyst.triage,
    "split": _analyst.split,
    "research": _analyst.research,
    "plan": _builder.plan,
    "review": _builder.review,
    "implement": _builder.implement,
    "code_review": _pull_request.code_review,
    "address": _pull_request.address,
}
#: Agents for briefs that are no phase of their own: best of N's validator choosing
#: between attempts (``select = "review"``).
_HELPERS: Mapping[str, Agent] = {"select": _builder.select}


def _number(source: Mapping[str, str], name: str) -> float:
    text = source.get(name, "").strip()
    if not text:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise ConfigError(f"{name}={text!r} is not a number of zero or more")
    return value


def parse_faults(text: str) -> dict[str, list[AgentFault]]:
    """``research=invalid-result*2,review=needs-iteration`` -> faults per phase."""
    faults: dict[str, list[AgentFault]] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        phase, sep, spec = item.partition("=")
        name, _, count = spec.partition("*")
        try:
            fault = AgentFault(name.strip())
            times = int(count) if count else 1
        except ValueError:
            valid = ", ".join(f.value for f in AgentFault)
            raise ConfigError(
                f"bad scripted fault {item!r}: write phase=fault[*times] with a fault among {valid}"
            ) from None
        if not sep or phase.strip() not in _AGENTS:
            raise ConfigError(
                f"bad scripted fault {item!r}: the phase must be one of {', '.join(_AGENTS)}"
            )
        faults.setdefault(phase.strip(), []).extend([fault] * times)
    return faults


class ScriptedRuntime(AgentRuntime):
    name = "scripted"
    description = DESCRIPTION

    def __init__(
        self,
        faults: Mapping[str, Sequence[AgentFault]] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        delay_seconds: float | None = None,
        cost_usd: float | None = None,
        tokens: int | None = None,
    ) -> None:
        source = os.environ if env is None else env
        self._faults = parse_faults(source.get(FAULTS_VARIABLE, ""))
        self.delay_seconds = (
            _number(source, DELAY_VARIABLE) if delay_seconds is None else delay_seconds
        )
        self.cost_usd = _number(source, COST_VARIABLE) if cost_usd is None else cost_usd
        #: Tokens each agent run reports, the first turn's worth as it starts.
        self.tokens = int(_number(source, TOKENS_VARIABLE)) if tokens is None else tokens
        for phase, queued in (faults or {}).items():
            self._faults.setdefault(phase, []).extend(queued)
        self._lock = threading.Lock()
        #: Briefs seen, in order (tests read them).
        self.briefs: list[AgentBrief] = []

    def _next_fault(self, phase: str) -> AgentFault | None:
        with self._lock:
            queued = self._faults.get(phase)
            return queued.pop(0) if queued else None

    def run(self, brief: AgentBrief) -> AgentResult:
        """The scripted agent's work; with ``brief.transcripts``, its transcript (the
        brief as it got it, then its ending, as JSON lines) kept there."""
        ended = self._run(brief)
        if brief.transcripts is None:
            return ended
        path = _write_transcript(brief.transcripts, brief, ended)
        return dataclasses.replace(ended, transcript=str(path))

    def _run(self, brief: AgentBrief) -> AgentResult:
        started = time.monotonic()
        self.briefs.append(brief)
        fault = self._next_fault(brief.phase)
        agent = _AGENTS.get(brief.phase) or _HELPERS.get(brief.phase)
        outcome: dict[str, Any] = {}

        def work() -> None:
            try:
                outcome["result"] = self._perform(brief, fault, agent, finished)
            except Exception as exc:  # an agent bug is a crash of that agent, not of Ralph
                logger.exception("scripted agent crashed", extra={"phase": brief.phase})
                outcome["error"] = f"{type(exc).__name__}: {exc}"
            finally:
                over.set()

        finished = threading.Event()
        # Ends the wait below: the agent's work returning, or a stop from another thread.
        over = threading.Event()
        brief.stop.on_stop(over.set)
        thread = threading.Thread(target=work, name=f"scripted-{brief.phase}", daemon=True)
        thread.start()
        over.wait(brief.limits.timeout_seconds)
        finished.set()  # a hanging or waiting agent wakes up and gives up
        elapsed = time.monotonic() - started
        ended = bool(outcome)  # written before the thread sets ``over``
        if not ended and brief.stop.stopped:
            thread.join(_GIVE_UP_SECONDS)  # it gives up at once; nothing it does is used
            return self._result(AgentStatus.STOPPED, elapsed, error=brief.stop.reason)
        if not ended:
            return self._result(
                AgentStatus.TIMEOUT,
                elapsed,
                error=f"no result within {brief.limits.timeout_seconds:g}s",
            )
        if "error" in outcome:
            return self._result(AgentStatus.CRASHED, elapsed, error=outcome["error"])
        result: AgentResult = outcome["result"]
        cost = result.cost_usd or self.cost_usd
        tokens = result.input_tokens if result.tokens else self.tokens
        return dataclasses.replace(
            result, duration_seconds=elapsed, cost_usd=cost, input_tokens=tokens
        )

    def _perform(
        self,
        brief: AgentBrief,
        fault: AgentFault | None,
        agent: Agent | None,
        stop: threading.Event,
    ) -> AgentResult:
        if agent is None:
            return self._result(AgentStatus.FAILED, 0, error=f"no scripted agent for {brief.phase}")
        feed = brief.activity
        issue = brief.issues[0] if brief.issues else None
        about = f"#{issue.number}: {issue.title}" if issue is not None else "its brief"
        feed.turn()
        if self.tokens:
            feed.usage(tokens=self.tokens)
        feed.tool("Read", about.partition(":")[0])
        if self.delay_seconds and stop.wait(self.delay_seconds / 2):
            return self._result(AgentStatus.TIMEOUT, 0, error="the agent was stopped")
        feed.said(f"Working on the {brief.phase} of {about}")
        if self.delay_seconds and stop.wait(self.delay_seconds / 2):
            return self._result(AgentStatus.TIMEOUT, 0, error="the agent was stopped")
        if fault is AgentFault.HANG:
            stop.wait()
            return self._result(AgentStatus.TIMEOUT, 0, error="the agent hung")
        if fault is AgentFault.FAIL:
            return self._result(AgentStatus.FAILED, 0, error="scripted fault: the agent failed")
        if fault is AgentFault.CRASH:
            raise RuntimeError("scripted fault: the agent process died")
        if fault is AgentFault.MISCONFIGURED:
            return self._result(
                AgentStatus.MISCONFIGURED,
                0,
                error="scripted fault: the key was refused; set ANTHROPIC_API_KEY",
            )
        if fault is AgentFault.EXCEED_BUDGET:
            cap = brief.limits.max_usd or 1.0
            return self._result(
                AgentStatus.BUDGET_EXCEEDED,
                0,
                cost=cap + 0.01,
                error=f"scripted fault: spent more than ${cap:.2f}",
            )
        if fault is AgentFault.EXCEED_TURNS:
            return self._result(
                AgentStatus.TURNS_EXCEEDED,
                0,
                turns=brief.limits.max_turns,
                error=f"scripted fault: reached {brief.limits.max_turns} turns",
            )
        if fault is AgentFault.INVALID_RESULT:
            return self._result(AgentStatus.OK, 0, result={"unexpected": "scripted fault"})
        if fault is AgentFault.ESCALATE:
            return self._result(
                AgentStatus.OK, 0, result={"escalate": "scripted fault: the agent asks a person"}
            )
        wrote: tuple[str, ...] = ()
        if fault is AgentFault.WRITE_OUTSIDE:
            stray = Path(brief.facts.get("repository", brief.workdir)) / "stray-from-agent.txt"
            stray.write_text("written outside the worktree\n")
            wrote = (str(stray.resolve()),)  # its own write, as a tool call would show it
        if fault is AgentFault.NEEDS_ITERATION:
            brief = _builder.with_fact(brief, "verdict", "NEEDS_ITERATION")
        refused = ("Bash",) if fault is AgentFault.REFUSED_TOOL else ()
        result = agent(brief)
        _report_work(brief, result)
        if fault is AgentFault.UNPLANNED_FILE:
            _builder.commit_unplanned_file(brief.workdir)
        done = self._result(AgentStatus.OK, 0, result=result, refused=refused)
        return dataclasses.replace(done, wrote=wrote)

    @staticmethod
    def _result(
        status: AgentStatus,
        elapsed: float,
        *,
        result: Mapping[str, Any] | None = None,
        cost: float = 0.0,
        turns: int = 1,
        error: str = "",
        refused: tuple[str, ...] = (),
    ) -> AgentResult:
        return AgentResult(
            status=status,
            result=result,
            cost_usd=cost,
            turns=turns,
            duration_seconds=elapsed,
            error=error,
            denied_tools=refused,
            agent=DESCRIPTION,
        )


def _report_work(brief: AgentBrief, result: Mapping[str, Any]) -> None:
    """What the agent did, as its activity: the files it wrote, the tests it ran, its
    last words."""
    for path in brief.outputs.values():
        brief.activity.tool("Write", path)
    spec = find_phase(brief.phase)
    # A phase that changes code runs the tests in its worktree.
    if spec is not None and spec.in_worktree and brief.facts.get("test_command"):
        brief.activity.tool("Bash", brief.facts["test_command"])
    words = next((str(result[k]) for k in ("summary", "rationale", "reason") if result.get(k)), "")
    if result.get("escalate"):  # it gives up: never "done" right before "✗ escalated"
        words = f"Cannot go on without a person: {result['escalate']}"
    brief.activity.said(words or f"The {brief.phase} is done.")


def _write_transcript(folder: Path, brief: AgentBrief, ended: AgentResult) -> Path:
    """The agent run as JSON lines in a new file of ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{uuid.uuid4()}.jsonl"
    said = [
        {"type": "user", "phase": brief.phase, "role": brief.role, "text": brief.instructions},
        {
            "type": "result",
            "status": ended.status.value,
            "result": dict(ended.result) if ended.result is not None else None,
            "error": ended.error,
        },
    ]
    path.write_text("".join(json.dumps(line, default=str) + "\n" for line in said))
    return path
