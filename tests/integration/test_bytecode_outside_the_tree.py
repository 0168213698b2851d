"""A part of the suite and a benchmark, run in a copy of the checkout where Python is told
not to write bytecode (``PYTHONDONTWRITEBYTECODE=1``, as on CI), leave no ``__pycache__``
in it: the suite, its xdist worker, the processes a test starts and the benchmark keep
their bytecode in the user's cache folder (tests/bytecode.py), where the next run reads
it back."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(660)]  # two Python runs, busy machine

#: A run compiles everything it imports afresh; 10 s quiet, far more beside the suite.
RUN_SECONDS = 300

CHECKOUT = Path(__file__).resolve().parents[2]
#: A unit test that starts a process of its own, and a benchmark's quick run.
SUITE_PART = "tests/unit/test_test_environment.py"
BENCHMARK = "benchmarks/bench_jsonschema.py"


def _copy(to: Path) -> Path:
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc", "node_modules")
    for name in ("src", "tests", "benchmarks"):
        shutil.copytree(CHECKOUT / name, to / name, ignore=ignored)
    shutil.copy(CHECKOUT / "pyproject.toml", to / "pyproject.toml")
    return to


def _written(tree: Path) -> list[str]:
    return sorted(
        str(path.relative_to(tree))
        for path in tree.rglob("*")
        if path.name == "__pycache__" or path.suffix == ".pyc"
    )


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return _copy(tmp_path / "checkout")


@pytest.fixture
def told_not_to_write(checkout: Path, tmp_path: Path) -> dict[str, str]:
    """The suite's environment with bytecode refused, the copy's sources first on the
    path, and a cache folder of the test's own."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    return {
        **environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONPATH": os.pathsep.join([str(checkout / "src"), str(checkout)]),
    }


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in a session of its own; one that outlives ``RUN_SECONDS`` fails the
    test with every one of its Python processes' stacks (faulthandler, on SIGABRT)."""
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env={**env, "PYTHONFAULTHANDLER": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=RUN_SECONDS)
    except subprocess.TimeoutExpired:
        _signal_group(process, signal.SIGABRT)  # each Python process prints its stacks
        try:
            out, err = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:  # one that is not Python, or stuck in C
            _signal_group(process, signal.SIGKILL)
            out, err = process.communicate(timeout=20)
        pytest.fail(f"{command} took over {RUN_SECONDS} s; its stacks:\n{out[-3000:]}{err[-9000:]}")
    finally:  # nothing of the run outlives the test, however it ends
        _signal_group(process, signal.SIGKILL)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


def _signal_group(process: subprocess.Popen[str], signal_number: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # every process of it has ended
        os.killpg(process.pid, signal_number)


def _cached(cache: Path, source: Path) -> Path:
    tag = sys.implementation.cache_tag
    return (
        cache
        / "ralph-tests"
        / "bytecode"
        / source.parent.relative_to("/")
        / (f"{source.stem}.{tag}.pyc")
    )


def test_a_part_of_the_suite_on_a_worker_writes_no_bytecode_into_the_tree(
    checkout: Path, told_not_to_write: dict[str, str], tmp_path: Path
) -> None:
    done = _run(
        [sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "no:cacheprovider", SUITE_PART],
        checkout,
        told_not_to_write,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert _written(checkout) == []
    # Kept where the next run reads it: Ralph's, the tests' and the dependencies'.
    assert _cached(tmp_path / "cache", checkout / "src" / "ralph" / "__init__.py").is_file()
    assert _cached(tmp_path / "cache", checkout / "tests" / "published.py").is_file()


def test_a_benchmark_writes_no_bytecode_into_the_tree(
    checkout: Path, told_not_to_write: dict[str, str], tmp_path: Path
) -> None:
    done = _run(
        [sys.executable, str(checkout / BENCHMARK)],
        tmp_path,
        {**told_not_to_write, "RALPH_BENCH_QUICK": "1"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert _written(checkout) == []
    assert _cached(tmp_path / "cache", checkout / "benchmarks" / "_quick.py").is_file()
