"""``ralph hero`` on a (fake) Jira project, pull requests merged here or on a (fake)
GitHub, killed right after Jira carried out a write and before Ralph heard back, then
run again: the run ends Done with every sub-task made once, nothing written twice.
RALPH_SWEEP_ALL=1 kills it after every write of the run, not a sample."""

from __future__ import annotations

import json
import os
import signal
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..conftest import copy_checkout, repoint_service, spawn_ralph
from ..kills import kill_after_rest
from .test_jira_shapes import GITHUB_TOKEN, TOKEN, Site, git, site

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def initialised(factory: pytest.TempPathFactory, *options: str, github: bool = False) -> Path:
    """The sample repository as a real ``ralph init --jira`` (``options``) left it, made
    once for the module: each test works in a copy. That init only reads Jira (and
    GitHub), so a fresh fake is where it leaves them."""
    with site(factory.mktemp("jira-sweep"), github=github) as made:
        made.ralph_init(*options)
        assert [r for r in made.jira.requests if r.method != "GET"] == []
        if made.github is not None:
            assert [r.name for r in made.github.requests if r.mutation] == []
            git(made.work, "remote", "remove", "origin")  # each copy gets its own clone
        return made.work


@contextmanager
def copy_of(template: Path, tmp_path: Path, *, github: bool = False) -> Iterator[Site]:
    """A copy of the sample as init left it, set up for a fresh Jira (and GitHub) the
    way ``Site.init`` does, with a ``ralph`` process less per test."""
    with site(tmp_path, github=github, repository=lambda p: copy_checkout(template, p)) as made:
        repoint_service(made.work, made.url)
        made.commit_set_up()
        yield made


@pytest.fixture(scope="module")
def set_up_once(tmp_path_factory) -> Path:
    return initialised(tmp_path_factory)


@pytest.fixture(scope="module")
def set_up_once_with_github(tmp_path_factory) -> Path:
    return initialised(tmp_path_factory, "--github", "acme/greet", github=True)


@pytest.fixture
def served(tmp_path, set_up_once) -> Iterator[Site]:
    with copy_of(set_up_once, tmp_path) as made:
        yield made


@pytest.fixture
def with_github(tmp_path, set_up_once_with_github) -> Iterator[Site]:
    with copy_of(set_up_once_with_github, tmp_path, github=True) as made:
        yield made


def env_of(served: Site) -> dict[str, str]:
    env = {"COLUMNS": "160", "RALPH_JIRA_TOKEN": TOKEN}
    if served.github is not None:
        env |= {
            "RALPH_GH_API_URL": served.github_url,
            "RALPH_GH_TOKEN": GITHUB_TOKEN,
            "RALPH_GH_MUTATION_INTERVAL": "0.01",
        }
    return env


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


#: With pull requests on GitHub (Jira's writes alone counted): a sample across the run.
SWEEP_GITHUB = (1, 10, 13, 27, 41, 50)
WRITES_GITHUB = 53


def kill_and_rerun(served: Site, nth: int) -> None:
    epic = served.epic()
    arm = kill_after_rest(served.jira, nth)
    hero = spawn_ralph("hero", str(epic), cwd=served.work, env=env_of(served))
    arm(hero.pid)
    out, err = hero.communicate(timeout=300)
    assert hero.returncode == -signal.SIGKILL, out[-3000:] + err[-3000:]

    again = served.ralph("hero", str(epic), timeout=600)
    assert again.returncode == 0, again.stdout[-4000:] + again.stderr[-2000:]
    assert_done_once(served)


@pytest.mark.parametrize("nth", range(1, WRITES + 1) if RERUN_ALL else SWEEP)
def test_a_hero_killed_just_after_a_jira_write_resumes_to_done_in_one_rerun(served, nth):
    kill_and_rerun(served, nth)


@pytest.mark.parametrize("nth", range(1, WRITES_GITHUB + 1) if RERUN_ALL else SWEEP_GITHUB)
def test_with_github_a_hero_killed_after_a_jira_write_resumes_to_done(with_github, nth):
    kill_and_rerun(with_github, nth)
    assert with_github.github is not None
    pulls = with_github.github.repository("acme/greet").pull_list
    assert {p.state for p in pulls} == {"MERGED"}
    heads = [p.headRefName for p in pulls]
    assert len(heads) == len(set(heads)), heads  # no pull request opened twice


def run_writes(served: Site) -> tuple[list[str], bool]:
    """Jira's writes of one hero run of the demo epic from the first issue made, and
    whether a step of it was tried again (a loaded machine: it writes again)."""
    epic = served.epic()
    before = len(writes(served))
    run = served.ralph("hero", str(epic), timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    done = writes(served)[before:]
    shown = served.ralph("runs", "show", "1", "--json")
    tasks = json.loads(shown.stdout)["report"]["tasks"]
    again = any(task["attempts"] > 1 for task in tasks)
    return done[done.index("POST /rest/api/3/issue") :], again


def assert_sweeps(done: list[str], again: bool, writes: int, sweep: tuple[int, ...]) -> None:
    """The sweep's kills land inside the run's writes: a run of ``writes`` writes, or
    more where a step was tried again."""
    if again:
        assert len(done) >= writes, "\n".join(done)
    else:
        assert len(done) == writes, "\n".join(done)
    assert max(sweep) <= writes


def test_the_sweep_samples_the_whole_run(served):
    assert_sweeps(*run_writes(served), WRITES, SWEEP)


def test_the_sweep_with_github_samples_the_whole_run(with_github):
    assert_sweeps(*run_writes(with_github), WRITES_GITHUB, SWEEP_GITHUB)
