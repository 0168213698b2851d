"""A tracker or code host is one record: its settings in ``config/_services.py``, its
wiring in ``project/_backends.py``. Its client is imported only by its own folders, the
tracker layer and the wiring, and no other module names its kind, so the next service
(Jira, GitLab) touches the files ``RECIPE`` lists and no others (docs/architecture.md,
"Adding a tracker or code host")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ralph

pytestmark = pytest.mark.timeout(30)

SRC = Path(ralph.__file__).parent
#: Services with a client package of their own (present or coming).
SERVICES = ("github", "linear", "jira", "gitlab")
#: The existing ``src/ralph`` files a new service touches beside its new ones, and why:
#: the recipe, as data. It only ever shrinks.
RECIPE = {
    "config/_services.py": "its settings record, one entry in SERVICES",
    "config/__init__.py": "its settings, parse and token function exported to the wiring",
    "project/_backends.py": "its Backend record, one entry in BACKENDS",
    "cli/_init.py": "its `ralph init --NAME` option: Typer reads options from the signature",
    "errors.py": "its errors drawn in the tree (they derive from the Service* bases)",
    "_secrets.py": "its token's prefix, when its tokens have one",
}
#: Files outside the services' own that name a kind, each with why; only ever shrinks.
KNOWN = {
    "project/_init.py": "init_project's github= and linear= keywords (others: services=)",
    "tracker/_tracker.py": "the one-board refusal names the tracker that has several",
}
#: Where a service's client may be imported: the tracker layer, the wiring, settings.
_IMPORTERS = ("tracker", "project", "config")


def _own(relative: Path, service: str) -> bool:
    """A file of the service itself: its client, its tracker folder, its settings, its
    wiring."""
    parts = relative.parts
    return (
        parts[0] == service
        or parts[:2] == ("tracker", service)
        or relative.as_posix() == f"config/_{service}.py"
        or (parts[0] == "project" and parts[-1].startswith(f"_{service}"))
    )


def _code_lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if not line.strip().startswith("#")]


_NAMES = "|".join(SERVICES)
_IMPORT = re.compile(rf"^\s*(?:from|import)\s+ralph\.({_NAMES})\b")
_KIND = re.compile(rf"""["']({_NAMES})["']""")


def _sources() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def test_a_services_client_is_imported_only_by_the_tracker_layer_the_wiring_and_itself():
    found = set()
    for path in _sources():
        relative = path.relative_to(SRC)
        for line in _code_lines(path):
            match = _IMPORT.match(line)
            if match and relative.parts[0] not in _IMPORTERS and not _own(relative, match[1]):
                found.add((relative.as_posix(), line.strip()))
    assert not found, (
        "name the shared bases (ServiceUnavailable, ...) or ask the tracker instead: "
        f"{sorted(found)}"
    )


def _naming_a_kind() -> set[str]:
    found = set()
    for path in _sources():
        relative = path.relative_to(SRC)
        for line in _code_lines(path):
            kinds = set(_KIND.findall(line))
            if any(not _own(relative, kind) for kind in kinds):
                found.add(relative.as_posix())
    return found


def test_no_module_outside_the_recipe_names_a_services_kind():
    unexpected = _naming_a_kind() - set(RECIPE) - set(KNOWN)
    assert not unexpected, (
        "a service's kind belongs in its records (config/_services.py, "
        f"project/_backends.py) or its own files: {sorted(unexpected)}"
    )


def test_every_known_file_still_names_a_kind():
    # Once a file stops naming one, drop it from KNOWN so the list only shrinks.
    assert set(KNOWN) <= _naming_a_kind(), sorted(set(KNOWN) - _naming_a_kind())


def test_the_recipe_touches_a_handful_of_existing_files_that_exist():
    assert len(RECIPE) <= 6
    assert all((SRC / name).is_file() for name in RECIPE)


def test_the_patterns_find_an_import_and_a_kind():
    assert _IMPORT.match("from ralph.jira import JiraClient")
    assert _IMPORT.match("    import ralph.gitlab.fake")
    assert not _IMPORT.match("from ralph.config import linear_token")
    assert _KIND.search('if config.tracker == "gitlab":')
    assert not _KIND.search("if tracker.remote:")
    assert _own(Path("tracker/jira/_tracker.py"), "jira")
    assert _own(Path("project/_gitlab_backend.py"), "gitlab")
    assert not _own(Path("cli/_init.py"), "github")
