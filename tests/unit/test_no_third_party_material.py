"""Everything Ralph ships is the project's own: no file under src/ carries another
party's licence notice, and none is a minified bundle (how a library copied from a
package registry usually looks)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The notices a file copied from another project brings with it.
_LICENCE = re.compile(
    r"Zero-Clause BSD|@license|Copyright \(c\)|SPDX-License-Identifier|"
    r"Permission is hereby granted|Licensed under the|\bvendored\b",
    re.IGNORECASE,
)
#: Longer than any line written by hand: a minified or generated bundle.
_LONGEST_LINE = 2_000


def _shipped() -> list[Path]:
    return sorted(
        path
        for path in (ROOT / "src").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


@pytest.mark.parametrize("path", _shipped(), ids=lambda path: str(path.relative_to(ROOT)))
def test_a_shipped_file_is_the_projects_own(path: Path) -> None:
    text = path.read_text(errors="replace")
    assert _LICENCE.findall(text) == []
    assert max((len(line) for line in text.splitlines()), default=0) <= _LONGEST_LINE
    assert not path.name.endswith((".min.js", ".min.css"))
