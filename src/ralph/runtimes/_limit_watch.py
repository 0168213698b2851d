"""Watching an agent CLI's live output for its provider's limit, so that a CLI sitting
out a long wait (or retrying a limit again and again) is stopped and its run ends rate
limited at once: Ralph waits out the reset without holding an agent process, and the
person's run never hangs on a CLI's own backoff. What each CLI prints while it waits is
in ``_provider_limits``'s docstring:

- Claude Code: a ``system``/``api_retry`` frame per retry (``error_status`` 429 or 529,
  ``retry_delay_ms``);
- Gemini CLI: on stderr, "Attempt N failed: <the API's message> ... Retrying after
  Nms...", the message over several lines;
- opencode (run with ``--print-logs --log-level ERROR``): on stderr, a ``stream error``
  line per refused request, carrying the provider's message;
- Codex retries for seconds only: nothing to watch.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from ralph.runtimes._provider_limits import LONG_WAIT_SECONDS, ProviderLimit, from_text, said

__all__ = ["LIMIT_RETRIES", "LimitWatch", "claude_retry"]

#: A CLI that retried a limit this many times is stopped, however short its waits.
LIMIT_RETRIES = 3
_LIMIT_STATUSES = frozenset({429, 529})
_LIMIT_ERRORS = frozenset({"rate_limit", "overloaded", "rate_limit_error", "overloaded_error"})


def claude_retry(frame: Mapping[str, Any], now: float) -> tuple[ProviderLimit, float] | None:
    """A Claude Code ``api_retry`` frame that retries a limit: the limit (its reset
    when the retry waits on the API's ``retry-after``: a 429) and the retry's wait."""
    if frame.get("type") != "system" or frame.get("subtype") != "api_retry":
        return None
    status = frame.get("error_status")
    kind = str(frame.get("error") or "")
    if status not in _LIMIT_STATUSES and kind not in _LIMIT_ERRORS:
        return None
    delay = frame.get("retry_delay_ms")
    wait = float(delay) / 1000 if isinstance(delay, int | float) else 0.0
    overloaded = status == 529 or "overloaded" in kind
    words = f"API Error: {status or ''} {kind or 'rate limit'}".replace("  ", " ")
    return ProviderLimit(said(words), 0.0 if overloaded else now + wait), wait


class LimitWatch:
    """One run's output lines, read as they come (``stdout``/``stderr``); ``limit`` is
    set, and ``line`` returns it, once the CLI should be stopped for its provider."""

    def __init__(self, output: str, clock: Callable[[], float] = time.time) -> None:
        self.output = output
        self.clock = clock
        self.retries = 0
        self.limit: ProviderLimit | None = None
        self._recent: list[str] = []

    def line(self, text: str, *, stderr: bool = False) -> ProviderLimit | None:
        if self.limit is not None:
            return self.limit
        found: tuple[ProviderLimit, float] | None = None
        if self.output == "claude" and not stderr:
            found = self._claude(text)
        elif self.output == "gemini" and stderr:
            found = self._gemini(text)
        elif self.output == "opencode" and stderr and "stream error" in text:
            found = self._opencode(text)
        if found is None:
            return None
        limit, wait = found
        self.retries += 1
        if wait > LONG_WAIT_SECONDS or self.retries >= LIMIT_RETRIES:
            self.limit = limit
        return self.limit

    def _claude(self, text: str) -> tuple[ProviderLimit, float] | None:
        text = text.strip()
        if not text.startswith("{"):
            return None
        try:
            frame = json.loads(text)
        except ValueError:
            return None
        return claude_retry(frame, self.clock()) if isinstance(frame, dict) else None

    def _gemini(self, text: str) -> tuple[ProviderLimit, float] | None:
        # The message spans lines from "Attempt N failed" to "Retrying after Nms...".
        if text.startswith("Attempt "):
            self._recent = []
        self._recent = [*self._recent[-20:], text.rstrip()]
        retrying = re.search(r"Retrying (?:after (\d+)ms|with backoff)", text)
        if retrying is None:
            return None
        now = self.clock()
        message = " ".join(self._recent)
        self._recent = []
        limit = from_text(message, now)
        if limit is None:
            return None
        wait = int(retrying.group(1)) / 1000 if retrying.group(1) else 0.0
        left = limit.resets_at - now if limit.resets_at else wait
        return ProviderLimit(said(message.split("Retrying")[0]), limit.resets_at), left

    def _opencode(self, text: str) -> tuple[ProviderLimit, float] | None:
        found = re.search(r'error\.error="((?:[^"\\]|\\.)*)"', text)
        message = found.group(1) if found else text
        message = re.sub(r"^AI_\w+: ", "", message)
        now = self.clock()
        limit = from_text(message, now)
        if limit is None:
            return None
        return limit, (limit.resets_at - now if limit.resets_at else 0.0)
