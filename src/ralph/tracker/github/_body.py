"""GitHub's size limit on a body or comment: it refuses more than 65,536 characters
("Body is too long"). Ralph cuts a longer text at 60,000 (room for the note and the
operation marker) and says where the whole of it is."""

from __future__ import annotations

__all__ = ["BODY_LIMIT", "GITHUB_BODY_MAXIMUM", "fit_body"]

#: What GitHub takes in an issue, pull request or comment body.
GITHUB_BODY_MAXIMUM = 65_536
#: Where Ralph cuts, leaving room for the note and the marker.
BODY_LIMIT = 60_000


def fit_body(text: str, where: str) -> str:
    """``text`` as GitHub can take it: whole when short enough, else its first
    ``BODY_LIMIT`` characters and a line saying the full text is ``where``."""
    if len(text) <= BODY_LIMIT:
        return text
    return (
        f"{text[:BODY_LIMIT]}\n\n*[Cut by Ralph at {BODY_LIMIT:,} of {len(text):,} characters: "
        f"GitHub takes at most {GITHUB_BODY_MAXIMUM:,}. The full text is {where}.]*"
    )
