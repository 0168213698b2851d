"""Keeping a database URL's password out of what is shown: messages, logs, a driver's
errors. A leaf: every database module may use it."""

from __future__ import annotations

import re
from urllib.parse import unquote

from ralph._secrets import url_passwords

__all__ = ["redact_store_text", "redact_url"]

#: A URL's password (patterns ``re`` compiles and caches when first used, not at import).
_USERINFO_PASSWORD = r"(://[^:/@\s]*:)([^@/\s]*)@"
#: ``?password=...`` in a URL, or ``password=...`` in a key=value connection string.
_KEYED_PASSWORD = r"(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)"


def redact_url(url: str) -> str:
    """The URL (or key=value connection string) with any password replaced, for
    messages and logs."""
    return re.sub(_KEYED_PASSWORD, r"\1***", re.sub(_USERINFO_PASSWORD, r"\1***@", url))


def redact_store_text(text: str, url: str) -> str:
    """``text`` (a driver's error, say) without the database URL's password in any
    form: as written, percent-decoded, or quoted."""
    for secret in sorted(url_passwords(url) - {"", "***"}, key=len, reverse=True):
        for form in {secret, unquote(secret)}:
            if len(form) >= 3:
                text = text.replace(form, "***")
    return redact_url(text)
