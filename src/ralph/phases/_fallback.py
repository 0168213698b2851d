"""A phase continued on a fallback agent (``fallback_agents``) when its own cannot go on.

The phase's own agent runs first. When its provider refuses until further ahead than
``fallback_after_seconds``, the same attempt (same brief, same sandbox) runs on the
first fallback; a nearer reset is waited out as usual (``ProviderLimited`` goes up to
the caller). A limit whose reset was not said falls back when it repeats: the agent's
provider was already refusing in the last ``fallback_after_seconds`` (a wait recorded
in the store, by an earlier limit of any phase, or the waits' backoff); a first one is
backed off as usual, and remembered in the store as a wait that has already lifted. An
agent that cannot work here (its key, login or CLI) falls back at once. A fallback that
is itself limited or unusable moves to the next; with every agent limited, the limit
lifting soonest goes up.

An agent found limited or unusable stays out for the rest of the phase's run (its next
attempt starts on the agent that worked); a limit with its reset is recorded in the
store, so the next task of that agent goes straight to its fallback until then, and
``ralph status`` shows the wait. Each move is said: "Continued on codex: claude rate
limited until 14:05 (usage limit reached)."
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TypeVar

from ralph.errors import ConfigError
from ralph.phases._phase import ProviderLimited
from ralph.tasks import LONGEST_PROVIDER_WAIT, TaskStore

__all__ = ["CONTINUED_ON", "FallbackChain", "limit_words"]

logger = logging.getLogger(__name__)

#: How a phase's line about a move to a fallback agent begins (run reports pick it up).
CONTINUED_ON = "Continued on"

T = TypeVar("T")


def _when(epoch: float, now: float) -> str:
    """``14:05`` in local time, with the date when not today."""
    # A reset misread (in milliseconds, say) is said as the longest wait, not a crash.
    at = datetime.fromtimestamp(min(epoch, now + LONGEST_PROVIDER_WAIT)).astimezone()
    today = datetime.fromtimestamp(now).astimezone().date()
    return at.strftime("%H:%M") if at.date() == today else at.strftime("%Y-%m-%d %H:%M")


def limit_words(limit: ProviderLimited, now: float) -> str:
    """``claude rate limited until 14:05 (usage limit reached)``."""
    until = f" until {_when(limit.until, now)}" if limit.until else " (no reset said)"
    said = " ".join(limit.said.split())[:200]
    return f"{limit.agent} rate limited{until}{f' ({said})' if said else ''}"


class FallbackChain:
    """The agents one phase run may use: its own (``""``) first, then ``fallbacks``
    (``codex`` or ``codex:o3``), each given up on for the rest of the run once limited
    past the threshold or unusable."""

    def __init__(
        self,
        own: str,
        fallbacks: Sequence[str],
        *,
        after_seconds: float,
        store: TaskStore,
        say: Callable[[str], None],
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``own``: the phase's agent by name (``claude``)."""
        self.own = own
        self.agents = ["", *fallbacks]
        self.after_seconds = after_seconds
        self._store = store
        self._say = say
        self._clock = clock

    def name(self, spec: str) -> str:
        return spec.partition(":")[0] or self.own

    def run(self, attempt: Callable[[str], T]) -> T:
        """``attempt(agent)`` on the first agent still in the chain, and on the next
        while one is limited past the threshold or cannot work here."""
        if len(self.agents) == 1:  # no fallback: limits and setups go up as they are
            return attempt("")
        limits: list[ProviderLimited] = []
        unusable: ConfigError | None = None
        while self.agents:
            spec = self.agents[0]
            try:
                known = self._known_limit(spec)
                if known is not None:
                    raise known
                return attempt(spec)
            except ProviderLimited as limit:
                if spec == "" and not self._past_threshold(limit):
                    raise  # a nearer reset: waited out on the phase's own agent
                limits.append(limit)
                self._remember(limit)
                why = limit_words(limit, self._clock())
            except ConfigError as error:  # AgentUnusable, or its CLI is not here
                unusable = unusable or error
                why = f"{self.name(spec)} cannot work here ({' '.join(str(error).split())})"
            self.agents.pop(0)
            if self.agents:
                logger.info("phase continues on a fallback agent", extra={"why": why})
                self._say(f"{CONTINUED_ON} {self.name(self.agents[0])}: {why}.")
        if limits:
            raise min(limits, key=lambda limit: limit.until)
        assert unusable is not None
        raise unusable

    def _known_limit(self, spec: str) -> ProviderLimited | None:
        """A limit the store already holds for the agent, which it would only hit again:
        the phase's own agent past the threshold, a fallback's at all."""
        now = self._clock()
        wait = self._store.provider_wait(self.name(spec), now=now)
        if wait is None or (spec == "" and wait.until - now <= self.after_seconds):
            return None
        return ProviderLimited(wait.agent, wait.until, wait.said)

    def _past_threshold(self, limit: ProviderLimited) -> bool:
        now = self._clock()
        if limit.until:
            return limit.until - now > self.after_seconds
        # No reset said: a repeat within the window falls back, a first is backed off.
        # Any wait recorded for the agent, lifted or not, is an earlier limit (0: all).
        earlier = self._store.provider_wait(limit.agent, now=0.0)
        if earlier is not None and now - earlier.at <= self.after_seconds:
            return True
        # Remembered as a wait that has already lifted: it holds nothing back.
        self._store.wait_for_provider(limit.agent, now, limit.said)
        return False

    def _remember(self, limit: ProviderLimited) -> None:
        if limit.until > self._clock():
            self._store.wait_for_provider(limit.agent, limit.until, limit.said)
