"""OpenAI's answers when it refuses for now, as its API sends them (the Responses API and
Chat Completions alike): a 429 ``rate_limit_exceeded`` whose message says how long to
wait ("Please try again in 20s", "1m30s"), with the ``x-ratelimit-*`` headers; and the
ChatGPT plan's spent usage window (what Codex signed in with ChatGPT meets), a 429
``usage_limit_reached`` carrying ``resets_at`` and ``resets_in_seconds``, with the
``x-codex-*`` headers.
"""

from __future__ import annotations

import math
from typing import Any

from ._limits import Limit

__all__ = ["LIMITS", "limit_answer", "wait_words"]

LIMITS = ("rate", "usage")


def wait_words(seconds: float) -> str:
    """How OpenAI writes a wait, as Go prints a duration: ``1.5s``, ``20s``,
    ``1m30.25s``, ``2h0m0s``."""
    millis = round(seconds * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs = f"{rest / 1000:.3f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{hours}h{minutes}m{secs}"
    return f"{minutes}m{secs}" if minutes else secs


def limit_answer(limit: Limit, model: str) -> tuple[int, dict[str, Any], dict[str, str]]:
    """(status, body, headers) of OpenAI's answer."""
    left = limit.seconds_left
    if limit.kind == "usage":
        error = {
            "type": "usage_limit_reached",
            "message": "The usage limit has been reached",
            "plan_type": "plus",
            "resets_at": int(limit.resets_at),
            "eligible_promo": None,
            "resets_in_seconds": math.ceil(left),
        }
        headers = {
            "x-codex-plan-type": "plus",
            "x-codex-active-limit": "premium",
            "x-codex-primary-used-percent": "100",
            "x-codex-primary-window-minutes": "300",
            "x-codex-primary-reset-after-seconds": str(math.ceil(left)),
            "x-codex-primary-reset-at": str(int(limit.resets_at)),
        }
        return 429, {"error": error}, headers
    message = (
        f"Rate limit reached for {model} in organization org-fake on tokens per min (TPM): "
        f"Limit 30000, Used 29000, Requested 2400. Please try again in {wait_words(left)}. "
        "Visit https://platform.openai.com/account/rate-limits to learn more."
    )
    error = {"message": message, "type": "tokens", "param": None, "code": "rate_limit_exceeded"}
    headers = {
        "x-ratelimit-limit-requests": "500",
        "x-ratelimit-limit-tokens": "30000",
        "x-ratelimit-remaining-requests": "499",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-requests": "120ms",
        "x-ratelimit-reset-tokens": wait_words(left),
    }
    return 429, {"error": error}, headers
