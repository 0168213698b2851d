"""The workflows a person drives, through the CLI with text a person (here, the test)
writes: an idea becomes an issue, its plan is written by hand, rejected, revised and
approved, and Ralph's hero run carries it to merged; or the person implements it one
plan phase at a time. Each step refuses, in one line and without moving anything, what
the workflow does not allow."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.demo._sample import EXPORT, FAREWELL, TEST_FAREWELL
from ralph.project import open_project
from ralph.tracker import Issue
from ralph.workflow import WorkflowState as S

from ..conftest import RALPH, ralph_environment

pytestmark = pytest.mark.slow

IDEA = "Add a farewell function\n\nThe library greets people but never says goodbye."


def issue(repo: Path, number: int) -> Issue:
    with open_project(load_config(repo)) as project:
        return project.tracker.get_issue(number)


def issue_count(repo: Path) -> int:
    with open_project(load_config(repo)) as project:
        return len(project.tracker.list_issues())


@dataclass(frozen=True)
class AtTerminal:
    returncode: int
    output: str


def terminal_process(args: list[str], cwd: Path, timeout: float = 60) -> AtTerminal:
    """``ralph ARGS`` as a real process with a terminal (a pseudo-terminal) for its
    standard streams, as a person runs it; its output, read until it closes them."""
    controller, terminal = pty.openpty()
    with subprocess.Popen(
        [RALPH, *args],
        cwd=cwd,
        env=ralph_environment(),
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
    ) as process:
        os.close(terminal)
        output = b""
        while True:
            ready, _, _ = select.select([controller], [], [], timeout)
            if not ready:
                process.kill()
                raise AssertionError(f"ralph {' '.join(args)} said nothing for {timeout}s")
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # Linux: EIO once the process has closed the terminal
                break
            if not chunk:
                break
            output += chunk
        process.wait(timeout=timeout)
    os.close(controller)
    return AtTerminal(process.returncode, output.decode(errors="replace"))


def on_main(repo: Path, path: str) -> str:
    done = subprocess.run(
        ["git", "show", f"main:{path}"], cwd=repo, capture_output=True, text=True, check=False
    )
    return done.stdout


def written(draft: Path, *diffs: str) -> str:
    """The skeleton filled in by a person: every placeholder written, the diffs given
    as the phase's changes."""
    text = draft.read_text()
    text = text.replace("TODO(ralph): the change", "Add farewell")
    text = text.replace("**File**: `TODO(ralph)`", "**File**: `greet/core.py`")
    changes = "\n\n".join(["**Changes**:", *diffs]) if diffs else "**Changes**: by hand."
    text = text.replace("**Changes**: TODO(ralph): write this.", changes)
    text = text.replace("TODO(ralph): write this.", "Written by a person.")
    return text.replace("TODO(ralph): what a person checks", "farewell('Ada') says goodbye")


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    repo, _ = create_demo_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    return repo


def formed_issue(ralph_cli, repo: Path) -> int:
    subprocess.run(["git", "config", "user.name", "Ada Lovelace"], cwd=repo, check=True)
    code, out, err = ralph_cli("idea", "new", IDEA, "--tag", "greet")
    assert code == 0, err
    (idea,) = (repo / "thoughts" / "shared" / "ideas").glob("*-add-a-farewell-function.md")
    relative = idea.relative_to(repo).as_posix()
    assert out == f"Wrote {relative}; fill it in, then: ralph idea form {relative}\n"
    text = idea.read_text()
    assert text.startswith("---\ndate: ")
    assert "status: draft\nauthor: Ada Lovelace\ntags: [greet]\ngithub_issue: null\n" in text
    assert "# Add a farewell function\n" in text
    assert "## Rough Shape" in text
    idea.write_text(text.replace("## Why This Matters\n", "## Why This Matters\n\nManners.\n"))

    code, out, err = ralph_cli("idea", "form", str(idea), "-e", "XS")
    assert code == 0, err
    number = int(re.search(r"Created #(\d+)", out).group(1))  # type: ignore[union-attr]
    filed = issue(repo, number)
    assert filed.workflow_state is S.BACKLOG
    assert "## Summary" in filed.body
    assert "## Acceptance Criteria" in filed.body
    assert "Manners." in filed.body
    assert f"`thoughts/shared/ideas/{idea.name}`" in filed.body
    assert f"github_issue: {number}" in idea.read_text()
    assert "status: formed" in idea.read_text()
    return number


def test_an_idea_is_formed_once_and_a_duplicate_is_refused(ralph_cli, project):
    formed_issue(ralph_cli, project)
    (idea,) = (project / "thoughts" / "shared" / "ideas").glob("*.md")
    assert ralph_cli("idea", "form", str(idea))[0] == 2  # formed already
    code, _, err = ralph_cli("idea", "new", "Add a farewell function!", "--title", "Farewell fn")
    assert code == 0, err
    (again,) = (project / "thoughts" / "shared" / "ideas").glob("*-farewell-fn.md")
    again.write_text(
        again.read_text()
        .replace("# Farewell fn", "# Add the farewell function")
        .replace("## Why This Matters\n", "## Why This Matters\n\nManners.\n")
    )
    code, out, err = ralph_cli("idea", "form", str(again))
    assert (code, out) == (2, "")
    assert "looks like the same work" in err
    assert err.count("\n") == 1
    assert ralph_cli("idea", "form", str(again), "--allow-duplicate")[0] == 0


def test_an_idea_as_idea_new_wrote_it_is_not_formed(ralph_cli, project):
    before = issue_count(project)
    assert ralph_cli("idea", "new", "Say more than hello")[0] == 0
    (idea,) = (project / "thoughts" / "shared" / "ideas").glob("*.md")
    code, out, err = ralph_cli("idea", "form", str(idea))
    assert (code, out) == (2, "")
    assert err == (
        f"ralph: error: {idea} is as ralph idea new wrote it; fill in Why This Matters and "
        "Rough Shape (any section past The Idea), then form it\n"
    )
    assert issue_count(project) == before


def test_an_idea_opens_in_the_editor_only_at_a_terminal(ralph_cli, project, monkeypatch):
    monkeypatch.setenv("EDITOR", "sh -c 'echo edited >> \"$1\"' editor")
    assert ralph_cli("idea", "new", "Say more than hello")[0] == 0
    (idea,) = (project / "thoughts" / "shared" / "ideas").glob("*.md")
    assert "edited" not in idea.read_text()  # the test's output is no terminal
    idea.unlink()
    at_terminal = terminal_process(["idea", "new", "Say more than hello"], cwd=project)
    assert at_terminal.returncode == 0, at_terminal.output
    assert idea.read_text().endswith("edited\n")
    relative = idea.relative_to(project).as_posix()
    assert (
        f"Wrote {relative}; file it as an issue: ralph idea form {relative}" in at_terminal.output
    )


def test_an_idea_with_a_rough_shape_becomes_an_epic_with_ordered_children(ralph_cli, project):
    assert ralph_cli("idea", "new", "Say more than hello")[0] == 0
    (idea,) = (project / "thoughts" / "shared" / "ideas").glob("*.md")
    idea.write_text(
        idea.read_text().replace("## Rough Shape\n", "## Rough Shape\n\n- Shout\n- Whisper\n")
    )
    code, out, err = ralph_cli("idea", "form", str(idea), "--epic")
    assert code == 0, err
    parent = int(re.search(r"Created #(\d+)", out).group(1))  # type: ignore[union-attr]
    epic = issue(project, parent)
    shout, whisper = epic.sub_issues
    assert epic.estimate is not None
    assert epic.estimate.value == "M"
    assert issue(project, shout).title == "Shout"
    assert issue(project, whisper).blocked_by == (shout,)
    assert f"Next: ralph research {shout} --interactive (by hand), or ralph hero {parent}" in out


def test_idea_to_merged_with_a_plan_written_rejected_and_revised_by_hand(ralph_cli, project):
    number = formed_issue(ralph_cli, project)
    n = str(number)

    # The plan phase's rules hold for a person too: research first.
    code, out, err = ralph_cli("plan", n, "--interactive")
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert ralph_cli("issue", "move", n, "Research Needed")[0] == 0
    assert ralph_cli("run", "research", n)[0] == 0
    assert issue(project, number).workflow_state is S.READY_FOR_PLAN

    code, out, err = ralph_cli("plan", n, "--interactive")
    assert code == 0, err
    draft = Path(re.search(r": (/\S+\.md)", out).group(1))  # type: ignore[union-attr]
    assert draft.is_relative_to(project / ".ralph" / "drafts")
    skeleton = draft.read_text()
    assert f"github_issues: [{number}]\n" in skeleton
    assert f"primary_issue: {number}" in skeleton
    assert f"## Phase 1: GH-{number} Add a farewell function" in skeleton

    # An untouched skeleton is not a plan: refused, nothing moves.
    code, out, err = ralph_cli("plan", n, "--done")
    assert (code, out) == (2, ""), err
    assert "TODO(ralph)" in err
    assert issue(project, number).workflow_state is S.READY_FOR_PLAN

    draft.write_text(written(draft, FAREWELL, EXPORT))
    code, out, err = ralph_cli("plan", n, "--done")
    assert code == 0, out + err
    assert not draft.exists()
    planned = issue(project, number)
    assert planned.workflow_state is S.PLAN_IN_REVIEW
    (link,) = [c.body for c in planned.comments if c.body.startswith("## Implementation Plan")]
    plan_file = link.splitlines()[2]
    assert plan_file.startswith("thoughts/shared/plans/")
    assert f"GH-{number:04d}" in plan_file
    assert "def farewell" in on_main(project, plan_file)

    # A second --done finds it planned already; approve and reject want Plan in Review.
    assert ralph_cli("plan", n, "--done")[0] == 2
    code, out, err = ralph_cli("review", n, "--reject", "Test farewell too.\nKeep greet.")
    assert code == 0, err
    rejected = issue(project, number)
    assert rejected.workflow_state is S.READY_FOR_PLAN
    assert "needs-iteration" in rejected.labels
    verdict = [c.body for c in rejected.comments if c.body.startswith("## Plan Review")][-1]
    assert "VERDICT: NEEDS_ITERATION" in verdict
    assert "- Test farewell too.\n- Keep greet." in verdict
    assert ralph_cli("review", n, "--reject", "again")[0] == 2
    assert ralph_cli("approve", n)[0] == 2

    # Revise: the working copy is the plan itself.
    code, out, err = ralph_cli("plan", n, "--interactive")
    assert code == 0, err
    draft = Path(re.search(r": (/\S+\.md)", out).group(1))  # type: ignore[union-attr]
    assert draft.read_text() == on_main(project, plan_file)
    assert ralph_cli("plan", "iterate", n, "--feedback", "Tests it")[0] == 2  # unchanged
    draft.write_text(draft.read_text().replace(EXPORT, f"{EXPORT}\n\n{TEST_FAREWELL}"))
    code, out, err = ralph_cli("plan", "iterate", n, "--feedback", "Tests farewell now.")
    assert code == 0, err
    revised = issue(project, number)
    assert revised.workflow_state is S.PLAN_IN_REVIEW
    assert "needs-iteration" not in revised.labels
    updated = [c.body for c in revised.comments if c.body.startswith("## Plan Updated")]
    assert len(updated) == 1
    assert "Phase 1 changed" in updated[0]
    assert "Reason: Tests farewell now." in updated[0]
    assert "test_farewell" in on_main(project, plan_file)

    # A plan in review can be revised too, from a file (back through Ready for Plan).
    revision = project.parent / "revision.md"
    revision.write_text(on_main(project, plan_file).replace("Written by a person.", "Revised."))
    code, out, err = ralph_cli(
        "plan", "iterate", n, "--feedback", "Wording.", "--file", str(revision)
    )
    assert code == 0, err
    assert issue(project, number).workflow_state is S.PLAN_IN_REVIEW
    assert "Revised." in on_main(project, plan_file)

    assert ralph_cli("approve", n)[0] == 0
    code, out, err = ralph_cli("hero", n)
    assert code == 0, out + err
    assert issue(project, number).workflow_state is S.DONE
    assert "def farewell" in on_main(project, "greet/core.py")
    assert "test_farewell" in on_main(project, "tests/test_greet.py")


def test_a_person_implements_the_plan_one_phase_at_a_time(ralph_cli, project):
    number = formed_issue(ralph_cli, project)
    n = str(number)
    assert ralph_cli("issue", "move", n, "Research Needed")[0] == 0
    assert ralph_cli("run", "research", n)[0] == 0
    code, out, _ = ralph_cli("plan", n, "--interactive")
    draft = Path(re.search(r": (/\S+\.md)", out).group(1))  # type: ignore[union-attr]
    draft.write_text(written(draft))
    assert ralph_cli("plan", n, "--done")[0] == 0

    code, out, err = ralph_cli("implement", n, "--interactive")
    assert (code, out) == (2, "")
    assert "approve" in err
    assert ralph_cli("approve", n)[0] == 0

    code, out, err = ralph_cli("implement", n, "--interactive")
    assert code == 0, err
    worktree = project / "worktrees" / f"GH-{number}"
    assert worktree.is_dir()
    assert f"Next: Phase 1 of 1: GH-{number} Add a farewell function" in out
    assert "farewell('Ada') says goodbye" in out  # the manual check, before --step-done
    comments = issue(project, number).comments
    started = [c.body for c in comments if c.body.startswith("## Implementation Started")]
    assert len(started) == 1
    assert "Beginning implementation of" in started[0]
    assert ralph_cli("implement", n, "--interactive")[0] == 0  # posted once
    assert len([c for c in issue(project, number).comments if "Started" in c.body]) == 1

    # The person's change breaks the tests: nothing is ticked or committed.
    core = worktree / "greet" / "core.py"
    core.write_text(core.read_text() + "\nraise SystemExit(3)\n")
    code, out, err = ralph_cli("implement", n, "--interactive", "--step-done")
    assert code == 1, out + err
    assert "- [ ] Tests pass" in (worktree / next(iter(_plans(worktree)))).read_text()

    core.write_text(core.read_text().replace("\nraise SystemExit(3)\n", "") + FAREWELL_CODE)
    code, out, err = ralph_cli("implement", n, "--interactive", "--step-done")
    assert code == 0, out + err
    assert f"Next: ralph run pr {number}" in out
    code, out, err = ralph_cli("run", "pr", n)
    assert code == 0, out + err
    assert issue(project, number).workflow_state is S.IN_REVIEW


FAREWELL_CODE = '\n\ndef farewell(name):\n    return f"Goodbye, {name}!"\n'


def _plans(worktree: Path) -> list[str]:
    folder = worktree / "thoughts" / "shared" / "plans"
    return [p.relative_to(worktree).as_posix() for p in folder.glob("*.md")]
