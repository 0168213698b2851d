"""Bounds for the command line's numbers: a value past them is a typo, refused before
anything runs (a billion workers would be built before the first could start)."""

from __future__ import annotations

__all__ = ["MAX_ATTEMPTS", "MAX_BEST_OF", "MAX_COUNT", "MAX_WAIT_SECONDS", "MAX_WORKERS"]

#: The largest number the store (SQLite, PostgreSQL BIGINT) holds.
MAX_COUNT = 2**63 - 1
#: Workers in one process, per role or in all.
MAX_WORKERS = 64
#: Agent attempts per phase before it escalates.
MAX_ATTEMPTS = 100
#: Implementations of one plan side by side (best of N).
MAX_BEST_OF = 8
#: Seconds a command waits for something to appear (a run for `ralph worker`): a day.
MAX_WAIT_SECONDS = 86_400
