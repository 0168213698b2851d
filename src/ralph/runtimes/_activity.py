"""What an agent is doing while it works: its turns, tokens and cost so far, its last
tool call and its last words, the tool calls it was refused, and its last few events.

A runtime reports each thing as its agent's stream shows it, through the brief's
``activity`` feed (``feed.tool("Edit", "calc/__init__.py")``); whoever watches the run
(the task store, through the worker that holds the task) reads ``snapshot()``. Every
text is made safe on the way in: one line, no control characters, no secret this
process knows, and short, so a chatty or hostile agent cannot flood a terminal or a
page. Plain data and a lock, no I/O.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ralph._text import short_line

__all__ = ["ACTIVITY_RECENT", "Activity", "ActivityEvent", "ActivityFeed", "short"]

#: How many of its last events an activity keeps.
ACTIVITY_RECENT = 8
#: The longest text an event keeps (a tool's argument, a line the agent said).
_TEXT_CHARS = 120


def short(text: str, limit: int = _TEXT_CHARS) -> str:
    """``text`` as an activity keeps it: one short, printable line without secrets."""
    return short_line(text, limit)


@dataclass(frozen=True, kw_only=True)
class ActivityEvent:
    """One thing the agent did: ``kind`` is ``tool``, ``said``, ``refused`` or ``turn``."""

    at: float
    kind: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"at": round(self.at, 3), "kind": self.kind, "text": self.text}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ActivityEvent:
        return cls(at=float(data.get("at", 0.0)), kind=str(data["kind"]), text=str(data["text"]))


@dataclass(frozen=True, kw_only=True)
class Activity:
    """An agent run so far, as it is kept on its task (``Task.metadata["activity"]``)."""

    #: Who works (``claude``, ``codex``, ``simulated agent``).
    agent: str = ""
    turns: int = 0
    #: Every token counted so far, cached input included (0 where the CLI says nothing).
    tokens: int = 0
    cost_usd: float = 0.0
    #: The last tool call: the tool and a short argument (``Edit calc/__init__.py``).
    tool: str = ""
    #: The last thing the agent said, one line.
    said: str = ""
    #: Tool calls it was refused, in order, each once.
    refused: tuple[str, ...] = ()
    recent: tuple[ActivityEvent, ...] = ()
    started_at: float = 0.0
    #: When it last changed.
    at: float = 0.0
    #: The agent run has ended (its final figures are in).
    ended: bool = False

    @property
    def empty(self) -> bool:
        return not (self.turns or self.tokens or self.tool or self.said or self.refused)

    def summary(self) -> str:
        """One line: ``turn 4 · 12.3k tokens · $0.02 · Edit calc/__init__.py``."""
        parts = []
        if self.turns:
            parts.append(f"turn {self.turns}")
        if self.tokens:
            parts.append(f"{_count(self.tokens)} tokens")
        if self.cost_usd:
            parts.append(f"${self.cost_usd:.2f}")
        last = self.recent[-1] if self.recent else None
        if last is not None and last.kind == "said":
            parts.append(f"“{last.text}”")
        elif self.tool:
            parts.append(self.tool)
        elif self.said:
            parts.append(f"“{self.said}”")
        if self.refused:
            parts.append(f"refused {', '.join(self.refused)}")
        return " · ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "turns": self.turns,
            "tokens": self.tokens,
            "costUsd": round(self.cost_usd, 6),
            "tool": self.tool,
            "said": self.said,
            "refused": list(self.refused),
            "recent": [event.to_dict() for event in self.recent],
            "startedAt": round(self.started_at, 3),
            "at": round(self.at, 3),
            "ended": self.ended,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Activity | None:
        """The activity a task keeps; None for a task without one (or a malformed one,
        which a display shows as none rather than failing)."""
        if not isinstance(data, Mapping):
            return None
        try:
            return cls(
                agent=str(data.get("agent", "")),
                turns=int(data.get("turns", 0)),
                tokens=int(data.get("tokens", 0)),
                cost_usd=float(data.get("costUsd", 0.0)),
                tool=str(data.get("tool", "")),
                said=str(data.get("said", "")),
                refused=tuple(str(t) for t in data.get("refused", ())),
                recent=tuple(ActivityEvent.from_dict(e) for e in data.get("recent", ())),
                started_at=float(data.get("startedAt", 0.0)),
                at=float(data.get("at", 0.0)),
                ended=bool(data.get("ended", False)),
            )
        except (KeyError, TypeError, ValueError):
            return None


def _count(tokens: int) -> str:
    if tokens >= 1_000_000:
        return f"{tokens / 1_000_000:.1f}M"
    if tokens >= 1_000:
        return f"{tokens / 1_000:.1f}k"
    return str(tokens)


class ActivityFeed:
    """Where a runtime reports its agent's activity as it happens; safe to call from
    any thread. Listeners are called (from the reporting thread) after each change."""

    def __init__(self, agent: str = "", *, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        now = clock()
        self._activity = Activity(agent=agent, started_at=now, at=now)
        #: Bumped by each change: a recorder writes when it moved.
        self.version = 0
        #: Turns, tokens and dollars before the agent run in hand (``begin``).
        self._base: tuple[int, int, float] = (0, 0, 0.0)
        self._listeners: list[Callable[[], None]] = []

    def snapshot(self) -> Activity:
        with self._lock:
            return self._activity

    def listen(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._listeners.append(listener)

    # -- what a runtime reports -------------------------------------------------------------

    def begin(self, agent: str = "") -> None:
        """An agent run starts (a task may run several: a retry, a review of attempts);
        its figures add to those of the runs before it."""

        def apply(a: Activity, now: float) -> Activity:
            self._base = (a.turns, a.tokens, a.cost_usd)
            return replace(a, agent=short(agent, 60) if agent else a.agent, ended=False)

        self._change(apply)

    def turn(self, turns: int | None = None) -> None:
        """One more turn (or ``turns`` so far, where the CLI counts them)."""
        self._change(lambda a, now: replace(a, turns=a.turns + 1 if turns is None else turns))

    def usage(self, *, tokens: int = 0, cost_usd: float = 0.0, total: bool = False) -> None:
        """Tokens and dollars this turn added (``total``: this agent run's so far, on
        top of the runs before it)."""

        def apply(a: Activity, now: float) -> Activity:
            if total:
                _, base_tokens, base_cost = self._base
                return replace(
                    a, tokens=base_tokens + max(tokens, 0), cost_usd=base_cost + max(cost_usd, 0.0)
                )
            return replace(a, tokens=a.tokens + max(tokens, 0), cost_usd=a.cost_usd + cost_usd)

        self._change(apply)

    def tool(self, name: str, argument: str = "") -> None:
        """A tool call: its name and a short argument (the file, the command)."""
        text = short(f"{name} {argument}".strip())
        self._change(lambda a, now: _event(replace(a, tool=text), now, "tool", text))

    def said(self, text: str) -> None:
        """The agent said something: its last non-empty line is kept."""
        lines = [line for line in str(text).splitlines() if line.strip()]
        if not lines:
            return
        line = short(lines[-1])
        self._change(lambda a, now: _event(replace(a, said=line), now, "said", line))

    def refused(self, name: str) -> None:
        """A tool call the agent was refused."""
        tool = short(name, 60)

        def apply(a: Activity, now: float) -> Activity:
            if tool in a.refused:  # said live already, or by an earlier run
                return a
            return _event(replace(a, refused=(*a.refused, tool)), now, "refused", tool)

        self._change(apply)

    def ended(self, *, turns: int = 0, tokens: int = 0, cost_usd: float = 0.0) -> None:
        """The agent run ended with these figures (from its result): where they are more
        than the stream showed (a CLI that reports only at the end), they stand."""

        def apply(a: Activity, now: float) -> Activity:
            base_turns, base_tokens, base_cost = self._base
            return replace(
                a,
                turns=base_turns + max(a.turns - base_turns, turns),
                tokens=base_tokens + max(a.tokens - base_tokens, tokens),
                cost_usd=base_cost + max(a.cost_usd - base_cost, cost_usd),
                ended=True,
            )

        self._change(apply)

    def _change(self, apply: Callable[[Activity, float], Activity]) -> None:
        with self._lock:
            now = self._clock()
            self._activity = replace(apply(self._activity, now), at=now)
            self.version += 1
            listeners = list(self._listeners)
        for listener in listeners:
            listener()


def _event(activity: Activity, now: float, kind: str, text: str) -> Activity:
    recent = (*activity.recent, ActivityEvent(at=now, kind=kind, text=text))
    return replace(activity, recent=recent[-ACTIVITY_RECENT:])
