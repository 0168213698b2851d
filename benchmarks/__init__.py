"""Quick mode: ``RALPH_BENCH_QUICK=1`` runs a benchmark with tiny sizes and one
repetition, so the suite runs every benchmark (tests/integration/test_benchmarks.py)
and none can break unseen; its figures mean nothing.

Every benchmark imports this package first: from here on it and the processes it starts
keep their bytecode outside the checkout, as the suite does (tests/bytecode.py)."""

from __future__ import annotations

from tests.bytecode import keep_bytecode_outside_the_tree

keep_bytecode_outside_the_tree()
