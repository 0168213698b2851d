"""Document paths come from issue titles, whatever their length."""

from __future__ import annotations

from ralph.workflow import WorkflowState

from .conftest import Sample


def test_research_on_an_issue_with_a_long_one_word_title_commits_its_document(sample: Sample):
    number = sample.issue(title="x" * 256)  # GitHub's longest
    outcome = sample.run("research", number)
    assert outcome.status.value == "done", outcome
    assert sample.state(number) is WorkflowState.READY_FOR_PLAN
    (path,) = sample.project.git.git(
        "ls-tree", "-r", "--name-only", "main", "thoughts/shared/research", what="list"
    ).splitlines()
    assert path.endswith(f"-GH-{number:04d}-{'x' * 60}.md")
