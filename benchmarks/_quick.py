"""Quick mode: ``RALPH_BENCH_QUICK=1`` runs a benchmark with tiny sizes and one
repetition, so the suite runs every benchmark (tests/integration/test_benchmarks.py)
and none can break unseen; its figures mean nothing."""

from __future__ import annotations

import os
from typing import TypeVar

__all__ = ["QUICK", "pick"]

QUICK = os.environ.get("RALPH_BENCH_QUICK") == "1"

T = TypeVar("T")


def pick(full: T, quick: T) -> T:
    """``quick`` in quick mode, else ``full``."""
    return quick if QUICK else full
