"""Every document the project cites is in the repository: no source line, test or
Markdown file points at a file outside it. One module of the tests names the published
API definitions provided beside the repository, which Ralph does not ship
(tests/published.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Where the tests and benchmarks find GitHub's and Linear's published schemas.
_DEFINITIONS = ROOT / "tests" / "published.py"
#: How the project once cited documents that were never part of it.
_OUTSIDE = re.compile(r"\.\./shared|\bseeds/|reference §|reliability(\.md| reference)")
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _files(*patterns: str) -> list[Path]:
    return sorted(path for pattern in patterns for path in ROOT.glob(pattern))


@pytest.mark.parametrize(
    "path",
    _files("src/**/*.py", "src/**/*.md", "tests/**/*.py", "benchmarks/*.py", "*.md", "docs/*.md"),
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_no_file_cites_a_document_outside_the_repository(path: Path) -> None:
    if path in (Path(__file__).resolve(), _DEFINITIONS):
        return
    cited = [line for line in path.read_text().splitlines() if _OUTSIDE.search(line)]
    assert cited == []


@pytest.mark.parametrize(
    "path", _files("*.md", "docs/*.md"), ids=lambda path: str(path.relative_to(ROOT))
)
def test_markdown_links_name_files_of_the_repository(path: Path) -> None:
    links = [link for link in _LINK.findall(path.read_text()) if "://" not in link]
    missing = [link for link in links if not (path.parent / link).exists()]
    assert missing == []


def test_the_documents_a_newcomer_reads_exist() -> None:
    for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "LICENSE"):
        assert (ROOT / name).is_file(), name
    for name in ("architecture.md", "compatibility.md"):
        assert (ROOT / "docs" / name).is_file(), name
