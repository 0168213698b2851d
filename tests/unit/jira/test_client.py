"""The Jira client on the fake: 429s waited out by Retry-After, reads retried within a
bound, writes never resent, Jira's refusals as Ralph's errors, searches paginated."""

from __future__ import annotations

from typing import Any

import pytest

from ralph.errors import TrackerError
from ralph.jira import (
    JiraAmbiguous,
    JiraAuthError,
    JiraClient,
    JiraInvalid,
    JiraNotFound,
    JiraRateLimited,
    JiraUnavailable,
)
from ralph.jira.fake import ScriptedFault

TASK = {"project": {"key": "PROJ"}, "issuetype": {"name": "Task"}}


def _create(client: JiraClient, summary: str = "An issue") -> dict[str, Any]:
    made: dict[str, Any] = client.post("/issue", {"fields": {**TASK, "summary": summary}})
    return made


def test_a_429_is_waited_out_by_its_retry_after_then_sent_again(fake, client, clock):
    fake.faults.append(ScriptedFault.rate_limited("GET /rest/api/3/myself", retry_after=7))
    started = clock.now
    assert client.myself()["displayName"] == "Ada Lovelace"
    assert clock.now - started == pytest.approx(7.0)
    assert [r.status for r in fake.requests] == [429, 200]


def test_a_write_refused_by_a_429_is_sent_again_since_it_did_not_run(fake, client):
    fake.faults.append(ScriptedFault.rate_limited("POST /rest/api/3/issue", retry_after=1))
    assert _create(client)["key"] == "PROJ-1"
    assert len(fake.site.issues) == 1


def test_a_limit_that_keeps_refusing_ends_in_rate_limited(fake, client):
    fake.faults.extend(ScriptedFault.rate_limited(retry_after=1) for _ in range(6))
    with pytest.raises(JiraRateLimited, match="kept rate limiting"):
        client.myself()
    assert len(fake.requests) == 6


def test_a_read_without_an_answer_is_asked_again_within_a_bound(fake, client):
    fake.faults.append(ScriptedFault.server_error("read"))
    fake.faults.append(ScriptedFault.dropped("read"))
    assert client.myself()["accountId"]
    fake.faults.extend(ScriptedFault.server_error("read") for _ in range(4))
    with pytest.raises(JiraUnavailable, match="did not answer"):
        client.myself()


def test_a_write_whose_answer_was_lost_is_not_sent_again(fake, client):
    fake.faults.append(ScriptedFault.dropped_after_write("POST /rest/api/3/issue"))
    with pytest.raises(JiraAmbiguous, match="may have happened"):
        _create(client)
    assert len(fake.site.issues) == 1  # it happened, once
    assert [r.method for r in fake.requests] == ["POST"]


def test_refusals_are_ralphs_tracker_errors(fake, client):
    with pytest.raises(JiraNotFound):
        client.get("/issue/PROJ-99")
    with pytest.raises(JiraInvalid, match="summary"):
        client.post("/issue", {"fields": {**TASK, "summary": "x" * 256}})
    intruder = JiraClient(fake.session("ada@example.com", "wrong"))
    with pytest.raises(JiraAuthError) as refused:
        intruder.myself()
    assert str(refused.value).endswith(
        "; check the API token in RALPH_JIRA_TOKEN and the email in ralph.toml's [jira]"
    )
    assert issubclass(JiraAuthError, TrackerError)


def test_a_search_pages_by_token_at_most_a_hundred_issues_a_page(fake, client):
    for n in range(1, 231):
        _create(client, f"Issue {n}")
    fake.requests.clear()
    found = list(client.search("project = PROJ ORDER BY key ASC", ["summary"], page=500))
    assert [i["fields"]["summary"] for i in found] == [f"Issue {n}" for n in range(1, 231)]
    assert len(fake.requests) == 3  # 100 + 100 + 30: Jira's page with fields is 100


def test_a_search_of_ids_only_takes_bigger_pages(fake, client):
    for n in range(1, 151):
        _create(client, f"Issue {n}")
    fake.requests.clear()
    assert len(list(client.search("project = PROJ", ["id"], page=1000))) == 150
    assert len(fake.requests) == 1


def test_jiras_errors_are_the_shared_service_errors_entry_points_map():
    from ralph.errors import (
        ServiceCredentialsRefused,
        ServiceNotFound,
        ServiceRateLimited,
        ServiceUnavailable,
    )

    assert issubclass(JiraAuthError, ServiceCredentialsRefused)
    assert issubclass(JiraNotFound, ServiceNotFound)
    assert issubclass(JiraRateLimited, ServiceRateLimited)
    assert issubclass(JiraUnavailable, ServiceUnavailable)
    assert issubclass(JiraAmbiguous, ServiceUnavailable)


def test_a_search_names_the_issues_to_reconcile_the_last_fifty(fake, client, clock):
    fake.site.search_lag = 60.0
    made = [_create(client, f"Issue {n}") for n in range(1, 56)]
    ids = [int(m["id"]) for m in made]
    found = list(client.search("project = PROJ", ["id"], reconcile=ids))
    assert sorted(int(i["id"]) for i in found) == ids[-50:]


class _Pages:
    """A transport whose search pages carry the tokens given, in order, forever."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.sent = 0

    def send(self, request: Any) -> Any:
        from ralph._graphql_http import Reply

        token = self.tokens[self.sent % len(self.tokens)]
        self.sent += 1
        return Reply(200, {}, {"issues": [{"id": str(self.sent)}], "nextPageToken": token})

    def close(self) -> None:
        return None


def test_a_search_whose_tokens_come_round_again_ends_in_one_error(clock):
    from ralph.jira import JiraError

    pages = _Pages(["a", "b"])
    client = JiraClient(pages, clock=clock, sleep=clock.advance)
    with pytest.raises(JiraError, match="page token came round again"):
        list(client.search("project = PROJ", ["id"]))
    assert pages.sent == 3


def test_a_search_stops_at_a_bound_on_its_pages(clock, monkeypatch):
    from ralph.jira import JiraError, _client

    monkeypatch.setattr(_client, "MAX_SEARCH_PAGES", 4)
    pages = _Pages([f"t{n}" for n in range(100)])
    client = JiraClient(pages, clock=clock, sleep=clock.advance)
    with pytest.raises(JiraError, match="more than 4 pages"):
        list(client.search("project = PROJ", ["id"]))
    assert pages.sent == 4


def test_a_long_rate_limit_is_waited_out_and_said_as_a_warning(fake, client, clock, caplog):
    fake.faults.append(ScriptedFault.rate_limited("GET /rest/api/3/myself", retry_after=600))
    with caplog.at_level("WARNING", logger="ralph.jira"):
        client.myself()
    [said] = [r for r in caplog.records if "rate limited" in r.getMessage()]
    assert said.levelname == "WARNING"
    assert "600" in said.getMessage()


def test_an_impatient_command_waits_a_rate_limit_briefly_then_says_why(fake, client, clock):
    fake.faults.append(ScriptedFault.rate_limited("GET /rest/api/3/myself", retry_after=10))
    fake.faults.append(ScriptedFault.rate_limited("GET /rest/api/3/myself", retry_after=600))
    started = clock.now
    with client.impatient(30.0), pytest.raises(JiraRateLimited) as refused:
        client.myself()
    assert clock.now - started == pytest.approx(10.0)
    assert "600" in str(refused.value)
    assert "\n" not in str(refused.value)
    fake.faults.append(ScriptedFault.rate_limited("GET /rest/api/3/myself", retry_after=600))
    client.myself()  # outside: waited out
    assert clock.now - started == pytest.approx(610.0)
