"""GitHub tokens: the repository's and the board's, and what kind each one is.

The kind shows in the token's prefix (GitHub's documented formats) and decides what
GitHub lets it do: fine-grained and installation tokens list no OAuth scopes, and
cannot see a user-owned Projects v2 board at all (GitHub answers as if there were none).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

__all__ = ["TokenFor", "TokenKind", "Tokens", "token_kind"]

#: Which token a request is sent with: the repository's, or the board's (the Projects v2
#: board may live with another owner and need a token of its own).
TokenFor = Literal["repo", "board"]


@dataclass(frozen=True)
class Tokens:
    """The repository token and the board's token (the same one unless split)."""

    repo: str
    board: str = ""

    def get(self, which: TokenFor) -> str:
        return (self.board or self.repo) if which == "board" else self.repo

    @property
    def split(self) -> bool:
        return bool(self.board) and self.board != self.repo

    def __repr__(self) -> str:  # tokens never reach logs or tracebacks
        return f"Tokens(split={self.split})"


class TokenKind(Enum):
    """What a token is, by its prefix; the value names it in messages."""

    CLASSIC = "classic token"
    OAUTH = "OAuth token"
    FINE_GRAINED = "fine-grained token"
    INSTALLATION = "GitHub App installation token"
    APP_USER = "GitHub App user token"
    #: No known prefix (an old 40-character token, or GitHub Enterprise Server's).
    UNKNOWN = "token"

    @property
    def lists_scopes(self) -> bool:
        """Whether GitHub names the token's OAuth scopes (``x-oauth-scopes``)."""
        return self in (TokenKind.CLASSIC, TokenKind.OAUTH, TokenKind.UNKNOWN)

    @property
    def reaches_user_boards(self) -> bool:
        """Whether the token can see a user-owned board: fine-grained tokens have
        project permissions only for organisations, and installations act for one."""
        return self not in (TokenKind.FINE_GRAINED, TokenKind.INSTALLATION)


_PREFIXES = (
    ("github_pat_", TokenKind.FINE_GRAINED),
    ("ghp_", TokenKind.CLASSIC),
    ("gho_", TokenKind.OAUTH),
    ("ghs_", TokenKind.INSTALLATION),
    ("ghu_", TokenKind.APP_USER),
)


def token_kind(token: str) -> TokenKind:
    return next((kind for prefix, kind in _PREFIXES if token.startswith(prefix)), TokenKind.UNKNOWN)
