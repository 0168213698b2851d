"""GitLab as a project's code host: its merge requests opened for a ``with`` block
beside any tracker (sharing the GitLab tracker's client when the issues are GitLab's
too), and what ``ralph doctor`` checks of it beside another tracker. GitLab's
``Backend`` record (``project/_gitlab_backend.py``) names these two."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ralph.config import Config, GitLabSettings, gitlab_token
from ralph.db import Database
from ralph.errors import RalphError
from ralph.git import GitRepo
from ralph.tracker import Tracker

if TYPE_CHECKING:
    from ralph.gitlab import GitLabClient
    from ralph.tracker import Check, CodeHost

__all__ = ["gitlab_code_host_checks", "open_gitlab_code_host"]


def _client(settings: GitLabSettings) -> GitLabClient:
    from ralph.gitlab import GitLabClient, https_transport

    return GitLabClient(https_transport(settings.base_url), gitlab_token(os.environ))


@contextmanager
def open_gitlab_code_host(
    config: Config, db: Database, git: GitRepo, tracker: Tracker
) -> Iterator[CodeHost]:
    from ralph.tracker.gitlab import GitLabCodeHost, GitLabTracker

    if isinstance(tracker, GitLabTracker):  # one client for issues and merge requests
        yield GitLabCodeHost.of(tracker)
        return
    settings = config.settings_of(GitLabSettings)
    client = _client(settings)
    try:
        yield GitLabCodeHost(client, project=settings.project, tracker=tracker)
    finally:
        client.close()


def gitlab_code_host_checks(config: Config) -> list[Check]:
    """The token and the project, and whether GitLab would close issues of its own: a
    ``Closes #12`` written for another tracker's issue closes GitLab's #12 too, unless
    the project has no issues or closes none automatically."""
    from ralph.tracker import Check  # where GitHub's doctor lines are: loaded only here

    settings = config.settings_of(GitLabSettings)
    try:
        client = _client(settings)
    except RalphError as exc:
        return [Check("GitLab", False, str(exc))]
    from ralph.gitlab import project_id

    try:
        project = client.request("GET", f"/projects/{project_id(settings.project)}")
    except RalphError as exc:
        return [Check("GitLab", False, str(exc))]
    finally:
        client.close()
    found = [Check("GitLab", True, f"merge requests of {project['path_with_namespace']}")]
    if project.get("issues_enabled") and project.get("autoclose_referenced_issues", True):
        found.append(
            Check(
                "GitLab issues",
                True,
                f"{settings.project} has issues of its own and closes those a merge request "
                "names (Closes #12): turn off 'Auto-close referenced issues on default "
                "branch' (Settings > Repository) so Ralph's closing lines close only the "
                "tracker's issues",
                warning=True,
            )
        )
    return found
