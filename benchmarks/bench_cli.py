"""How fast the everyday commands start. Not a test.

On a small local project (``ralph init`` in a temporary folder, a few issues), each
command runs as a person runs it, a new process each time, N times interleaved:
``ralph --help``, ``status``, ``issue list``, ``issue show 1`` and ``issue new``, beside
``python -c pass`` (the interpreter) and ``python -c "import typer"`` (the floor: every
command parses its arguments with Typer). Printed: the median of each, its ratio to the
Typer floor, the modules it imports (a count that does not depend on the machine's load)
and whether it meets the goal.

Goal (issue 36): each starts in under 0.25 s, within 2x of ``import typer``.

Issue 49 (deferred what a command does not use: the workflow package's names on first
use, ``status``'s boards, holds and Markdown only when asked for, the local board's
management (fields, views) only when managed, ``issue``'s Rich tables only for ``list``
and ``show``, no ``socket``/``secrets``, no logging or console for ``--help``). CPU
medians of 11 paired runs with bytecode, load 17.5-14.6, before -> after: ``--help``
0.185 -> 0.178 s (2.80x -> 2.77x; Typer's Rich help is most of it), ``status`` 0.258 ->
0.228 s (3.90x -> 3.56x), ``issue list`` 0.251 -> 0.225 s (3.80x -> 3.50x), ``issue
show`` 0.242 -> 0.220 s (3.66x -> 3.43x), ``issue new`` 0.234 -> 0.226 s (3.54x ->
3.53x). Modules (all / Ralph's): ``--help`` 338/15 -> 329/11, ``status`` 396/155 ->
361/137, ``issue list`` 380/146 -> 363/139, ``issue show 1`` 391/151 -> 367/142, ``issue
new`` 380/146 -> 356/137. The 2x goal is not met: what is left is mostly the work itself
(configuration, tracker, task store, git: over 100 dataclasses and ~90 regular
expressions built at import) and Rich's table. The commands keep their bytecode where the
benchmarks do (tests/bytecode.py), written by the unmeasured first run of each: without
it every run would compile Ralph's source (``status`` about 1.5x slower).

Since issue 49's second pass it measures CPU (each process's user and system time: what
the start-up costs, less bent by the machine's load than wall time), pairs each round's
command with that round's ``import typer`` and shows the median of those ratios. That
pass: Typer's Rich help without Rich's Markdown and traceback renderers
(``cli/_slim_help.py``), ``issue list`` to a pipe and warnings off a terminal without
Rich, no dashboard or documents' sections for reading or filing issues, nothing of
notifying without a ``[notify]`` target, the merge settings apart from the merge policy.
Paired A/B (the tree before and after in the same rounds, 15 rounds, load 15.6-15.1),
CPU medians and x typer: ``--help`` 0.183 -> 0.134 s (2.65x -> 1.93x), ``status`` 0.243
-> 0.236 s (3.53x -> 3.40x), ``issue list`` 0.238 -> 0.185 s (3.47x -> 2.70x), ``issue
show 1`` 0.246 -> 0.229 s (3.59x -> 3.35x), ``issue new`` 0.236 -> 0.215 s (3.57x ->
3.13x). ``make bench-cli`` after, load 15.1-15.5: 1.91x / 3.33x / 2.68x / 3.27x / 2.93x;
modules 221 / 357 / 287 / 363 / 342. The 2x goal is met by ``--help`` only: the rest is
the work itself (Ralph's own modules, about 95 ms of ``status``'s imports, over half of
it building some hundred frozen dataclasses and enums, 0.5-1 ms each on Python 3.11; the
local code host opened with every project, and its reviews and git modules; Rich's
table).

Issue 49's third pass: the functions ``@dataclass`` writes compiled once and kept beside
each module's bytecode (``ralph/_dataclass_code.py``: about three quarters of a class's
cost, some 50 ms of ``status`` before), the code host opened when first asked for (reading
issues imports no pull requests, reviews or git merges), each service's backend imported
when a project uses it, ralph.toml parsed once where it was parsed twice, ``status``'s
board lines without the issue pages' renderer, ``issue``'s editor only for writing.
``make bench-cli`` before, load 7.1-9.2: ``--help`` 2.00x, ``status`` 3.39x, ``issue
list`` 2.75x, ``issue show 1`` 3.46x, ``issue new`` 2.86x; after, load 13.3-13.0: 1.91x /
2.74x / 2.26x / 2.78x / 2.56x; modules 222 / 343 / 272 / 349 / 330. Paired A/B, the tree
before and after in the same rounds (15 rounds, ``python -c`` running ``ralph.__main__``,
two runs, load 14.1-12.4): ``status`` 3.43x -> 2.87x and 3.54x -> 2.93x, ``issue list``
2.69x -> 2.06x and 3.00x -> 2.37x; ratios move by 0.1-0.3 from run to run at this load.
Instructions (callgrind, the same from run to run; ``import typer`` 259 M): ``status``
1037 M -> 712 M (4.01x -> 2.75x), ``issue list`` 858 M -> 572 M (3.31x -> 2.21x). Still
over 2x: ``status`` pays Rich's console and table (about 25 ms) and the dashboard; both
pay the configuration (some 30 modules, 66 M instructions), the task store (31 M) and
the local tracker, which they read.

Issue 49's fourth pass: ``status`` to a pipe prints plain lines without Rich
(``cli/_status_plain.py``; Rich's tables on a terminal only, as ``issue list``), reading
issues imports no pull request reviews nor closing keywords, and patterns only a failed
push, a setting given, a worktree listing, a store password or an issue's history needs
are compiled when first used. Each command is now also measured on a pseudo-terminal
(``tty``: Rich's tables and colours), printed beside the piped figures, which the goal
stays on. ``make bench-cli`` before, load 3.1-3.9: ``--help`` 1.85x, ``status`` 2.62x,
``issue list`` 2.17x, ``issue show 1`` 2.73x, ``issue new`` 2.36x; after, load 12.1-11.5:
2.00x / 2.14x / 2.23x / 2.93x / 2.57x piped, 1.96x / 2.80x / 3.00x / 2.73x / 2.35x on the
terminal; modules 222 / 279 (344 before) / 270 / 347 / 328. Paired A/B (15 rounds, load
11.3-13.3): ``status`` 2.64x -> 2.13x, ``issue list`` 2.11x -> 2.07x. Instructions
(callgrind, ``import typer`` 259 M): ``status`` 714 M -> 552 M (2.76x -> 2.13x), ``issue
list`` 573 M -> 541 M (2.21x -> 2.09x). Still over 2x: of ``issue list``'s 541 M, Ralph's
imports are some 210 M (the configuration 57 M with tomllib 11 M, the task store 32 M,
which only the guarded settings' check reads for it, the tracker's model and rules 33 M,
redaction 10 M) and the command's run about 70 M.

Issue 49's sixth pass: the ``ralph`` command collects young objects every 10,000, not 700
(a handful of collections on the way up, not hundreds, each full one walking every object
made before it), and once its command has returned with no other thread running it runs
the exit functions, flushes and ends without freeing each object
(``ralph/_command_process.py``); ``issue show`` asks the store's database whether any
agent was ever refused a tool and loads the task store only if one was. Instructions
(callgrind, ``import typer`` 258 M), before -> after: ``status`` 553 M -> 505 M (2.14x ->
1.96x), ``issue list`` 510 M -> 465 M (1.97x -> 1.80x), ``issue show 1`` 561 M -> 481 M
(2.17x -> 1.86x), ``issue new`` 507 M -> 462 M (1.96x -> 1.79x), ``--help`` 522 M ->
475 M (2.02x -> 1.84x). ``make bench-cli``, the tree before (load 2.25-2.31) and after
(load 2.08-2.20), piped: ``--help`` 1.92x -> 1.60x, ``status`` 2.13x -> 1.80x, ``issue
list`` 1.98x -> 1.68x, ``issue show 1`` 2.14x -> 1.78x, ``issue new`` 2.07x -> 1.71x: the
2x goal met by all five. On a terminal, where Rich draws the tables: 1.62x / 2.20x /
2.24x / 2.16x / 1.96x.

Issue 49's fifth pass: reading and filing issues never load the task store (the guarded
settings' checkpoint is read from its database; the store opens when first asked for),
``issue show`` to a pipe prints plain lines without Rich, and so do one-line messages
(``Created #4``). On this machine ``import typer`` took 0.150 s of CPU, twice the last
pass's machine, so the 0.25 s goal is missed by every command, the floor included.
``make bench-cli`` before, load 1.1: ``--help`` 2.14x, ``status`` 1.98x, ``issue list``
1.97x, ``issue show 1`` 2.69x, ``issue new`` 2.38x; after, load 7.8-8.0: 1.98x / 2.09x /
1.90x / 2.09x / 1.96x; modules 222 / 280 / 258 (271 before) / 284 (348) / 260 (329).
Instructions (callgrind, ``import typer`` 258 M): ``issue list`` 540 M -> 510 M (2.09x ->
1.98x), ``issue new`` 623 M -> 508 M (2.41x -> 1.97x), ``issue show 1`` 672 M -> 561 M
(2.60x -> 2.17x), ``status`` 553 M -> 554 M (2.14x; it reads the store). Turning the
collector off for the whole process would take 24 M more off each; left out, as ``serve``
would inherit it.

    make bench-cli    # or: .venv/bin/python benchmarks/bench_cli.py
"""

from __future__ import annotations

import fcntl
import os
import resource
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick

ROUNDS = pick(15, 1)
GOAL_SECONDS = 0.25
GOAL_RATIO = 2.0
PYTHON = sys.executable
RALPH = shutil.which("ralph", path=str(Path(PYTHON).parent)) or "ralph"

#: Each command's name and arguments; the first two are the floors it is compared with.
COMMANDS: dict[str, list[str]] = {
    "python -c pass": [PYTHON, "-c", "pass"],
    "import typer": [PYTHON, "-c", "import typer"],
    "ralph --help": [RALPH, "--help"],
    "ralph status": [RALPH, "status"],
    "ralph issue list": [RALPH, "issue", "list"],
    "ralph issue show 1": [RALPH, "issue", "show", "1"],
    "ralph issue new": [RALPH, "issue", "new", "Benchmarked", "-e", "S", "--body", ""],
}
FLOORS = ("python -c pass", "import typer")
#: The terminal the commands are also measured on: as wide as ``COLUMNS`` says.
TERMINAL_ROWS, TERMINAL_COLUMNS = 50, 100

#: The command in a fresh interpreter that prints how many modules it loaded, at exit.
_COUNT_MODULES = (
    "import atexit, sys;"
    "atexit.register(lambda: sys.stderr.write(f'\\nmodules={len(sys.modules)}'));"
    "sys.argv[0] = 'ralph'; from ralph.__main__ import main; main()"
)


def environment() -> dict[str, str]:
    """This one's, without the developer's Ralph settings; a fixed terminal width."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("RALPH_")},
        "COLUMNS": "100",
    }


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(command: list[str], cwd: Path) -> tuple[float, float]:
    """The command's wall time and CPU time (user and system, its children's included):
    CPU depends less on what else the machine runs."""
    cpu, started = _children_cpu(), time.perf_counter()
    subprocess.run(
        command, cwd=cwd, env=environment(), capture_output=True, check=True, timeout=120
    )
    return time.perf_counter() - started, _children_cpu() - cpu


def run_on_terminal(command: list[str], cwd: Path) -> float:
    """The command's CPU time with its output on a pseudo-terminal (Rich's tables and
    colours, where a pipe gets plain lines), which this process reads as a terminal
    would: all of it, as it comes."""
    leader, follower = os.openpty()
    size = struct.pack("HHHH", TERMINAL_ROWS, TERMINAL_COLUMNS, 0, 0)
    fcntl.ioctl(follower, termios.TIOCSWINSZ, size)
    cpu = _children_cpu()
    try:
        process = subprocess.Popen(
            command, cwd=cwd, env=environment(), stdout=follower, stderr=subprocess.DEVNULL
        )
        os.close(follower)
        while select.select([leader], [], [], 120)[0]:
            try:
                if not os.read(leader, 65536):
                    break
            except OSError:  # the command has ended and closed the terminal: all read
                break
        returncode = process.wait(timeout=120)
    finally:
        os.close(leader)
    if returncode != 0:
        raise subprocess.CalledProcessError(returncode, command)
    return _children_cpu() - cpu


def small_project(folder: Path) -> Path:
    for git in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "First commit"]):
        subprocess.run(["git", *git], cwd=folder, check=True, capture_output=True, timeout=30)
    run([RALPH, "init", "."], folder)
    for n in range(1, 4):
        run([RALPH, "issue", "new", f"Issue {n}", "-e", "S", "--body", ""], folder)
    return folder


def modules_loaded(command: list[str], cwd: Path) -> int | None:
    if command[0] != RALPH:
        argument = command[2]
        done = subprocess.run(
            [PYTHON, "-c", f"{argument}; import sys; print(len(sys.modules))"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return int(done.stdout.split()[-1])
    done = subprocess.run(
        [PYTHON, "-c", _COUNT_MODULES, *command[1:]],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(done.stderr.rsplit("modules=", 1)[1])


def _load() -> str:
    return (
        Path("/proc/loadavg").read_text().split(" ", 1)[0]
        if Path("/proc/loadavg").exists()
        else "?"
    )


def main() -> None:
    print(f"bytecode kept in: {sys.pycache_prefix}")
    load_before = _load()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        project = small_project(Path(tmp))
        for command in COMMANDS.values():  # once, unmeasured: the disk cache warm
            run(command, project)
        wall: dict[str, list[float]] = {name: [] for name in COMMANDS}
        cpu: dict[str, list[float]] = {name: [] for name in COMMANDS}
        on_terminal: dict[str, list[float]] = {n: [] for n in COMMANDS if n not in FLOORS}
        for _ in range(ROUNDS):
            for name, command in COMMANDS.items():
                seconds, cpu_seconds = run(command, project)
                wall[name].append(seconds)
                cpu[name].append(cpu_seconds)
                if name in on_terminal:
                    on_terminal[name].append(run_on_terminal(command, project))
        counts = {name: modules_loaded(command, project) for name, command in COMMANDS.items()}
    floor = cpu["import typer"]
    print(
        f"{ROUNDS} rounds, interleaved; medians (this machine, load {load_before} -> {_load()}); "
        "x typer: the median of each round's CPU ratio to import typer's; piped, and on a "
        f"{TERMINAL_COLUMNS}-column terminal (tty)"
    )
    print(
        f"  {'command':<20} {'CPU':>8} {'x typer':>8} {'wall':>8} {'modules':>8} "
        f"{'tty CPU':>8} {'tty x':>7}  goal (piped)"
    )
    for name in COMMANDS:
        ratio = statistics.median(c / f for c, f in zip(cpu[name], floor, strict=True))
        met = statistics.median(cpu[name]) < GOAL_SECONDS and ratio <= GOAL_RATIO
        goal = "" if name in FLOORS else ("met" if met else "NOT met")
        tty = on_terminal.get(name)
        shown = (
            f"{statistics.median(tty):>7.3f}s "
            f"{statistics.median(t / f for t, f in zip(tty, floor, strict=True)):>6.2f}x"
            if tty
            else f"{'':>8} {'':>7}"
        )
        print(
            f"  {name:<20} {statistics.median(cpu[name]):>7.3f}s {ratio:>7.2f}x "
            f"{statistics.median(wall[name]):>7.3f}s {counts[name]:>8} {shown}  {goal}"
        )
    print(
        f"goal: under {GOAL_SECONDS} s and within {GOAL_RATIO:.0f}x of import typer, in CPU, "
        "piped (a terminal's figures are shown beside)"
    )


if __name__ == "__main__":
    main()
