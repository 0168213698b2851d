"""The distribution Ralph installs as, and the one line that tells a person how to add an
extra to it. ``ralph`` on the package index is an unrelated project: the distribution is
``ralph-delivery``, while the command and the import package stay ``ralph``."""

from __future__ import annotations

__all__ = ["DISTRIBUTION", "install_hint", "installed_version", "version_line"]

DISTRIBUTION = "ralph-delivery"


def install_hint(extra: str) -> str:
    """How to install ``extra`` (``claude``, ``otel``, ...): `make install` from a clone,
    the one way there is (``ralph-delivery`` is not on the package index)."""
    # `make install` has the claude extra unless told otherwise: another extra adds to it.
    extras = "" if extra == "claude" else f" EXTRAS=claude,{extra}"
    return f"make install{extras} in a clone of Ralph"


def installed_version() -> str:
    """The installed distribution's version, from its metadata (``ralph.__version__``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0"


def version_line() -> str:
    """What ``ralph --version`` prints."""
    return f"ralph {installed_version()}"
