"""A phase that fails on what Ralph says in words (a RalphError) logs that one line, not
a traceback; one that only a person can let go on (NeedsPerson) is no attempt at all:
its issues go back where they were, its result is kept, and the refusal is raised."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ralph.errors import GitError, NeedsPerson
from ralph.git import CheckoutInTheWay
from ralph.phases import PhaseStatus
from ralph.workflow import WorkflowState as S

from .conftest import Sample


def _failing(error: Exception):
    def fail(*args: object, **kwargs: object) -> None:
        raise error

    return fail


def test_a_failure_in_words_is_logged_as_one_line(
    sample: Sample, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    number = sample.issue()
    monkeypatch.setattr(sample.tracker, "add_comment", _failing(GitError("main moved; retry")))
    with caplog.at_level(logging.ERROR, logger="ralph.phases._runner"):
        outcome = sample.run("research", number)
    assert outcome.status is PhaseStatus.FAILED
    (record,) = [r for r in caplog.records if r.getMessage() == "phase failed"]
    assert record.exc_info is None
    assert record.__dict__["error"] == "main moved; retry"


def test_what_only_a_person_can_clear_puts_the_issue_back_and_keeps_the_result(
    sample: Sample, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    number = sample.issue()
    blocked = CheckoutInTheWay("main", Path("/home/me/project"), conflicted=False, detail="")
    monkeypatch.setattr(sample.tracker, "add_comment", _failing(blocked))
    with caplog.at_level(logging.WARNING), pytest.raises(NeedsPerson) as raised:
        sample.run("research", number)
    assert raised.value is blocked
    assert not caplog.records
    assert sample.state(number) is S.RESEARCH_NEEDED
    assert sample.project.store.load_checkpoint(f"sample#{number}:research") is not None
    monkeypatch.undo()
    again = sample.run("research", number)
    assert again.status is PhaseStatus.DONE
    assert again.agent_runs == ()  # the kept result, not the agent again
