"""What a long value in the environment costs the secret scrub. Not a test.

Every command reads its whole environment for secrets (``ralph._secrets``): the
redactor is built from it, and every URL in it is searched for a password. Printed: the
CPU time of building the redactor from one value of each size (a run of one letter, a
run of hex digits), the ratio of the largest to the smallest against the ratio of their
sizes (linear: about the same), and ``ralph status`` with a 30 KB value in its
environment beside it without one.

Goal (issue 45, D7): linear in the value's length; ``ralph status`` with a 30 KB value
within 0.5 s of it without (it was 6.0 s against 0.7 s).

    make bench-secrets    # or: .venv/bin/python benchmarks/bench_secrets.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph._secrets import Redactor, url_passwords

SIZES = pick((1_000, 10_000, 30_000, 100_000), (1_000, 10_000))
ROUNDS = pick(5, 1)
#: The values of the review: a run of one letter, and of two hex digits.
SHAPES = {"letters": "A", "hex": "a1"}
BLOB = 30_000
PYTHON = sys.executable
RALPH = shutil.which("ralph", path=str(Path(PYTHON).parent)) or "ralph"


def scrub_seconds(value: str) -> float:
    """The least CPU time, over the rounds, of reading ``value`` for secrets."""
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.process_time()
        Redactor.from_environment({"BLOB": value})
        url_passwords(value)
        best = min(best, time.process_time() - started)
    return best


def command_seconds(folder: Path, extra: dict[str, str]) -> float:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RALPH_")}, **extra}
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        subprocess.run(
            [RALPH, "status"], cwd=folder, env=env, capture_output=True, check=True, timeout=300
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    print(f"{'value':<10}" + "".join(f"{n:>12,}" for n in SIZES) + f"{'ratio':>10}")
    for shape, unit in SHAPES.items():
        seconds = [scrub_seconds(unit * (n // len(unit))) for n in SIZES]
        ratio = seconds[-1] / max(seconds[0], 1e-6)
        cells = "".join(f"{s:>11.4f}s" for s in seconds)
        print(f"{shape:<10}{cells}{ratio:>9.0f}x")
    print(f"(sizes {SIZES[-1] // SIZES[0]}x apart: linear is about that ratio)")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for git in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "First"]):
            subprocess.run(["git", *git], cwd=folder, check=True, capture_output=True)
        subprocess.run([RALPH, "init", "."], cwd=folder, check=True, capture_output=True)
        plain = command_seconds(folder, {})
        blob = command_seconds(folder, {"BLOB": "a1" * (BLOB // 2)})
    print(f"ralph status: {plain:.2f}s; with a {BLOB // 1000} KB value: {blob:.2f}s")


if __name__ == "__main__":
    main()
