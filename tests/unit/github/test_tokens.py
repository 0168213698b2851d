"""Which token each request carries: the repository's unless the call asks for the
board's, which falls back to the repository's when no separate one is set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ralph.github import GitHubClient, Pacer, PacingPolicy, Reply, Tokens
from ralph.github.queries import VIEWER


class Recording:
    def __init__(self) -> None:
        self.tokens: list[str] = []

    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        self.tokens.append(token)
        return Reply(200, {}, {"data": {"viewer": {"login": "someone"}}})

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("tokens", "sent"),
    [
        (Tokens("repo-token", "board-token"), ["repo-token", "board-token"]),
        (Tokens("repo-token"), ["repo-token", "repo-token"]),
    ],
    ids=["split", "one-token"],
)
def test_the_board_token_goes_only_with_board_requests(tokens, sent):
    transport = Recording()
    client = GitHubClient(transport, tokens, pacer=Pacer(PacingPolicy(mutation_interval=0)))
    client.query(VIEWER)
    client.viewer(token="board")
    assert transport.tokens == sent
