"""How a move to a fallback agent is said, whatever the provider's reset."""

from __future__ import annotations

import time

from ralph.phases import ProviderLimited
from ralph.phases._fallback import limit_words


def test_a_reset_in_milliseconds_is_said_not_a_crash():
    now = time.time()
    said = limit_words(ProviderLimited("claude", now * 1000, "429"), now)
    assert said.startswith("claude rate limited until ")
