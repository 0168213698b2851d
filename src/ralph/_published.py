"""Where a fake finds the published API definition it executes against.

GitHub's and Linear's schemas are other projects' files, so Ralph does not ship them: a
fake is given the path of a copy (an argument, an option, or an environment variable),
and without one says in one line which file it needs and where it is published."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import ConfigError

__all__ = ["PublishedDefinition"]

#: A path as a caller gives it.
PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class PublishedDefinition:
    """A third-party definition a fake needs: ``needed_by`` (``the fake Linear``) needs
    ``what`` (``Linear's published GraphQL schema``), a copy of ``origin`` (its file and
    where it is published), named by ``variable`` unless given directly."""

    needed_by: str
    what: str
    variable: str
    origin: str

    def advice(self) -> str:
        return f"{self.needed_by} needs {self.what}: set {self.variable} to a copy of {self.origin}"

    def path(self, given: PathLike | None = None) -> Path:
        """The file ``given``, else the one the variable names; :class:`ConfigError`
        when neither names a readable file."""
        raw = os.fspath(given) if given is not None else os.environ.get(self.variable, "")
        if not raw.strip():
            raise ConfigError(self.advice())
        path = Path(raw).expanduser()
        if not path.is_file():
            raise ConfigError(f"{raw} is not a file; {self.advice()}")
        return path.resolve()

    def read(self, path: Path) -> str:
        """The text of ``path`` (from :meth:`path`), or one line saying why not."""
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise ConfigError(f"cannot read {path} ({reason}); {self.advice()}") from exc

    def unusable(self, path: Path, reason: str) -> ConfigError:
        """The error for a file that is there but is not this definition."""
        first = reason.strip().splitlines()[0] if reason.strip() else "unusable"
        return ConfigError(f"{path} is not {self.what} ({first}); {self.advice()}")
