"""Which token each request carries: the repository's unless the call asks for the
board's, which falls back to the repository's when no separate one is set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ralph.github import GitHubClient, Pacer, PacingPolicy, Reply, TokenKind, Tokens, token_kind
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


@pytest.mark.parametrize(
    ("token", "kind"),
    [
        ("ghp_abc123", TokenKind.CLASSIC),
        ("gho_abc123", TokenKind.OAUTH),
        ("github_pat_11ABC_def", TokenKind.FINE_GRAINED),
        ("ghs_abc123", TokenKind.INSTALLATION),
        ("ghu_abc123", TokenKind.APP_USER),
        ("0123456789abcdef0123456789abcdef01234567", TokenKind.UNKNOWN),
    ],
)
def test_a_tokens_kind_is_read_from_its_prefix(token, kind):
    assert token_kind(token) is kind


@pytest.mark.parametrize(
    ("kind", "lists_scopes", "reaches_user_boards"),
    [
        (TokenKind.CLASSIC, True, True),
        (TokenKind.OAUTH, True, True),
        (TokenKind.FINE_GRAINED, False, False),
        (TokenKind.INSTALLATION, False, False),
    ],
)
def test_only_classic_and_oauth_tokens_list_scopes_and_reach_user_boards(
    kind, lists_scopes, reaches_user_boards
):
    assert kind.lists_scopes is lists_scopes
    assert kind.reaches_user_boards is reaches_user_boards


class Scoped(Recording):
    def __init__(self, header: str | None) -> None:
        super().__init__()
        self.header = header

    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        reply = super().post(payload, token)
        headers = {} if self.header is None else {"x-oauth-scopes": self.header}
        return Reply(reply.status, headers, reply.body)


@pytest.mark.parametrize(
    ("header", "scopes"),
    [
        ("repo, project", frozenset({"repo", "project"})),
        ("", None),  # listed as nothing: a token that does not list scopes, as gh reads it
        (None, None),
    ],
    ids=["listed", "empty", "absent"],
)
def test_an_empty_scopes_header_means_not_listed(header, scopes):
    client = GitHubClient(Scoped(header), Tokens("t"), pacer=Pacer(PacingPolicy()))
    assert client.viewer() == ("someone", scopes)
