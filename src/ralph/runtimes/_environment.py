"""The environment an agent process gets: the person's, minus every credential that is
not the agent's own. Issue text is untrusted input to an agent with tools, so a token
for the tracker, the store or anything else must not be one ``env`` away."""

from __future__ import annotations

from collections.abc import Mapping

from ralph._secrets import secret_name, url_passwords

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

#: Not secrets by name, but a door to them: the person's SSH agent signs for any host.
_DOORS = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO"})


def is_secret(name: str, value: str = "") -> bool:
    """Whether the variable must not reach an agent: a secret by name (tokens, store
    URLs, ``*_AUTH``), a door to one (the SSH agent), or a value with a password in a
    URL. The agents' own model keys are theirs to keep."""
    if name in AGENT_CREDENTIALS:
        return False
    return name in _DOORS or secret_name(name) or bool(url_passwords(value))


def scrubbed_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without secrets (tracker tokens, store URLs, other keys)."""
    return {name: value for name, value in environ.items() if not is_secret(name, value)}
