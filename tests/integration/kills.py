"""Killing a ``ralph`` process at the moment a faked service has carried out a write and
the process has not heard back: the crash a kill sweep reruns from."""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from ralph._rest_http import RestRequest

__all__ = ["kill_after", "kill_after_rest"]


class Posted(Protocol):
    """A fake whose every request goes through ``post`` (FakeGitHub, FakeLinear)."""

    def post(self, payload: Any, token: str) -> Any: ...


@runtime_checkable
class Answered(Protocol):
    """A REST fake whose served requests go through ``answer`` (FakeJira)."""

    def answer(self, request: RestRequest, headers: Mapping[str, str]) -> Any: ...


class Sent(Protocol):
    """A REST fake that is the transport its server sends to (FakeGitLab)."""

    def send(self, request: RestRequest) -> Any: ...


class _Killer:
    """Counts the writes from the first one ``first`` names and kills the armed pid at
    the Nth, once the service has carried it out."""

    def __init__(self, nth: int, first: Callable[[str], bool]) -> None:
        self.nth = nth
        self.first = first
        self.seen: list[str] = []
        self.victim: list[int] = []
        self.armed = threading.Event()

    def wrote(self, name: str) -> None:
        if self.seen or self.first(name):
            self.seen.append(name)
            if len(self.seen) == self.nth and self.armed.wait(30):
                os.kill(self.victim[0], signal.SIGKILL)

    def arm(self, pid: int) -> None:
        self.victim.append(pid)
        self.armed.set()


def kill_after(fake: Posted, nth: int) -> Callable[[int], None]:
    """The Nth mutation the service carries out from the first ``CreateIssue`` (or
    GitHub's ``CreateIssues``, several made together) on (that one is the first) kills
    the process whose pid the returned function is given, before the process hears the
    service's answer."""
    post = fake.post
    killer = _Killer(nth, lambda name: name in ("CreateIssue", "CreateIssues"))

    def posting(payload: Any, token: str) -> Any:
        reply = post(payload, token)
        found = re.search(r"mutation (\w+)", str(payload.get("query", "")))
        if found:
            killer.wrote(found.group(1))
        return reply

    fake.post = posting  # type: ignore[method-assign]
    return killer.arm


#: A REST write: any method but GET, except the POSTs that only read (a JQL search).
_READS = re.compile(r".*/search(/jql)?")


def kill_after_rest(
    fake: Answered | Sent, nth: int, *, first: str = "POST /rest/api/3/issue"
) -> Callable[[int], None]:
    """As ``kill_after``, for a REST fake: the Nth write (POST, PUT, DELETE) it carries
    out from the first whose "METHOD path" ``first`` matches (a regular expression) on
    kills the process given. The fake serves through ``answer`` (FakeJira) or is the
    transport its server sends to (FakeGitLab's ``send``)."""
    killer = _Killer(nth, lambda name: re.fullmatch(first, name) is not None)

    def carried_out(request: RestRequest, reply: Any) -> None:
        write = request.method != "GET" and not _READS.fullmatch(request.path)
        if write and getattr(reply, "status", 500) < 300:  # a refused write changed nothing
            killer.wrote(f"{request.method} {request.path}")

    if not isinstance(fake, Answered):  # FakeJira serves through answer
        send = fake.send

        def sending(request: RestRequest) -> Any:
            reply = send(request)
            carried_out(request, reply)
            return reply

        fake.send = sending  # type: ignore[method-assign]
        return killer.arm
    answer = fake.answer

    def answering(request: RestRequest, headers: Mapping[str, str]) -> Any:
        reply = answer(request, headers)
        carried_out(request, reply)
        return reply

    fake.answer = answering  # type: ignore[method-assign]
    return killer.arm
