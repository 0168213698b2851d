"""The fake Jira refuses what Jira refuses: requests its published OpenAPI document
does not allow (in Jira's error shape), JQL beyond what it parses, text past Jira's
limits, and a move its project's workflow lacks."""

from __future__ import annotations

import pytest

from ralph._rest_http import RestRequest
from ralph.jira import JiraClient, JiraInvalid, to_adf
from ralph.jira.fake import FakeJira

API = "/rest/api/3"
TASK = {"project": {"key": "PROJ"}, "issuetype": {"name": "Task"}, "summary": "An issue"}


def _refusal(fake: FakeJira, request: RestRequest) -> list[str]:
    reply = fake.send(request)
    assert reply.status == 400, reply
    assert set(reply.body) == {"errorMessages", "errors"}
    return list(reply.body["errorMessages"]) + list(reply.body["errors"].values())


def test_a_path_the_document_does_not_have_is_refused(fake):
    assert _refusal(fake, RestRequest("GET", f"{API}/issues/PROJ-1")) == [
        f"no operation GET {API}/issues/PROJ-1 in the published API"
    ]


def test_an_unknown_or_mistyped_query_parameter_is_refused(fake):
    [problem] = _refusal(fake, RestRequest("GET", f"{API}/myself", (("verbose", "1"),)))
    assert "unknown query parameter 'verbose'" in problem
    [problem] = _refusal(
        fake, RestRequest("GET", f"{API}/issue/PROJ-1/comment", (("maxResults", "many"),))
    )
    assert "'many' is not an integer" in problem


def test_a_body_that_breaks_the_operations_schema_is_refused(fake):
    [problem] = _refusal(fake, RestRequest("POST", f"{API}/issue", body={"fields": "nope"}))
    assert "createIssue: fields" in problem
    problems = _refusal(
        fake, RestRequest("POST", f"{API}/search/jql", body={"jql": "project = PROJ", "pages": 2})
    )
    assert any("'pages' was unexpected" in p for p in problems)
    assert fake.site.issues == {}


def test_read_only_properties_are_refused_in_a_request(fake):
    problems = _refusal(
        fake,
        RestRequest("POST", f"{API}/issue/PROJ-1/comment", body={"body": to_adf("x"), "id": "7"}),
    )
    assert any("id is read-only" in p for p in problems)


@pytest.mark.parametrize(
    ("jql", "says"),
    [
        ("project = PROJ OR labels = bug", "AND between clauses"),
        ("summary ~ words", "does not exist"),
        ("project = PROJ AND key in (PROJ-9)", "An issue with key 'PROJ-9' does not exist"),
        ("project = NOPE", "does not exist for the field 'project'"),
        ("project = PROJ ORDER BY summary", "Not able to sort"),
        ("updated >= yesterday", "invalid"),
        ("", "Unbounded JQL queries are not allowed"),
    ],
)
def test_jql_beyond_the_subset_is_refused_as_jira_does(fake, client, jql, says):
    with pytest.raises(JiraInvalid, match=says):
        list(client.search(jql, ["id"]))


def test_jql_finds_by_project_key_status_labels_parent_and_dates(fake, client, clock):
    epic = client.post("/issue", {"fields": {**TASK, "labels": ["epic"]}})
    clock.advance(3600)
    subtask = {**TASK, "issuetype": {"name": "Subtask"}, "parent": {"key": epic["key"]}}
    client.post("/issue", {"fields": subtask})

    def keys(jql: str) -> list[str]:
        return [i["key"] for i in client.search(jql, ["id"])]

    assert keys("project = PROJ ORDER BY key ASC") == ["PROJ-1", "PROJ-2"]
    assert keys('labels = "epic"') == ["PROJ-1"]
    assert keys("parent = PROJ-1") == ["PROJ-2"]
    assert keys(
        "project = PROJ AND statusCategory != Done AND key in (PROJ-1, PROJ-2) ORDER BY key DESC"
    ) == ["PROJ-2", "PROJ-1"]
    assert keys('project = PROJ AND created >= "2027-01-15 08:30"') == ["PROJ-2"]
    assert keys("project = PROJ AND reporter = currentUser() AND parent is EMPTY") == ["PROJ-1"]


def test_text_past_jiras_limits_is_refused(fake, client):
    with pytest.raises(JiraInvalid, match="less than 255 characters"):
        client.post("/issue", {"fields": {**TASK, "summary": "x" * 256}})
    with pytest.raises(JiraInvalid, match="32,767 characters"):
        client.post("/issue", {"fields": {**TASK, "description": to_adf("y" * 32_768)}})
    with pytest.raises(JiraInvalid, match="contains spaces"):
        client.post("/issue", {"fields": {**TASK, "labels": ["two words"]}})
    client.post("/issue", {"fields": TASK})
    empty = {"type": "doc", "version": 1, "content": [{"type": "text", "text": ""}]}
    with pytest.raises(JiraInvalid, match="non-empty text"):
        client.post("/issue/PROJ-1/comment", {"body": empty})


def test_parents_follow_jiras_hierarchy_epic_standard_sub_task(fake, client):
    client.post("/issue", {"fields": {**TASK, "issuetype": {"name": "Epic"}}})
    client.post("/issue", {"fields": {**TASK, "parent": {"key": "PROJ-1"}}})
    client.post(
        "/issue",
        {"fields": {**TASK, "issuetype": {"name": "Subtask"}, "parent": {"key": "PROJ-2"}}},
    )
    with pytest.raises(JiraInvalid, match="one level above"):
        client.post("/issue", {"fields": {**TASK, "parent": {"key": "PROJ-2"}}})
    with pytest.raises(JiraInvalid, match="one level above"):
        client.put("/issue/PROJ-3", {"fields": {"parent": {"key": "PROJ-1"}}})
    with pytest.raises(JiraInvalid, match="must have a parent"):
        client.put("/issue/PROJ-3", {"fields": {"parent": None}})
    assert len(fake.site.issues) == 3


def test_a_transition_the_workflow_lacks_is_neither_offered_nor_taken(fake, client):
    client.post("/issue", {"fields": TASK})
    fake.remove_transition("PROJ", "Done", source="To Do")
    offered = [t["to"]["name"] for t in client.get("/issue/PROJ-1/transitions")["transitions"]]
    assert "Done" not in offered
    assert "In Progress" in offered
    done = fake.site.projects["PROJ"].status("Done")
    assert done is not None
    with pytest.raises(JiraInvalid, match="is not valid for this issue"):
        client.post("/issue/PROJ-1/transitions", {"transition": {"id": done.id}})


def test_a_move_to_a_done_status_resolves_the_issue_and_a_move_back_clears_it(fake, client):
    client.post("/issue", {"fields": TASK})
    project = fake.site.projects["PROJ"]
    canceled, backlog = project.status("Canceled"), project.status("Backlog")
    assert canceled is not None
    assert backlog is not None
    fake.add_screen("PROJ", "Canceled", ("resolution",))
    client.post(
        "/issue/PROJ-1/transitions",
        {"transition": {"id": canceled.id}, "fields": {"resolution": {"name": "Won't Do"}}},
    )
    fields = client.get("/issue/PROJ-1", [("fields", "resolution,resolutiondate")])["fields"]
    assert fields["resolution"] == {"name": "Won't Do"}
    assert fields["resolutiondate"]
    client.post("/issue/PROJ-1/transitions", {"transition": {"id": backlog.id}})
    assert client.get("/issue/PROJ-1", [("fields", "resolution")])["fields"]["resolution"] is None


def test_a_burst_past_the_limit_is_answered_429_with_retry_after(clock):
    fake = FakeJira(clock=clock, burst_per_second=2)
    fake.add_account("ada@example.com", "token", "Ada")
    request = RestRequest("GET", f"{API}/myself")
    first, second, third = (fake.send(request) for _ in range(3))
    assert (first.status, second.status, third.status) == (200, 200, 429)
    assert third.headers["retry-after"] == "1"
    assert second.headers["x-ratelimit-nearlimit"] == "true"
    clock.advance(1.0)
    assert fake.send(request).status == 200


def test_jql_dates_relative_to_now_as_jira_writes_them(fake, client, clock):
    client.post("/issue", {"fields": TASK})
    clock.advance(600)
    client.post("/issue", {"fields": TASK})

    def keys(jql: str) -> list[str]:
        return [i["key"] for i in client.search(jql, ["id"])]

    assert keys("project = PROJ AND created >= -5m") == ["PROJ-2"]
    assert keys("project = PROJ AND created >= -1h ORDER BY key ASC") == ["PROJ-1", "PROJ-2"]
    assert keys("project = PROJ AND created < -5m") == ["PROJ-1"]


def test_a_new_issue_reaches_search_after_a_lag_unless_reconciled(clock):
    fake = FakeJira(clock=clock, search_lag=5.0)
    fake.add_account("ada@example.com", "token", "Ada")
    fake.add_project("PROJ")
    made = fake.send(RestRequest("POST", f"{API}/issue", body={"fields": TASK})).body

    def found(**extra: object) -> list[str]:
        body = {"jql": "project = PROJ", "fields": ["id"], **extra}
        reply = fake.send(RestRequest("POST", f"{API}/search/jql", body=body))
        assert reply.status == 200, reply
        return [i["id"] for i in reply.body["issues"]]

    assert found() == []
    assert found(reconcileIssues=[int(made["id"])]) == [made["id"]]
    too_many = {"jql": "project = PROJ", "reconcileIssues": list(range(1, 52))}
    assert (
        "at most 50" in _refusal(fake, RestRequest("POST", f"{API}/search/jql", body=too_many))[0]
    )
    clock.advance(5.0)
    assert found() == [made["id"]]


def test_jql_absolute_dates_are_in_the_accounts_time_zone(clock):
    fake = FakeJira(clock=clock)  # 2027-01-15 08:00 UTC
    fake.add_account("ada@example.com", "token", "Ada", time_zone="Asia/Tokyo")  # UTC+9
    fake.add_project("PROJ")
    client = JiraClient(fake, clock=clock, sleep=clock.advance)
    client.post("/issue", {"fields": TASK})
    assert client.myself()["timeZone"] == "Asia/Tokyo"
    assert len(list(client.search('project = PROJ AND created >= "2027-01-15 16:59"', []))) == 1
    assert list(client.search('project = PROJ AND created >= "2027-01-15 17:01"', [])) == []
