"""What only the GitHub backend has to get right: the board's fields and GitHub's own
Status, markers never shown, every comment read, checks read back, the field cache."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ralph.errors import InvalidInput
from ralph.github import GitHubClient, Pacer, PacingPolicy, Tokens
from ralph.github.fake import FakeGitHub
from ralph.runtimes._environment import is_secret
from ralph.tracker import CheckConclusion, GitHubCodeHost, GitHubTracker, set_up_board
from ralph.workflow import WorkflowState

S = WorkflowState


@pytest.fixture
def github() -> FakeGitHub:
    fake = FakeGitHub()
    fake.add_token("token", "ralph")
    fake.add_repository("acme/shop")
    return fake


@pytest.fixture
def tracker(github) -> Iterator[GitHubTracker]:
    # No spacing and no content budget here: pacing has its own tests (fault script).
    pacer = Pacer(PacingPolicy(mutation_interval=0, content_per_minute=10_000))
    client = GitHubClient(github, Tokens("token"), pacer=pacer)
    board = set_up_board(client, "acme/shop").board
    yield GitHubTracker(client, owner="acme", repo="shop", project=board.number)
    assert github.internal_errors == []


def board_values(github, number):
    project = github.world.accounts["acme"].projects[0]
    item = next(i for i in project.item_list if i.content.number == number)
    names = {}
    for field in project.field_list:
        option = item.values.get(field.id)
        names[field.name] = next((o["name"] for o in field.option_list if o["id"] == option), None)
    return names


def test_a_workflow_state_also_sets_githubs_status(tracker, github):
    tracker.create_issue("A", state=S.BACKLOG)
    assert board_values(github, 1)["Status"] == "Todo"
    tracker.set_state(1, "Research Needed", command="ralph_triage")
    tracker.set_state(1, "__LOCK__", command="ralph_research")
    assert board_values(github, 1)["Workflow State"] == "Research in Progress"
    assert board_values(github, 1)["Status"] == "In Progress"


def test_markers_are_on_github_but_never_in_what_the_tracker_reads(tracker, github):
    tracker.create_issue("A", body="Why it matters.")
    tracker.add_comment(1, "## Research Document\n\nthoughts/x.md")
    stored = github.repository("acme/shop").issue_list[0]
    assert "<!-- ralph:op=" in stored.body
    assert "<!-- ralph:op=" in stored.comment_list[0].body
    issue = tracker.get_issue(1)
    assert issue.body == "Why it matters."
    assert issue.comments[0].body == "## Research Document\n\nthoughts/x.md"


def test_every_comment_is_read_past_the_first_page(tracker):
    tracker.create_issue("Chatty")
    for i in range(130):
        tracker.add_comment(1, f"comment {i}")
    comments = tracker.get_issue(1).comments
    assert [c.body for c in comments] == [f"comment {i}" for i in range(130)]


def test_changing_only_the_labels_leaves_title_and_body_as_they_are(tracker, github):
    """GitHub acts on an explicit null (a null title is refused, a null body empties
    the body): an update sends only what changes."""
    tracker.create_issue("Keep me", body="The why.")
    issue = tracker.update_issue(1, labels=["ralph"])
    assert (issue.title, issue.body, issue.labels) == ("Keep me", "The why.", ("ralph",))
    assert tracker.update_issue(1, body="").body == ""
    assert tracker.get_issue(1).title == "Keep me"


def test_the_fake_refuses_a_null_title_and_empties_a_body_sent_as_null(tracker, github):
    from ralph.errors import GitHubInvalid
    from ralph.github import queries as q

    tracker.create_issue("Keep me", body="The why.")
    node = github.repository("acme/shop").issue_list[0].id
    with pytest.raises(GitHubInvalid, match="Title can't be blank"):
        tracker.client.mutate(q.UPDATE_ISSUE, {"input": {"id": node, "title": None}})
    tracker.client.mutate(q.UPDATE_ISSUE, {"input": {"id": node, "body": None}})
    assert github.repository("acme/shop").issue_list[0].body == ""


def test_a_blocker_in_another_repository_is_named_not_mistaken_for_a_local_issue(tracker, github):
    """acme/lib#1 blocking our #2 is not our #1: it gates #2 until closed there, and
    neither the local lists nor cycle checks read it as #1."""
    github.add_repository("acme/lib")
    foreign = github.add_issue("acme/lib", "Library fix")
    tracker.create_issue("Local one", state=S.RESEARCH_NEEDED)
    tracker.create_issue("Waits for the library", state=S.RESEARCH_NEEDED)
    github.repository("acme/shop").issue_list[1].blocked_by.append(foreign)
    waiting = tracker.get_issue(2)
    assert (waiting.blocked_by, waiting.foreign_blockers) == ((), ("acme/lib#1",))
    assert tracker.get_issue(1).blocking == ()
    picked = [i.number for i in tracker.actionable(command="ralph_research")]
    assert picked == [1]
    tracker.add_dependency(1, 2)  # no cycle through the foreign #1
    foreign.state = "CLOSED"
    assert tracker.get_issue(2).foreign_blockers == ()
    assert [i.number for i in tracker.actionable(command="ralph_research")] == [2]


def test_a_parent_or_sub_issue_in_another_repository_is_not_a_local_relation(tracker, github):
    github.add_repository("acme/lib")
    epic = github.add_issue("acme/lib", "Cross-repository epic")
    tracker.create_issue("Local child")
    tracker.create_issue("Local parent")
    child = github.repository("acme/shop").issue_list[0]
    child.parent, epic.children = epic, [child]
    foreign_child = github.add_issue("acme/lib", "Foreign child")
    local_parent = github.repository("acme/shop").issue_list[1]
    local_parent.children.append(foreign_child)
    assert tracker.get_issue(1).parent is None
    assert tracker.get_issue(2).sub_issues == ()
    assert tracker.advance_parent(1).reason == "Issue has no parent"


def test_an_issue_made_on_github_by_hand_joins_the_board_on_its_first_field_write(tracker, github):
    shop = github.repository("acme/shop")
    from ralph.github.fake._model import Issue

    by_hand = Issue(shop, shop.next_number(), "Typed on github.com", "", "someone")
    shop.issue_list.append(by_hand)
    assert tracker.get_issue(1).workflow_state is None
    tracker.set_state(1, "Backlog")
    assert tracker.get_issue(1).workflow_state is S.BACKLOG


def test_labels_that_do_not_exist_yet_are_created_once(tracker, github):
    tracker.create_issue("A", labels=["bug", "ui"])
    tracker.create_issue("B", labels=["Bug"])  # GitHub's label names ignore case
    assert sorted(label.name for label in github.repository("acme/shop").label_list) == [
        "bug",
        "ui",
    ]
    assert tracker.get_issue(2).labels == ("bug",)


def test_checks_and_mergeability_are_read_back(tracker, github):
    tracker.create_issue("A")
    pr = GitHubCodeHost.of(tracker).create_pull_request(
        head="feature", base="main", title="A", body="Closes #1"
    )
    github.repository("acme/shop").pull_list[0].check_runs = {"tests": "failure", "lint": "pending"}
    read = GitHubCodeHost.of(tracker).get_pull_request(pr.number)
    assert {(c.name, c.conclusion, c.pending) for c in read.checks} == {
        ("tests", CheckConclusion.FAILURE, False),
        ("lint", None, True),
    }
    assert read.mergeable is True


def test_a_field_option_added_on_github_after_the_board_was_cached_is_found(tracker, github):
    tracker.create_issue("A", state=S.BACKLOG)
    project = github.world.accounts["acme"].projects[0]
    estimate = next(f for f in project.field_list if f.name == "Estimate")
    estimate.set_options([{"name": n} for n in ("XS", "S", "M", "L", "XL")])  # new ids
    workflow = next(f for f in project.field_list if f.name == "Workflow State")
    workflow.set_options(workflow.option_list)  # re-made on GitHub: every option id is new
    tracker.set_state(1, "Research Needed", command="ralph_triage")
    assert board_values(github, 1)["Workflow State"] == "Research Needed"


def test_a_board_without_ralphs_fields_says_how_to_add_them(github):
    github.add_project("acme", "Bare")
    client = GitHubClient(github, Tokens("token"), pacer=Pacer(PacingPolicy(mutation_interval=0)))
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=1)
    with pytest.raises(InvalidInput, match=r'no "Workflow State" field; run `ralph init'):
        tracker.create_issue("A", state=S.BACKLOG)


def test_the_token_variables_never_reach_an_agent():
    for name in (
        "RALPH_GH_TOKEN",
        "RALPH_GH_REPO_TOKEN",
        "RALPH_HERO_GITHUB_TOKEN",
        "RALPH_GH_PROJECT_TOKEN",
    ):
        assert is_secret(name)


def test_a_merge_cut_short_after_github_merged_is_settled_once(project, clock):
    from ralph.errors import GitHubAuthError
    from ralph.github.fake import ScriptedFault

    from ..tracker.conftest import github_tracker

    tracker = github_tracker(project.path, clock)
    project.commit("feature", {"a.txt": "a\n"}, "a")
    tracker.create_issue("A", state=S.IN_PROGRESS)
    tracker.set_state(1, "In Review", command="ralph_pr")
    pr = GitHubCodeHost.of(tracker).create_pull_request(
        head="feature", base="main", title="A", body="Closes #1"
    )
    fake = tracker.client.transport
    assert isinstance(fake, FakeGitHub)
    fake.script(ScriptedFault("MoveState", status=401, body={"message": "cut short"}))
    with pytest.raises(GitHubAuthError):
        GitHubCodeHost.of(tracker).merge_pull_request(
            pr.number
        )  # merged on GitHub; #1 not moved yet
    assert tracker.get_issue(1).workflow_state is S.IN_REVIEW

    GitHubCodeHost.of(tracker).settle_merged(pr.number)
    GitHubCodeHost.of(tracker).settle_merged(pr.number)
    issue = tracker.get_issue(1)
    assert issue.workflow_state is S.DONE
    assert not issue.is_open
    moves = [c.body for c in issue.comments if "→ Done" in c.body]
    assert len(moves) == 1
    assert "In Review → Done" in moves[0]


def test_an_issue_blocking_one_in_another_repository_lists_no_local_number_for_it(tracker, github):
    github.add_repository("acme/lib")
    foreign = github.add_issue("acme/lib", "Waits on the shop")
    tracker.create_issue("Shop change")
    foreign.blocked_by.append(github.repository("acme/shop").issue_list[0])
    assert tracker.get_issue(1).blocking == ()


def test_ralphs_fields_are_read_by_name_on_a_board_of_thirty_fields_made_before_them(github):
    """``fieldValues`` lists values by position, built-in ones first: Ralph's fields,
    made last on a busy board, would fall past a first page."""
    from ralph.github.fake._model import Field

    project = github.add_project("acme", "Ralph Workflow")
    for n in range(30):
        project.field_list.append(Field(project, f"Team field {n}", [{"name": "yes"}]))
    pacer = Pacer(PacingPolicy(mutation_interval=0, content_per_minute=10_000))
    client = GitHubClient(github, Tokens("token"), pacer=pacer)
    assert set_up_board(client, "acme/shop").board.number == project.number
    tracker = GitHubTracker(client, owner="acme", repo="shop", project=project.number)
    tracker.create_issue("Busy board", state=S.BACKLOG)
    item = project.item_list[0]
    for field in project.field_list[2:32]:
        item.values[field.id] = field.option_list[0]["id"]
    assert sum(item._value(f) is not None for f in project.field_list) > 30
    assert tracker.get_issue(1).workflow_state is S.BACKLOG
    assert [i.workflow_state for i in tracker.list_issues()] == [S.BACKLOG]


def test_an_escalated_issue_is_in_progress_on_githubs_status_not_done(tracker, github):
    """A board automation "close the issue when Status is Done" must not close every
    escalation; Canceled is terminal (and closed), so Done is right for it."""
    tracker.create_issue("A", state=S.BACKLOG)
    tracker.set_state(1, "Human Needed", command="human")
    assert board_values(github, 1)["Status"] == "In Progress"
    tracker.create_issue("B", state=S.BACKLOG)
    tracker.set_state(2, "Canceled", command="human")
    assert board_values(github, 2)["Status"] == "Done"


def test_a_status_that_is_right_already_is_not_written_again(tracker, github):
    tracker.create_issue("A", state=S.BACKLOG)
    before = len(github.requests)
    tracker.set_state(1, "Research Needed", command="ralph_triage")  # Todo -> Todo
    (move,) = [r for r in github.requests[before:] if r.mutation]
    assert move.name == "MoveState"
    assert sorted(move.variables) == ["audit", "state"]  # Workflow State only, no Status
    assert board_values(github, 1)["Status"] == "Todo"
    tracker.set_state(1, "Research in Progress", command="ralph_research")  # Todo -> In Progress
    (move,) = [r for r in github.requests[before:] if r.mutation][1:]
    assert sorted(move.variables) == ["audit", "state", "status"]
    assert board_values(github, 1)["Status"] == "In Progress"


def test_a_body_or_comment_too_long_for_github_is_cut_with_a_note_before_the_marker(
    tracker, github
):
    """GitHub refuses more than 65,536 characters ("Body is too long"): Ralph cuts at
    60,000 and says where the whole text is; the marker still follows."""
    long_text = "x" * 70_000
    tracker.create_issue("Long", body=long_text)
    comment = tracker.add_comment(1, long_text)
    stored = github.repository("acme/shop").issue_list[0]
    for body in (stored.body, stored.comment_list[0].body):
        assert len(body) <= 65_536
        assert "Cut by Ralph at 60,000 of 70,000 characters" in body
        assert body.rstrip().endswith("-->")  # the marker comes after the note
    assert comment.body == tracker.stored_text(long_text)
    assert tracker.get_issue(1).comments[0].body == tracker.stored_text(long_text)
    assert tracker.stored_text("short") == "short"


def test_the_fake_refuses_a_body_over_65536_characters_as_github_does(tracker):
    from ralph.errors import GitHubInvalid
    from ralph.github import queries as q

    repository = tracker.repository_id()
    with pytest.raises(GitHubInvalid, match=r"Body is too long \(maximum is 65536 characters\)"):
        tracker.client.mutate(
            q.CREATE_ISSUE, q.input_of(repositoryId=repository, title="t", body="x" * 65_537)
        )


def test_the_fake_refuses_a_title_over_256_characters_as_github_does(tracker):
    from ralph.errors import GitHubInvalid
    from ralph.github import queries as q

    repository = tracker.repository_id()
    with pytest.raises(GitHubInvalid, match=r"Title is too long \(maximum is 256 characters\)"):
        tracker.client.mutate(q.CREATE_ISSUE, q.input_of(repositoryId=repository, title="t" * 257))


def test_the_tracker_refuses_a_title_over_256_characters_before_asking_github(tracker, github):
    before = len(github.requests)
    with pytest.raises(InvalidInput, match="at most 256"):
        tracker.create_issue("t" * 257)
    assert len(github.requests) == before


def test_dependencies_past_the_first_fifty_are_paged_in(tracker, github):
    for n in range(61):
        tracker.create_issue(f"Issue {n + 1}")
    shop = github.repository("acme/shop")
    last = shop.issue_list[-1]
    last.blocked_by.extend(shop.issue_list[:60])
    assert len(tracker.get_issue(61).blocked_by) == 60
    assert len(next(i for i in tracker.list_issues() if i.number == 61).blocked_by) == 60
    assert len(tracker.get_issue(1).blocking) == 1


def test_the_fake_keeps_githubs_sub_issue_limits_of_100_per_parent_and_eight_levels(
    tracker, github
):
    from ralph.errors import GitHubInvalid

    assert (tracker.max_sub_issues, tracker.max_levels) == (100, 8)
    shop = github.repository("acme/shop")
    tracker.create_issue("Parent")
    for n in range(100):
        child = github.add_issue("acme/shop", f"Child {n}")
        child.parent = shop.issue_list[0]
        shop.issue_list[0].children.append(child)
    with pytest.raises(GitHubInvalid, match="more than 100 sub-issues"):
        tracker.create_issue("One too many", parent=1)
    tracker.create_issue("Level 1")
    top = shop.issue_list[-1].number
    for level in range(2, 9):
        top = tracker.create_issue(f"Level {level}", parent=top).number
    with pytest.raises(GitHubInvalid, match="nested more than 8 levels"):
        tracker.create_issue("Level 9", parent=top)


def test_an_issue_on_more_boards_than_one_read_has_is_read_on_ralphs_board(tracker, github):
    """An issue's project items come ten at a time: an issue on eleven other boards
    first has Ralph's item on a later page, and its state must not read as None."""
    from ralph.github.fake._model import Item

    issue = github.add_issue("acme/shop", "On every board")
    for n in range(11):
        other = github.add_project("acme", f"Team board {n}")
        item = Item(other, issue)
        other.item_list.append(item)
        issue.items.append(item)
    tracker.set_state(issue.number, "Backlog", command="human")
    assert tracker.get_issue(issue.number).workflow_state is S.BACKLOG
    assert [i.workflow_state for i in tracker.list_issues()] == [S.BACKLOG]
    assert tracker.get_issue(issue.number).workflow_state is S.BACKLOG  # and again


def test_an_issue_closed_as_a_duplicate_names_the_original_on_github(tracker, github):
    from ralph.tracker import CloseReason

    for title in ("Original", "Again", "Once more"):
        tracker.create_issue(title)
    stored = github.repository("acme/shop").issue_list
    closed = tracker.close_issue(2, CloseReason.DUPLICATE, duplicate_of=1)
    assert closed.close_reason is CloseReason.DUPLICATE
    assert stored[1].duplicate_of is stored[0]
    # A number that names no issue here (an agent's guess) closes it without a link.
    assert not tracker.close_issue(3, CloseReason.DUPLICATE, duplicate_of=99).is_open
    assert stored[2].duplicate_of is None


def test_an_edit_adds_and_removes_labels_by_their_own_mutations(tracker, github):
    # updateIssue's labelIds would replace every label, one set meanwhile too
    tracker.create_issue("A", labels=["old", "other"])
    before = len(github.requests)
    edited = tracker.edit_issue(1, title="B", add_labels=["new"], remove_labels=["old"])
    sent = [r.name for r in github.requests[before:] if r.mutation]
    assert sent == ["CreateLabel", "UpdateIssue", "AddLabels", "RemoveLabels"]
    assert (edited.title, sorted(edited.labels)) == ("B", ["new", "other"])
