"""The published API definitions Ralph does not ship (GitHub's and Linear's schemas,
GitLab's OpenAPI document), provided beside the repository in ``../shared``: the fakes
read them from the variables named here, which the tests and the benchmarks set."""

from __future__ import annotations

import os
from pathlib import Path

SHARED = (Path(__file__).resolve().parents[1] / ".." / "shared").resolve()

#: Each fake's variable and the copy it is given.
DEFINITIONS = {
    "RALPH_GITHUB_SCHEMA": SHARED / "github-schema" / "schema.graphql",
    "RALPH_LINEAR_SCHEMA": SHARED / "api-definitions" / "linear-schema.graphql",
    "RALPH_JIRA_OPENAPI": SHARED / "api-definitions" / "jira-platform-openapi.json",
    "RALPH_GITLAB_OPENAPI": SHARED / "api-definitions" / "gitlab-openapi.yaml",
}


def use_published_definitions() -> None:
    """Point the fakes of this process, and of the processes it starts, at ``SHARED``
    (a variable already set wins: someone chose another copy)."""
    for name, path in DEFINITIONS.items():
        os.environ.setdefault(name, str(path))
