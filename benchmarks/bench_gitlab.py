"""The GitLab tracker at GitLab.com's documented budgets: the demo epic through ``ralph
hero`` (GitLab alone, issues and merge requests; then GitLab issues with local pull
requests) and ``ralph status`` on a project of 2,000 issues, as real ``ralph`` processes
against FakeGitLab served on 127.0.0.1, counted by operation, reads and writes apart.
Prints counts from one run; not a test.

GitLab.com allows 2,000 authenticated API requests a minute per user; GitLab's
defaults cap issue creation at 300 a minute (per project and user) and note creation
at 300 a minute. The figures are requests beside GitHub's 91 and Linear's per demo
epic, and each run's busiest minute beside those budgets.

    make bench-gitlab    # or: .venv/bin/python benchmarks/bench_gitlab.py
"""

from __future__ import annotations

import collections
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.integration.conftest import ralph_process
from tests.published import use_published_definitions

from benchmarks._quick import pick
from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.gitlab import GitLabClient
from ralph.gitlab.fake import FakeGitLab, Request
from ralph.gitlab.fake._state import Issue
from ralph.tracker.gitlab import GitLabTracker
from ralph.workflow import WorkflowState

TOKEN = "glpat-bench-token"
PROJECT = "acme/app"
#: GitLab.com's budgets a minute: every API request; issues made; notes made.
API_PER_MINUTE, ISSUES_PER_MINUTE, NOTES_PER_MINUTE = 2000, 300, 300
#: ``ralph status``'s project: 300 open issues, the rest closed.
STATUS_ISSUES = pick(2000, 120)
STATUS_OPEN = pick(300, 30)


def ralph(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = ralph_process(*args, cwd=cwd, env={"RALPH_GITLAB_TOKEN": TOKEN, **env}, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"ralph {args[0]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done


def operation(request: Request) -> str:
    """``METHOD path`` with the project and numbers as placeholders."""
    path = request.path.replace("acme%2Fapp", "{project}")
    numbered = re.sub(r"/\d+(?=/|$)", "/{n}", path)
    return f"{request.method} {numbered}"


def is_write(request: Request) -> bool:
    return request.method != "GET"


def busiest_minute(requests: Sequence[Request], which: str = "") -> int:
    """The most requests (whose operation matches ``which``) in any 60 s."""
    times = [r.at for r in requests if not which or re.fullmatch(which, operation(r))]
    most, start = 0, 0
    for end, at in enumerate(times):
        while at - times[start] >= 60:
            start += 1
        most = max(most, end - start + 1)
    return most


def demo_epic(local_pulls: bool) -> None:
    """The sample epic from Backlog to merged code with scripted agents."""
    fake = FakeGitLab()
    fake.add_token(TOKEN, "ada")
    env = {"RALPH_CODE_HOST": "local"} if local_pulls else {}
    with tempfile.TemporaryDirectory() as folder:
        work = create_sample_repository(Path(folder) / "work")
        # With GitLab's merge requests, they merge in this clone as on GitLab's side.
        fake.add_project(PROJECT, repository=None if local_pulls else work)
        with fake.serve() as url:
            tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
            init = ("init", "--gitlab", PROJECT, "--gitlab-url", url, "--test-command", tests)
            ralph(*init, cwd=work, env=env)
            subprocess.run(["git", "add", "-A"], cwd=work, check=True)
            subprocess.run(
                ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up"],
                cwd=work,
                check=True,
            )
            tracker = GitLabTracker(GitLabClient(fake, TOKEN), PROJECT)
            epic = tracker.create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG)
            hero_from = len(fake.requests)
            started = time.monotonic()
            ralph("hero", str(epic.number), "--agent", "scripted", cwd=work, env=env)
            seconds = time.monotonic() - started
    made = fake.requests
    hero = made[hero_from:]
    issues = list(fake.state.project(PROJECT).issues.values())  # type: ignore[union-attr]
    where = "local pull requests" if local_pulls else "merge requests on GitLab"
    print(f"The demo epic (ralph init --gitlab, the epic, ralph hero), {where}")
    rows = {
        "requests (init, epic, hero)": len(made),
        "requests (hero alone)": len(hero),
        "  reads (GET)": sum(not is_write(r) for r in hero),
        "  writes": sum(is_write(r) for r in hero),
        "rate-limited answers": sum(r.status == 429 for r in made),
        "refused by the published document": len(fake.refused),
        f"busiest minute, every request (of {API_PER_MINUTE})": busiest_minute(made),
        f"busiest minute, issues made (of {ISSUES_PER_MINUTE})": busiest_minute(
            made, r"POST /api/v4/projects/\{project\}/issues"
        ),
        f"busiest minute, notes made (of {NOTES_PER_MINUTE})": busiest_minute(
            made, r"POST .*/notes|POST .*/discussions(/.*)?"
        ),
        "issues made (the epic and its children)": len(issues),
        "issues Done": sum("ralph::Done" in i.labels and i.state == "closed" for i in issues),
    }
    for name, value in rows.items():
        print(f"  {name:50} {value:7}")
    print(f"  {'hero wall time (s)':50} {seconds:7.1f}")
    print("  hero by operation:")
    for name, count in collections.Counter(operation(r) for r in hero).most_common():
        print(f"    {name:64} {count:5}")


def status_project() -> None:
    """``ralph status`` on a project of 2,000 issues, 300 open: requests."""
    fake = FakeGitLab()
    fake.add_token(TOKEN, "ada")
    project = fake.add_project(PROJECT)
    ada = fake.state.tokens[TOKEN]
    now = time.time()
    for iid in range(1, STATUS_ISSUES + 1):  # seeded as stored: no request spent on them
        issue = Issue(fake.state.new_id(), iid, project, f"Issue {iid}", "", ada, now, now)
        if iid > STATUS_OPEN:
            issue.state, issue.closed_at = "closed", now
        project.issues[iid] = issue
    project.next_iid = STATUS_ISSUES + 1
    with tempfile.TemporaryDirectory() as folder, fake.serve() as url:
        work = create_sample_repository(Path(folder) / "work")
        ralph("init", "--gitlab", PROJECT, "--gitlab-url", url, cwd=work, env={})
        before = len(fake.requests)
        started = time.monotonic()
        ralph("status", cwd=work, env={})
        seconds = time.monotonic() - started
    used = fake.requests[before:]
    print(f"\nralph status on a project of {STATUS_ISSUES} issues ({STATUS_OPEN} open)")
    print(f"  {'wall time (s)':50} {seconds:7.2f}")
    print(f"  {'requests':50} {len(used):7}")
    counted = collections.Counter(operation(r) for r in used)
    print("  by operation: " + ", ".join(f"{n} {c}" for n, c in counted.most_common()))


if __name__ == "__main__":
    use_published_definitions()  # the fakes' definitions, beside the repository
    demo_epic(local_pulls=False)
    print()
    demo_epic(local_pulls=True)
    status_project()
