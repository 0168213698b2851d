"""Waiting out an agent provider's limit (a 429, an overload, a usage window): the
wait is the store's (``wait_for_provider``), so every worker, process and view sees it;
it ends at the reset the provider named, or after a backoff per agent where it named
none: 30 s, doubled each time the limit is heard again soon after the last wait ended
(a storm), up to 10 minutes. A limit never counts as an attempt."""

from __future__ import annotations

import logging
import time

from ralph._text import short_line
from ralph.tasks import LONGEST_PROVIDER_WAIT, ProviderWait, TaskStore

__all__ = [
    "FIRST_BACKOFF_SECONDS",
    "LONGEST_WAIT_SECONDS",
    "MAX_BACKOFF_SECONDS",
    "backoff_seconds",
    "hear_limit",
    "provider_wait_text",
    "wait_ends",
]

logger = logging.getLogger(__name__)

#: The first wait for a provider that did not say when its limit lifts.
FIRST_BACKOFF_SECONDS = 30.0
#: The longest such wait: a provider that keeps refusing is asked again this often.
MAX_BACKOFF_SECONDS = 600.0
#: The longest wait a reset may set: a week's usage window and a day to spare (a reset
#: further ahead was misread, in milliseconds say, and would never end).
LONGEST_WAIT_SECONDS = LONGEST_PROVIDER_WAIT
#: What a person reads of what the provider said, at most.
SAID_CHARACTERS = 120


def backoff_seconds(previous: ProviderWait | None, *, now: float) -> float:
    """How long to wait for a provider that named no reset: the first wait when the
    last one (``previous``) ended long ago (longer ago than it lasted), else twice the
    last one, within the bounds."""
    if previous is None:
        return FIRST_BACKOFF_SECONDS
    lasted = max(previous.until - previous.at, FIRST_BACKOFF_SECONDS)
    if now - previous.until > lasted:  # the storm is over
        return FIRST_BACKOFF_SECONDS
    return min(2 * lasted, MAX_BACKOFF_SECONDS)


def wait_ends(until: float, previous: ProviderWait | None, *, now: float) -> float:
    """When the wait ends: the provider's reset when it named one still ahead (within
    the longest wait), else after the backoff."""
    if until > now:
        return min(until, now + LONGEST_WAIT_SECONDS)
    return now + backoff_seconds(previous, now=now)


def hear_limit(store: TaskStore, agent: str, until: float, said: str) -> ProviderWait:
    """Record that ``agent``'s provider refuses (``until``: its reset, 0 when not said);
    returns the wait in force (a later one another worker heard stands)."""
    now = time.time()
    previous = store.provider_wait(agent, now=0.0)  # the last one, ended or not
    wait = store.wait_for_provider(agent, wait_ends(until, previous, now=now), said)
    logger.warning(provider_wait_text(wait, now=now), extra={"agent": agent})
    return wait


def provider_wait_text(wait: ProviderWait, *, now: float) -> str:
    """``waiting for the provider of claude until 14:05 (usage limit reached)``: the
    time local, with its date when not today."""
    local = time.localtime(wait.until)
    same_day = time.strftime("%Y-%m-%d", local) == time.strftime("%Y-%m-%d", time.localtime(now))
    at = time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", local)
    said = short_line(wait.said, SAID_CHARACTERS) if wait.said else ""
    return f"waiting for the provider of {wait.agent} until {at}" + (f" ({said})" if said else "")
