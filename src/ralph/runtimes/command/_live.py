"""Reading an agent CLI's output line by line as it prints it, into the brief's
activity feed: its turns, tokens and cost so far, its tool calls, what it says, the
tool calls it was refused. One reader per output format (``PARSERS`` reads the whole
output once the run ended; these read the same events as they come). A line a reader
cannot read is passed over: the activity is a view, the run never depends on it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ralph.runtimes._activity import ActivityFeed
from ralph.runtimes._claude_live import ClaudeLive
from ralph.runtimes._prices import Pricing, Tokens
from ralph.runtimes._tool_argument import relative, shell_command, tool_argument
from ralph.runtimes.command._parsers import CodexAnswers, gemini_models, named_model

__all__ = ["LIVE_READERS", "LineReader", "live_reader"]

#: Reads one line of the agent's standard output.
LineReader = Callable[[str], None]


def _object(line: str) -> Mapping[str, Any] | None:
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


class _Events:
    """A CLI that prints one JSON event a line; ``pricing`` prices the tokens of one
    that reports no cost."""

    def __init__(
        self, feed: ActivityFeed, workdir: Path | None, pricing: Pricing | None = None
    ) -> None:
        self.feed = feed
        self.workdir = workdir
        self.pricing = Pricing() if pricing is None else pricing

    def __call__(self, line: str) -> None:
        event = _object(line)
        if event is not None:
            self.event(event)

    def event(self, event: Mapping[str, Any]) -> None:
        raise NotImplementedError


class _Plain:
    """Any other command: each line it prints is something it says."""

    def __init__(
        self, feed: ActivityFeed, workdir: Path | None, pricing: Pricing | None = None
    ) -> None:
        self.feed = feed

    def __call__(self, line: str) -> None:
        self.feed.said(line)


class _Codex(_Events):
    """``codex exec --json``: an item per tool call and per message (started, then
    completed); tokens at ``turn.completed``, no cost (priced by its model). A turn is
    an answer of the model (``CodexAnswers``). Reasoning is not shown: it is the model
    thinking, not saying."""

    def __init__(
        self, feed: ActivityFeed, workdir: Path | None, pricing: Pricing | None = None
    ) -> None:
        super().__init__(feed, workdir, pricing)
        self._items: set[str] = set()
        self._answers = CodexAnswers()

    def event(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        item = _map(event.get("item"))
        if kind in ("item.started", "item.completed") and item:
            if self._answers.item(kind, item):
                self.feed.turn()
            self.item(item, kind == "item.completed")
        elif kind == "turn.completed":
            usage = _map(event.get("usage"))
            # OpenAI counts cached input (read and written) inside input_tokens.
            read = _int(usage.get("cached_input_tokens"))
            wrote = _int(usage.get("cache_write_input_tokens"))
            tokens = Tokens(
                input=_int(usage.get("input_tokens")) - read - wrote,
                cache_read=read,
                cache_write=wrote,
                output=_int(usage.get("output_tokens")),
            )
            cost, _ = self.pricing.cost({"": tokens}, say=False)
            self.feed.usage(tokens=tokens.total, cost_usd=cost)

    def item(self, item: Mapping[str, Any], completed: bool) -> None:
        kind = item.get("type")
        key = str(item.get("id") or f"#{len(self._items)}")
        if kind == "agent_message":
            if completed and key not in self._items:
                self._items.add(key)
                self.feed.said(str(item.get("text") or ""))
            return
        call = self.tool(item)
        if call is not None and key not in self._items:  # each tool call once, as it starts
            self._items.add(key)
            self.feed.tool(*call)

    def tool(self, item: Mapping[str, Any]) -> tuple[str, str] | None:
        kind = item.get("type")
        if kind == "command_execution":
            return "shell", shell_command(str(item.get("command") or ""))
        if kind == "file_change":
            changes = item.get("changes")
            paths = [
                relative(str(_map(change).get("path") or ""), self.workdir)
                for change in (changes if isinstance(changes, list) else ())
            ]
            return "apply_patch", ", ".join(p for p in paths if p)
        if kind == "mcp_tool_call":
            name = ".".join(str(item[k]) for k in ("server", "tool") if item.get(k))
            return name or "mcp", tool_argument(item.get("arguments"), self.workdir)
        if kind == "web_search":
            return "web_search", str(item.get("query") or "")
        if kind == "collab_tool_call":
            return str(item.get("tool") or "collab"), ""
        return None


#: Gemini CLI's tool errors that mean the call was not allowed (its ToolErrorType).
_GEMINI_REFUSALS = frozenset({"policy_violation", "permission_denied", "tool_not_registered"})


class _Gemini(_Events):
    """``gemini --output-format stream-json``: the model's text in deltas, each tool
    call and its result, the run's token totals (per model: priced) in the last event."""

    def __init__(
        self, feed: ActivityFeed, workdir: Path | None, pricing: Pricing | None = None
    ) -> None:
        super().__init__(feed, workdir, pricing)
        self._model = ""
        self._tools: dict[str, str] = {}
        self._text: list[str] = []
        #: The last event was the model's (its answer goes on: not a new turn).
        self._answering = False

    def event(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "init":
            self._model = named_model(event.get("model"))
        if kind == "message" and event.get("role") == "assistant":
            self.answer()
            self._text.append(str(event.get("content") or ""))
            if not event.get("delta"):
                self.say()
            return
        self.say()
        if kind == "tool_use":
            self.answer()
            name = str(event.get("tool_name") or "tool")
            self._tools[str(event.get("tool_id"))] = name
            self.feed.tool(name, tool_argument(event.get("parameters"), self.workdir))
            return
        self._answering = False
        if kind == "tool_result" and event.get("status") == "error":
            error = _map(event.get("error"))
            if error.get("type") in _GEMINI_REFUSALS:
                self.feed.refused(self._tools.get(str(event.get("tool_id")), "tool"))
        elif kind == "result":
            stats = _map(event.get("stats"))
            tokens = _int(stats.get("total_tokens")) or (
                _int(stats.get("input_tokens")) + _int(stats.get("output_tokens"))
            )
            cost, _ = self.pricing.cost(gemini_models(stats, self._model), say=False)
            if tokens:
                self.feed.usage(tokens=tokens, cost_usd=cost, total=True)

    def answer(self) -> None:
        if not self._answering:
            self._answering = True
            self.feed.turn()

    def say(self) -> None:
        if self._text:
            self.feed.said("".join(self._text))
            self._text = []


#: How opencode says a tool call was refused by its permissions.
_OPENCODE_REFUSALS = ("prevents you from using", "rejected permission")


class _OpenCode(_Events):
    """``opencode run --format json``: a step per model answer, each tool call once it
    ended, the text, and each step's tokens and cost."""

    def event(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        part = _map(event.get("part"))
        if kind == "step_start":
            self.feed.turn()
        elif kind == "tool_use":
            name = str(part.get("tool") or "tool")
            state = _map(part.get("state"))
            self.feed.tool(name, tool_argument(state.get("input"), self.workdir))
            error = str(state.get("error") or "") if state.get("status") == "error" else ""
            if any(words in error for words in _OPENCODE_REFUSALS):
                self.feed.refused(name)
        elif kind == "text":
            self.feed.said(str(part.get("text") or ""))
        elif kind == "step_finish":
            tokens = _map(part.get("tokens"))
            cache = _map(tokens.get("cache"))
            total = _int(tokens.get("total")) or (
                _int(tokens.get("input"))
                + _int(tokens.get("output"))
                + _int(cache.get("read"))
                + _int(cache.get("write"))
            )
            cost = part.get("cost")
            dollars = float(cost) if isinstance(cost, int | float) else 0.0
            if dollars <= 0:  # a provider without prices: Ralph's table
                read, wrote = _int(cache.get("read")), _int(cache.get("write"))
                inputs, output = _int(tokens.get("input")), _int(tokens.get("output"))
                dollars, _ = self.pricing.cost({"": Tokens(inputs, read, wrote, output)}, say=False)
            self.feed.usage(tokens=total, cost_usd=dollars)


class _Claude(_Events):
    """``claude -p --output-format stream-json``: Claude Code's frames."""

    def __init__(
        self, feed: ActivityFeed, workdir: Path | None, pricing: Pricing | None = None
    ) -> None:
        super().__init__(feed, workdir, pricing)
        self._live = ClaudeLive(feed, workdir)

    def event(self, event: Mapping[str, Any]) -> None:
        self._live.frame(event)


LIVE_READERS: Mapping[str, Callable[[ActivityFeed, Path | None, Pricing | None], LineReader]] = {
    "plain": _Plain,
    "codex": _Codex,
    "gemini": _Gemini,
    "opencode": _OpenCode,
    "claude": _Claude,
}


def live_reader(
    output: str, feed: ActivityFeed, workdir: Path | None = None, pricing: Pricing | None = None
) -> LineReader:
    """The reader of ``output``'s lines (a format of ``PARSERS``) into ``feed``; ``pricing``
    prices tokens a CLI reports without a cost."""
    return LIVE_READERS[output](feed, workdir, pricing)
