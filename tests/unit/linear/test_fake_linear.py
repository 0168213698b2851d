"""FakeLinear refuses what Linear refuses, in Linear's words, and spends the budgets."""

from __future__ import annotations

import threading

import pytest

from ralph.linear import LinearClient, LinearInvalid, LinearNotFound, ResponseKind
from ralph.linear import queries as q
from ralph.linear.fake import FakeLinear

from ...conftest import FakeClock

KEY = "lin_api_unit_test_key"


@pytest.fixture
def clock():
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def fake(clock):
    fake = FakeLinear(clock=clock)
    fake.add_token(KEY, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    fake.add_team("OPS", "Operations", estimates="fibonacci")
    return fake


@pytest.fixture
def client(fake, clock):
    return LinearClient(fake, KEY, clock=clock, sleep=clock.advance)


def team(client, key):
    return client.query(q.TEAM, {"key": key})["teams"]["nodes"][0]


def create(client, team_id, title="An issue", **fields):
    data = client.mutate(q.CREATE_ISSUE, {"input": {"teamId": team_id, "title": title, **fields}})
    return data["issueCreate"]["issue"]


def test_issues_are_numbered_per_team_with_the_teams_key(client):
    eng, ops = team(client, "ENG"), team(client, "OPS")
    made = [create(client, eng["id"]), create(client, ops["id"]), create(client, eng["id"])]
    assert [i["identifier"] for i in made] == ["ENG-1", "OPS-1", "ENG-2"]
    assert client.query(q.ISSUE, {"id": "ENG-2"})["issue"]["id"] == made[2]["id"]


def test_whole_numbers_come_back_as_integers_as_linears_json_has_them(client):
    issue = create(client, team(client, "ENG")["id"], estimate=3, priority=2)
    assert (issue["estimate"], issue["priority"]) == (3, 2)
    assert all(type(v) is int for v in (issue["estimate"], issue["priority"]))


def test_concurrent_creates_get_distinct_numbers(client):
    eng = team(client, "ENG")["id"]
    made: list[str] = []

    def make() -> None:
        made.append(create(client, eng)["identifier"])

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(made, key=lambda i: int(i.split("-")[1])) == [f"ENG-{n}" for n in range(1, 9)]


def test_a_new_issue_starts_in_the_teams_backlog(client):
    assert create(client, team(client, "ENG")["id"])["state"]["type"] == "backlog"


def test_a_state_of_another_team_is_refused_and_nothing_changes(client):
    eng, ops = team(client, "ENG"), team(client, "OPS")
    issue = create(client, eng["id"])
    foreign = ops["states"]["nodes"][1]["id"]
    with pytest.raises(LinearInvalid, match="team"):
        client.mutate(q.UPDATE_ISSUE, {"id": issue["id"], "input": {"stateId": foreign}})
    assert client.query(q.ISSUE, {"id": issue["id"]})["issue"]["state"]["type"] == "backlog"


@pytest.mark.parametrize(
    ("scale", "extended", "accepted", "refused"),
    [
        ("tShirt", False, [1, 2, 3, 5, 8], [0, 4, 13]),
        ("tShirt", True, [13, 21], [34]),
        ("fibonacci", False, [1, 2, 3, 5, 8], [4, 13]),
        ("linear", False, [1, 4, 5], [6, 8]),
        ("exponential", True, [1, 4, 16, 64], [3, 5]),
        ("notUsed", False, [], [1]),
    ],
)
def test_an_estimate_off_the_teams_scale_is_refused(
    fake, client, scale, extended, accepted, refused
):
    fake.add_team("EST", "Estimates", estimates=scale, extended=extended)
    est = team(client, "EST")
    assert est["issueEstimationType"] == scale
    for value in accepted:
        assert create(client, est["id"], estimate=value)["estimate"] == value
    for value in refused:
        with pytest.raises(LinearInvalid, match="estimate"):
            create(client, est["id"], estimate=value)


def test_a_refused_create_takes_no_number(client):
    eng = team(client, "ENG")
    with pytest.raises(LinearInvalid):
        create(client, eng["id"], estimate=4)
    assert create(client, eng["id"])["identifier"] == "ENG-1"


def relate(client, blocker, blocked):
    variables = {"input": {"issueId": blocker, "relatedIssueId": blocked, "type": "blocks"}}
    return client.mutate(q.CREATE_RELATION, variables)["issueRelationCreate"]["issueRelation"]


def test_blocking_shows_on_both_issues_and_a_duplicate_is_refused(client):
    eng = team(client, "ENG")
    a, b = create(client, eng["id"]), create(client, eng["id"])
    relate(client, a["id"], b["id"])
    blocked = client.query(q.ISSUE, {"id": b["id"]})["issue"]
    assert [r["issue"]["identifier"] for r in blocked["inverseRelations"]["nodes"]] == ["ENG-1"]
    with pytest.raises(LinearInvalid, match="already exists"):
        relate(client, a["id"], b["id"])
    with pytest.raises(LinearInvalid, match="itself"):
        relate(client, a["id"], a["id"])


def test_a_cycle_is_allowed_unless_the_fake_is_asked_to_refuse_it(fake, client):
    eng = team(client, "ENG")
    a, b = create(client, eng["id"]), create(client, eng["id"])
    relate(client, a["id"], b["id"])
    relate(client, b["id"], a["id"])  # Linear's rule on cycles is not documented
    fake.root.refuse_cycles = True
    c = create(client, eng["id"])
    relate(client, b["id"], c["id"])
    with pytest.raises(LinearInvalid, match="cycle"):
        relate(client, c["id"], b["id"])


def test_an_issue_cannot_become_its_own_ancestor(client):
    eng = team(client, "ENG")
    parent = create(client, eng["id"])
    child = create(client, eng["id"], parentId=parent["id"])
    with pytest.raises(LinearInvalid, match="ancestor"):
        client.mutate(q.UPDATE_ISSUE, {"id": parent["id"], "input": {"parentId": child["id"]}})


def test_an_unknown_id_answers_linears_error_shape(fake):
    reply = fake.post({"query": q.ISSUE.text, "variables": {"id": "ENG-404"}}, KEY)
    (error,) = reply.body["errors"]
    assert reply.status == 400
    assert error["message"] == "Entity not found: Issue"
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert error["extensions"]["type"] == "invalid input"
    assert error["path"] == ["issue"]


def test_an_unknown_key_is_an_authentication_error(fake):
    reply = fake.post({"query": q.VIEWER.text}, "lin_api_nobody")
    assert reply.body["errors"][0]["extensions"]["code"] == "AUTHENTICATION_ERROR"


def test_an_api_key_sent_as_a_bearer_token_is_refused(fake):
    reply = fake.answer_http({"query": q.VIEWER.text}, f"Bearer {KEY}")
    assert "Remove the Bearer prefix" in reply.body["errors"][0]["message"]
    assert fake.answer_http({"query": q.VIEWER.text}, KEY).status == 200


def test_a_page_above_250_is_refused(client, fake):
    eng = team(client, "ENG")
    payload = {"query": q.TEAM_LABELS.text, "variables": {"teamId": eng["id"], "first": 251}}
    reply = fake.post(payload, KEY)
    assert "250" in reply.body["errors"][0]["message"]


def test_pages_follow_the_cursor_to_the_end(fake, client):
    eng = team(client, "ENG")
    for n in range(45):
        create(client, eng["id"], title=f"Issue {n}")
    for n in range(45, 205):
        create(client, eng["id"], title=f"Issue {n}")
    rows = {"filter": {"team": {"id": {"eq": eng["id"]}}}}
    issues = list(client.pages(q.ISSUE_ROWS, rows, ["issues"]))  # 200 a page
    assert [i["title"] for i in issues] == [f"Issue {n}" for n in range(205)]
    assert [r.name for r in fake.requests[-2:]] == ["IssueRows", "IssueRows"]


def test_archived_issues_are_left_out_unless_asked_for(client):
    eng = team(client, "ENG")
    kept, gone = create(client, eng["id"]), create(client, eng["id"])
    client.mutate(q.ARCHIVE_ISSUE, {"id": gone["id"]})
    variables = {"filter": {"team": {"id": {"eq": eng["id"]}}}}
    listed = list(client.pages(q.ISSUE_ROWS, variables, ["issues"]))
    assert [i["id"] for i in listed] == [kept["id"]]
    everything = list(client.pages(q.ISSUE_ROWS, {**variables, "archived": True}, ["issues"]))
    assert len(everything) == 2


def test_a_client_made_id_names_the_issue_and_cannot_be_reused(client):
    eng = team(client, "ENG")
    wanted = "8d3f2c1e-5b6a-4c7d-9e8f-0a1b2c3d4e5f"
    assert create(client, eng["id"], id=wanted)["id"] == wanted
    with pytest.raises(LinearInvalid, match="already exists"):
        create(client, eng["id"], id=wanted)


def test_a_child_and_a_comment_are_found_by_what_the_writer_knows(client):
    eng = team(client, "ENG")
    parent = create(client, eng["id"])
    child = create(client, eng["id"], title="Write the docs", parentId=parent["id"])
    create(client, eng["id"], title="Write the docs")  # not under that parent
    found = client.query(
        q.FIND_CHILD_BY_TITLE, {"parentId": parent["id"], "title": "Write the docs"}
    )
    assert [i["id"] for i in found["issues"]["nodes"]] == [child["id"]]
    body = "<!-- ralph:comment 42 -->\nThe plan."
    client.mutate(q.CREATE_COMMENT, {"input": {"issueId": child["id"], "body": body}})
    variables = {"issueId": child["id"], "header": "<!-- ralph:comment 42 -->"}
    assert client.query(q.FIND_COMMENT, variables)["comments"]["nodes"][0]["body"] == body


def test_a_spent_request_budget_answers_ratelimited_with_a_400_and_refills(fake, client, clock):
    fake.drain(KEY, requests=0)
    outcome = client.send(q.VIEWER, {})
    assert outcome.kind is ResponseKind.RATE_LIMITED
    assert fake.requests[-1].status == 400
    assert outcome.wait == pytest.approx(3600 / 5000)
    clock.advance(outcome.wait)
    assert client.send(q.VIEWER, {}).kind is ResponseKind.OK


def test_a_spent_complexity_budget_refuses_an_expensive_read_but_not_a_cheap_one(fake, client):
    eng = team(client, "ENG")
    fake.drain(KEY, complexity=100)
    rows = {"filter": {"team": {"id": {"eq": eng["id"]}}}, "first": 200}
    assert client.send(q.ISSUE_ROWS, rows).kind is ResponseKind.RATE_LIMITED
    assert client.send(q.VIEWER, {}).kind is ResponseKind.OK


def test_every_answer_reports_both_budgets_and_the_cost(fake, client):
    client.query(q.VIEWER)
    reply = fake.post({"query": q.VIEWER.text}, KEY)
    assert reply.headers["x-ratelimit-requests-limit"] == "5000"
    assert reply.headers["x-ratelimit-requests-remaining"] == "4998"
    assert reply.headers["x-ratelimit-complexity-limit"] == "250000"
    assert reply.headers["x-complexity"] == "2"
    assert int(reply.headers["x-ratelimit-requests-reset"]) > 1e12  # epoch milliseconds


def test_a_query_above_the_complexity_cap_is_refused(fake, client):
    # 1 + 250 x (1 + 1 + 50 x 1.1) = 14,251 points
    big = "query Big { issues(first: 250) { nodes { children { nodes { id } } } } }"
    payload = {"query": big, "variables": {}}
    reply = fake.post(payload, KEY)
    assert "too complex" in reply.body["errors"][0]["message"]


def test_unknown_ids_raise_not_found(client):
    with pytest.raises(LinearNotFound):
        client.query(q.ISSUE, {"id": "ENG-404"})


def test_the_fake_has_no_internal_errors_after_a_workout(fake, client):
    test_pages_follow_the_cursor_to_the_end(fake, client)
    assert fake.internal_errors == []


class _Node:
    def __init__(self, n: int) -> None:
        self.id = f"id{n}"


@pytest.mark.parametrize(
    ("args", "ids", "more"),
    [
        ({}, [f"id{n}" for n in range(50)], True),  # Linear's default page
        ({"first": 0}, [], True),
        ({"first": 2, "after": "id57"}, ["id58", "id59"], False),
        ({"last": 2}, ["id58", "id59"], False),
    ],
)
def test_a_connection_pages_as_relay_says(args, ids, more):
    from ralph.linear.fake._model import connection

    page = connection([_Node(n) for n in range(60)], args)
    assert [n.id for n in page["nodes"]] == ids
    assert page["pageInfo"]["hasNextPage"] is more
