"""``ralph hero`` on a (fake) GitLab project, merge requests there too, killed right
after GitLab carried out a write and before Ralph heard back, then run again: the run
ends Done with every sub-issue, note and link made once. RALPH_SWEEP_ALL=1 kills it
after every write of the run, not a sample."""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from ralph.gitlab import GitLabClient
from ralph.gitlab.fake import FakeGitLab
from ralph.tracker.gitlab import set_up_project

from ..conftest import copy_checkout, repoint_service
from ..kills import kill_after_rest
from ._site import PROJECT, TOKEN, Site, site

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

#: The first write counted: a sub-issue made.
FIRST = r"POST /api/v4/projects/[^/]+/issues"


@pytest.fixture(scope="module")
def set_up_once(tmp_path_factory) -> tuple[Path, list[tuple[str, ...]]]:
    """The sample repository as a real ``ralph init --gitlab`` left it, made once for the
    module (each test works in a copy), and the labels that init made on GitLab."""
    with site(tmp_path_factory.mktemp("gitlab-sweep")) as made:
        made.ralph_init()
        return made.work, labels_of(made.gitlab)


def labels_of(gitlab: FakeGitLab) -> list[tuple[str, ...]]:
    project = gitlab.state.project(PROJECT)
    assert project is not None
    return sorted((x.name, x.color, str(x.description)) for x in project.labels.values())


@pytest.fixture
def served(tmp_path, set_up_once) -> Iterator[Site]:
    """A copy of the sample repository as init left it, on a fresh GitLab given Ralph's
    labels by the code ``ralph init`` runs, here in this process (a process less per
    test); then committed, as ``Site.init`` does."""
    template, labels = set_up_once
    with site(tmp_path, repository=lambda path: copy_checkout(template, path)) as made:
        set_up_project(GitLabClient(made.gitlab, TOKEN), PROJECT)
        assert labels_of(made.gitlab) == labels
        repoint_service(made.work, made.url)
        made.commit_set_up()
        yield made


def writes(served: Site) -> list[str]:
    """The writes GitLab carried out, in order: "METHOD path"."""
    return [
        f"{r.method} {r.path}"
        for r in served.gitlab.requests
        if r.method != "GET" and r.status < 300
    ]


def assert_done_once(served: Site) -> None:
    served.assert_epic_done()  # four issues: no sub-issue made twice
    for issue in served.issues():
        bodies = Counter(n.body for n in issue.notes if not n.system)
        assert [b[:80] for b, n in bodies.items() if n > 1] == [], issue.iid
    links = Counter(
        frozenset((link.source.iid, link.target.iid)) for link in served.gitlab.state.links
    )
    assert [k for k, n in links.items() if n > 1] == []
    project = served.gitlab.state.project("acme/app")
    assert project is not None
    merge_requests = project.extra["merge_requests"].items.values()
    assert [mr.state for mr in merge_requests] == ["merged"]  # the group's one, made once


#: Where the demo epic's run stands after its Nth write from the first sub-issue made
#: (78 in all; a move is a PUT of the issue's labels, most carry a note): a sub-issue
#: made, moved and noted (1-9), linked (10-11), the split reported and the epic moved
#: (12-13); research and plans moved and reported (14-55); the merge request opened
#: (56), the members moved (57-65), merged (66), the members Done (67-72), the epic
#: Done and the merged notes (73-78). A sample keeps the sweep to minutes.
WRITES = 78
SWEEP = (1, 2, 3, 10, 12, 13, 20, 33, 45, 56, 57, 66, 67, 73, 78)
RERUN_ALL = os.environ.get("RALPH_SWEEP_ALL") == "1"


@pytest.mark.parametrize("nth", range(1, WRITES + 1) if RERUN_ALL else SWEEP)
def test_a_hero_killed_just_after_a_gitlab_write_resumes_to_done_in_one_rerun(served, nth):
    epic = served.epic()
    arm = kill_after_rest(served.gitlab, nth, first=FIRST)
    hero = served.spawn("hero", str(epic))
    arm(hero.pid)
    out, err = hero.communicate(timeout=300)
    assert hero.returncode == -signal.SIGKILL, out[-3000:] + err[-3000:]

    again = served.ralph("hero", str(epic), timeout=600)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-2000:]
    assert_done_once(served)


def test_the_sweep_samples_the_whole_run(served):
    epic = served.epic()
    before = len(writes(served))
    run = served.ralph("hero", str(epic), timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    run_writes = writes(served)[before:]
    first = next(i for i, w in enumerate(run_writes) if w.endswith("/issues"))
    done = run_writes[first:]
    assert len(done) == WRITES, "\n".join(done)
    assert done[55].endswith("/merge_requests"), done[50:]  # the sweep's 56 and 66
    assert done[65].endswith("/merge"), done[50:]
    assert max(SWEEP) <= WRITES
