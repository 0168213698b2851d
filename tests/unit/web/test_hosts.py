"""The board answers only to the names it serves (a DNS-rebinding page asks for its own
name), and acts only on requests from its own pages (Origin, Referer, Sec-Fetch-Site)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from ralph.web import host_name
from ralph.web._hosts import HostGate

BOARD = "http://127.0.0.1:8765"


async def _page(request: Request) -> Response:
    return PlainTextResponse("board")


async def _action(request: Request) -> Response:
    return PlainTextResponse("done")


def board(*hosts: str) -> TestClient:
    app = Starlette(
        routes=[
            Route("/", _page),
            Route("/api/board", _page),
            Route("/act", _action, methods=["POST"]),
        ],
        middleware=[Middleware(HostGate, hosts=hosts)],
    )
    return TestClient(app, base_url=BOARD)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with board("127.0.0.1") as found:
        yield found


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:8765", "localhost:8765", "LocalHost", "127.0.0.2:8765", "[::1]:8765"],
)
def test_loopback_names_reach_the_board(client: TestClient, host: str) -> None:
    assert client.get("/", headers={"host": host}).status_code == 200


@pytest.mark.parametrize(
    "host",
    ["evil.example:8765", "evil.example", "127.0.0.1.evil.example", "evil@127.0.0.1", "", "x:y"],
)
def test_any_other_host_is_refused_and_told_how_to_serve_it(client: TestClient, host: str) -> None:
    answer = client.get("/", headers={"host": host})
    assert answer.status_code == 403
    assert "--allowed-host" in answer.text
    assert "board" not in answer.text.split("</h1>")[0]


def test_an_api_call_for_another_host_is_a_json_refusal(client: TestClient) -> None:
    answer = client.get("/api/board", headers={"host": "evil.example:8765"})
    assert answer.status_code == 403
    assert "does not answer to the host 'evil.example'" in answer.json()["error"]


def test_a_hostile_host_is_escaped_in_the_refusal(client: TestClient) -> None:
    answer = client.get("/", headers={"host": "<script>x</script>"})
    assert answer.status_code == 403
    assert "<script>" not in answer.text


def test_the_names_given_are_served_too() -> None:
    with board("127.0.0.1", "board.example", "192.0.2.7") as client:
        assert client.get("/", headers={"host": "board.example:8765"}).status_code == 200
        assert client.get("/", headers={"host": "Board.Example"}).status_code == 200
        assert client.get("/", headers={"host": "192.0.2.7:8765"}).status_code == 200
        assert client.get("/", headers={"host": "other.example"}).status_code == 403


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": BOARD},
        {"referer": f"{BOARD}/issues/3"},
        {"sec-fetch-site": "same-origin", "origin": BOARD},
        {},  # a tool (curl): the CSRF token alone decides
    ],
)
def test_an_action_from_the_boards_own_pages_goes_ahead(
    client: TestClient, headers: dict[str, str]
) -> None:
    assert client.post("/act", headers=headers).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example:8765"},
        {"origin": "http://127.0.0.1:3000"},  # another server on this machine
        {"origin": "null"},
        {"referer": "http://evil.example/page"},
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site", "origin": BOARD},
    ],
)
def test_an_action_from_another_origin_is_refused(
    client: TestClient, headers: dict[str, str]
) -> None:
    answer = client.post("/act", headers=headers)
    assert answer.status_code == 403
    assert "only from its own pages" in answer.text


def test_the_origin_must_be_the_host_the_request_named() -> None:
    with board("127.0.0.1", "board.example") as client:
        served = {"host": "board.example", "origin": "https://board.example"}
        assert client.post("/act", headers=served).status_code == 200
        crossed = {"host": "board.example", "origin": "http://localhost:8765"}
        assert client.post("/act", headers=crossed).status_code == 403


@pytest.mark.parametrize(
    ("text", "name"),
    [("board.example", "board.example"), ("[::1]", "::1"), ("x:80", "x"), ("a/b", None)],
)
def test_host_names(text: str, name: str | None) -> None:
    assert host_name(text) == name
