"""The GitHub Actions workflows ``ralph init --github --actions`` writes: what people do
on GitHub (close or reopen an issue, merge a pull request) run through ``ralph sync``
on GitHub's runners, as the original's sync-issue-state and sync-pr-merge Actions did.

They need one secret, ``RALPH_GH_TOKEN`` (a token that reaches the board: the
``GITHUB_TOKEN`` Actions gives cannot read a Projects V2 board); ``RALPH_GH_PROJECT_TOKEN``
for split tokens and ``RALPH_STORE_URL`` for a shared PostgreSQL store are optional.
They install the release of Ralph that wrote them; the repository variable
``RALPH_PACKAGE`` installs another (a pip requirement: a version, a git URL, a wheel).
A workflow file that exists is never rewritten.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ralph._distribution import DISTRIBUTION, installed_version

__all__ = [
    "ACTIONS_SECRETS",
    "WORKFLOWS",
    "WrittenWorkflow",
    "default_package",
    "write_workflows",
]

#: Secret -> what it holds; the first is required.
ACTIONS_SECRETS: dict[str, str] = {
    "RALPH_GH_TOKEN": "a token with the repo and project scopes (classic) or Issues, "
    "Pull requests and Projects read and write (fine-grained, organisation boards)",
    "RALPH_GH_PROJECT_TOKEN": "optional: the board's own token, with split tokens",
    "RALPH_STORE_URL": "optional: the PostgreSQL store ralph serve uses, so a sync and a "
    "running service share issue locks",
}

_FOLDER = Path(".github") / "workflows"

#: The extra a sync needs: the shared store may be PostgreSQL; it runs no agent.
_EXTRA = "postgres"

_HEADER = """\
# Written by `ralph init --github --actions` (ralph {version}). {purpose}
# Secrets (Settings > Secrets and variables > Actions):
{secrets}
# Variables (same page): RALPH_PACKAGE, the pip requirement that installs Ralph
#   (default {package}; e.g. "{distribution}[{extra}] @ git+https://github.com/OWNER/REPO@TAG").
"""

_SETUP = """\
    runs-on: ubuntu-latest
    timeout-minutes: 15
    steps:
      - uses: actions/checkout@v4
        with:
          ref: {ref}
          fetch-depth: 0
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install Ralph
        env:
          RALPH_PACKAGE: ${{{{ vars.RALPH_PACKAGE || '{package}' }}}}
        run: python -m pip install "$RALPH_PACKAGE"
"""

_ENV = """\
        env:
          RALPH_GH_TOKEN: ${{ secrets.RALPH_GH_TOKEN }}
          RALPH_GH_PROJECT_TOKEN: ${{ secrets.RALPH_GH_PROJECT_TOKEN }}
          RALPH_STORE_URL: ${{ secrets.RALPH_STORE_URL }}
"""

_ISSUE = """\
name: Ralph sync issue
on:
  issues:
    types: [closed, reopened]
  workflow_dispatch:
    inputs:
      issue:
        description: The issue's number
        required: true
        type: number
permissions:
  contents: read
concurrency:
  group: ralph-sync-issue-${{{{ github.event.issue.number || inputs.issue }}}}
  cancel-in-progress: false
jobs:
  sync:
{setup}\
      - name: Sync the issue's Workflow State
{env}\
          ISSUE: ${{{{ github.event.issue.number || inputs.issue }}}}
        run: |
          ralph db migrate
          ralph sync issue "$ISSUE"
"""

_PULL_REQUEST = """\
name: Ralph sync pull request
on:
  pull_request:
    types: [closed]
  workflow_dispatch:
    inputs:
      pull_request:
        description: The pull request's number
        required: true
        type: number
permissions:
  contents: read
concurrency:
  group: ralph-sync-pr-${{{{ github.event.pull_request.number || inputs.pull_request }}}}
  cancel-in-progress: false
jobs:
  sync:
    if: github.event_name == 'workflow_dispatch' || github.event.pull_request.merged == true
{setup}\
      - name: Finish the merge (issues Done, parent advanced)
{env}\
          PULL_REQUEST: ${{{{ github.event.pull_request.number || inputs.pull_request }}}}
        run: |
          ralph db migrate
          ralph sync pr "$PULL_REQUEST"
"""

_BASE = "${{ github.event.repository.default_branch }}"


@dataclass(frozen=True)
class _Workflow:
    name: str
    purpose: str
    template: str


#: The workflows, by file name.
WORKFLOWS = (
    _Workflow(
        "ralph-sync-issue.yml",
        "An issue closed on GitHub\n# moves to Done (completed) or Canceled, one reopened to "
        "Backlog: ralph sync issue.",
        _ISSUE,
    ),
    _Workflow(
        "ralph-sync-pr.yml",
        "A pull request a person merged\n# on GitHub is finished as Ralph's merge phase "
        "does: ralph sync pr.",
        _PULL_REQUEST,
    ),
)


@dataclass(frozen=True)
class WrittenWorkflow:
    path: Path
    #: False when a file was there already (left as it is).
    written: bool


def default_package(version: str) -> str:
    """The pip requirement the workflows install unless RALPH_PACKAGE says otherwise."""
    return f"{DISTRIBUTION}[{_EXTRA}]=={version}"


def _text(workflow: _Workflow, version: str) -> str:
    secrets = "\n".join(f"#   {name}: {what}" for name, what in ACTIONS_SECRETS.items())
    package = default_package(version)
    header = _HEADER.format(
        version=version,
        purpose=workflow.purpose,
        secrets=secrets,
        package=package,
        distribution=DISTRIBUTION,
        extra=_EXTRA,
    )
    setup = _SETUP.format(ref=_BASE, package=package)
    return header + workflow.template.format(setup=setup, env=_ENV)


def write_workflows(root: Path) -> list[WrittenWorkflow]:
    """Write the workflows under ``root/.github/workflows``, each unless it exists."""
    folder = root / _FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    release = installed_version()
    for workflow in WORKFLOWS:
        path = folder / workflow.name
        if path.exists():
            written.append(WrittenWorkflow(path, False))
            continue
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(_text(workflow, release), encoding="utf-8")
        os.replace(temporary, path)
        written.append(WrittenWorkflow(path, True))
    return written
