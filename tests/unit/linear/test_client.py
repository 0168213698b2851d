"""The client's retries and refusals to retry, against the in-memory fake."""

from __future__ import annotations

import json

import pytest

from ralph._debuglog import disable_debug_log, enable_debug_log
from ralph.linear import (
    LinearAmbiguous,
    LinearAuthError,
    LinearClient,
    LinearInvalid,
    LinearRateLimited,
    LinearUnavailable,
    ResponseKind,
)
from ralph.linear import queries as q
from ralph.linear.fake import FakeLinear, ScriptedFault

from ...conftest import FakeClock

KEY = "lin_api_Zq8mWv3kT1xY7pRs"


@pytest.fixture
def clock():
    return FakeClock(1_800_000_000.0)


@pytest.fixture
def fake(clock):
    fake = FakeLinear(clock=clock)
    fake.add_token(KEY, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    return fake


@pytest.fixture
def slept():
    return []


@pytest.fixture
def client(fake, clock, slept):
    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.advance(seconds)

    return LinearClient(fake, KEY, clock=clock, sleep=sleep)


def team_id(client):
    return client.query(q.TEAM, {"key": "ENG"})["teams"]["nodes"][0]["id"]


def names(fake):
    return [r.name for r in fake.requests]


def test_a_read_is_asked_again_after_a_5xx_and_a_dropped_connection(fake, client, slept):
    fake.script(ScriptedFault.server_error("Viewer", 502), ScriptedFault.dropped("Viewer"))
    assert client.viewer()["name"] == "Ada Lovelace"
    assert names(fake) == ["Viewer"] * 3
    assert slept == [1.0, 4.0]


def test_a_read_gives_up_after_three_retries(fake, client):
    fake.script(*[ScriptedFault.server_error("Viewer")] * 4)
    with pytest.raises(LinearUnavailable, match="did not answer"):
        client.viewer()
    assert names(fake) == ["Viewer"] * 4


def test_a_write_whose_answer_was_lost_is_ambiguous_and_not_resent(fake, client):
    team = team_id(client)
    fake.script(ScriptedFault.dropped_after_write("CreateIssue"))
    variables = {"input": {"teamId": team, "title": "Once only"}}
    with pytest.raises(LinearAmbiguous) as raised:
        client.mutate(q.CREATE_ISSUE, variables)
    assert raised.value.operation == "CreateIssue"
    assert raised.value.variables == variables
    assert names(fake).count("CreateIssue") == 1
    assert [i.title for i in fake.workspace.issues.values()] == ["Once only"]


def test_a_write_refused_with_a_5xx_is_ambiguous_too(fake, client):
    fake.script(ScriptedFault.server_error("CreateIssue", 503))
    with pytest.raises(LinearAmbiguous):
        client.mutate(q.CREATE_ISSUE, {"input": {"teamId": team_id(client), "title": "T"}})
    assert names(fake).count("CreateIssue") == 1


def test_send_hands_the_classification_to_a_caller_that_reconciles(fake, client):
    fake.script(ScriptedFault.dropped_after_write("CreateIssue"))
    wanted = "0b7e3f52-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
    variables = {"input": {"teamId": team_id(client), "title": "T", "id": wanted}}
    assert client.send(q.CREATE_ISSUE, variables).kind is ResponseKind.INDETERMINATE
    # The caller looks before creating again: the client-made id says it exists.
    assert client.query(q.ISSUE, {"id": wanted})["issue"]["title"] == "T"


def test_a_write_refused_as_rate_limited_waits_and_goes_again(fake, client, slept):
    fake.script(ScriptedFault.rate_limited("CreateIssue", retry_in=30.0))
    data = client.mutate(q.CREATE_ISSUE, {"input": {"teamId": team_id(client), "title": "T"}})
    assert data["issueCreate"]["success"] is True
    assert names(fake).count("CreateIssue") == 2
    # One request's refill (an hour / 5,000), not the whole 30 s to the reset.
    assert slept == [pytest.approx(0.72)]


def test_rate_limiting_that_lasts_gives_up_after_five_bounded_waits(fake, client, slept):
    fake.script(*[ScriptedFault.rate_limited("Viewer", retry_in=5.0)] * 6)
    with pytest.raises(LinearRateLimited):
        client.viewer()
    assert len(slept) == 5
    assert max(slept) <= client.pacer.policy.max_pause


def test_a_bad_key_is_an_auth_error_and_is_not_retried(fake, clock):
    client = LinearClient(fake, "lin_api_wrong", clock=clock, sleep=clock.advance)
    with pytest.raises(LinearAuthError):
        client.viewer()
    assert len(fake.requests) == 1


def test_the_key_never_appears_in_an_error(fake, client):
    leaky = {"errors": [{"message": f"bad key {KEY}", "extensions": {"code": "INVALID_INPUT"}}]}
    fake.script(ScriptedFault("Viewer", status=400, body=leaky))
    with pytest.raises(LinearInvalid) as raised:
        client.viewer()
    assert KEY not in str(raised.value)
    assert KEY not in raised.value.reason


def test_the_pacer_learns_each_operations_cost(fake, client):
    client.query(q.TEAM, {"key": "ENG"})
    assert client.pacer.costs["Team"] == 144
    assert client.pacer.requests is not None
    assert client.pacer.requests.remaining == 4999


def test_a_mutation_is_refused_by_query_and_a_query_by_mutate(client):
    with pytest.raises(ValueError, match="mutation"):
        client.query(q.CREATE_ISSUE, {})
    with pytest.raises(ValueError, match="query"):
        client.mutate(q.VIEWER, {})


def test_the_debug_log_has_each_request_with_its_budgets_and_never_the_key(fake, client, tmp_path):
    enable_debug_log(tmp_path)
    try:
        fake.script(ScriptedFault("Viewer", status=400, body={"errors": [{"message": KEY}]}))
        with pytest.raises(LinearInvalid):
            client.viewer()
        client.viewer()
    finally:
        disable_debug_log()
    text = "".join(p.read_text() for p in tmp_path.glob("debug-*.jsonl"))
    events = [json.loads(line) for line in text.splitlines()]
    assert [(e["operation"], e["outcome"]) for e in events] == [
        ("Viewer", "invalid"),
        ("Viewer", "ok"),
    ]
    # The scripted refusal answered before running: only the second request was spent.
    assert events[1]["requestsRemaining"] == 4999
    assert KEY not in text
