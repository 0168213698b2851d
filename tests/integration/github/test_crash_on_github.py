"""``ralph hero`` on a (fake) GitHub board, killed right after GitHub created something
and before Ralph heard back, then run again: the run ends Done with every sub-issue on
the board, nothing created twice, and no rerun says "finished" with work left."""

from __future__ import annotations

import signal
from collections import Counter

import pytest

from ralph.demo._sample import EPIC_BODY, EPIC_TITLE
from ralph.github.fake import FakeGitHub
from ralph.workflow import WorkflowState

from ..conftest import spawn_ralph
from ..kills import kill_after
from .conftest import ralph_on_the_board, tracker_of

pytestmark = pytest.mark.slow


def assert_done_once(fake: FakeGitHub, epic: int) -> None:
    tracker = tracker_of(fake)
    root = tracker.get_issue(epic)
    assert len(root.sub_issues) == 3
    assert len(fake.repository("acme/greet").issue_list) == 4  # no sub-issue twice
    family = [root, *(tracker.get_issue(n) for n in root.sub_issues)]
    assert {i.workflow_state.value for i in family if i.workflow_state} == {"Done"}
    assert all(i.workflow_state is not None for i in family)  # all on the board
    for issue in family:
        repeated = [b for b, n in Counter(c.body for c in issue.comments).items() if n > 1]
        assert repeated == [], issue.number
    pulls = fake.repository("acme/greet").pull_list
    assert [p.state for p in pulls] == ["MERGED"]


#: The mutations of the split's sub-issues: made (together); added to the board
#: (together); placed (their Workflow State and Estimate, with the move's audit).
CREATED, ON_THE_BOARD, PLACED = 1, 2, 3


@pytest.mark.parametrize(
    "nth", [CREATED, ON_THE_BOARD, PLACED], ids=["created", "on the board", "placed"]
)
def test_a_hero_killed_just_after_a_sub_issue_is_made_resumes_to_done_in_one_rerun(shop, nth):
    work, _, served = shop
    env = ralph_on_the_board(work, served)
    tracker = tracker_of(served.fake)
    epic = tracker.create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG).number
    arm = kill_after(served.fake, nth)
    hero = spawn_ralph("hero", str(epic), cwd=work, env=env)
    arm(hero.pid)
    out, err = hero.communicate(timeout=300)
    assert hero.returncode == -signal.SIGKILL, out + err

    again = served.ralph("hero", str(epic), cwd=work, env=env, timeout=600)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-2000:]
    assert_done_once(served.fake, epic)
