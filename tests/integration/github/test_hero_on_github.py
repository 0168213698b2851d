"""``ralph hero`` carries the sample epic to merged code on a (fake) GitHub board: the
same run as ``ralph demo``, with issues, fields, sub-issues and pull requests on GitHub
and the pull requests merged on GitHub's side (a bare repository, the remote)."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE
from ralph.workflow import WorkflowState

from .conftest import git, ralph_on_the_board, tracker_of

pytestmark = pytest.mark.slow


def test_hero_takes_the_epic_from_backlog_to_merged_on_github(shop):
    work, origin, served = shop
    env = ralph_on_the_board(work, served)
    epic = tracker_of(served.fake).create_issue(
        EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG
    )

    run = served.ralph("hero", str(epic.number), cwd=work, env=env, timeout=600)

    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    tracker = tracker_of(served.fake)
    root = tracker.get_issue(epic.number)
    assert len(root.sub_issues) == 3
    family = [root, *(tracker.get_issue(n) for n in root.sub_issues)]
    assert {i.workflow_state for i in family} == {WorkflowState.DONE}
    assert all(not i.is_open for i in family)  # the epic closes with its last child
    board = served.fake.world.accounts["acme"].projects[0]
    status = next(f for f in board.field_list if f.name == "Status")
    done = next(o["id"] for o in status.option_list if o["name"] == "Done")
    assert all(item.values.get(status.id) == done for item in board.item_list)
    pulls = served.fake.repository("acme/greet").pull_list
    assert pulls
    assert {p.state for p in pulls} == {"MERGED"}
    assert "def farewell" in git(origin, "show", "main:greet/core.py")
    assert git(work, "rev-parse", "main") == git(origin, "rev-parse", "main")
    assert not [r for r in served.fake.requests if r.status not in (200,)]
    # Pull requests are found by their branch or by the issue's links, never by
    # reading every pull request of the repository.
    assert not [r for r in served.fake.requests if r.name == "PullRequests"]
    # As the original: artifact comments link the document on GitHub, not a bare path
    # (on the host of the API URL, as on GitHub Enterprise Server).
    web = "{0.scheme}://{0.netloc}".format(urlsplit(served.url))
    research = [
        c.body
        for c in tracker.get_issue(root.sub_issues[0]).comments
        if c.body.startswith("## Research Document")
    ]
    assert research
    assert f"{web}/acme/greet/blob/main/thoughts/shared/research/" in research[0]
