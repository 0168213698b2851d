"""A Linear team's issues written through ``tracker.linear._writes`` against FakeLinear,
each write also under a lost answer (the connection dropped after Linear applied it):
exactly one issue, comment, label or relation, and every update applied."""

from __future__ import annotations

import pytest

from ralph.errors import IssueNotFound
from ralph.linear.fake import ScriptedFault
from ralph.tracker.linear import _reads as r
from ralph.tracker.linear import _writes as w
from ralph.tracker.linear import issue_from, set_up_team
from ralph.workflow import Estimate, Priority, WorkflowState

pytestmark = pytest.mark.timeout(60)

S = WorkflowState


@pytest.fixture
def team(client):
    return set_up_team(client, "ENG").team


@pytest.fixture(autouse=True)
def every_scripted_fault_is_used(fake):
    yield
    assert fake.faults == []  # a fault no request matched tested nothing


def lost_after_write(fake, operation):
    fake.script(ScriptedFault.dropped_after_write(operation))


def sent(fake, operation):
    return sum(r.name == operation for r in fake.requests)


def test_an_issue_is_created_with_every_field_in_one_write(fake, client, team):
    parent = w.create_issue(client, team, "Epic")
    labels = w.label_ids(client, team, ["ralph-fast-track"])
    node = w.create_issue(
        client,
        team,
        "Add a farewell function",
        body="Say goodbye.",
        parent_id=parent["id"],
        state=S.RESEARCH_NEEDED,
        estimate=Estimate.M,
        priority=Priority.P1,
        label_ids=labels,
    )
    issue = issue_from(node, "ENG")
    assert (issue.number, issue.title, issue.body, issue.parent) == (
        2,
        "Add a farewell function",
        "Say goodbye.",
        1,
    )
    assert (issue.workflow_state, issue.estimate, issue.priority) == (
        S.RESEARCH_NEEDED,
        Estimate.M,
        Priority.P1,
    )
    assert issue.labels == ("ralph-fast-track",)
    assert fake.workspace.issue("ENG-2").estimate == 3  # M, as Linear stores it


@pytest.mark.parametrize("fault", [ScriptedFault.dropped_after_write, ScriptedFault.dropped])
def test_a_lost_answer_to_an_issue_create_leaves_exactly_one_issue(fake, client, team, fault):
    fake.script(fault("CreateIssue"))
    node = w.create_issue(client, team, "Once only")
    assert [i.title for i in fake.workspace.issues.values()] == ["Once only"]
    assert node["identifier"] == "ENG-1"


@pytest.mark.parametrize("fault", [ScriptedFault.dropped_after_write, ScriptedFault.dropped])
def test_a_lost_answer_to_a_comment_leaves_exactly_one_comment(fake, client, team, fault):
    issue = w.create_issue(client, team, "Commented")
    fake.script(fault("CreateComment"))
    comment = w.create_comment(client, issue["id"], "Research done.")
    assert [c.body for c in fake.workspace.comments.values()] == ["Research done."]
    assert comment["body"] == "Research done."


def test_labels_are_found_by_name_ignoring_case_and_made_when_missing(fake, client, team):
    first = w.label_ids(client, team, ["needs-iteration", "debug-auto"])
    again = w.label_ids(client, team, ["Needs-Iteration", "debug-auto", "debug-auto"])
    assert again == first
    assert sent(fake, "CreateIssueLabel") == 2


def test_a_lost_answer_to_a_label_create_leaves_exactly_one_label(fake, client, team):
    lost_after_write(fake, "CreateIssueLabel")
    ids = w.label_ids(client, team, ["ralph-fast-track"])
    labels = fake.workspace.team("ENG").label_list
    assert [(label.id, label.name) for label in labels] == [(ids[0], "ralph-fast-track")]


def test_an_update_sets_each_field_and_keeps_the_rest(fake, client, team):
    issue = w.create_issue(client, team, "Old", estimate=Estimate.S, priority=Priority.P2)
    labels = w.label_ids(client, team, ["debug-auto"])
    node = w.update_issue(
        client, team, issue["id"], title="New", body="Body", state=S.IN_PROGRESS, label_ids=labels
    )
    read = issue_from(node, "ENG")
    assert (read.title, read.body, read.workflow_state) == ("New", "Body", S.IN_PROGRESS)
    assert (read.estimate, read.priority, read.labels) == (Estimate.S, Priority.P2, ("debug-auto",))
    cleared = issue_from(
        w.update_issue(client, team, issue["id"], estimate=None, priority=None), "ENG"
    )
    assert (cleared.estimate, cleared.priority, cleared.title) == (None, None, "New")


def test_an_update_whose_answer_was_lost_is_applied(fake, client, team):
    issue = w.create_issue(client, team, "Moving")
    lost_after_write(fake, "UpdateIssue")
    node = w.update_issue(client, team, issue["id"], state=S.DONE, estimate=Estimate.XL)
    read = issue_from(node, "ENG")
    assert (read.workflow_state, read.estimate, read.is_open) == (S.DONE, Estimate.XL, False)
    assert sent(fake, "UpdateIssue") == 2


def test_an_assignee_is_set_and_cleared(fake, client, team):
    ada = fake.workspace.users[0]
    issue = w.create_issue(client, team, "Owned")
    assert issue_from(
        w.update_issue(client, team, issue["id"], assignee_id=ada.id), "ENG"
    ).assignees == ("Ada Lovelace",)
    assert (
        issue_from(w.update_issue(client, team, issue["id"], assignee_id=None), "ENG").assignees
        == ()
    )


def test_a_parent_is_set_and_cleared_even_when_the_answer_was_lost(fake, client, team):
    parent = w.create_issue(client, team, "Epic")
    child = w.create_issue(client, team, "Part")
    lost_after_write(fake, "UpdateIssue")
    assert issue_from(w.set_parent(client, child["id"], parent["id"]), "ENG").parent == 1
    assert issue_from(w.issue_by_number(client, team, 1), "ENG").sub_issues == (2,)
    assert issue_from(w.set_parent(client, child["id"], None), "ENG").parent is None


def test_a_blocking_relation_is_made_once_however_often_it_is_asked(fake, client, team):
    blocker = w.create_issue(client, team, "First")
    blocked = w.create_issue(client, team, "Second")
    made = w.add_blocking(client, blocker["id"], blocked["id"])
    assert w.add_blocking(client, "ENG-1", "ENG-2") == made
    assert len(fake.workspace.relations) == 1
    assert issue_from(w.issue_by_number(client, team, 2), "ENG").blocked_by == (1,)
    assert issue_from(w.issue_by_number(client, team, 1), "ENG").blocking == (2,)


def test_a_lost_answer_to_a_relation_create_leaves_exactly_one_relation(fake, client, team):
    blocker = w.create_issue(client, team, "First")
    blocked = w.create_issue(client, team, "Second")
    lost_after_write(fake, "CreateIssueRelation")
    made = w.add_blocking(client, blocker["id"], blocked["id"])
    assert list(fake.workspace.relations) == [made]


def test_a_relation_is_removed_even_when_the_answer_was_lost(fake, client, team):
    blocker = w.create_issue(client, team, "First")
    blocked = w.create_issue(client, team, "Second")
    w.add_blocking(client, blocker["id"], blocked["id"])
    lost_after_write(fake, "DeleteIssueRelation")
    assert w.remove_blocking(client, blocker["id"], blocked["id"]) is True
    assert fake.workspace.relations == {}
    assert w.remove_blocking(client, blocker["id"], blocked["id"]) is False


def test_archiving_and_unarchiving_survive_a_lost_answer(fake, client, team):
    issue = w.create_issue(client, team, "Old news")
    lost_after_write(fake, "ArchiveIssue")
    w.archive_issue(client, issue["id"])
    assert issue_from(w.issue_by_number(client, team, 1), "ENG").archived
    assert r.read_rows(client, r.team_filter(team), archived=False) == []
    lost_after_write(fake, "UnarchiveIssue")
    w.unarchive_issue(client, issue["id"])
    assert not issue_from(w.issue_by_number(client, team, 1), "ENG").archived


def test_an_unknown_number_is_issue_not_found(client, team):
    with pytest.raises(IssueNotFound, match="#7 not found in Linear team ENG"):
        w.issue_by_number(client, team, 7)


def test_a_teams_issues_and_an_issues_comments_are_read_page_after_page(fake, client, team):
    for n in range(205):  # IssueRows pages by 200
        w.create_issue(client, team, f"Task {n}")
    w.archive_issue(client, "ENG-205")
    assert [n["identifier"] for n in r.read_rows(client, r.team_filter(team), archived=False)] == [
        f"ENG-{n}" for n in range(1, 205)
    ]
    assert len(r.read_rows(client, r.team_filter(team), archived=True)) == 205
    for n in range(105):  # IssueComments pages by 100
        w.create_comment(client, "ENG-1", f"Note {n}")
    bodies = [c["body"] for c in w.issue_comments(client, "ENG-1")]
    assert bodies == [f"Note {n}" for n in range(105)]
