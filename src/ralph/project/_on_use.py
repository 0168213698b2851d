"""A project's code host, opened the first time something asks it anything.

``ralph status`` and ``ralph issue list`` read issues; only a command that touches pull
requests needs the code host, and opening the local one imports its pull requests,
reviews, checks and git merges. So a project holds this stand-in, which opens the real
code host (in the project's ``with`` block, closed when it ends) on the first attribute
read and answers every read with the real one's."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ralph.errors import RalphError

if TYPE_CHECKING:
    from ralph.tracker import CodeHost

__all__ = ["CodeHostOnUse"]


class CodeHostOnUse:
    def __init__(self, open_host: Callable[[], CodeHost]) -> None:
        self._open_host = open_host
        self._host: CodeHost | None = None
        self._closed = False
        # A run's workers share the project: the first two to ask open one code host.
        self._opening = threading.Lock()

    def opened(self) -> CodeHost:
        """The real code host, opened now if it is not yet."""
        host = self._host
        if host is None:
            with self._opening:
                if self._host is None:
                    if self._closed:  # it would never be closed
                        raise RalphError("the project is closed; its code host cannot open")
                    self._host = self._open_host()
                host = self._host
        return host

    def close(self) -> None:
        """The project's block has ended: what was opened is closed by it, and nothing
        opens from now on."""
        with self._opening:
            self._closed = True

    def __getattr__(self, name: str) -> Any:
        # Only for what this class lacks: every method and attribute of a code host.
        return getattr(self.opened(), name)

    def __repr__(self) -> str:
        return f"<code host {'opened' if self._host is not None else 'not opened yet'}>"
