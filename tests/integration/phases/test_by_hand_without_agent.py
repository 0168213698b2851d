"""The by-hand flow with no agent at all: a person takes an idea to a merged change by
writing the research, the plan and the code themselves, as real ``ralph`` processes in a
throwaway repository with no API key, no login (an empty home) and the agent ``ralph
init`` configures (Claude), which nothing may start. Every step says the next step by
hand; the research step refuses, without moving anything, what the research phase would
refuse of an agent."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.project import open_project
from ralph.sandbox import probe
from ralph.tracker import Issue
from ralph.workflow import WorkflowState as S

from ..conftest import GitProject, git, ralph_process

pytestmark = pytest.mark.slow

GREET = 'def hello(name):\n    return f"Hello, {name}!"\n'
TEST_GREET = (
    "import unittest\n\nfrom greet import hello\n\n\n"
    "class GreetTest(unittest.TestCase):\n"
    "    def test_hello(self):\n"
    '        self.assertEqual(hello("Ada"), "Hello, Ada!")\n'
)
FAREWELL = '\n\ndef farewell(name):\n    return f"Goodbye, {name}!"\n'
TEST_FAREWELL = (
    "\n    def test_farewell(self):\n"
    "        from greet import farewell\n\n"
    '        self.assertEqual(farewell("Ada"), "Goodbye, Ada!")\n'
)


class Person:
    """Someone at a terminal in their repository, running ``ralph``."""

    def __init__(self, tmp_path: Path) -> None:
        self.repo = GitProject(tmp_path / "project")
        self.repo.commit(
            "main",
            {"greet/__init__.py": GREET, "tests/test_greet.py": TEST_GREET},
            "greet people",
        )
        git(self.repo.path, "reset", "-q", "--hard")
        home = tmp_path / "home"  # no Claude login, no git identity but the repository's
        home.mkdir()
        self.env = {"HOME": str(home)}
        if not probe().available:  # the test command is this test's own code
            self.env["RALPH_ALLOW_UNSANDBOXED"] = "true"

    @property
    def path(self) -> Path:
        return self.repo.path

    def ralph(self, *args: str) -> subprocess.CompletedProcess[str]:
        return ralph_process(*args, cwd=self.path, env=self.env)

    def ok(self, *args: str) -> str:
        done = self.ralph(*args)
        assert done.returncode == 0, f"ralph {' '.join(args)}: {done.stdout}{done.stderr}"
        assert "Traceback" not in done.stderr
        return done.stdout

    def refused(self, *args: str) -> str:
        """The one line ``ralph ARGS`` refuses with (exit 2, nothing on stdout)."""
        done = self.ralph(*args)
        assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        return done.stderr

    def issue(self, number: int) -> Issue:
        with open_project(load_config(self.path)) as project:
            return project.tracker.get_issue(number)

    def on_main(self, path: str) -> str:
        return self.repo.show("main", path)


def draft_in(out: str) -> Path:
    return Path(re.search(r": (/\S+\.md)\n", out).group(1))  # type: ignore[union-attr]


def researched(text: str) -> str:
    """The research skeleton as a person fills it in."""
    text = text.replace(
        "- TODO(ralph): `path/to/file.py:12` - what it shows", "- `greet/__init__.py:1`"
    )
    text = text.replace("`TODO(ralph)` - why (", "`greet/__init__.py` - farewell goes here (")
    text = text.replace("`TODO(ralph)` - why", "`tests/test_greet.py` - the tests")
    return text.replace("TODO(ralph): write this.", "Written by a person.")


def planned(draft: Path) -> str:
    """The plan skeleton as a person fills it in."""
    text = draft.read_text()
    text = text.replace("TODO(ralph): the change", "Add farewell")
    text = text.replace("**File**: `TODO(ralph)`", "**File**: `greet/__init__.py`")
    text = text.replace("TODO(ralph): write this.", "Written by a person.")
    return text.replace("TODO(ralph): what a person checks", "farewell('Ada') reads well")


@pytest.fixture
def person(tmp_path: Path) -> Person:
    return Person(tmp_path)


@pytest.mark.timeout(400)
def test_an_idea_goes_to_merged_by_hand_with_no_agent_and_no_key(person: Person):
    out = person.ok("init")
    assert 'runtime = "claude"' in (person.path / "ralph.toml").read_text()
    git(person.path, "add", "-A")
    git(person.path, "commit", "-q", "-m", "ralph init")

    out = person.ok("idea", "new", "Add a farewell function")
    idea = person.path / re.search(r"Wrote (\S+\.md)", out).group(1)  # type: ignore[union-attr]
    idea.write_text(
        idea.read_text().replace("## Why This Matters\n", "## Why This Matters\n\nManners.\n")
    )
    out = person.ok("idea", "form", str(idea), "-e", "XS")
    number = int(re.search(r"Created #(\d+)", out).group(1))  # type: ignore[union-attr]
    n = str(number)
    assert person.issue(number).workflow_state is S.BACKLOG
    assert f"Next: ralph research {n} --interactive (by hand)" in out

    # Research: from Backlog (the person triages too), locked as the agent's would be.
    out = person.ok("research", n, "--interactive")
    assert person.issue(number).workflow_state is S.RESEARCH_IN_PROGRESS
    draft = draft_in(out)
    assert draft.is_relative_to(person.path / ".ralph" / "drafts")
    document = draft.relative_to(person.path / ".ralph" / "drafts").as_posix()
    assert re.fullmatch(
        rf"thoughts/shared/research/\d{{4}}-\d\d-\d\d-GH-{number:04d}-add-a-farewell-function\.md",
        document,
    )
    skeleton = draft.read_text()
    assert skeleton.startswith("---\ndate: ")
    assert f"\ngithub_issue: {number}\ngithub_url: " in skeleton
    assert "\nstatus: draft\ntype: research\n---\n" in skeleton
    for heading in ("## Files Affected", "### Will Modify", "### Will Read (Dependencies)"):
        assert f"\n{heading}\n" in skeleton
    assert f"Edit it, then: ralph research {n} --done" in out

    left = skeleton.count("TODO(ralph)")
    assert f"still has {left} TODO(ralph) placeholder(s)" in person.refused("research", n, "--done")
    draft.write_text(researched(skeleton).replace("### Will Read (Dependencies)\n", ""))
    assert "no '### Will Read (Dependencies)' section" in person.refused("research", n, "--done")
    assert person.issue(number).workflow_state is S.RESEARCH_IN_PROGRESS

    draft.write_text(researched(skeleton))
    out = person.ok("research", n, "--done")
    assert f"Next: ralph plan {n} --interactive" in out
    assert not draft.exists()
    issue = person.issue(number)
    assert issue.workflow_state is S.READY_FOR_PLAN
    (comment,) = [c.body for c in issue.comments if c.body.startswith("## Research Document")]
    assert comment.splitlines()[2] == document
    assert "Key findings:" in comment
    committed = person.on_main(document)
    assert "\nstatus: complete\ntype: research\n---\n" in committed
    assert "- `greet/__init__.py` - farewell goes here" in committed
    assert "docs(research): GH-" in git(
        person.path, "log", "-1", "--format=%s", "main", "--", document
    )

    # Plan, by hand.
    out = person.ok("plan", n, "--interactive")
    draft = draft_in(out)
    draft.write_text(planned(draft))
    out = person.ok("plan", n, "--done")
    assert person.issue(number).workflow_state is S.PLAN_IN_REVIEW
    assert f"Next: ralph approve {n}" in out

    # The gate, by a person.
    out = person.ok("approve", n)
    assert f"Next: ralph implement {n} --interactive" in out

    # Implement, one phase at a time.
    out = person.ok("implement", n, "--interactive")
    worktree = person.path / "worktrees" / f"GH-{number}"
    assert "farewell('Ada') reads well" in out
    with (worktree / "greet" / "__init__.py").open("a") as code:
        code.write(FAREWELL)
    with (worktree / "tests" / "test_greet.py").open("a") as test:
        test.write(TEST_FAREWELL)
    out = person.ok("implement", n, "--interactive", "--step-done")
    assert "Manual Verification, yours to check" in out
    assert "  - farewell('Ada') reads well" in out
    plan = next((worktree / "thoughts" / "shared" / "plans").glob("*.md")).read_text()
    assert "- [x] Tests pass" in plan
    assert "- [ ] farewell('Ada') reads well" in plan  # a person's check, not ticked for them
    assert f"Next: ralph run pr {n}" in out

    # The pull request and the merge call no agent: no key is asked for.
    out = person.ok("run", "pr", n)
    assert "no agent" in out
    assert person.issue(number).workflow_state is S.IN_REVIEW
    person.ok("run", "merge", n)
    assert person.issue(number).workflow_state is S.DONE
    assert "def farewell" in person.on_main("greet/__init__.py")
    assert "test_farewell" in person.on_main("tests/test_greet.py")


@pytest.mark.timeout(400)
def test_a_plan_ticked_with_no_change_made_opens_no_pull_request(person: Person):
    person.ok("init")
    git(person.path, "add", "-A")
    git(person.path, "commit", "-q", "-m", "ralph init")
    out = person.ok("issue", "new", "Add a farewell function", "-e", "XS")
    n = re.search(r"Created #(\d+)", out).group(1)  # type: ignore[union-attr]
    draft = draft_in(person.ok("research", n, "--interactive"))
    draft.write_text(researched(draft.read_text()))
    person.ok("research", n, "--done")
    draft = draft_in(person.ok("plan", n, "--interactive"))
    draft.write_text(planned(draft))
    person.ok("plan", n, "--done")
    person.ok("approve", n)
    person.ok("implement", n, "--interactive")
    # Every step ticked, and not a line of the change written: only the plan moved.
    person.ok("implement", n, "--interactive", "--step-done")
    refused = person.ralph("run", "pr", n)
    assert refused.returncode != 0, refused.stdout + refused.stderr
    said = refused.stdout + refused.stderr
    assert "changes only documents" in said, said
    assert person.issue(int(n)).workflow_state is not S.IN_REVIEW
