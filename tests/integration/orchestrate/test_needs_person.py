"""What only a person can clear stops a run at once: the person's checkout of main with
uncommitted changes (or a conflict) in the way, an ``origin`` that cannot be reached.
Nothing is retried or escalated, the issue stays where it was, and the same command
goes on once the person has acted."""

from __future__ import annotations

import subprocess
import time

from ralph.orchestrate import Ending
from ralph.workflow import WorkflowState

from .conftest import Demo

#: Far below the three attempts and their backoffs (about 90 s) a retried refusal took.
PROMPTLY_SECONDS = 30.0


def _git(demo: Demo, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=demo.folder, capture_output=True, text=True, check=False
    )
    return done.stdout


def test_a_dirty_main_checkout_stops_the_merge_at_once_and_the_rerun_finishes(demo: Demo):
    number = demo.issue("farewell")
    core = demo.folder / "greet" / "core.py"
    core.write_text(core.read_text() + "# the person's edit, not committed\n")
    started = time.monotonic()
    result = demo.hero(number)
    assert time.monotonic() - started < PROMPTLY_SECONDS
    assert result.ending is Ending.AGENT_UNUSABLE
    assert result.detail.startswith(
        f"main is checked out in {demo.folder} with uncommitted changes Ralph's next commit "
        "would overwrite (in greet/core.py): commit or stash them, or keep your checkout on "
        "another branch"
    )
    statuses = demo.statuses(result)
    assert statuses[f"merge:{number}"] == "pending"
    assert result.run is not None
    merge = next(
        t for t in demo.project.store.list_tasks(result.run.id) if t.key == f"merge:{number}"
    )
    assert merge.attempts <= 1  # tried once, handed back: nothing spent on retries
    assert demo.state(number) is WorkflowState.IN_REVIEW
    comments = demo.project.tracker.get_issue(number).comments
    assert not [c for c in comments if "Escalation" in c.body]
    assert "# the person's edit" in core.read_text()
    _git(demo, "stash")
    again = demo.hero(number)
    assert again.ending is Ending.FINISHED
    assert demo.state(number) is WorkflowState.DONE


def test_a_conflicted_main_checkout_stops_the_first_document_commit(demo: Demo):
    number = demo.issue("farewell")
    core = demo.folder / "greet" / "core.py"
    _git(demo, "switch", "-q", "-c", "theirs")
    core.write_text(core.read_text() + "theirs = 1\n")
    _git(demo, "commit", "-q", "-am", "theirs")
    _git(demo, "switch", "-q", "main")
    core.write_text(core.read_text() + "ours = 1\n")
    _git(demo, "commit", "-q", "-am", "ours")
    _git(demo, "merge", "-q", "theirs")
    assert "greet/core.py" in _git(demo, "diff", "--name-only", "--diff-filter=U")
    result = demo.hero(number)
    assert result.ending is Ending.AGENT_UNUSABLE
    assert result.detail.startswith(
        f"main is checked out in {demo.folder} with an unresolved merge conflict: resolve "
        "and commit it (or abort it)"
    )
    assert demo.state(number) is WorkflowState.RESEARCH_NEEDED
    assert demo.statuses(result)[f"research:{number}"] == "pending"


def test_an_unreachable_origin_stops_the_run_at_once_without_its_credentials(demo: Demo):
    number = demo.issue("farewell")
    _git(demo, "remote", "add", "origin", "https://ralph-user:hunter2pw@example.invalid/x.git")
    started = time.monotonic()
    result = demo.hero(number)
    assert time.monotonic() - started < PROMPTLY_SECONDS
    assert result.ending is Ending.AGENT_UNUSABLE
    assert result.detail.startswith("could not fetch main from origin: ")
    assert result.detail.endswith("; fix the remote or its credentials (git remote -v)")
    assert "hunter2pw" not in result.detail
    assert "ralph-user" not in result.detail
    assert demo.state(number) is WorkflowState.RESEARCH_NEEDED
    assert demo.statuses(result)[f"research:{number}"] == "pending"
