"""A batch GitHub ran only part of (its answer lost mid-request, or its content throttle
reached mid-batch) is never sent again whole: what landed is found by its markers and
each issue's part is looked at before it is sent again, so no comment is posted twice,
a person's move is not written over, and a landed move is not undone (on the fake, a
fake clock)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from ralph.errors import StateConflict
from ralph.github import TransportFailure
from ralph.github.fake import FakeGitHub
from ralph.github.fake._limits import ContentThrottle
from ralph.tracker import GitHubTracker, NewIssue
from ralph.workflow import WorkflowState

from .conftest import Clock
from .test_batch_failures import audits, bodies, lost, refused
from .test_fault_script import tracker_on

pytestmark = pytest.mark.timeout(60)


def _only(
    source: str, variables: Mapping[str, Any], keep: Callable[[str], bool]
) -> tuple[str, dict[str, Any]]:
    """The request as GitHub would have run it had it stopped after the aliases ``keep``
    takes (a request cut mid-way): those aliases' lines and variables only."""
    names = {k for k in variables if keep(k)}
    header, rest = source.split("{\n", 1)
    name = header.split("(")[0]
    types = {a: re.search(rf"\${a}: ([A-Za-z0-9_]+!)", header) for a in names}
    defs = ", ".join(f"${a}: {found.group(1)}" for a, found in types.items() if found)
    lines = [
        line
        for line in rest.splitlines(keepends=True)
        if line.strip().split(":")[0] in names or not line.startswith("  ")
    ]
    return f"{name}({defs}) {{\n" + "".join(lines), {k: variables[k] for k in names}


def _first_issue(alias: str) -> bool:
    """The aliases of a batch's first issue (``note0_0``, ``state0``, ``audit0``...)."""
    return re.fullmatch(r"[a-z]+0(_\d+)?", alias) is not None


def _cut_once(
    monkeypatch: pytest.MonkeyPatch,
    operation: str,
    keep: Callable[[str], bool],
    then: Callable[[], None] = lambda: None,
) -> dict[str, bool]:
    """The first ``operation`` request runs only the aliases ``keep`` takes, then its
    answer is lost (``then`` runs before: a fault scripted for the resend)."""
    real = FakeGitHub._execute
    cut = {"done": False}

    def execute(self: FakeGitHub, source: str, variables: Any, account: Any) -> Any:
        if f"mutation {operation}(" in source and not cut["done"]:
            cut["done"] = True
            real(self, *_only(source, variables, keep), account)
            then()
            raise TransportFailure("timed out mid-request")
        return real(self, source, variables, account)

    monkeypatch.setattr(FakeGitHub, "_execute", execute)
    return cut


def _with_issues(github: FakeGitHub, clock: Clock, count: int) -> GitHubTracker:
    tracker = tracker_on(github, clock)
    for i in range(count):
        tracker.create_issue(f"Part {i}", state=WorkflowState.BACKLOG)
    return tracker


def _notes(tracker: GitHubTracker, number: int) -> list[str]:
    return [b for b in bodies(tracker, number) if "ralph-transition" not in b]


def test_a_batch_of_moves_cut_mid_way_posts_nothing_twice(monkeypatch, github, clock):
    tracker = _with_issues(github, clock, 2)
    cut = _cut_once(monkeypatch, "MoveStates", _first_issue)
    with tracker.snapshot():
        for n in (1, 2):
            tracker.add_note(n, f"Note on #{n}.")
        tracker.set_states([1, 2], "Research Needed", command="ralph_triage")
    assert cut["done"]
    fresh = tracker_on(github, clock)
    for n in (1, 2):
        assert _notes(fresh, n) == [f"Note on #{n}."]
        assert len(audits(fresh, n)) == 1
        assert fresh.get_issue(n).workflow_state is WorkflowState.RESEARCH_NEEDED


def test_a_lone_move_cut_before_its_audit_posts_its_note_once(monkeypatch, github, clock):
    tracker = _with_issues(github, clock, 1)
    cut = _cut_once(monkeypatch, "MoveState", lambda alias: alias != "audit")
    with tracker.snapshot():
        tracker.add_note(1, "Note on #1.")
        tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert cut["done"]
    fresh = tracker_on(github, clock)
    assert _notes(fresh, 1) == ["Note on #1."]
    assert len(audits(fresh, 1)) == 1


def test_notes_posted_together_cut_mid_way_post_each_once(monkeypatch, github, clock):
    tracker = _with_issues(github, clock, 2)
    cut = _cut_once(monkeypatch, "AddComments", lambda alias: alias == "note0")
    with tracker.snapshot():
        for n in (1, 2):
            tracker.get_issue(n)
            tracker.add_note(n, f"Note on #{n}.")
    assert cut["done"]
    fresh = tracker_on(github, clock)
    for n in (1, 2):
        assert bodies(fresh, n) == [f"Note on #{n}."]


def test_an_edit_cut_after_its_first_note_posts_each_note_once(monkeypatch, github, clock):
    tracker = _with_issues(github, clock, 1)
    cut = _cut_once(monkeypatch, "EditIssue", lambda alias: alias in ("edit", "note0"))
    with tracker.snapshot():
        tracker.get_issue(1)
        tracker.add_note(1, "## Triage")
        tracker.add_note(1, "## Plan")
        tracker.update_issue(1, title="Part 0, triaged")
    assert cut["done"]
    fresh = tracker_on(github, clock)
    assert bodies(fresh, 1) == ["## Triage", "## Plan"]
    assert fresh.get_issue(1).title == "Part 0, triaged"


def test_a_lost_batch_of_moves_leaves_a_persons_move_and_says_so():
    person_moves: list[GitHubTracker] = []

    class PersonClock(Clock):
        """A person moves #1 while the client waits to send the lost batch again."""

        def sleep(self, seconds: float) -> None:
            super().sleep(seconds)
            if person_moves:
                person_moves.pop().set_state(1, "Human Needed", command="human", actor="alice")

    clock = PersonClock()
    github = FakeGitHub(clock=clock)
    github.add_token("token", "ralph")
    github.add_repository("acme/shop")
    tracker = _with_issues(github, clock, 2)
    person_moves.append(tracker_on(github, clock))
    github.script(*[lost("MoveStates") for _ in range(4)])  # never landed; the client gives up
    with pytest.raises(StateConflict), tracker.snapshot():
        tracker.set_states([1, 2], "Research Needed", command="ralph_triage")
    assert not person_moves
    fresh = tracker_on(github, clock)
    assert fresh.get_issue(1).workflow_state is WorkflowState.HUMAN_NEEDED
    assert [a for a in audits(fresh, 1) if "Research Needed" in a] == []
    assert fresh.get_issue(2).workflow_state is WorkflowState.RESEARCH_NEEDED


def test_a_batch_cut_mid_way_then_refused_leaves_the_landed_move(monkeypatch, github, clock):
    tracker = tracker_on(github, clock)
    cut = _cut_once(
        monkeypatch,
        "MoveStates",
        _first_issue,
        then=lambda: github.script(refused("MoveStates")),  # the resend: refused whole
    )
    with tracker.snapshot():
        tracker.create_issues(
            [NewIssue(f"Part {i}", state=WorkflowState.BACKLOG) for i in range(2)]
        )
        tracker.add_note(1, "Note on #1.")
        tracker.set_states([1, 2], "Research Needed", command="ralph_triage")
    assert cut["done"]
    fresh = tracker_on(github, clock)
    for n in (1, 2):
        assert fresh.get_issue(n).workflow_state is WorkflowState.RESEARCH_NEEDED
        assert len(audits(fresh, n)) == 1
    assert bodies(fresh, 1).count("Note on #1.") == 1


def test_a_refused_resend_after_a_lost_batch_keeps_a_new_issues_landed_move(
    monkeypatch, github, clock
):
    """Only #1's field writes landed (no marker to find): the refusal of the resend does
    not say nothing ran, so #1's Backlog is not written again over its move."""
    tracker = tracker_on(github, clock)
    cut = _cut_once(
        monkeypatch,
        "MoveStates",
        lambda alias: alias in ("state0", "status0"),
        then=lambda: github.script(refused("MoveStates")),
    )
    with tracker.snapshot():
        tracker.create_issues(
            [NewIssue(f"Part {i}", state=WorkflowState.BACKLOG) for i in range(2)]
        )
        tracker.set_states([1, 2], "Research Needed", command="ralph_triage")
    assert cut["done"]
    fresh = tracker_on(github, clock)
    for n in (1, 2):
        assert fresh.get_issue(n).workflow_state is WorkflowState.RESEARCH_NEEDED
        assert len(audits(fresh, n)) == 1


def test_a_batch_of_notes_throttled_part_way_posts_each_once(github, clock):
    tracker = _with_issues(github, clock, 3)
    clock.now += 120
    github.root.throttle = ContentThrottle(clock, 2)  # GitHub's content limit, reached mid-batch
    with tracker.snapshot():
        for n in (1, 2, 3):
            tracker.get_issue(n)
            tracker.add_note(n, f"Note on #{n}.")
    github.root.throttle = None
    fresh = tracker_on(github, clock)
    for n in (1, 2, 3):
        assert bodies(fresh, n) == [f"Note on #{n}."]


def test_a_batch_of_moves_throttled_part_way_posts_each_audit_once(github, clock):
    tracker = _with_issues(github, clock, 3)
    clock.now += 120
    github.root.throttle = ContentThrottle(clock, 2)
    with tracker.snapshot():
        tracker.set_states([1, 2, 3], "Research Needed", command="ralph_triage")
    github.root.throttle = None
    fresh = tracker_on(github, clock)
    for n in (1, 2, 3):
        assert len(audits(fresh, n)) == 1
        assert fresh.get_issue(n).workflow_state is WorkflowState.RESEARCH_NEEDED
