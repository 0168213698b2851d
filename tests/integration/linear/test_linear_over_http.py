"""The Linear client over HTTP against FakeLinear on 127.0.0.1 (what a ``ralph`` process
pointed at ``RALPH_LINEAR_API_URL`` speaks)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from ralph.linear import HttpTransport, LinearAmbiguous, LinearAuthError, LinearClient, api_url
from ralph.linear import queries as q
from ralph.linear.fake import FakeLinear, ScriptedFault

KEY = "lin_api_Hq4nVx8cLp2wRt6y"
OAUTH = "lin_oauth_Jd7kPq2mXz9vBn4w"


@pytest.fixture
def fake() -> FakeLinear:
    # 3,600 requests an hour: one refills every second, so a spent budget is brief.
    fake = FakeLinear(requests_per_hour=3600)
    fake.add_token(KEY, "Ada Lovelace")
    fake.add_team("ENG", "Engineering", estimates="fibonacci")
    return fake


@pytest.fixture
def url(fake, monkeypatch) -> Iterator[str]:
    with fake.serve() as served:
        monkeypatch.setenv("RALPH_LINEAR_API_URL", served)
        yield served


@pytest.fixture
def client(url) -> Iterator[LinearClient]:
    client = LinearClient(HttpTransport(timeout=10.0), KEY)
    yield client
    client.close()


def test_the_client_reads_its_endpoint_from_the_environment(url, client):
    assert api_url() == url
    assert client.viewer()["name"] == "Ada Lovelace"


def test_create_update_and_page_through_a_teams_issues(client):
    team = client.query(q.TEAM, {"key": "ENG"})["teams"]["nodes"][0]
    done = next(s for s in team["states"]["nodes"] if s["type"] == "completed")
    created = [
        client.mutate(q.CREATE_ISSUE, {"input": {"teamId": team["id"], "title": f"Task {n}"}})[
            "issueCreate"
        ]["issue"]
        for n in range(55)
    ]
    changes = {"stateId": done["id"], "estimate": 5, "priority": 2, "parentId": created[1]["id"]}
    updated = client.mutate(q.UPDATE_ISSUE, {"id": "ENG-1", "input": changes})["issueUpdate"]
    assert updated["issue"]["state"]["name"] == "Done"
    assert (updated["issue"]["estimate"], updated["issue"]["priority"]) == (5, 2)
    assert updated["issue"]["parent"]["identifier"] == "ENG-2"
    rows = {"filter": {"team": {"id": {"eq": team["id"]}}}}
    listed = list(client.pages(q.ISSUE_ROWS, rows, ["issues"]))
    assert [i["identifier"] for i in listed] == [f"ENG-{n}" for n in range(1, 56)]
    assert listed[1]["children"]["nodes"] == [{"id": created[0]["id"]}]


def test_a_spent_budget_is_waited_out_briefly_and_the_read_succeeds(fake, client):
    fake.drain(KEY, requests=0)
    started = time.monotonic()
    assert client.viewer()["name"] == "Ada Lovelace"
    waited = time.monotonic() - started
    statuses = [r.status for r in fake.requests]
    assert statuses[0] == 400  # RATELIMITED, as Linear answers it
    assert statuses[-1] == 200
    # One request's refill is a second; the wait is that, not the hour to a full bucket.
    assert 0.5 <= waited < 30


def test_a_lost_answer_to_a_create_is_reported_ambiguous_and_not_resent(fake, client):
    team = client.query(q.TEAM, {"key": "ENG"})["teams"]["nodes"][0]["id"]
    parent = client.mutate(q.CREATE_ISSUE, {"input": {"teamId": team, "title": "Epic"}})
    parent_id = parent["issueCreate"]["issue"]["id"]
    fake.script(ScriptedFault.dropped_after_write("CreateIssue"))
    variables = {"input": {"teamId": team, "title": "Sub-task", "parentId": parent_id}}
    with pytest.raises(LinearAmbiguous):
        client.mutate(q.CREATE_ISSUE, variables)
    assert [r.name for r in fake.requests].count("CreateIssue") == 2  # the epic, the sub-task
    # What the caller does next: look under the parent before creating again.
    found = client.query(q.FIND_CHILD_BY_TITLE, {"parentId": parent_id, "title": "Sub-task"})
    assert len(found["issues"]["nodes"]) == 1


def test_an_api_key_goes_bare_and_an_oauth_token_as_a_bearer_token(fake, url):
    fake.add_token(OAUTH, "Grace Hopper", oauth=True)
    for token, name in ((KEY, "Ada Lovelace"), (OAUTH, "Grace Hopper")):
        client = LinearClient(HttpTransport(url), token)
        assert client.viewer()["name"] == name
        client.close()


def test_an_unknown_key_is_refused_over_http(url):
    client = LinearClient(HttpTransport(url), "lin_api_Nobody0000000000")
    with pytest.raises(LinearAuthError):
        client.viewer()
    client.close()
