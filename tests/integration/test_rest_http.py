"""REST over HTTP: a request made by the HTTPS requester reaches a served fake whole,
and what the fake answers comes back whole."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from ralph._rest_http import HttpsRequester, Reply, RestRequest, TransportFailure, serve_rest


def test_a_request_and_its_reply_cross_http_whole() -> None:
    seen: list[tuple[RestRequest, Mapping[str, str]]] = []

    def answer(request: RestRequest, headers: Mapping[str, str]) -> Reply:
        seen.append((request, headers))
        return Reply(201, {"x-ratelimit-remaining": "9"}, {"ok": True, "echo": request.body})

    with serve_rest(answer, "test-rest") as url:
        requester = HttpsRequester(url, {"Authorization": "Basic abc"}, timeout=5)
        try:
            reply = requester.send(
                RestRequest("POST", "/rest/api/3/issue", (("a", "1"), ("a", "2")), {"k": "é"})
            )
        finally:
            requester.close()
    assert reply.status == 201
    assert reply.headers["x-ratelimit-remaining"] == "9"
    assert reply.body == {"ok": True, "echo": {"k": "é"}}
    request, headers = seen[0]
    assert (request.method, request.path, tuple(request.query)) == (
        "POST",
        "/rest/api/3/issue",
        (("a", "1"), ("a", "2")),
    )
    assert headers["authorization"] == "Basic abc"


def test_a_dropped_connection_is_a_transport_failure() -> None:
    def answer(request: RestRequest, headers: Mapping[str, str]) -> Reply:
        raise TransportFailure("reset")

    with serve_rest(answer, "test-rest-drop") as url:
        requester = HttpsRequester(url, {}, timeout=5)
        try:
            with pytest.raises(TransportFailure):
                requester.send(RestRequest("GET", "/x"))
        finally:
            requester.close()
