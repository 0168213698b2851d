"""The Jira tracker: the demo epic through ``ralph hero`` and ``ralph status`` on a
project of 2,000 issues, as real ``ralph`` processes against FakeJira served on
127.0.0.1, counted by operation. Prints counts from one run; not a test.

Jira Cloud publishes no fixed request budget for API tokens (a burst limit per
endpoint answered 429 with Retry-After, which the client waits out), so the figures
are requests, beside GitHub's 91 and Linear's per demo epic.

    make bench-jira    # or: .venv/bin/python benchmarks/bench_jira.py
"""

from __future__ import annotations

import collections
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.integration.conftest import ralph_process
from tests.published import use_published_definitions

from benchmarks._quick import pick
from ralph.demo._sample import EPIC_BODY, EPIC_TITLE, create_sample_repository
from ralph.jira import JiraClient
from ralph.jira.fake import FakeJira, ralph_statuses
from ralph.tracker.jira import JiraTracker
from ralph.workflow import WorkflowState

EMAIL, TOKEN = "ada@example.com", "jira-bench-token"
#: ``ralph status``'s project: 300 open issues, the rest closed.
STATUS_ISSUES = pick(2000, 120)
STATUS_OPEN = pick(300, 30)


def ralph(
    url: str, *args: str, cwd: Path, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    done = ralph_process(*args, cwd=cwd, env={"RALPH_JIRA_TOKEN": TOKEN}, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"ralph {args[0]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return done


def fake_jira() -> FakeJira:
    fake = FakeJira()
    fake.add_account(EMAIL, TOKEN, "Ada Lovelace")
    fake.add_project("PROJ", "Project", ralph_statuses())
    return fake


def _by_operation(fake: FakeJira, start: int = 0) -> list[tuple[str, int]]:
    names = collections.Counter(
        f"{r.method} {'/'.join('{key}' if '-' in p else p for p in r.path.split('/'))}"
        for r in fake.requests[start:]
    )
    return names.most_common()


def demo_epic() -> None:
    """The sample epic from Backlog to merged code with scripted agents."""
    fake = fake_jira()
    with tempfile.TemporaryDirectory() as folder, fake.serve() as url:
        work = create_sample_repository(Path(folder) / "work")
        tests = shlex.join([sys.executable, "-m", "unittest", "-q"])
        init = ("init", "--jira", "PROJ", "--jira-url", url, "--jira-email", EMAIL)
        ralph(url, *init, "--test-command", tests, cwd=work)
        subprocess.run(["git", "add", "-A"], cwd=work, check=True)
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Set up"],
            cwd=work,
            check=True,
        )
        tracker = JiraTracker(JiraClient(fake), "PROJ")
        epic = tracker.create_issue(EPIC_TITLE, body=EPIC_BODY, state=WorkflowState.BACKLOG)
        hero_from = len(fake.requests)
        started = time.monotonic()
        ralph(url, "hero", str(epic.number), "--agent", "scripted", cwd=work)
        seconds = time.monotonic() - started
    made = fake.requests
    issues = list(fake.site.issues.values())
    print("The demo epic (ralph init --jira, the epic, ralph hero) on FakeJira")
    rows = {
        "requests (init, epic, hero)": len(made),
        "requests (hero alone)": len(made) - hero_from,
        "writes": sum(r.method != "GET" and not r.path.endswith("/search/jql") for r in made),
        "rate-limited answers": sum(r.status == 429 for r in made),
        "issues made (the epic and its children)": len(issues),
        "issues Done": sum(i.status.name == "Done" for i in issues),
    }
    for name, value in rows.items():
        print(f"  {name:42} {value:7}")
    print(f"  {'hero wall time (s)':42} {seconds:7.1f}")
    print("  by operation:")
    for name, count in _by_operation(fake):
        print(f"    {name:48} {count:5}")


def status_project() -> None:
    """``ralph status`` on a project of 2,000 issues, 300 open: requests."""
    fake = fake_jira()
    client = JiraClient(fake)
    task = {"project": {"key": "PROJ"}, "issuetype": {"name": "Task"}}
    done = fake.site.projects["PROJ"].status("Done")
    assert done is not None
    for i in range(STATUS_ISSUES):
        made = client.post("/issue", {"fields": {**task, "summary": f"Issue {i}"}})
        if i >= STATUS_OPEN:
            client.post(f"/issue/{made['key']}/transitions", {"transition": {"id": done.id}})
    with tempfile.TemporaryDirectory() as folder, fake.serve() as url:
        work = create_sample_repository(Path(folder) / "work")
        ralph(url, "init", "--jira", "PROJ", "--jira-url", url, "--jira-email", EMAIL, cwd=work)
        before = len(fake.requests)
        started = time.monotonic()
        ralph(url, "status", cwd=work)
        seconds = time.monotonic() - started
    print(f"\nralph status on a project of {STATUS_ISSUES} issues ({STATUS_OPEN} open)")
    print(f"  {'wall time (s)':42} {seconds:7.2f}")
    print(f"  {'requests':42} {len(fake.requests) - before:7}")
    print("  by operation: " + ", ".join(f"{n} {c}" for n, c in _by_operation(fake, before)))


if __name__ == "__main__":
    use_published_definitions()  # the fakes' definitions, beside the repository
    demo_epic()
    status_project()
