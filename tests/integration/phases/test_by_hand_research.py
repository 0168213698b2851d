"""Research a person writes (``ralph research N --interactive``, then ``--done``) holds
to the research phase's rules: what it refuses of an agent it refuses of a person, in
one line, before anything moves; and a second start keeps the person's working copy."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from ralph.tracker import Issue
from ralph.workflow import WorkflowState as S

from ..conftest import RalphCli

pytestmark = pytest.mark.slow


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    repo, _ = create_demo_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    return repo


def issue(repo: Path, number: int) -> Issue:
    with open_project(load_config(repo)) as project:
        return project.tracker.get_issue(number)


def new_issue(ralph_cli: RalphCli, *args: str) -> int:
    code, out, err = ralph_cli("issue", "new", "Add a farewell function", *args)
    assert code == 0, err
    return int(re.search(r"#(\d+)", out).group(1))  # type: ignore[union-attr]


def refused(ralph_cli: RalphCli, *args: str) -> str:
    code, out, err = ralph_cli(*args)
    assert (code, out, err.count("\n")) == (2, "", 1), out + err
    return err


def test_an_epic_is_refused_and_stays_in_backlog(ralph_cli, project):
    number = new_issue(ralph_cli, "--estimate", "M", "--state", "Backlog")
    err = refused(ralph_cli, "research", str(number), "--interactive")
    assert f"#{number} is estimated M: split it first" in err
    assert issue(project, number).workflow_state is S.BACKLOG
    assert not (project / ".ralph" / "drafts").exists()


def test_an_issue_past_research_is_refused_and_not_moved(ralph_cli, project):
    number = new_issue(ralph_cli, "--estimate", "XS", "--state", "Ready for Plan")
    err = refused(ralph_cli, "research", str(number), "--interactive")
    assert "research takes issues in Research Needed" in err
    assert issue(project, number).workflow_state is S.READY_FOR_PLAN


def test_a_second_start_keeps_the_working_copy(ralph_cli, project):
    n = str(new_issue(ralph_cli, "--estimate", "XS", "--state", "Research Needed"))
    code, out, err = ralph_cli("research", n, "--interactive")
    assert code == 0, err
    assert out.startswith(f"Locked #{n}: Research in Progress.\nMade the working copy of ")
    draft = Path(re.search(r": (/\S+\.md)\n", out).group(1))  # type: ignore[union-attr]
    draft.write_text(draft.read_text().replace("## Risks", "## Risks\n\nMine."))
    code, out, err = ralph_cli("research", n, "--interactive")
    assert code == 0, err
    assert out.startswith("Kept the working copy of ")
    assert "Mine." in draft.read_text()


def test_done_without_a_working_copy_or_flags_is_refused(ralph_cli, project):
    n = str(new_issue(ralph_cli, "--estimate", "XS", "--state", "Research Needed"))
    assert "has no research draft" in refused(ralph_cli, "research", n, "--done")
    assert "say --interactive" in refused(ralph_cli, "research", n)
    assert "say --interactive" in refused(ralph_cli, "research", n, "--interactive", "--done")
    assert issue(project, int(n)).workflow_state is S.RESEARCH_NEEDED


def test_a_document_from_a_file_is_checked_committed_and_moves_the_issue(
    ralph_cli, project, tmp_path
):
    n = str(new_issue(ralph_cli, "--estimate", "XS", "--state", "Research Needed"))
    written = tmp_path / "research.md"
    written.write_text("# Research\n\n## Files Affected\n\n### Will Modify\n- None\n")
    err = refused(ralph_cli, "research", n, "--done", "--file", str(written))
    assert "no frontmatter" in err
    assert "### Will Read (Dependencies)" in err
    assert issue(project, int(n)).workflow_state is S.RESEARCH_NEEDED

    written.write_text(
        f"---\ngithub_issue: {n}\nstatus: complete\n---\n\n# Research\n\n## Files Affected\n\n"
        "### Will Modify\n- `greet/core.py` - farewell\n\n### Will Read (Dependencies)\n- None\n"
    )
    code, out, err = ralph_cli("research", n, "--done", "--file", str(written))
    assert code == 0, out + err
    assert f"Next: ralph plan {n} --interactive" in out
    researched = issue(project, int(n))
    assert researched.workflow_state is S.READY_FOR_PLAN
    (comment,) = [c.body for c in researched.comments if c.body.startswith("## Research Document")]
    assert "Key findings: researched by a person; 1 file(s) to modify: greet/core.py." in comment
    assert "is researched already" in refused(ralph_cli, "research", n, "--interactive")
