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
``sk-``, ``AKIA`` ...), a long random run of letters and digits, or a generated key's
shape: 32 or more hex digits, a UUID, dash-joined random groups (see
``secret_values``). Texts are not searched for what a secret looks like: only values the
environment holds are removed, so a commit hash in a text stays readable unless the
environment holds that very hash under a name that does not say it is one.

Every pattern here is linear in its input: a value of the environment can be any size,
and it is read on every command.
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
#: Longer values are removed by string replacement rather than the one pattern.
_LONG_SECRET = 256

#: Characters a reader does not see: control characters but line breaks and tabs (a
#: terminal's copy drops them: ``ralph._text.printable``), and Unicode's format characters
#: (zero-width spaces and joiners, direction marks, the soft hyphen, tags).
_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891"
    "\u08e2\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)

_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|PRIVATE_KEY|ACCESS_KEY|_PAT$|^PGPASS"
    r"|_AUTH$|^AUTH_|_AUTH_|SESSION_KEY|COOKIE",
    re.IGNORECASE,
)
#: Settings of Ralph's (and others') whose value is a URL that may hold a password.
_URL_NAMES = frozenset({"RALPH_STORE_URL", "DATABASE_URL", "RALPH_GH_API_URL"})
#: A scheme starts where no scheme character is before it: each start is tried once, so
#: a long run of letters costs one pass, not one per letter (quadratic: 5 s at 30 KB).
_USERINFO = re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://[^\s/:@]*:([^\s@/]+)@", re.IGNORECASE)
#: A quoted value is bounded, so an unclosed quote is not read to the end at every
#: ``password=`` after it.
_KEYED = re.compile(r"(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.){0,1024}'|[^&\s]+)")


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
#: Words of letters, digits and dashes: where a generated key's shape is looked for.
_WORD = re.compile(r"[A-Za-z0-9-]+")
_HEX_KEY = re.compile(r"[0-9A-Fa-f]{32,}")
_UUID = re.compile(r"[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}")
#: Dash-joined groups mixing letters and digits, at least this many: a token
#: (``DEPLOY-a8f3-k2m9-x1q7``); names and versions have fewer (``java-17-openjdk-amd64``,
#: a pod's ``ralph-worker-7d9f8c6b5d-x2k4p``).
_MIXED_GROUPS = 3
#: Names whose value is a commit, a revision or a version: an id Ralph's own texts show
#: (``GIT_COMMIT``, ``GITHUB_SHA``), not a key, whatever it looks like.
_ID_NAME = re.compile(r"(?i)(?:^|_)(?:SHA\d*|COMMIT|REV|REVISION|HEAD|REF|VERSION)(?:_|$)")
#: Bits per character below which a run repeats too few characters to be a key
#: ("aaaaaaaa11111111"); one drawn from letters and digits has 4 or more.
_RANDOM_BITS = 3.0


def _random_run(run: str) -> bool:
    """A run a generator made: letters and digits mixed, spread over many characters.
    A shorter hexadecimal run is an abbreviated hash or an id, never a key by its look;
    a long one is judged by ``_generated``."""
    if _HEX.fullmatch(run) or run.isalpha() or run.isdigit():
        return False
    counts = [run.count(c) for c in set(run)]
    bits = -sum(n / len(run) * math.log2(n / len(run)) for n in counts)
    return bits >= _RANDOM_BITS


def _paths(value: str) -> bool:
    """A path or a list of paths (PATH, HOME, VIRTUAL_ENV): never a secret by its look."""
    return all(part.startswith(("/", "~", ".")) for part in value.split(os.pathsep) if part)


def _mixed(group: str) -> bool:
    return any(c.isdigit() for c in group) and any(c.isalpha() for c in group)


def _generated(word: str) -> bool:
    """Whether ``word`` has a generated key's shape: 32 or more hex digits (a signing
    secret, a Datadog key), a UUID (a Heroku key), or dash-joined random groups."""
    word = word.strip("-")
    if _HEX_KEY.fullmatch(word) or _UUID.fullmatch(word):
        return _mixed(word)  # a run of one digit or letter ("0000...") is no key
    return sum(_mixed(group) for group in word.split("-")) >= _MIXED_GROUPS


def secret_values(value: str, name: str = "") -> set[str]:
    """The secrets an environment value holds by the look of it, whatever its name: the
    tokens in it and the value whole, or nothing for an ordinary value. A value of a
    ``name`` that says it is a commit or a version is not read for a key's shape."""
    value = value.strip()
    if not value or _paths(value):
        return set()
    found = {m.group(0) for m in _PREFIXED.finditer(value)}
    found |= {run for run in _RUN.findall(value) if _random_run(run)}
    if not _ID_NAME.search(name):
        found |= {word.strip("-") for word in _WORD.findall(value) if _generated(word)}
    return found | {value} if found else found


def _forms(value: str) -> set[str]:
    return {value, quote(value, safe=""), unquote(value)}


class Redactor:
    """Replaces every known secret value in a text with ``***``."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._long: tuple[str, ...] = ()
        self.add(*values)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Redactor:
        values: set[str] = set()
        for name, value in environ.items():
            if secret_name(name):
                values.add(value)
            values |= url_passwords(value) | secret_values(value, name)
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
            # A long value is replaced as a string: compiling it into the pattern costs
            # more than linear time (0.3 s for 100 KB).
            self._long = tuple(v for v in ordered if len(v) > _LONG_SECRET)
            short = [re.escape(v) for v in ordered if len(v) <= _LONG_SECRET]
            self._pattern = re.compile("|".join(short)) if short else None

    def __call__(self, text: str) -> str:
        if not text:
            return text
        masked = self._masked(text)
        if _HIDDEN.search(masked) is None:
            return masked
        # A secret split by characters no one sees (an escape a terminal drops, a
        # zero-width space) reads whole: masked in that form, those characters gone.
        bare = _HIDDEN.sub("", masked)
        unsplit = self._masked(bare)
        return unsplit if unsplit != bare else masked

    def _masked(self, text: str) -> str:
        for value in self._long:
            text = text.replace(value, MASK)
        pattern = self._pattern
        return pattern.sub(MASK, text) if pattern is not None else text


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
