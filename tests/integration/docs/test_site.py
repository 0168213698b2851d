"""The documentation site builds strictly: a broken link, a missing anchor or a page left
out of the navigation fails (mkdocs.yml's ``validation`` turns each into a warning, and
``--strict`` fails on any). The links of README.md and CONTRIBUTING.md, outside the
site, are checked by tests/unit/test_documents_in_repository.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.timeout(180)
def test_the_site_builds_without_a_warning(tmp_path: Path) -> None:
    pytest.importorskip("material", reason="the docs dependency group is not installed")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "getting-started" / "index.html").is_file()
