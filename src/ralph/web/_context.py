"""What every route works with: the open project, the live feed, the templates, and the
rules every page follows (the CSRF cookie, errors as pages or JSON)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.templating import Jinja2Templates

from ralph._reason import split_reason
from ralph._text import printable
from ralph.project import Project
from ralph.web._feed import Feed
from ralph.web._markdown import code_spans, render_markdown
from ralph.web._security import CSRF_COOKIE, new_csrf_token
from ralph.web._words import count, field_text, when, words
from ralph.workflow import command_words

__all__ = ["WebContext", "context_of", "done"]

_HERE = Path(__file__).parent


def _seconds(value: float | None) -> str:
    if not value:
        return ""
    if value < 60:
        return f"{value:.1f}s"
    minutes, rest = divmod(int(value), 60)
    if minutes < 60:
        return f"{minutes}m{rest:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters |= {
        "markdown": render_markdown,
        "code_spans": code_spans,
        "seconds": _seconds,
        "when": when,
        "count": count,
        "words": words,
        "field_text": field_text,
        "slug": _slug,
        "printable": printable,
        "actor": command_words,
        "reason_parts": split_reason,
    }
    return Jinja2Templates(env=env)


@dataclass
class WebContext:
    project: Project
    feed: Feed
    #: Whether pages are behind a token (shown in the header).
    guarded: bool
    templates: Jinja2Templates = field(default_factory=_templates)
    #: The GitHub tracker's client is one connection: its requests go one at a time.
    _tracker_lock: threading.Lock | None = None

    @contextlib.contextmanager
    def tracker(self) -> Iterator[None]:
        if self._tracker_lock is None:
            yield
            return
        with self._tracker_lock:
            yield

    def page(
        self, request: Request, name: str, values: dict[str, Any], *, status_code: int = 200
    ) -> Response:
        """Template ``name`` with ``values``, the CSRF token every form repeats, and the
        cookie that holds it set on the first page."""
        token = request.cookies.get(CSRF_COOKIE) or ""
        fresh = not token
        if fresh:
            token = new_csrf_token()
        values = {
            "page": "",
            "notice": "",
            "csrf": token,
            "guarded": self.guarded,
            "repo": self.project.config.repo,
            "tracker_kind": self.project.tracker.kind,
            **values,
        }
        response: Response = self.templates.TemplateResponse(
            request, name, values, status_code=status_code
        )
        if fresh:
            response.set_cookie(CSRF_COOKIE, token, httponly=False, samesite="strict", path="/")
        return response

    def error(self, request: Request, status: int, message: str) -> Response:
        """An error as JSON under /api/, else as a page (never a traceback)."""
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=status)
        try:
            return self.page(
                request, "error.html", {"status": status, "message": message}, status_code=status
            )
        except jinja2.TemplateError:
            return HTMLResponse(f"<h1>{status}</h1>", status_code=status)


async def done(request: Request, back: str, act: Callable[[WebContext], str]) -> Response:
    """Run an action (``act``, off the event loop), then send the person back to
    ``back`` with what it did as the page's notice (303: a reload does not repeat it)."""
    said = await run_in_threadpool(act, context_of(request))
    return RedirectResponse(f"{back}?{urlencode({'notice': said})}", status_code=303)


def context_of(request: Request) -> WebContext:
    found: WebContext = request.app.state.web
    return found
