"""What every route reads from a request: an id from the path (one that cannot exist is
404), and an action's form, refused (403) without its CSRF token."""

from __future__ import annotations

import re

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request

from ralph.web._security import CSRF_COOKIE, CSRF_FIELD, CSRF_HEADER, csrf_matches

__all__ = ["MAX_ID", "action_form", "back_to", "number_of"]

#: The largest id the store and the trackers keep (64-bit integers).
MAX_ID = 2**63 - 1
#: Where an action may send the person back to: a page of this board, nothing else.
_BACK = re.compile(r"/(?:runs/\d{1,19}|issues/\d{1,19}|runs)?")
#: A form of an action is a few fields; anything far larger is not one of ours.
MAX_FORM_BYTES = 64 * 1024


def number_of(request: Request, name: str = "number") -> int:
    """The path's ``name`` as an id; 404 for one that is not a positive 64-bit number."""
    text = str(request.path_params.get(name, ""))
    if not text.isascii() or not text.isdigit() or not 0 < int(text) <= MAX_ID:
        raise HTTPException(404, f"{text!r} is not an id here")
    return int(text)


async def action_form(request: Request) -> FormData:
    """The POST's form once its CSRF token matches the cookie's (else 403)."""
    if int(request.headers.get("content-length") or 0) > MAX_FORM_BYTES:
        raise HTTPException(413, "that form is too large")
    form = await request.form()
    given = form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
    if not csrf_matches(request.cookies.get(CSRF_COOKIE), str(given) if given else None):
        raise HTTPException(
            403, "the form's CSRF token is missing or stale; reload the page and try again"
        )
    return form


def back_to(form: FormData, default: str) -> str:
    """The page the form asks to return to, when it is one of ours."""
    back = str(form.get("back", ""))
    return back if _BACK.fullmatch(back) else default
