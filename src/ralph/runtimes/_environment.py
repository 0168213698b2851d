"""The environment an agent process gets: the person's, minus every credential that is
not the agent's own. Issue text is untrusted input to an agent with tools, so a token
for the tracker, the store or anything else must not be one ``env`` away."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["AGENT_CREDENTIALS", "is_secret", "scrubbed_environment"]

#: Credentials agent CLIs need to reach their model; everything else secret is removed.
AGENT_CREDENTIALS = frozenset(
    {
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "OPENAI_API_KEY",
        "CODEX_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "OPENROUTER_API_KEY",
    }
)

_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|PRIVATE_KEY|ACCESS_KEY|_PAT$|^PGPASS",
    re.IGNORECASE,
)
#: Ralph's own settings that can carry a password (a PostgreSQL store URL).
_RALPH_SECRETS = frozenset({"RALPH_STORE_URL", "DATABASE_URL"})


def is_secret(name: str) -> bool:
    return name not in AGENT_CREDENTIALS and (
        name in _RALPH_SECRETS or bool(_SECRET_NAME.search(name))
    )


def scrubbed_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without secrets (tracker tokens, store URLs, other keys)."""
    return {name: value for name, value in environ.items() if not is_secret(name)}
