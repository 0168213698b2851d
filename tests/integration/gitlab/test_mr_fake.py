"""The fake GitLab's merge requests answer as GitLab's REST API does: a diff note only on
a line the diff shows, replies and resolving in a discussion, an approval tied to the
head, lists filtered and paged, and the merge requests that close an issue."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from ralph.gitlab import GitLabClient, GitLabInvalid
from ralph.gitlab.fake import FakeGitLab
from ralph.gitlab.fake._mr_model import closing_iids

from ..conftest import GitProject, git

P = "/projects/acme%2Fproject"


@pytest.fixture
def client(project: GitProject, clock) -> Iterator[GitLabClient]:
    fake = FakeGitLab(clock=clock)
    fake.add_token("glpat-ralph", "ralph")
    fake.add_token("glpat-alice", "alice")
    fake.add_project("acme/project", repository=project.path)
    project.commit("main", {"story.txt": "".join(f"line {n}\n" for n in range(1, 31))}, "story")
    git(project.path, "reset", "-q", "--hard")
    yield GitLabClient(fake, "glpat-ralph", clock=clock, sleep=lambda _: None)
    assert fake.internal_errors == []


def open_mr(client: GitLabClient, project: GitProject, branch: str = "feature") -> Any:
    changed = "".join(f"line {n}\n" for n in range(1, 31)).replace("line 25\n", "25\n")
    project.commit(branch, {"story.txt": changed}, "work")
    body = {"source_branch": branch, "target_branch": "main", "title": f"Work on {branch}"}
    return client.request("POST", f"{P}/merge_requests", body=body)


def position(mr: Any, line: int) -> dict[str, Any]:
    refs = mr["diff_refs"]
    return {
        "position_type": "text",
        "base_sha": refs["base_sha"],
        "start_sha": refs["start_sha"],
        "head_sha": refs["head_sha"],
        "new_path": "story.txt",
        "old_path": "story.txt",
        "new_line": line,
    }


def test_a_diff_note_goes_only_on_a_line_the_diff_shows(client, project):
    mr = open_mr(client, project)
    path = f"{P}/merge_requests/{mr['iid']}/discussions"
    with pytest.raises(GitLabInvalid, match="line_code"):
        client.request("POST", path, body={"body": "far away", "position": position(mr, 5)})
    made = client.request("POST", path, body={"body": "Why?", "position": position(mr, 25)})
    assert made["notes"][0]["position"]["new_line"] == 25
    assert [d["id"] for d in client.pages(path)] == [made["id"]]


def test_a_reply_joins_the_discussion_and_resolving_resolves_every_note(client, project):
    mr = open_mr(client, project)
    path = f"{P}/merge_requests/{mr['iid']}/discussions"
    made = client.request("POST", path, body={"body": "Why?", "position": position(mr, 25)})
    client.request("POST", f"{path}/{made['id']}/notes", body={"body": "Because."})
    resolved = client.request("PUT", f"{path}/{made['id']}", body={"resolved": True})
    assert [(n["body"], n["resolved"]) for n in resolved["notes"]] == [
        ("Why?", True),
        ("Because.", True),
    ]
    with pytest.raises(GitLabInvalid):
        client.request("POST", f"{path}/{'0' * 40}/notes", body={"body": "lost"})


def test_an_approval_names_the_head_and_the_author_may_not_give_one(client, project, clock):
    mr = open_mr(client, project)
    alice = GitLabClient(client.transport, "glpat-alice", clock=clock, sleep=lambda _: None)
    where = f"/projects/{mr['project_id']}/merge_requests/{mr['iid']}"
    with pytest.raises(GitLabInvalid) as stale:
        alice.request("POST", where + "/approve", body={"sha": "0" * 40})
    assert stale.value.status == 409
    approvals = alice.request("POST", where + "/approve", body={"sha": mr["sha"]})
    assert [a["user"]["username"] for a in approvals["approved_by"]] == ["alice"]
    assert alice.request("POST", where + "/unapprove")["approved_by"] == []


def test_lists_filter_by_state_and_branch_and_page(client, project):
    first = open_mr(client, project, "one")
    open_mr(client, project, "two")
    client.request("PUT", f"{P}/merge_requests/{first['iid']}", body={"state_event": "close"})
    listed = list(client.pages(f"{P}/merge_requests", [("state", "all")], per_page=1))
    assert [m["iid"] for m in listed] == [2, 1]  # newest first, as GitLab sorts
    opened = list(client.pages(f"{P}/merge_requests", [("state", "opened")]))
    assert [m["source_branch"] for m in opened] == ["two"]
    by_branch = [("state", "all"), ("source_branch", "one")]
    assert [m["state"] for m in client.pages(f"{P}/merge_requests", by_branch)] == ["closed"]


def test_a_second_open_merge_request_from_a_branch_is_refused(client, project):
    open_mr(client, project)
    body = {"source_branch": "feature", "target_branch": "main", "title": "Again"}
    with pytest.raises(GitLabInvalid) as refused:
        client.request("POST", f"{P}/merge_requests", body=body)
    assert refused.value.status == 409


def test_the_merge_requests_closing_an_issue_are_listed(client, project):
    issue = client.request("POST", f"{P}/issues", body={"title": "Bug"})
    project.commit("fix", {"fix.txt": "x\n"}, "fix")
    body = {
        "source_branch": "fix",
        "target_branch": "main",
        "title": "Fix",
        "description": f"Fixes #{issue['iid']}",
    }
    mr = client.request("POST", f"{P}/merge_requests", body=body)
    closing = client.request("GET", f"{P}/issues/{issue['iid']}/closed_by")
    assert [m["iid"] for m in closing] == [mr["iid"]]


@pytest.mark.parametrize(
    ("description", "closed"),
    [
        ("Closes #12", [12]),
        ("fixes #3 and #4, resolves: #5", [3, 4, 5]),
        ("Implements #7\nSee #8", [7]),
        ("Closes group/other#9", []),
        ("Mentions #1 only", []),
    ],
)
def test_gitlabs_closing_pattern_names_the_projects_own_issues(description, closed):
    assert closing_iids(description) == closed
