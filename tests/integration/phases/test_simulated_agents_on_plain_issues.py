"""The simulated agents on issues a person writes in their own words, through the real
``ralph`` command in a throwaway repository: an M issue written as a bullet list splits
into its items in order; an issue without a ```diff block gets a placeholder change and
is merged; what the simulator cannot do escalates saying so and pointing to the docs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from ..conftest import GitProject, ralph_process

# A person's own repository, in a person's environment (not the suite's).
pytestmark = pytest.mark.usefixtures("persons_environment")

DOCS = "docs/getting-started.md#the-simulated-agents"
BULLETS = """We want a calculator in this project.

- Add a subtract function
- Add a multiply function
- Document both in the README

Nobody asked for division yet.
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    project = GitProject(tmp_path / "project")
    done = ralph_process("init", cwd=project.path)
    assert done.returncode == 0, done.stderr
    return project.path


def ralph(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return ralph_process(*args, cwd=repo, env={"RALPH_AGENT": "scripted"})


def issues(repo: Path) -> dict[int, dict[str, object]]:
    done = ralph(repo, "issue", "list", "--all", "--json")
    return {issue["number"]: issue for issue in json.loads(done.stdout)}


def test_an_m_issue_written_as_a_bullet_list_splits_into_its_items_in_order_and_merges(repo):
    assert ralph(repo, "issue", "new", "Calculator", "-e", "M", "--body", BULLETS).returncode == 0
    done = ralph(repo, "hero", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    found = issues(repo)
    children = [found[n] for n in (2, 3, 4)]
    assert [c["title"] for c in children] == [
        "Add a subtract function",
        "Add a multiply function",
        "Document both in the README",
    ]
    assert {c["estimate"] for c in children} <= {"XS", "S"}
    assert all(c["workflowState"] == "Done" for c in [found[1], *children])
    shown = json.loads(ralph(repo, "issue", "show", "4", "--json").stdout)
    assert shown["blockedBy"] == [3]
    assert shown["parent"] == 1
    placeholder = (repo / "ralph-simulated" / "issue-2.md").read_text()
    assert "placeholder change by Ralph's simulated agent" in placeholder
    assert "Add a subtract function" in placeholder
    log = subprocess.run(
        ["git", "log", "--format=%s", "main"], cwd=repo, capture_output=True, text=True, timeout=30
    ).stdout
    assert "chore(simulated placeholder): Add a subtract function" in log


def test_an_xs_issue_in_its_own_words_goes_to_done_with_a_placeholder_change(repo):
    made = ralph(repo, "issue", "new", "Add a subtract function", "-e", "XS", "--body", "")
    assert made.returncode == 0, made.stderr
    done = ralph(repo, "hero", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert issues(repo)[1]["workflowState"] == "Done"
    assert (repo / "ralph-simulated" / "issue-1.md").is_file()


def test_an_m_issue_with_nothing_to_split_on_escalates_naming_the_simulators_limit(repo):
    ralph(repo, "issue", "new", "Make it faster", "-e", "M", "--body", "It is slow. Fix it.")
    done = ralph(repo, "hero", "1")
    shown = ralph(repo, "issue", "show", "1", "--json").stdout
    assert "Nothing to split on" in shown
    assert "a limit of the simulated agent" in shown
    assert "ralph issue edit 1 --body-file FILE" in shown
    assert DOCS in shown
    assert issues(repo)[1]["workflowState"] == "Human Needed", done.stdout


def test_a_diff_that_does_not_apply_still_escalates_saying_why_and_where_to_read(repo):
    broken = "```diff\n--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-old\n+new\n```\n"
    ralph(repo, "issue", "new", "Change a missing file", "-e", "XS", "--body", broken)
    ralph(repo, "hero", "1")
    assert issues(repo)[1]["workflowState"] == "Human Needed"
    shown = ralph(repo, "issue", "show", "1", "--json").stdout
    assert "diff does not apply" in shown
    assert DOCS in shown
    assert not (repo / "ralph-simulated").exists()


def test_an_issue_fixed_with_issue_edit_after_its_escalation_goes_through_on_retry(repo):
    broken = "```diff\n--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-old\n+new\n```\n"
    ralph(repo, "issue", "new", "Say hello", "-e", "XS", "--body", broken)
    ralph(repo, "hero", "1")
    assert issues(repo)[1]["workflowState"] == "Human Needed"
    fixed = repo.parent / "fixed.md"
    fixed.write_text("```diff\n--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n```\n")
    for step in (("issue", "edit", "1", "--body-file", str(fixed)), ("issue", "retry", "1")):
        done = ralph(repo, *step)
        assert done.returncode == 0, done.stderr
    done = ralph(repo, "hero", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert issues(repo)[1]["workflowState"] == "Done"
    assert (repo / "hello.txt").read_text() == "hello\n"
