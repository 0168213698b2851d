"""What the README and the Makefile promise a fresh clone: both of its commands on the
README's first page, and a documentation site that installs only what mkdocs needs."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
#: What a person sees of the README before scrolling.
FIRST_PAGE_LINES = 40


def test_the_readme_names_both_commands_of_a_fresh_clone_on_its_first_page():
    first_page = "\n".join(
        (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:FIRST_PAGE_LINES]
    )
    assert "`make demo`" in first_page
    assert "`make test`" in first_page


def test_make_docs_site_installs_the_docs_group_alone(tmp_path: Path):
    # A dry run into a new environment lists every command the target would run.
    planned = subprocess.run(
        ["make", "-n", "-B", "docs-site", f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    (sync,) = [line for line in planned.splitlines() if " sync " in line]
    assert "--group docs" in sync
    assert "--no-default-groups" in sync
    assert "--all-extras" not in sync
    assert "--all-groups" not in sync
    assert "mkdocs build --strict" in planned
