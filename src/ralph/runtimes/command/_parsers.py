"""Reading what agent CLIs print, into one shape. Pure functions of the output text;
every parser is defensive (formats grow) and never raises on odd lines."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ralph.runtimes._claude_outcome import classify, setup_problem, structured_result
from ralph.runtimes._model import AgentStatus
from ralph.runtimes._prices import Tokens
from ralph.runtimes._provider_limits import from_rate_limit_event, from_text

__all__ = [
    "PARSERS",
    "SETUP_PROBLEMS",
    "CodexAnswers",
    "Parsed",
    "gemini_models",
    "named_model",
    "parse_json_object",
]


@dataclass(frozen=True)
class Parsed:
    """One run's output. ``status`` None: decided by the exit code."""

    text: str = ""
    result: Mapping[str, Any] | None = None
    status: AgentStatus | None = None
    error: str = ""
    session_id: str = ""
    #: Input tokens outside the prompt cache; cached ones are counted apart.
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    #: The CLI's own figure; None when it reports none (Ralph prices its tokens).
    cost_usd: float | None = None
    turns: int = 0
    #: Tokens per model, where the CLI names its models (else: one unnamed model).
    by_model: Mapping[str, Tokens] | None = None
    #: RATE_LIMITED: when the provider said its limit lifts (epoch seconds; 0: not said).
    resets_at: float = 0.0

    def tokens_by_model(self) -> Mapping[str, Tokens]:
        """Each model's tokens; "" for the model the CLI does not name."""
        if self.by_model:
            return self.by_model
        tokens = Tokens(
            self.input_tokens, self.cache_read_tokens, self.cache_write_tokens, self.output_tokens
        )
        return {"": tokens}


def _objects(output: str) -> Iterator[dict[str, Any]]:
    for line in output.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            yield value


def _whole(output: str) -> dict[str, Any] | None:
    try:
        value = json.loads(output)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def parse_json_object(text: str) -> dict[str, Any] | None:
    """A JSON object in an agent's final message (bare or in a ``json`` fence)."""
    return structured_result({"result": text})


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0


def provider_limited(parsed: Parsed, now: float | None = None, status: int | None = None) -> Parsed:
    """``parsed``, rate limited when its error is its provider's "not now" (the
    provider's words and when it lifts: ``_provider_limits``)."""
    if parsed.status is not AgentStatus.FAILED or not parsed.error:
        return parsed
    found = from_text(parsed.error, time.time() if now is None else now, status=status)
    if found is None:
        return parsed
    return dataclasses.replace(
        parsed, status=AgentStatus.RATE_LIMITED, error=found.said, resets_at=found.resets_at
    )


def plain(output: str) -> Parsed:
    return Parsed(text=output.strip())


#: Codex items that are a tool's work, asked for by an answer of the model.
CODEX_TOOL_ITEMS = frozenset(
    {"command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call"}
)
#: Codex items that are the model's own words or thoughts.
_CODEX_MODEL_ITEMS = frozenset({"agent_message", "reasoning"})


class CodexAnswers:
    """Counts the model's answers in ``codex exec --json`` events. Codex prints no event
    per model request: an answer is a run of items (its reasoning, its message, the tool
    calls it asked for, while they run) that starts once the previous answer's tool
    calls ended. Counting tool calls instead counts an answer that asked for three
    commands at once three times."""

    def __init__(self) -> None:
        self.count = 0
        self._running: set[str] = set()
        self._seen: set[str] = set()
        #: A tool call of the answer in hand ended: the next item is a new answer.
        self._tools_done = True

    def item(self, kind: Any, item: Mapping[str, Any]) -> bool:
        """Read one ``item.started``/``item.completed`` event; whether it began an answer."""
        what = item.get("type")
        if what not in CODEX_TOOL_ITEMS and what not in _CODEX_MODEL_ITEMS:
            return False
        key = str(item.get("id") or f"#{len(self._seen)}")
        began = False
        if self._tools_done and not self._running and key not in self._seen:
            self.count += 1
            self._tools_done = False
            began = True
        self._seen.add(key)
        if what in CODEX_TOOL_ITEMS:
            if kind == "item.started":
                self._running.add(key)
            elif kind == "item.completed":
                self._running.discard(key)
                self._tools_done = True
        return began


def codex(output: str) -> Parsed:
    """``codex exec --json``: thread/turn/item events. Codex reports tokens, no cost,
    and does not name its model (ralph.toml or Codex's config does)."""
    text, error, session = "", "", ""
    tokens_in = tokens_out = cached = written = 0
    answers = CodexAnswers()
    for event in _objects(output):
        kind = event.get("type")
        item = event.get("item") or {}
        if kind == "thread.started":
            session = str(event.get("thread_id", ""))
        if kind in ("item.started", "item.completed") and isinstance(item, dict):
            answers.item(kind, item)
        if kind == "item.completed" and item.get("type") == "agent_message":
            text = str(item.get("text", ""))
        elif kind == "turn.completed":
            usage = event.get("usage") or {}
            # OpenAI counts cached input (read and written) inside input_tokens.
            read = _int(usage.get("cached_input_tokens"))
            wrote = _int(usage.get("cache_write_input_tokens"))
            cached += read
            written += wrote
            tokens_in += _int(usage.get("input_tokens")) - read - wrote
            tokens_out += _int(usage.get("output_tokens"))
        elif kind == "turn.failed":
            error = str((event.get("error") or {}).get("message", "turn failed"))
        elif kind == "error":
            error = str(event.get("message", "error"))
    parsed = Parsed(
        text=text,
        result=parse_json_object(text),
        status=AgentStatus.FAILED if error else None,
        error=error,
        session_id=session,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cache_read_tokens=cached,
        cache_write_tokens=written,
        turns=answers.count,
    )
    return provider_limited(parsed)


def _gemini_tokens(stats: Mapping[str, Any]) -> tuple[int, int, int]:
    """(input outside the cache, output, cached input): Gemini counts cached input
    inside its prompt tokens."""
    if "input_tokens" in stats or "output_tokens" in stats:
        cached = _int(stats.get("cached"))
        return _int(stats.get("input_tokens")) - cached, _int(stats.get("output_tokens")), cached
    models = gemini_models(stats, "").values()
    return (
        sum(t.input for t in models),
        sum(t.output for t in models),
        sum(t.cache_read for t in models),
    )


def gemini_models(stats: Mapping[str, Any], model: str) -> dict[str, Tokens]:
    """Each model's tokens (Gemini CLI counts its router's model apart); ``model`` (the
    one the CLI said it runs) for totals that name none."""
    found: dict[str, Tokens] = {}
    models = stats.get("models")
    for name, figures in (models if isinstance(models, dict) else {}).items():
        figures = figures if isinstance(figures, dict) else {}
        tokens = figures.get("tokens")
        if isinstance(tokens, dict):  # -o json
            prompt, cached = _int(tokens.get("prompt") or tokens.get("input")), tokens.get("cached")
            output = _int(tokens.get("candidates") or tokens.get("output"))
        else:  # -o stream-json
            prompt, cached = _int(figures.get("input_tokens")), figures.get("cached")
            output = _int(figures.get("output_tokens"))
        found[str(name)] = Tokens(
            input=prompt - _int(cached), cache_read=_int(cached), output=output
        )
    if not found and ("input_tokens" in stats or "output_tokens" in stats):
        cached = _int(stats.get("cached"))
        found[model] = Tokens(
            input=_int(stats.get("input_tokens")) - cached,
            cache_read=cached,
            output=_int(stats.get("output_tokens")),
        )
    return found


def named_model(value: Any) -> str:
    """A model Gemini CLI says it runs: not its router's ``auto`` choices."""
    name = str(value or "")
    return "" if name == "auto" or name.startswith("auto-") else name


def gemini(output: str) -> Parsed:
    """``gemini -o json`` (one object) or ``-o stream-json`` (events)."""
    whole = _whole(output)
    if whole is not None and "response" in whole:
        tokens_in, tokens_out, cached = _gemini_tokens(whole.get("stats") or {})
        error = whole.get("error")
        message = str(error.get("message", error)) if isinstance(error, dict) else str(error or "")
        text = str(whole.get("response") or "")
        parsed = Parsed(
            text=text,
            result=parse_json_object(text),
            status=AgentStatus.FAILED if error else None,
            error=message,
            session_id=str(whole.get("session_id", "")),
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            cache_read_tokens=cached,
            by_model=gemini_models(whole.get("stats") or {}, ""),
        )
        return provider_limited(parsed)
    parts: list[str] = []
    error, session, model = "", "", ""
    stats: dict[str, Any] = {}
    turns = 0
    for event in _objects(output):
        kind = event.get("type")
        if kind == "init":
            session = str(event.get("session_id", ""))
            model = named_model(event.get("model"))
        elif kind == "message" and event.get("role") == "assistant":
            parts.append(str(event.get("content", "")))
        elif kind == "tool_use":
            turns += 1
            parts = []  # the final message is what the model said after its last tool
        elif kind == "error" and event.get("severity") == "error":
            error = str(event.get("message", "error"))
        elif kind == "result":
            stats = event.get("stats") or {}
            if event.get("status") == "error":
                failure = event.get("error")
                error = str(
                    failure.get("message", failure) if isinstance(failure, dict) else failure
                )
    text = "".join(parts)
    tokens_in, tokens_out, cached = _gemini_tokens(stats)
    parsed = Parsed(
        text=text,
        result=parse_json_object(text),
        status=AgentStatus.FAILED if error else None,
        error=error,
        session_id=session,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cache_read_tokens=cached,
        turns=turns + 1 if text else turns,
        by_model=gemini_models(stats, model),
    )
    return provider_limited(parsed)


def opencode(output: str) -> Parsed:
    """``opencode run --format json``: parts per event; cost and tokens per step. It
    names no model: ralph.toml or opencode's config does."""
    text, error, session = "", "", ""
    tokens_in = tokens_out = read = written = turns = 0
    status: int | None = None
    cost = 0.0
    for event in _objects(output):
        session = str(event.get("sessionID", session))
        part = event.get("part") or {}
        kind = event.get("type")
        if kind == "text":
            text = str(part.get("text", ""))
        elif kind == "step_finish":
            turns += 1
            cost += float(part.get("cost") or 0.0)
            tokens = part.get("tokens") or {}
            cache = tokens.get("cache") or {}
            tokens_in += _int(tokens.get("input"))
            tokens_out += _int(tokens.get("output"))
            read += _int(cache.get("read"))
            written += _int(cache.get("write"))
        elif kind == "error":
            failure = event.get("error") or {}
            data = failure.get("data") or {} if isinstance(failure, dict) else {}
            error = str(data.get("message") or failure.get("name") or failure)
            code = data.get("statusCode")
            status = code if isinstance(code, int) else None
            if status is not None and data.get("responseBody"):
                error = f"{error} {data['responseBody']}"
    parsed = Parsed(
        text=text,
        result=parse_json_object(text),
        status=AgentStatus.FAILED if error else None,
        error=error,
        session_id=session,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cache_read_tokens=read,
        cache_write_tokens=written,
        # A provider without prices makes opencode say $0: Ralph's table prices it then.
        cost_usd=cost if cost > 0 else None,
        turns=turns,
    )
    return provider_limited(parsed, status=status)


def claude(output: str) -> Parsed:
    """``claude -p --output-format json`` or ``stream-json``: the last result frame."""
    frames = [f for f in _objects(output) if f.get("type") == "result"]
    if not frames:
        return Parsed(status=AgentStatus.CRASHED, error="Claude Code printed no result")
    frame = frames[-1]
    # A subscription's spent window: the event's reset is exact, the result's words
    # ("resets 6:07am") say it to the minute.
    events = [
        found
        for event in _objects(output)
        if event.get("type") == "rate_limit_event"
        and isinstance(info := event.get("rate_limit_info"), dict)
        and (found := from_rate_limit_event(info)) is not None
    ]
    limited = events[-1] if events else None
    # An error frame that says the setup is wrong: misconfigured.
    outcome = classify(frame, limited=limited)
    usage = frame.get("usage") or {}
    ok = outcome.status is AgentStatus.OK
    return Parsed(
        text=str(frame.get("result") or ""),
        result=structured_result(frame) if ok else None,
        status=outcome.status,
        error=outcome.error,
        session_id=str(frame.get("session_id", "")),
        input_tokens=_int(usage.get("input_tokens")),
        output_tokens=_int(usage.get("output_tokens")),
        cache_read_tokens=_int(usage.get("cache_read_input_tokens")),
        cache_write_tokens=_int(usage.get("cache_creation_input_tokens")),
        cost_usd=float(frame.get("total_cost_usd") or 0.0),
        turns=_int(frame.get("num_turns")),
        resets_at=outcome.resets_at,
    )


def claude_setup_problem(line: str) -> str:
    """What to fix, when a ``stream-json`` line says the setup is wrong: Claude Code
    retries a refused key for minutes, announcing each retry."""
    for frame in _objects(line):
        if frame.get("type") == "system" and frame.get("subtype") == "api_retry":
            status = frame.get("error_status")
            code = status if isinstance(status, int) else None
            return setup_problem(code, str(frame.get("error") or ""))
    return ""


#: Per format, a reader of one output line that says what to fix when the agent cannot
#: work here at all (the run is stopped at once).
SETUP_PROBLEMS: Mapping[str, Callable[[str], str]] = {"claude": claude_setup_problem}

PARSERS: Mapping[str, Callable[[str], Parsed]] = {
    "plain": plain,
    "codex": codex,
    "gemini": gemini,
    "opencode": opencode,
    "claude": claude,
}
