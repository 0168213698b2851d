"""Every benchmark runs, in its quick mode (``RALPH_BENCH_QUICK=1``: tiny sizes, one
repetition), as ``make bench-*`` runs it: a script in its own process. It exits 0 and
prints its figures, so none can break unseen (bench-phases once failed for weeks behind
a ``# type: ignore``). The figures of a quick run mean nothing; a part that needs
something absent (PostgreSQL) is left out, never failed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]  # a real run on a busy machine

BENCHMARKS = Path(__file__).parents[2] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))


def test_every_make_target_runs_a_benchmark_there_is():
    makefile = (BENCHMARKS.parent / "Makefile").read_text()
    run = {
        line.split("benchmarks/")[1].strip()
        for line in makefile.splitlines()
        if "python benchmarks/" in line
    }
    assert run <= {s.name for s in SCRIPTS}


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_the_benchmark_runs_in_quick_mode_and_prints_its_figures(
    script: Path, tmp_path: Path
) -> None:
    started = time.time() - 1  # a file system's times may be coarser than the clock's
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env={**os.environ, "RALPH_BENCH_QUICK": "1"},
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    shown = f"{script.name} -> {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert done.returncode == 0, shown
    assert "Traceback" not in done.stderr, shown
    assert any(c.isdigit() for c in done.stdout), shown  # its figures
    # Its processes (servers it starts too) keep their bytecode where the suite's goes.
    sources = BENCHMARKS.parent / "src"
    written = [p for p in sources.rglob("__pycache__/*") if p.stat().st_mtime >= started]
    assert written == [], shown
