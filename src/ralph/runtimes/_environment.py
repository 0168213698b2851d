"""The environments agents and the test command get: built from an allow-list, never
the person's minus the secrets Ralph knows of. Issue text is untrusted input to an agent
with tools, and agent-written tests run code an agent wrote, so a token of any name
(a tracker's, a store's, a chat webhook's) must not be one ``env`` away.

What passes: what a program needs to run (``PATH``, ``HOME``, the locale, the terminal,
where certificates are), the variables ``sandbox_env`` in ralph.toml names, and for an
agent only its CLI's own settings and model credential."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ralph._secrets import secret_name, url_passwords

__all__ = [
    "AGENT_CREDENTIALS",
    "agent_environment",
    "environment_for_tests",
    "is_secret",
]

#: Credentials agent CLIs need to reach their model: an agent's environment keeps them,
#: the test command's never.
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

#: What any program needs to run.
_BASICS = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        # A private certificate authority (a company's), for HTTPS through its proxy.
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
    }
)
_LOCALE = "LC_"
#: The agent CLIs' own settings (their model's address, their state folder, their
#: switches); a secret by name among them stays out unless it is a model credential.
_AGENT_PREFIXES = (
    "ANTHROPIC_",
    "CLAUDE_",
    "DISABLE_",
    "OPENAI_",
    "CODEX_",
    "GEMINI_",
    "GOOGLE_GEMINI_",
    "OPENCODE_",
)

#: Not secrets by name, but a door to them: the person's SSH agent signs for any host.
_DOORS = frozenset({"SSH_AUTH_SOCK", "GPG_AGENT_INFO"})


def is_secret(name: str, value: str = "") -> bool:
    """Whether the variable holds a secret or opens a door to one: a secret by name
    (tokens, store URLs, ``*_AUTH``), the SSH agent, or a value with a password in a
    URL. The agents' own model keys are theirs to keep."""
    if name in AGENT_CREDENTIALS:
        return False
    return name in _DOORS or secret_name(name) or bool(url_passwords(value))


def _runs(name: str) -> bool:
    return name in _BASICS or name.startswith(_LOCALE)


def environment_for_tests(environ: Mapping[str, str], passed: Iterable[str] = ()) -> dict[str, str]:
    """The test command's (and workspace hooks'): what a program needs to run, and the
    variables ``passed`` names (``sandbox_env``); no agent credential."""
    named = set(passed)
    return {name: value for name, value in environ.items() if _runs(name) or name in named}


def agent_environment(environ: Mapping[str, str], passed: Iterable[str] = ()) -> dict[str, str]:
    """An agent CLI's: the test command's, its model credential and its CLI's own
    settings (secrets among them by name or URL password left out)."""
    own = {
        name: value
        for name, value in environ.items()
        if name in AGENT_CREDENTIALS
        or (name.startswith(_AGENT_PREFIXES) and not is_secret(name, value))
    }
    return {**environment_for_tests(environ, passed), **own, **_bytecode_apart(environ)}


def _bytecode_apart(environ: Mapping[str, str]) -> dict[str, str]:
    """An agent that runs Python (the tests, through its shell) writes its bytecode into
    Ralph's cache folder, not ``__pycache__`` in the worktree, where it would be left as
    uncommitted work in a project that does not ignore it. In a sandbox that folder is
    read-only, and Python then writes none."""
    home = environ.get("HOME", "")
    cache = environ.get("XDG_CACHE_HOME") or (f"{home}/.cache" if home else "")
    return {"PYTHONPYCACHEPREFIX": f"{cache}/ralph/pycache"} if cache else {}
