"""Whether what an agent CLI printed says its model's provider refused for now (a rate
limit, an overload, a subscription's spent usage window) and when that lifts. Pure
functions of the text, frame or headers and of ``now``; nothing here raises on odd
input.

What each CLI prints (the versions in ``tests/agents/package.json`` and the bundled
Claude Code; the fakes in ``tests/fakes/`` answer as the providers do):

- Claude Code (``stream-json``, and claude-agent-sdk's messages): a refused request
  ends the run at once when the wait is long, as an ``assistant`` message with
  ``error: "rate_limit"`` (``api_error_status`` 429, ``api_error_type``
  ``rate_limit_error``; 529 ``overloaded_error``) whose text is "API Error: Request
  rejected (429) · <the API's message>", then a ``result`` frame with ``is_error``,
  ``api_error_status`` and the same text. An API key's ``retry-after`` is not passed
  on: the reset is unknown (0). Signed in to a subscription, a spent window (the
  API's ``anthropic-ratelimit-unified-*`` headers) comes first as a ``rate_limit_event``
  frame whose ``rate_limit_info`` has ``status: "rejected"`` and ``resetsAt`` (epoch:
  exact), then the error's words: "You've hit your 5-hour limit · resets 6:07am (UTC)"
  (to the minute; older CLIs "Claude AI usage limit reached|<epoch>", "5-hour limit
  reached ∙ resets 11:30am"). A short wait it retries itself, announcing each retry as a
  ``system``/``api_retry`` frame (``error_status``, ``retry_delay_ms``, ``attempt``);
  an overload (529) it retries up to ten times.
- Codex (``exec --json``): an ``error`` event and ``turn.failed``. A ChatGPT plan's
  ``usage_limit_reached`` (body ``resets_at``, ``resets_in_seconds``) becomes "You've
  hit your usage limit. ... try again at 5:30 AM." (local time; a later day's reset
  names the date, "Jul 5th, 2026 8:19 PM"; older releases "try again in 2 days 17
  hours 14 minutes"); an API's 429 ``rate_limit_exceeded`` ("Please try again in
  20s") becomes "exceeded retry limit, last status: 429 Too Many Requests": its wait
  is lost (0). Its retries (``request_max_retries``) are short: it ends in seconds.
- Gemini CLI (``stream-json``): a 429 ``RESOURCE_EXHAUSTED`` with a per-minute quota
  (``RetryInfo.retryDelay`` "37s", message "Please retry in 36.8s.") it retries up to
  ``general.maxAttempts`` (10) times, waiting the delay each time (up to 300 s),
  saying on stderr "Attempt 1 failed: <message> ... Retrying after 38000ms..."; a
  daily quota ("PerDay" quota id) or a wait over 300 s ends the run at once: a
  ``result`` event with ``status: "error"`` whose message carries the API's; a 503
  overload is retried with backoff (5 s to 30 s).
- opencode (``run --format json``): retries a 429/503 (and "rate limit", "overloaded",
  "resource exhausted" in the message) up to five times, waiting its ``retry-after``
  (however long) or backing off 2 s to 30 s, printing nothing meanwhile; then an
  ``error`` event whose ``error.data.message`` is the provider's message ("Rate limit
  reached for ... Please try again in 20s", "Provider is overloaded", "Too Many
  Requests"), with ``statusCode`` and ``responseBody``.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ralph._secrets import redact
from ralph._text import one_line

__all__ = [
    "LONG_WAIT_SECONDS",
    "ProviderLimit",
    "from_body",
    "from_headers",
    "from_rate_limit_event",
    "from_text",
    "said",
]

#: A provider's wait longer than this is not sat through inside the CLI: the run ends
#: rate limited, and Ralph waits it out without holding an agent process.
LONG_WAIT_SECONDS = 30.0
#: How much of the provider's words a result keeps.
_SAID_CHARS = 240


@dataclass(frozen=True)
class ProviderLimit:
    """The provider refused for now. ``resets_at``: epoch seconds, 0 when not said."""

    said: str
    resets_at: float = 0.0

    def later(self, other: ProviderLimit | None) -> ProviderLimit:
        """This one, or ``other`` when it knows the reset and this one does not."""
        if other is not None and other.resets_at and not self.resets_at:
            return ProviderLimit(self.said, other.resets_at)
        return self

    def reset_from(self, other: ProviderLimit | None) -> ProviderLimit:
        """This one's words with ``other``'s reset where it knows one: a rate limit
        event's epoch is exact, the words' "resets 6:07am" only to the minute."""
        if other is not None and other.resets_at:
            return ProviderLimit(self.said, other.resets_at)
        return self


def said(text: str) -> str:
    """The provider's words, short, on one line, without secrets."""
    line = " ".join(one_line(redact(text)).split())
    return line if len(line) <= _SAID_CHARS else line[: _SAID_CHARS - 1] + "…"


# -- the words that mean "not now" --------------------------------------------------------

_LIMIT_WORDS = re.compile(
    r"usage limit|rate[ _-]limit|too many requests|overloaded|resource[ _]exhausted"
    r"|exhausted your daily quota|quota exceeded for metric"
    r"|hit your (?:session |weekly |opus |sonnet |[\w-]+ )?limit"
    r"|(?:usage|session|weekly|daily|opus|sonnet|5-hour|five[- ]hour) limit reached"
    r"|(?:^|[·∙] )limit reached"
    r"|\b(?:status|error|code)[: ]+(?:429|529)\b|\((?:429|529)\)|\b(?:429|529) too many"
    r"|\b429 Too Many Requests\b|usage_limit_reached|overloaded_error|rate_limit_error",
    re.IGNORECASE | re.MULTILINE,
)
#: Limits a person raises by paying, not by waiting: these are not waited out.
_NOT_WAITED = re.compile(
    # "limit: 0": a quota the account does not have at all (Gemini's free tier on a
    # pro model), which no wait brings.
    r"credit balance|billing_error|spend limit|insufficient_quota|\blimit: 0\b",
    re.IGNORECASE,
)


def from_text(
    text: str, now: float, *, status: int | None = None, zone: datetime.tzinfo | None = None
) -> ProviderLimit | None:
    """``text`` (an error message, a result's text, a stderr line) as a provider limit,
    or None when it says something else. ``status``: the HTTP status, when the CLI says
    it. ``zone``: the time zone of a reset written as a time of day without one (the
    machine's by default)."""
    if not text and status is None:
        return None
    if _NOT_WAITED.search(text):
        return None
    limited = status in (429, 529) or bool(_LIMIT_WORDS.search(text))
    # "You exceeded your current quota" is OpenAI's unpaid account too: a quota is
    # waited out only when the provider says how long.
    limited = limited or ("quota" in text.lower() and bool(_after_seconds(text, now, zone)))
    if status == 503 and re.search(r"overload|unavailable|try again", text, re.IGNORECASE):
        limited = True
    body = _json_in(text)
    if body is not None and (found := from_body(body, now)) is not None:
        return found.later(_reset_in(text, now, zone))
    if not limited:
        return None
    reset = _reset_in(text, now, zone)
    return ProviderLimit(said(text), reset.resets_at if reset is not None else 0.0)


def _reset_in(text: str, now: float, zone: datetime.tzinfo | None) -> ProviderLimit | None:
    """The first reset ``text`` states, in any of the forms above."""
    for reader in (_epoch_pipe, _after_seconds, _try_again_in, _resets_at_time):
        found = reader(text, now, zone)
        if found:
            return ProviderLimit("", found)
    return None


# -- "Claude AI usage limit reached|1750708800" -------------------------------------------


def _epoch_pipe(text: str, now: float, zone: datetime.tzinfo | None) -> float:
    found = re.search(r"limit reached\|(\d{9,11})\b", text)
    return float(found.group(1)) if found else 0.0


# -- waits: "Please try again in 1m30s", "Please retry in 12.3s", "retryDelay": "12s" ------

_DURATION = r"(?:\d+(?:\.\d+)?(?:h|ms|m|s))+"
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(h|ms|m|s)")


def duration_seconds(words: str) -> float | None:
    """``1m30s``, ``12.3s``, ``250ms``, ``2h0m0s`` in seconds; None when not one."""
    if not re.fullmatch(_DURATION, words.strip()):
        return None
    unit = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(n) * unit[u] for n, u in _DURATION_PART.findall(words))


def _after_seconds(text: str, now: float, zone: datetime.tzinfo | None) -> float:
    patterns = (
        rf"(?:please )?(?:try again|retry) (?:in|after) ({_DURATION})\b",
        rf"\"retryDelay\"\s*:\s*\"({_DURATION})\"",
        rf"suggested retry after ({_DURATION})",
    )
    for pattern in patterns:
        found = re.search(pattern, text, re.IGNORECASE)
        if found and (seconds := duration_seconds(found.group(1))) is not None:
            return now + seconds
    found = re.search(r"Retrying after (\d+)ms", text)
    return now + int(found.group(1)) / 1000 if found else 0.0


def _try_again_in(text: str, now: float, zone: datetime.tzinfo | None) -> float:
    """Codex's older words: "try again in 2 days 17 hours 14 minutes"."""
    found = re.search(
        r"try again in ((?:\d+\s+(?:days?|hours?|minutes?|seconds?)[\s,]*(?:and\s+)?)+)",
        text,
        re.IGNORECASE,
    )
    if not found:
        return 0.0
    unit = {"day": 86400, "hour": 3600, "minute": 60, "second": 1}
    parts = re.findall(r"(\d+)\s+(day|hour|minute|second)", found.group(1), re.IGNORECASE)
    return now + sum(int(n) * unit[u.lower()] for n, u in parts) if parts else 0.0


# -- a time of day: "resets 3pm (Europe/London)", "try again at 5:30 AM." -------------------

_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, 1)}
_AT_TIME = re.compile(
    r"(?:resets?|try again)(?: at| on)?\s+"
    r"(?:(?P<month>[A-Za-z]{3})[a-z]*\.? (?P<day>\d{1,2})(?:st|nd|rd|th)?,?"
    r"(?: (?P<year>\d{4}))?,?(?: at)? )?"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s*(?P<half>am|pm)"
    r"(?:\s*\((?P<zone>[A-Za-z_]+(?:/[A-Za-z_+-]+)*)\))?",
    re.IGNORECASE,
)


def _resets_at_time(text: str, now: float, zone: datetime.tzinfo | None) -> float:
    found = _AT_TIME.search(text)
    if not found:
        return 0.0
    where = _zone(found.group("zone")) or zone
    here = datetime.datetime.fromtimestamp(now, where).astimezone(where)
    hour = int(found.group("hour")) % 12 + (12 if found.group("half").lower() == "pm" else 0)
    minute = int(found.group("minute") or 0)
    month = _MONTHS.get((found.group("month") or "").lower()[:3])
    try:
        if month is not None:
            year = int(found.group("year") or here.year)
            when = here.replace(
                year=year,
                month=month,
                day=int(found.group("day")),
                hour=hour,
                minute=minute,
                second=0,
                microsecond=0,
            )
            if when.timestamp() < now - 86400 and not found.group("year"):
                when = when.replace(year=year + 1)
        else:
            when = here.replace(hour=hour, minute=minute, second=0, microsecond=0)
            if when.timestamp() <= now - 60:  # a time already past today is tomorrow's
                when += datetime.timedelta(days=1)
    except ValueError:
        return 0.0
    return when.timestamp()


def _zone(name: str | None) -> datetime.tzinfo | None:
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


# -- an API's error body ------------------------------------------------------------------


def _json_in(text: str) -> Mapping[str, Any] | None:
    """The JSON object an error message carries (opencode's ``responseBody``, a body
    printed after "Error: 429 "), if any."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        return None
    return value if isinstance(value, Mapping) else None


def from_body(body: Mapping[str, Any], now: float) -> ProviderLimit | None:
    """A provider's error body (``{"error": {...}}``) as a limit, or None: Codex's
    ``usage_limit_reached`` (``resets_at``, ``resets_in_seconds``), OpenAI's
    ``rate_limit_exceeded``, Anthropic's ``rate_limit_error``/``overloaded_error``,
    Gemini's ``RESOURCE_EXHAUSTED`` (``RetryInfo.retryDelay``)."""
    error = body.get("error")
    if not isinstance(error, Mapping):
        return None
    kind = " ".join(str(error.get(k) or "") for k in ("type", "code", "status"))
    message = str(error.get("message") or "")
    if not re.search(
        r"usage_limit_reached|rate_limit|overloaded|RESOURCE_EXHAUSTED|UNAVAILABLE|\b429\b|\b529\b",
        kind,
    ):
        return None
    if "insufficient_quota" in kind:
        return None
    words = said(message or kind)
    resets_at = error.get("resets_at")
    if isinstance(resets_at, int | float) and resets_at > 0:
        return ProviderLimit(words, float(resets_at))
    left = error.get("resets_in_seconds")
    if isinstance(left, int | float) and left >= 0:
        return ProviderLimit(words, now + float(left))
    for detail in error.get("details") or ():
        delay = detail.get("retryDelay") if isinstance(detail, Mapping) else None
        if isinstance(delay, str) and (seconds := duration_seconds(delay)) is not None:
            # The message says it to the millisecond ("Please retry in 36.8s").
            return ProviderLimit(words, _after_seconds(message, now, None) or now + seconds)
    return ProviderLimit(words, _after_seconds(message, now, None))


# -- HTTP headers and Claude Code's frames -------------------------------------------------


def from_headers(headers: Mapping[str, str], now: float) -> float:
    """When a limit answer's headers say it lifts (epoch seconds; 0 when they do not):
    a subscription's ``anthropic-ratelimit-unified-reset`` (epoch), ``retry-after``
    (seconds or an HTTP date), ``retry-after-ms``, the latest
    ``anthropic-ratelimit-*-reset`` (RFC 3339), OpenAI's ``x-ratelimit-reset-*``
    (durations) and Codex's ``x-codex-primary-reset-at``."""
    lowered = {k.lower(): v for k, v in headers.items()}
    for name in ("anthropic-ratelimit-unified-reset", "x-codex-primary-reset-at"):
        if (value := _number(lowered.get(name))) is not None:
            return value
    if (value := _number(lowered.get("retry-after-ms"))) is not None:
        return now + value / 1000
    retry = lowered.get("retry-after", "").strip()
    if (value := _number(retry)) is not None:
        return now + value
    if retry:
        try:
            return parsedate_to_datetime(retry).timestamp()
        except (TypeError, ValueError):
            pass
    stamps = []
    for name, stamp in lowered.items():
        if name.startswith("anthropic-ratelimit-") and name.endswith("-reset"):
            try:
                stamps.append(datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00")))
            except ValueError:
                continue
    if stamps:
        return max(stamp.timestamp() for stamp in stamps)
    waits = [
        seconds
        for name, words in lowered.items()
        if name.startswith("x-ratelimit-reset-")
        and (seconds := duration_seconds(words)) is not None
    ]
    return now + max(waits) if waits else 0.0


def _number(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) and number >= 0 else None


def from_rate_limit_event(info: Mapping[str, Any]) -> ProviderLimit | None:
    """Claude Code's ``rate_limit_event`` ``rate_limit_info``: a limit when its status is
    ``rejected`` (and no overage carries on), with ``resetsAt``."""
    if info.get("status") != "rejected" or info.get("isUsingOverage"):
        return None
    resets = info.get("resetsAt") or info.get("resets_at")
    window = str(info.get("rateLimitType") or info.get("rate_limit_type") or "usage")
    words = f"Claude usage limit reached ({window.replace('_', ' ')})"
    return ProviderLimit(words, float(resets) if isinstance(resets, int | float) else 0.0)
