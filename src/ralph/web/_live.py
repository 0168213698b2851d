"""``/events``: the live feed as server-sent events. A page listens and fetches again
what changed: ``board`` when a card moved, ``runs`` when a task of any run started,
ended or was rewritten. A comment line every ``KEEPALIVE_SECONDS`` keeps proxies from
closing a quiet stream; the stream ends when the server stops."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ralph.web._context import context_of

__all__ = ["KEEPALIVE_SECONDS", "routes"]

KEEPALIVE_SECONDS = 15.0


async def events(request: Request) -> Response:
    feed = context_of(request).feed
    subscription = feed.subscribe(asyncio.get_running_loop())

    async def stream() -> AsyncIterator[str]:
        try:
            yield "retry: 2000\n\n"
            while True:
                message = await subscription.next(KEEPALIVE_SECONDS)
                if message is None:
                    return
                if message is False:
                    yield ": keep-alive\n\n"
                    continue
                assert not isinstance(message, bool)
                yield f"event: {message.event}\ndata: {json.dumps(message.data)}\n\n"
        finally:
            feed.unsubscribe(subscription)

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


routes = [Route("/events", events, name="events")]
