"""``ralph hero`` on a (fake) Jira project, killed right after Jira carried out a write
and before Ralph heard back, then run again: the run ends Done with every sub-task
made once, nothing written twice. RALPH_SWEEP_ALL=1 kills it after every write of the
run, not a sample."""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Iterator

import pytest

from ..conftest import spawn_ralph
from ..kills import kill_after_rest
from .test_jira_shapes import TOKEN, Site, site

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture
def served(tmp_path) -> Iterator[Site]:
    with site(tmp_path) as made:
        made.init()
        yield made


def env_of(served: Site) -> dict[str, str]:
    return {"COLUMNS": "160", "RALPH_JIRA_TOKEN": TOKEN}


def writes(served: Site) -> list[str]:
    """The writes Jira carried out, in order: "METHOD path"."""
    return [
        f"{r.method} {r.path}"
        for r in served.jira.requests
        if r.method != "GET" and not r.path.endswith("/search/jql") and r.status < 300
    ]


def assert_done_once(served: Site) -> None:
    served.assert_epic_done()  # four issues: no sub-task made twice
    for issue in served.jira.site.issues.values():
        bodies = Counter(str(c.body) for c in issue.comments)
        assert [b for b, n in bodies.items() if n > 1] == [], issue.key
    links = Counter((link.inward, link.outward) for link in served.jira.site.links.values())
    assert [k for k, n in links.items() if n > 1] == []


#: Where the demo epic's run stands after its Nth write from the first issue made (53 in
#: all; each move is a transition): a sub-task made and moved (1-9), linked (10-11), the
#: split reported on the epic (12-13); research and plans moved and reported (14-34);
#: the pull requests merged, their notes written and the issues moved (35-49); the epic
#: Done and the merged notes (50-53). A sample keeps the sweep to minutes.
SWEEP = (1, 2, 4, 10, 12, 13, 17, 22, 27, 34, 41, 47, 50, 53)
RERUN_ALL = os.environ.get("RALPH_SWEEP_ALL") == "1"
WRITES = 53


@pytest.mark.parametrize("nth", range(1, WRITES + 1) if RERUN_ALL else SWEEP)
def test_a_hero_killed_just_after_a_jira_write_resumes_to_done_in_one_rerun(served, nth):
    epic = served.epic()
    arm = kill_after_rest(served.jira, nth)
    hero = spawn_ralph("hero", str(epic), cwd=served.work, env=env_of(served))
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
    done = run_writes[run_writes.index("POST /rest/api/3/issue") :]
    assert len(done) == WRITES, "\n".join(done)
    assert max(SWEEP) <= WRITES
