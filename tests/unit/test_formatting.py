"""ruff format is the whole story of the code's layout: no line opts out of it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OPT_OUTS = ("# fmt: skip", "# fmt: off", "# fmt: on")


def test_no_python_file_opts_out_of_the_formatter():
    sources = [
        path
        for folder in ("src", "tests", "benchmarks")
        for path in sorted((ROOT / folder).rglob("*.py"))
    ]
    assert len(sources) > 300
    opted_out = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sources
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.rstrip().endswith(OPT_OUTS) and path != Path(__file__).resolve()
    ]
    assert opted_out == []
