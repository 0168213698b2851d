"""The ``ralph`` command's process ends as Python would have ended it (its exit code, its
output, its exit functions, its threads), only without freeing every object first."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ralph._command_process import GEN0_THRESHOLD


def _run(
    program: str, tmp_path: Path, stdout: int = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    """Run ``program``, whose ``mark(name)`` leaves a file named ``name`` in ``tmp_path``,
    with its output buffered as on a person's machine (the suite's may say otherwise)."""
    source = textwrap.dedent(program).replace("MARKS", repr(str(tmp_path)))
    return subprocess.run(
        [sys.executable, "-c", source],
        env={name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"},
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        check=False,
    )


_PRELUDE = """
    import atexit, os, sys, threading, time
    from ralph._command_process import run_then_end

    def mark(name):
        with open(os.path.join(MARKS, name), "w") as file:
            file.write(name)
"""


def test_a_command_ends_with_its_code_its_buffered_output_and_its_exit_functions(
    tmp_path: Path,
) -> None:
    done = _run(
        _PRELUDE
        + """
    atexit.register(mark, "exit-function")

    def command():
        sys.stdout.write("no newline, still in the buffer")
        sys.exit(3)

    run_then_end(command)
    """,
        tmp_path,
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout == "no newline, still in the buffer"
    assert (tmp_path / "exit-function").is_file()


def test_a_command_that_returns_ends_with_0_and_frees_nothing(tmp_path: Path) -> None:
    done = _run(
        _PRELUDE
        + """
    class Kept:
        def __del__(self, write=os.write):  # bound now: teardown clears the globals
            write(2, b"freed")

    kept = Kept()
    run_then_end(lambda: None)
    """,
        tmp_path,
    )
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize("watching", ["sys.setprofile", "sys.settrace"])
def test_under_a_profiler_or_a_tracer_the_process_ends_as_python_ends_it(
    tmp_path: Path, watching: str
) -> None:
    """cProfile, coverage and debuggers write what they saw as Python ends."""
    done = _run(
        _PRELUDE
        + f"""
    class Kept:
        def __del__(self, write=os.write):
            write(2, b"freed")

    kept = Kept()
    {watching}(lambda *args: None)
    run_then_end(lambda: None)
    """,
        tmp_path,
    )
    assert (done.returncode, done.stderr) == (0, "freed")


def test_a_profile_of_the_ralph_command_is_written(tmp_path: Path) -> None:
    profile = tmp_path / "ralph.prof"
    subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "ralph", "--help"],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert profile.stat().st_size > 0


@pytest.mark.parametrize("status", [2**63, -(2**63) - 1])
def test_a_number_past_a_c_long_ends_as_python_ends_it(tmp_path: Path, status: int) -> None:
    as_python = _run(f"import sys; sys.exit({status})", tmp_path)
    ended = _run(_PRELUDE + f"\n    run_then_end(lambda: sys.exit({status}))\n", tmp_path)
    assert ended.returncode == as_python.returncode != 0


def test_a_message_is_printed_as_python_prints_it(tmp_path: Path) -> None:
    done = _run(_PRELUDE + "\n    run_then_end(lambda: sys.exit('no such issue'))\n", tmp_path)
    assert (done.returncode, done.stderr) == (1, "no such issue\n")


def test_a_thread_still_running_is_waited_for(tmp_path: Path) -> None:
    done = _run(
        _PRELUDE
        + """
    def late():
        time.sleep(0.3)
        mark("thread")

    threading.Thread(target=late).start()
    run_then_end(lambda: None)
    """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "thread").is_file()


def test_an_error_is_raised_as_before(tmp_path: Path) -> None:
    done = _run(_PRELUDE + "\n    run_then_end(lambda: 1 / 0)\n", tmp_path)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "ZeroDivisionError: division by zero"


def _to_a_closed_pipe(program: str, tmp_path: Path) -> tuple[int, str]:
    read, write = os.pipe()
    os.close(read)
    try:
        done = _run(program, tmp_path, stdout=write)
    finally:
        os.close(write)
    return done.returncode, done.stderr.splitlines()[-1]


def test_output_for_a_reader_gone_ends_as_python_ends_it(tmp_path: Path) -> None:
    """The output waits in the buffer; flushing it fails at the end: Python's code and
    message."""
    body = "sys.stdout.write('the output')"
    as_python = _to_a_closed_pipe(_PRELUDE + f"\n    {body}\n", tmp_path)
    ended = _to_a_closed_pipe(_PRELUDE + f"\n    run_then_end(lambda: {body})\n", tmp_path)
    assert ended == as_python
    assert as_python[0] == 120


def test_only_the_command_collects_less_not_a_program_importing_ralph() -> None:
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "import gc, ralph.cli, ralph._command_process as p; print(gc.get_threshold());"
            " p.collect_less(); print(gc.get_threshold())",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()
    default = subprocess.run(
        [sys.executable, "-c", "import gc; print(gc.get_threshold())"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.strip()
    middle_and_old = default.strip("()").split(", ")[1:]
    assert shown == [default, f"({GEN0_THRESHOLD}, {', '.join(middle_and_old)})"]
