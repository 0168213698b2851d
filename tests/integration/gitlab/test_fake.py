"""The fake GitLab answers as GitLab does: it refuses what GitLab's published OpenAPI
document refuses, keeps GitLab's limits and shapes, and its labels, issues, notes and
links behave as GitLab's (scoped labels one per scope on Premium)."""

from __future__ import annotations

import pytest

from ralph._rest_http import RestRequest
from ralph.gitlab import GitLabClient, GitLabInvalid, GitLabNotFound
from ralph.gitlab.fake import FakeGitLab

from .conftest import PID, TOKEN


def send(fake, method, path, query=(), body=None, token=TOKEN):
    return fake.send(RestRequest(method, path, tuple(query), body, {"PRIVATE-TOKEN": token}))


ISSUES = f"/api/v4/projects/{PID}/issues"


def test_an_unknown_query_parameter_is_refused_by_the_published_document(fake):
    reply = send(fake, "GET", ISSUES, [("colour", "red")])
    assert reply.status == 400
    assert "unknown query parameter 'colour'" in reply.body["error"]
    assert fake.refused


def test_a_mistyped_or_unknown_enum_value_is_refused(fake):
    assert send(fake, "GET", ISSUES, [("state", "open")]).status == 400  # GitLab says opened
    assert send(fake, "GET", ISSUES, [("per_page", "ten")]).status == 400


def test_a_body_breaking_the_schema_is_refused(fake):
    assert send(fake, "POST", ISSUES, body={"title": 5}).status == 400
    assert send(fake, "POST", ISSUES, body={"description": "no title"}).status == 400
    link = send(fake, "POST", ISSUES + "/1/links", body={"target_issue_iid": "2"})
    assert link.status == 400


def test_a_path_gitlab_does_not_have_is_404(fake):
    assert send(fake, "GET", f"/api/v4/projects/{PID}/tickets").status == 404


def test_no_token_is_401_in_gitlabs_words(fake):
    reply = send(fake, "GET", "/api/v4/user", token="")
    assert (reply.status, reply.body) == (401, {"message": "401 Unauthorized"})


def test_every_answer_carries_the_rate_limit_headers(fake):
    headers = send(fake, "GET", "/api/v4/user").headers
    assert headers["ratelimit-limit"] == "2000"
    assert headers["ratelimit-remaining"] == "1999"
    assert int(headers["ratelimit-reset"]) % 60 == 0


def test_past_the_limit_it_answers_429_with_retry_after(clock):
    fake = FakeGitLab(clock=clock, requests_per_minute=2)
    fake.add_token(TOKEN, "ralph")
    assert [send(fake, "GET", "/api/v4/user").status for _ in range(3)] == [200, 200, 429]
    refused = send(fake, "GET", "/api/v4/user")
    assert int(refused.headers["retry-after"]) >= 1
    clock.advance(60)
    assert send(fake, "GET", "/api/v4/user").status == 200


def test_a_page_is_cut_to_a_hundred_as_gitlab_does_and_noted(fake):
    for n in range(120):
        send(fake, "POST", ISSUES, body={"title": f"i{n}"})
    reply = send(fake, "GET", ISSUES, [("per_page", "500")])
    assert len(reply.body) == 100
    assert reply.headers["x-per-page"] == "100"
    assert reply.headers["x-next-page"] == "2"
    assert reply.headers["x-total"] == "120"
    assert fake.warnings


def test_the_default_page_is_twenty(fake):
    for n in range(25):
        send(fake, "POST", ISSUES, body={"title": f"i{n}"})
    assert len(send(fake, "GET", ISSUES).body) == 20


def test_iids_count_per_project(fake, client):
    fake.add_project("acme/other")
    client.request("POST", f"/projects/{PID}/issues", body={"title": "a"})
    made = client.request("POST", "/projects/acme%2Fother/issues", body={"title": "b"})
    assert made["iid"] == 1
    assert made["references"]["full"] == "acme/other#1"


def test_scoped_labels_keep_one_per_scope_on_premium(client):
    client.request(
        "POST", f"/projects/{PID}/issues", body={"title": "t", "labels": ["ralph::Backlog", "ui"]}
    )
    moved = client.request("PUT", f"/projects/{PID}/issues/1", body={"add_labels": ["ralph::Done"]})
    assert moved["labels"] == ["ui", "ralph::Done"]
    nested = client.request(
        "PUT", f"/projects/{PID}/issues/1", body={"add_labels": ["a::b::c", "a::b::d"]}
    )
    assert [n for n in nested["labels"] if n.startswith("a::")] == ["a::b::d"]


def test_on_free_scoped_labels_add_up_and_weights_and_blocking_are_absent(clock):
    fake = FakeGitLab(clock=clock, premium=False)
    fake.add_token(TOKEN, "ralph")
    fake.add_project("acme/app")
    client = GitLabClient(fake, TOKEN, clock=clock, sleep=clock.advance)
    client.request(
        "POST", f"/projects/{PID}/issues", body={"title": "a", "weight": 3, "labels": ["s::1"]}
    )
    client.request("POST", f"/projects/{PID}/issues", body={"title": "b"})
    got = client.request("PUT", f"/projects/{PID}/issues/1", body={"add_labels": ["s::2"]})
    assert got["labels"] == ["s::1", "s::2"]
    assert got["weight"] is None
    link = client.request(
        "POST",
        f"/projects/{PID}/issues/1/links",
        body={"target_project_id": "acme/app", "target_issue_iid": "2", "link_type": "blocks"},
    )
    assert link["link_type"] == "relates_to"


def test_assigning_an_unknown_label_creates_it_and_a_comma_is_refused(client):
    client.request("POST", f"/projects/{PID}/issues", body={"title": "t", "labels": ["fresh"]})
    assert [la["name"] for la in client.pages(f"/projects/{PID}/labels")] == ["fresh"]
    with pytest.raises(GitLabInvalid, match="already exists"):
        client.request(
            "POST", f"/projects/{PID}/labels", body={"name": "Fresh", "color": "#ffffff"}
        )
    with pytest.raises(GitLabInvalid):
        client.request("POST", f"/projects/{PID}/labels", body={"name": "a,b", "color": "#ffffff"})


def test_notes_come_newest_first_unless_asked_and_label_changes_add_system_notes(client, clock):
    client.request("POST", f"/projects/{PID}/issues", body={"title": "t"})
    client.request("POST", f"/projects/{PID}/issues/1/notes", body={"body": "first"})
    clock.advance(1)
    client.request("POST", f"/projects/{PID}/issues/1/notes", body={"body": "second  \n*as typed*"})
    client.request("PUT", f"/projects/{PID}/issues/1", body={"add_labels": ["x"]})
    newest = client.request("GET", f"/projects/{PID}/issues/1/notes")
    assert [n["system"] for n in newest] == [True, False, False]
    oldest = [
        n["body"]
        for n in client.pages(f"/projects/{PID}/issues/1/notes", [("sort", "asc")])
        if not n["system"]
    ]
    assert oldest == ["first", "second  \n*as typed*"]


def test_a_blank_note_or_title_is_refused(client):
    client.request("POST", f"/projects/{PID}/issues", body={"title": "t"})
    with pytest.raises(GitLabInvalid):
        client.request("POST", f"/projects/{PID}/issues/1/notes", body={"body": "  "})
    with pytest.raises(GitLabInvalid, match="too long"):
        client.request("POST", f"/projects/{PID}/issues", body={"title": "x" * 256})


def test_links_show_from_each_side_and_a_second_is_refused(client):
    for title in ("a", "b"):
        client.request("POST", f"/projects/{PID}/issues", body={"title": title})
    body = {"target_project_id": "acme/app", "target_issue_iid": "2", "link_type": "blocks"}
    client.request("POST", f"/projects/{PID}/issues/1/links", body=body)
    assert [
        (n["iid"], n["link_type"]) for n in client.request("GET", f"/projects/{PID}/issues/2/links")
    ] == [(1, "is_blocked_by")]
    assert client.request("GET", f"/projects/{PID}/issues/1")["blocking_issues_count"] == 1
    with pytest.raises(GitLabInvalid, match="already assigned"):
        client.request(
            "POST", f"/projects/{PID}/issues/2/links", body={**body, "target_issue_iid": "1"}
        )
    link_id = client.request("GET", f"/projects/{PID}/issues/1/links")[0]["issue_link_id"]
    client.request("DELETE", f"/projects/{PID}/issues/2/links/{link_id}")
    assert client.request("GET", f"/projects/{PID}/issues/1/links") == []


def test_closing_and_reopening_by_state_event(client):
    client.request("POST", f"/projects/{PID}/issues", body={"title": "t"})
    closed = client.request("PUT", f"/projects/{PID}/issues/1", body={"state_event": "close"})
    assert (closed["state"], closed["closed_by"]["username"]) == ("closed", "ralph")
    assert [
        i["iid"]
        for i in client.request("GET", f"/projects/{PID}/issues", query=[("state", "opened")])
    ] == []
    opened = client.request("PUT", f"/projects/{PID}/issues/1", body={"state_event": "reopen"})
    assert (opened["state"], opened["closed_at"]) == ("opened", None)


def test_a_private_project_is_not_found_for_others(fake, clock):
    owner = fake.add_user("owner")
    fake.add_project("secret/app", members=(owner,))
    client = GitLabClient(fake, TOKEN, clock=clock, sleep=clock.advance)
    with pytest.raises(GitLabNotFound):
        client.request("GET", "/projects/secret%2Fapp")


def test_a_valid_request_the_fake_cannot_answer_is_its_own_gap(fake):
    assert send(fake, "GET", f"/api/v4/projects/{PID}/issues/1/time_stats").status == 404
    assert fake.internal_errors
    assert "time_stats" in str(fake.internal_errors[0])


def test_the_endpoints_gitlabs_document_lacks_are_checked_as_written_in_one_place(fake):
    from ralph.gitlab.fake import gitlab_document
    from ralph.gitlab.fake._missing import MISSING_PATHS

    send(fake, "POST", ISSUES, body={"title": "t"})
    notes = ISSUES + "/1/notes"
    assert send(fake, "POST", notes, body={"text": "no body"}).status == 400
    assert send(fake, "GET", notes, [("sort", "sideways")]).status == 400
    assert send(fake, "POST", notes, body={"body": "ok"}).status == 201
    document = gitlab_document()
    # Only added where the document has no such path: GitLab's own entries win.
    assert "/api/v4/projects/{id}/issues" not in MISSING_PATHS
    assert document.operation("GET", f"/api/v4/projects/{PID}/labels") is not None


def test_a_route_registered_again_replaces_the_first(fake):
    fake.routes.add("GET", "/api/v4/user", lambda call: {"id": 0, "username": "other"})
    assert send(fake, "GET", "/api/v4/user").body["username"] == "other"
