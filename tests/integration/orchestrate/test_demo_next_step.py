"""``ralph demo``'s closing line names steps that work: the install there is (``make
install`` from a clone; ``ralph-delivery`` is not on the package index), and a new epic
to file, never the demo's own epic, which is already Done."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from ..conftest import ralph_process

ROOT = Path(__file__).resolve().parents[3]


def test_the_closing_line_names_make_install_and_a_new_epic(tmp_path: Path):
    kept = tmp_path / "kept"
    demo = ralph_process("demo", "--keep", str(kept), cwd=tmp_path)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    # The last thing printed, unwrapped (the console folds it at its width).
    closing = " ".join(demo.stdout[demo.stdout.rindex("The agents were simulated") :].split())
    assert "pip install" not in closing
    assert "make install in a clone of Ralph" in closing
    assert re.search(r"^install:", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert not re.search(r"ralph team \d", closing), closing
    assert "`ralph team N --agent claude` with its number N" in closing
    # The epic it says to file is a new issue in the kept project, not one already Done.
    (filed,) = re.findall(r"`(ralph issue new [^`]+)`", closing)
    new = ralph_process(*shlex.split(filed)[1:], "--body", "- one\n- two", "--json", cwd=kept)
    assert new.returncode == 0, new.stderr
    assert json.loads(new.stdout)["state"] == "Backlog"
