"""The GitLab client against the fake: pacing by RateLimit-* headers, 429s waited out,
reads retried, creating writes never resent blind, errors classified, pages followed."""

from __future__ import annotations

import pytest

from ralph._rest_http import Reply
from ralph.gitlab import (
    GitLabAmbiguous,
    GitLabAuthError,
    GitLabClient,
    GitLabError,
    GitLabInvalid,
    GitLabNotFound,
    GitLabRateLimited,
    GitLabUnavailable,
)
from ralph.gitlab.fake import FakeGitLab, ScriptedFault

from .conftest import PID, TOKEN


def test_the_token_goes_in_private_token_and_names_the_user(client):
    assert client.user()["username"] == "ralph"


def test_a_wrong_token_is_refused_as_auth_and_never_shown(fake, clock):
    other = GitLabClient(fake, "glpat-wrong-secret-987", clock=clock, sleep=clock.advance)
    with pytest.raises(GitLabAuthError) as caught:
        other.user()
    assert "glpat-wrong-secret-987" not in str(caught.value)
    assert caught.value.status == 401


def test_an_unknown_project_is_not_found(client):
    with pytest.raises(GitLabNotFound, match="404 Project Not Found"):
        client.request("GET", "/projects/acme%2Fnope")


def test_a_429_is_waited_for_its_retry_after_then_sent_again(fake, client, clock):
    fake.script(ScriptedFault.rate_limited(retry_after=7))
    start = clock.now
    assert client.request("GET", f"/projects/{PID}")["path_with_namespace"] == "acme/app"
    assert clock.now - start >= 7
    assert [r.status for r in fake.requests] == [429, 200]


def test_a_write_refused_by_429_is_sent_again_too(fake, client):
    """GitLab's limiter refuses before anything runs: a POST after a 429 is safe."""
    fake.script(ScriptedFault.rate_limited("POST", retry_after=1))
    client.request("POST", f"/projects/{PID}/issues", body={"title": "once"})
    assert len(fake.state.project("acme/app").issues) == 1


def test_rate_limiting_that_does_not_end_gives_up(fake, client):
    fake.script(*[ScriptedFault.rate_limited(retry_after=1) for _ in range(10)])
    with pytest.raises(GitLabRateLimited, match="kept rate limiting"):
        client.request("GET", "/user")
    assert len(fake.requests) == GitLabClient.MAX_RATE_LIMITED + 1


def test_the_window_spent_gives_a_429_until_the_minute_turns(fake, client, clock):
    fake.drain(TOKEN, 0)
    before = clock.now
    client.user()
    assert fake.requests[0].status == 429
    assert clock.now >= before - before % 60 + 60  # the fixed window's end


def test_requests_are_spread_over_the_window_once_half_is_spent(fake, client, clock):
    fake.drain(TOKEN, 10)  # of 2000
    client.user()
    start = clock.now
    client.user()
    client.user()
    # below half: what is left of the window shared by what is left of the budget
    assert clock.now > start
    assert clock.now - start <= 2 * 60 / 8 + 1


def test_plenty_of_budget_means_no_wait(client, clock):
    start = clock.now
    for _ in range(5):
        client.user()
    assert clock.now == start


def test_a_read_without_an_answer_is_asked_again(fake, client):
    fake.script(ScriptedFault.server_error("GET"), ScriptedFault.dropped("GET"))
    assert client.user()["username"] == "ralph"
    assert [r.status for r in fake.requests] == [500, 0, 200]


def test_a_read_that_never_answers_is_unavailable(fake, client):
    fake.script(*[ScriptedFault.server_error("GET") for _ in range(5)])
    with pytest.raises(GitLabUnavailable):
        client.user()
    assert len(fake.requests) == GitLabClient.MAX_RETRIES + 1


def test_a_create_whose_answer_was_lost_is_not_sent_again(fake, client):
    fake.script(ScriptedFault.dropped_after_write("POST"))
    with pytest.raises(GitLabAmbiguous) as caught:
        client.request("POST", f"/projects/{PID}/issues", body={"title": "maybe"})
    assert caught.value.method == "POST"
    assert caught.value.body == {"title": "maybe"}
    assert len(fake.state.project("acme/app").issues) == 1
    assert [r.method for r in fake.requests] == ["POST"]


def test_an_update_without_an_answer_is_sent_again(fake, client):
    client.request("POST", f"/projects/{PID}/issues", body={"title": "t"})
    fake.script(ScriptedFault.server_error("PUT"))
    done = client.request("PUT", f"/projects/{PID}/issues/1", body={"title": "u"})
    assert done["title"] == "u"


def test_a_refused_body_is_invalid_with_the_reason(client):
    with pytest.raises(GitLabInvalid) as caught:
        client.request("POST", f"/projects/{PID}/issues", body={"title": 5})
    assert caught.value.status == 400
    assert "title" in caught.value.reason


def test_pages_follow_x_next_page_a_hundred_at_a_time(fake, client):
    for n in range(230):
        client.request("POST", f"/projects/{PID}/issues", body={"title": f"i{n}"})
    fake.requests.clear()
    got = list(client.pages(f"/projects/{PID}/issues", [("state", "opened")]))
    assert len(got) == 230
    assert len({i["iid"] for i in got}) == 230
    assert [dict(r.query)["per_page"] for r in fake.requests] == ["100"] * 3
    assert fake.warnings == []


def test_pages_follow_a_keyset_link_header():
    pages = {
        None: Reply(
            200,
            {"link": '<https://gl/api/v4/projects?id_after=2&pagination=keyset>; rel="next"'},
            [1, 2],
        ),
        "2": Reply(200, {}, [3]),
    }
    seen = []

    class Keyset:
        def send(self, request):
            seen.append(request)
            return pages[request.param("id_after")]

        def close(self):
            pass

    client = GitLabClient(Keyset(), "t", sleep=lambda _: None)
    assert list(client.pages("/projects", [("pagination", "keyset")])) == [1, 2, 3]
    assert seen[1].path == "/api/v4/projects"


def test_a_page_that_repeats_stops_the_walk():
    class Loop:
        def send(self, request):
            return Reply(200, {"x-next-page": "1"}, [1])

        def close(self):
            pass

    client = GitLabClient(Loop(), "t", sleep=lambda _: None)
    with pytest.raises(GitLabError, match="repeats"):
        list(client.pages("/projects", [("page", "1")], per_page=100))


def test_a_page_over_a_hundred_is_refused_before_sending(client):
    with pytest.raises(ValueError, match="per_page"):
        list(client.pages("/projects", per_page=101))


def test_it_works_over_http(fake: FakeGitLab):
    from ralph.gitlab import https_transport

    with fake.serve() as url:
        client = GitLabClient(https_transport(url, timeout=10), TOKEN)
        try:
            made = client.request("POST", f"/projects/{PID}/issues", body={"title": "over HTTP"})
            assert made["references"]["full"] == "acme/app#1"
            assert client.pages(f"/projects/{PID}/issues").__next__()["title"] == "over HTTP"
        finally:
            client.close()
    assert fake.refused == []


class _EndlessPages:
    """A server whose every page of one item names a next page, never the same twice."""

    def __init__(self) -> None:
        self.sent = 0

    def send(self, request):

        self.sent += 1
        page = request.param("page") or "1"
        following = str(int(page) + 1)
        return Reply(200, {"x-next-page": following}, [{"id": self.sent}])

    def close(self) -> None:
        pass


def test_a_listing_whose_pages_never_end_stops_at_the_page_bound(monkeypatch):
    from ralph.gitlab import _client as client_module

    monkeypatch.setattr(client_module, "MAX_PAGES", 5)
    server = _EndlessPages()
    client = GitLabClient(server, "glpat-endless", sleep=lambda _: None)
    with pytest.raises(GitLabError, match="more than 5 pages"):
        list(client.pages("/projects/1/issues"))
    assert server.sent == 5


class _SignInPage:
    def send(self, request):

        return Reply(200, {}, None)  # HTML, not JSON

    def close(self) -> None:
        pass


def test_a_project_answer_that_is_not_gitlabs_names_the_url_to_check():
    from ralph.tracker.gitlab import read_project

    client = GitLabClient(_SignInPage(), "glpat-sso", sleep=lambda _: None)
    with pytest.raises(GitLabError, match="not GitLab's; check the GitLab URL"):
        read_project(client, "acme/app")
