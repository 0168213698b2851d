"""Git processes per demo epic: ``ralph hero`` on the demo project (its epic, unsized, in
Backlog) with a ``git`` first on its PATH that logs each command line, then runs the real
git. Prints the processes by command, the most repeated command lines, and the verdict
against the goal; the run's wall time for information. Not a test. Counts, not times: the
machine's load does not change them.

Goal (issue 49): at least 40 % fewer git processes per epic than before the caches of
``ralph.git`` (identity and remotes kept while git's config files stay the same, a
checkout's HEAD, git dirs and the worktree list read from git's files, branch tips from
their ref files, the tracked files listed once per index, changed files hashed by one
git): at most 60 % of TODAY. The lead measured 364 on main (commit 1027261) with the same
kind of shim; this benchmark measured 358 there (git 2.39), which is TODAY. 163 -> 154
(2026-12-07): the epic's merge (a train of one) lands the commit it built and tested, its
test run in a scratch checkout lists no by-products, and it asks git nothing the
repository's files or Ralph's own moves answer (cat-file, rev-parse, for-each-ref);
156 after the review: whether a kept commit or tree is still there (git prunes what no
ref holds), one ``cat-file -e`` each.

    make bench-git    # or: .venv/bin/python benchmarks/bench_git.py
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.demo import create_demo_project

#: Git processes per demo epic before issue 49 (this benchmark on main at 1027261).
TODAY = 358
#: The goal: at least 40 % fewer.
GOAL = int(TODAY * 0.6)
RUNS = pick(2, 1)
#: Ends each logged command line (its words are NUL-terminated).
_END = "\x01"
#: How long one ``ralph hero`` on the demo epic may take here.
_RUN_SECONDS = 300


def _shim(folder: Path, log: Path) -> Path:
    """A folder holding a ``git`` that logs its arguments to ``log`` and runs the real
    one (one write per command line: O_APPEND keeps concurrent ones whole)."""
    real = shutil.which("git")
    if real is None:
        raise SystemExit("bench-git: git is not on PATH; install git and retry")
    folder.mkdir()
    shim = folder / "git"
    shim.write_text(
        "#!/bin/sh\n"
        f"printf '%s\\0' \"$@\" '{_END}' >> {shlex.quote(str(log))}\n"
        f'exec {shlex.quote(real)} "$@"\n'
    )
    shim.chmod(0o755)
    return folder


def _command(argv: list[str]) -> str:
    """The git command of an argument list: its first word after the global options
    (``-c name=value`` and ``--no-optional-locks`` among them)."""
    words = iter(argv)
    for word in words:
        if word in ("-c", "-C"):
            next(words, None)
        elif not word.startswith("-"):
            return word
    return "?"


def _shown(argv: list[str]) -> str:
    """A command line as a person reads it: without Ralph's ``-c core.hooksPath=...``,
    long words cut."""
    if argv[:1] == ["-c"] and argv[1:2] and argv[1].startswith("core.hooksPath="):
        argv = argv[2:]
    return " ".join(word if len(word) < 48 else word[:45] + "..." for word in argv)


def one_epic(folder: Path) -> tuple[list[list[str]], float]:
    """Every git command line one ``ralph hero`` on the demo epic ran, and its wall time."""
    repo, epic = create_demo_project(folder / "demo")
    log = folder / "git.log"
    shim = _shim(folder / "shim", log)
    env = {**os.environ, "PATH": f"{shim}{os.pathsep}{os.environ.get('PATH', '')}"}
    ralph = [sys.executable, "-m", "ralph"]
    start = time.perf_counter()
    done = subprocess.run(
        [*ralph, "hero", str(epic)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=_RUN_SECONDS,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        said = f"{done.stdout[-2000:]}{done.stderr[-2000:]}"
        raise SystemExit(f"bench-git: ralph hero failed:\n{said}")
    records = log.read_text(errors="replace").split(f"{_END}\0") if log.exists() else []
    lines = [record.split("\0")[:-1] for record in records if record]
    return lines, wall


def main() -> None:
    counts: list[int] = []
    walls: list[float] = []
    commands: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory() as folder:
            ran, wall = one_epic(Path(folder))
        counts.append(len(ran))
        walls.append(wall)
        if len(counts) == 1:
            commands.update(_command(argv) for argv in ran)
            lines.update(_shown(argv) for argv in ran)
    worst = max(counts)
    print(f"git processes per demo epic (ralph hero, {RUNS} run(s)): {', '.join(map(str, counts))}")
    print(f"{'git command':24} {'processes':>9}")
    for command, n in commands.most_common():
        print(f"{command:24} {n:9}")
    print("\nmost repeated command lines (first run)")
    for line, n in lines.most_common(12):
        print(f"{n:5}  {line}")
    fewer = 1 - worst / TODAY
    verdict = "meets" if worst <= GOAL else "MISSES"
    print(
        f"\n{'':24} {'before':>9} {'now':>9} {'goal':>9}\n"
        f"{'git processes per epic':24} {TODAY:9} {worst:9} {'<= ' + str(GOAL):>9}"
    )
    print(f"verdict: {verdict} ({fewer:.0%} fewer than before; goal: at least 40 % fewer)")
    print(f"ralph hero wall time (for information, load-bound): {min(walls):.2f} s")


if __name__ == "__main__":
    main()
