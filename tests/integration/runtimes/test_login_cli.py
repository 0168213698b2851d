"""``ralph login``: Claude Code's own login, run with the CLI Ralph would run, so the
missing-key messages name a command a person can type."""

from __future__ import annotations

import os
from pathlib import Path

from ..conftest import ralph_process


def test_ralph_login_hands_the_terminal_to_claude_codes_login(tmp_path: Path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text('#!/bin/sh\necho "claude $*"\nexit 7\n')
    claude.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    done = ralph_process("login", cwd=tmp_path, env={"PATH": path})
    assert (done.returncode, done.stdout, done.stderr) == (7, "claude auth login\n", "")
