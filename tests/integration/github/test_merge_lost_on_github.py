"""Nothing Done that is not merged, on a (fake) GitHub over HTTP with ``ralph hero`` as a
process: a person force-pushes main back over Ralph's merge; the next ``ralph hero`` on
the issue finds the merge missing from GitHub's main, sends the issue back to In Review
and merges the same branch again in a new pull request."""

from __future__ import annotations

import pytest

from ralph.workflow import WorkflowState

from .conftest import git
from .test_pull_request_loop_on_github import REPO, hero, on_github, state

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_a_merge_a_force_push_undid_is_merged_again_by_the_next_hero(shop):
    work, origin, served, env, number = on_github(shop, "checks")
    first = hero(served, work, env, number)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert state(served, number) is WorkflowState.DONE
    (merged,) = served.fake.repository(REPO).pull_list
    assert "def farewell" in git(origin, "show", "main:greet/core.py")

    # The person rewinds main to before the merge, in their checkout and on GitHub.
    git(work, "fetch", "-q", "origin")
    git(work, "reset", "-q", "--hard", f"{merged.merge_oid}^1")
    git(work, "push", "-q", "--force", "origin", "main")
    assert "def farewell" not in git(origin, "show", "main:greet/core.py")

    again = hero(served, work, env, number)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert state(served, number) is WorkflowState.DONE
    pulls = served.fake.repository(REPO).pull_list
    assert [p.state for p in pulls] == ["MERGED", "MERGED"]
    assert pulls[1].headRefName == merged.headRefName
    assert "def farewell" in git(origin, "show", "main:greet/core.py")
