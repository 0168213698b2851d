"""A SQLite store that another process keeps locked, or whose file is damaged, is one
line for every command (what holds it, or what to do with the file), never the
driver's traceback."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.cli import main
from ralph.db import _sqlite

#: Another process that takes the write lock, says so, and keeps it until told to stop.
HOLDER = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN EXCLUSIVE")
print("holding", flush=True)
sys.stdin.readline()
"""


def ralph(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    code = info.value.code or 0
    assert isinstance(code, int)
    return code, capsys.readouterr().err


@pytest.fixture
def store(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    path = tmp_path / "ralph.db"
    assert ralph(capsys, "--store", f"sqlite:///{path}", "db", "migrate")[0] == 0
    return path


def test_a_store_another_process_keeps_locked_names_that_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, store: Path
):
    monkeypatch.setattr(_sqlite, "BUSY_TIMEOUT_SECONDS", 1.0)  # the wait is not the point
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "holding\n"
        code, err = ralph(capsys, "--store", f"sqlite:///{store}", "runs", "list")
    finally:
        holder.communicate("\n", timeout=30)
    assert code == 1  # trying again later may work
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith(f"ralph: error: the database {store} is locked by pid {holder.pid} (")
    assert line.endswith(
        "which did not let go of it within 1 s; let it finish or stop it, then run this again"
    )


def _damage(store: Path, table: str) -> None:
    """Overwrite ``table``'s first page with garbage, as a disk fault would."""
    with sqlite3.connect(store) as db:
        (root,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).fetchone()
        (size,) = db.execute("PRAGMA page_size").fetchone()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with store.open("r+b") as file:
        file.seek((root - 1) * size)
        file.write(b"\xa5" * size)


@pytest.mark.parametrize("command", [("runs", "list"), ("runs", "show", "1")])
def test_a_damaged_store_says_so_with_the_way_out(
    capsys: pytest.CaptureFixture[str], store: Path, command: tuple[str, ...]
):
    _damage(store, "ralph_runs")
    code, err = ralph(capsys, "--store", f"sqlite:///{store}", *command)
    assert code == 2
    assert "Traceback" not in err
    assert err.splitlines() == [
        f"ralph: error: the database {store} is damaged (database disk image is malformed): "
        "restore it from a backup, or move it aside and run `ralph db migrate` to start an "
        "empty one"
    ]
