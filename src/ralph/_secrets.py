"""The secrets Ralph knows, and the one function every text it posts, stores or prints
passes through to lose them.

Text from outside Ralph's own code (a test command's output, an agent's error, a
driver's message) can carry a token: agent-written code can print its environment. So
redaction removes the values Ralph knows to be secret, in the forms they travel in (as
written, percent-encoded, percent-decoded): every secret-named environment variable, the
agents' own API keys, passwords in URLs anywhere in the environment, any value registered
at run time (the store URL's password from ralph.toml), and every value of the
environment that looks like a secret by itself whatever its name
(``SLACK_WEBHOOK_URL``): one that holds a token a service issues (``ghp_``, ``xoxb-``,
``sk-``, ``AKIA`` ...) or a long random run of letters and digits (see
``secret_values``). Texts are not searched for what a secret looks like: only values the
environment holds are removed.
"""

from __future__ import annotations

import math
import os
import re
import threading
from collections.abc import Iterable, Mapping
from urllib.parse import quote, unquote

__all__ = [
    "MASK",
    "Redactor",
    "redact",
    "register_secret",
    "register_url",
    "secret_name",
    "secret_values",
    "url_passwords",
]

MASK = "***"
#: Shorter values are not redacted: "1" or "on" would mangle every text.
MIN_SECRET_LENGTH = 6

_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|PRIVATE_KEY|ACCESS_KEY|_PAT$|^PGPASS"
    r"|_AUTH$|^AUTH_|_AUTH_|SESSION_KEY|COOKIE",
    re.IGNORECASE,
)
#: Settings of Ralph's (and others') whose value is a URL that may hold a password.
_URL_NAMES = frozenset({"RALPH_STORE_URL", "DATABASE_URL", "RALPH_GH_API_URL"})
_USERINFO = re.compile(r"[a-z][a-z0-9+.-]*://[^\s/:@]*:([^\s@/]+)@", re.IGNORECASE)
_KEYED = re.compile(r"(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|[^&\s]+)")


def secret_name(name: str) -> bool:
    """Whether an environment variable of this name holds a secret."""
    return name in _URL_NAMES or bool(_SECRET_NAME.search(name))


def url_passwords(text: str) -> set[str]:
    """Passwords written in URLs or ``password=`` pairs inside ``text``."""
    found = {m.group(1) for m in _USERINFO.finditer(text)}
    found |= {m.group(1).strip("'") for m in _KEYED.finditer(text)}
    return found


#: Tokens services issue, known by their prefix: GitHub, GitLab, Slack, OpenAI and
#: Anthropic, Stripe, PyPI, npm, Hugging Face, AWS access keys, Google API keys, Linear.
_PREFIXED = re.compile(
    r"(?<![A-Za-z0-9_-])(?:gh[pousr]_|github_pat_|glpat-|xox[abeoprs]-|xapp-|sk-|sk_live_"
    r"|lin_api_|lin_oauth_"
    r"|rk_live_|pypi-|npm_|hf_|AKIA|ASIA|AIza)[A-Za-z0-9_-]{10,}"
)
#: A run of letters and digits as long as a generated key's (shorter ones are words,
#: versions and ids).
_RUN = re.compile(r"[A-Za-z0-9]{16,}")
_HEX = re.compile(r"[0-9A-Fa-f]+")
#: Bits per character below which a run repeats too few characters to be a key
#: ("aaaaaaaa11111111"); one drawn from letters and digits has 4 or more.
_RANDOM_BITS = 3.0


def _random_run(run: str) -> bool:
    """A run a generator made: letters and digits mixed, spread over many characters.
    Hexadecimal runs are hashes and ids (commits, UUIDs, INVOCATION_ID) that Ralph's own
    texts name: a hex secret is recognised by its variable's name instead."""
    if _HEX.fullmatch(run) or run.isalpha() or run.isdigit():
        return False
    counts = [run.count(c) for c in set(run)]
    bits = -sum(n / len(run) * math.log2(n / len(run)) for n in counts)
    return bits >= _RANDOM_BITS


def _paths(value: str) -> bool:
    """A path or a list of paths (PATH, HOME, VIRTUAL_ENV): never a secret by its look."""
    return all(part.startswith(("/", "~", ".")) for part in value.split(os.pathsep) if part)


def secret_values(value: str) -> set[str]:
    """The secrets an environment value holds by the look of it, whatever its name: the
    tokens in it and the value whole, or nothing for an ordinary value."""
    value = value.strip()
    if not value or _paths(value):
        return set()
    found = {m.group(0) for m in _PREFIXED.finditer(value)}
    found |= {run for run in _RUN.findall(value) if _random_run(run)}
    return found | {value} if found else found


def _forms(value: str) -> set[str]:
    return {value, quote(value, safe=""), unquote(value)}


class Redactor:
    """Replaces every known secret value in a text with ``***``."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self.add(*values)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Redactor:
        values: set[str] = set()
        for name, value in environ.items():
            if secret_name(name):
                values.add(value)
            values |= url_passwords(value) | secret_values(value)
        return cls(values)

    def add(self, *values: str) -> None:
        forms = {form for value in values for form in _forms(value.strip())}
        forms = {form for form in forms if len(form) >= MIN_SECRET_LENGTH}
        with self._lock:
            if forms <= self._values:
                return
            self._values |= forms
            # Longest first, so a secret containing another is removed whole.
            ordered = sorted(self._values, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(v) for v in ordered))

    def __call__(self, text: str) -> str:
        pattern = self._pattern
        return pattern.sub(MASK, text) if pattern is not None and text else text


_default: Redactor | None = None
_default_lock = threading.Lock()


def _process_redactor() -> Redactor:
    global _default
    with _default_lock:
        if _default is None:
            _default = Redactor.from_environment(os.environ)
        return _default


def register_secret(*values: str) -> None:
    """Make ``redact`` remove these values too (secrets from files or options, not the
    environment)."""
    _process_redactor().add(*values)


def register_url(url: str) -> None:
    """Make ``redact`` remove the password a URL carries (the URL itself stays
    readable: errors name the store they could not reach)."""
    _process_redactor().add(*url_passwords(url))


def redact(text: str) -> str:
    """``text`` without any secret this process knows."""
    return _process_redactor()(text)
