"""``ralph demo`` where bubblewrap is missing (every Mac): its project and its simulated
agents are Ralph's own, so it runs them unconfined, says so in one line at the start, and
succeeds; the project it keeps says so in its ralph.toml. Every other project still
refuses unconfined agents (``tests/integration/sandbox/test_refusal.py``)."""

from __future__ import annotations

import os
from pathlib import Path

from ..conftest import ralph_process

NOTICE = (
    "No sandbox here (bwrap is not installed): the demo runs its own simulated agents and "
    "its project's tests unconfined. On your own projects Ralph refuses to, until you "
    "install bubblewrap or set RALPH_ALLOW_UNSANDBOXED=true."
)


def path_without_bwrap(folder: Path) -> str:
    """One folder of links to every program on this PATH but bubblewrap's."""
    folder.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not directory or not Path(directory).is_dir():
            continue
        for program in Path(directory).iterdir():
            link = folder / program.name
            if program.name == "bwrap" or link.exists() or not os.access(program, os.X_OK):
                continue
            link.symlink_to(program)
    return str(folder)


def test_the_demo_without_bubblewrap_runs_unconfined_and_says_so_once(tmp_path):
    path = path_without_bwrap(tmp_path / "bin")
    kept = tmp_path / "kept"
    result = ralph_process("demo", "--keep", str(kept), cwd=tmp_path, env={"PATH": path})
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[1] == NOTICE
    assert (result.stdout + result.stderr).count("unconfined") == 1
    for line in ("✓ every issue Done", "✓ the change merged on main", "✓ the tests pass on main"):
        assert line in result.stdout
    assert "\nallow_unsandboxed = true\n" in (kept / "ralph.toml").read_text()
