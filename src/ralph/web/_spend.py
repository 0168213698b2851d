"""What agents cost: per day, per run and per phase from the store's ledger, beside the
budget lines of ralph.toml; ``/api/spend`` is the same as JSON."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ralph.views import SpendView, load_spend
from ralph.web._context import WebContext, context_of

__all__ = ["routes"]


def _load(web: WebContext) -> SpendView:
    return load_spend(web.project.store, web.project.config, now=time.time())


def spend_page(request: Request) -> Response:
    web = context_of(request)
    return web.page(request, "spend.html", {"spend": _load(web)})


def spend_api(request: Request) -> Response:
    return JSONResponse(_load(context_of(request)).to_dict())


routes = [
    Route("/spend", spend_page, name="spend"),
    Route("/api/spend", spend_api, name="spend_api"),
]
