"""``ralph web``: the board in a browser. A Starlette application (templates with
Jinja2, server-sent events for live updates applied by a small script of our own) over the
same store and tracker as the CLI, served by uvicorn. Every page is also JSON under
``/api/``, the same documents the CLI's ``--json`` prints (``ralph.views``)."""

from __future__ import annotations

from ralph.web._app import create_app
from ralph.web._feed import Feed, FeedMessage
from ralph.web._hosts import host_name
from ralph.web._security import MIN_TOKEN_LENGTH, check_token, is_loopback
from ralph.web._server import serve

__all__ = [
    "MIN_TOKEN_LENGTH",
    "Feed",
    "FeedMessage",
    "check_token",
    "create_app",
    "host_name",
    "is_loopback",
    "serve",
]
