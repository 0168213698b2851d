"""Sending one event: the command (the event as JSON on standard input, the summary as
``"$1"``) and the webhook (a JSON POST, tried again with a growing pause). Each
call is bounded by the settings' timeout; nothing here raises for a failed delivery.

The command runs confined like the test command (bubblewrap: the machine read-only, the
person's credentials hidden, writes only to a scratch folder and a private ``/tmp``),
with the network (a notification is sent somewhere) and an environment from an
allow-list: never Ralph's tokens, a webhook URL or a model key."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ralph._secrets import redact
from ralph.config import NotifySettings
from ralph.errors import ConfigError
from ralph.notify._event import NotifyEvent

__all__ = ["CommandSandbox", "Delivery", "deliver", "post_webhook", "run_command"]

#: The first pause before the webhook is tried again; it doubles each time.
FIRST_BACKOFF_SECONDS = 0.5
#: Of a failed call's answer, what a log line or a person is shown.
_DETAIL_CHARS = 200


@dataclass(frozen=True)
class Delivery:
    """How sending to one target went, in words a person reads."""

    #: "command" or "webhook".
    target: str
    ok: bool
    detail: str
    seconds: float = 0.0
    attempts: int = 1

    def line(self) -> str:
        took = f" in {self.seconds:.1f}s" if self.seconds >= 0.05 else ""
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        verdict = "delivered" if self.ok else "not delivered"
        return f"{self.target}: {verdict}{tries}{took} ({self.detail})"


@dataclass(frozen=True)
class CommandSandbox:
    """How the notify command runs: ``env`` is all it gets (the caller builds it from the
    test command's allow-list); where bubblewrap cannot start it runs unconfined only
    with ``allow_unsandboxed``."""

    env: Mapping[str, str] = field(default_factory=dict)
    allow_unsandboxed: bool = False


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.communicate(timeout=1)  # reaps it and closes its pipes
    for pipe in (process.stdin, process.stderr):
        if pipe is not None:
            pipe.close()


def run_command(
    command: str,
    event: NotifyEvent,
    *,
    timeout: float,
    cwd: Path | None = None,
    sandbox: CommandSandbox | None = None,
) -> Delivery:
    """Run ``command`` through the shell, as ralph.toml's other commands are, with the
    event as JSON on standard input and its summary as the shell's first argument
    (``"$1"``), confined as ``sandbox`` says; killed (its whole process group) after
    ``timeout`` seconds."""
    # Here, not above: every command that opens a project imports this module.
    from ralph.sandbox import confined_shell

    sandbox = sandbox or CommandSandbox()
    with tempfile.TemporaryDirectory(prefix="ralph-notify-") as scratch:
        where = cwd or Path(scratch)
        try:
            argv = confined_shell(
                command,
                Path(scratch),
                allow_unsandboxed=sandbox.allow_unsandboxed,
                what="the notify command",
                env=sandbox.env,
                network=True,
                # The summary is the shell's "$1": `notify-send Ralph "$1"`, `./tell.sh "$1"`.
                arguments=("ralph-notify", event.one_line()),
                # Its folder (the project's) is read, never written: `./tell.sh "$1"` runs.
                readable=(where.resolve(),),
            )
        except ConfigError as refused:
            return Delivery("command", False, f"not run: {refused}")
        return _run(argv, event, timeout=timeout, cwd=where, env=sandbox.env)


def _run(
    argv: list[str], event: NotifyEvent, *, timeout: float, cwd: Path, env: Mapping[str, str]
) -> Delivery:
    payload = json.dumps(event.fields()).encode()
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        return Delivery("command", False, f"could not start: {exc.strerror or exc}")
    try:
        _, err = process.communicate(payload, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        return Delivery("command", False, f"killed after {timeout:g}s", time.monotonic() - started)
    seconds = time.monotonic() - started
    if process.returncode != 0:
        said = " ".join(redact(err.decode("utf-8", "replace")).split())[-_DETAIL_CHARS:]
        detail = f"exit {process.returncode}" + (f": {said}" if said else "")
        return Delivery("command", False, detail, seconds)
    return Delivery("command", True, "exit 0", seconds)


def webhook_body(event: NotifyEvent) -> bytes:
    """The POST's body: the event's fields and ``text``, which Slack-compatible incoming
    webhooks show."""
    return json.dumps({"text": event.one_line(), **event.fields()}).encode()


def _post_once(url: str, body: bytes, timeout: float) -> tuple[bool, bool, str]:
    """(delivered, worth another try, what happened)."""
    # Here, not above: urllib.request loads the email and http packages, which every
    # command that opens a project (notifying nothing, mostly) would pay for.
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "User-Agent": "ralph-notify"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return True, False, f"HTTP {answer.status}"
    except urllib.error.HTTPError as exc:
        # A server's own trouble or its rate limit may pass; a refusal of the request
        # (a wrong URL, a revoked hook) will not.
        again = exc.code >= 500 or exc.code in (408, 429)
        return False, again, f"HTTP {exc.code} {exc.reason}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return False, True, str(reason) or type(exc).__name__


def post_webhook(url: str, event: NotifyEvent, *, timeout: float, retries: int) -> Delivery:
    """POST the event to ``url``, trying again up to ``retries`` times after a failure
    that may pass (a connection refused, a 5xx, a 429), pausing 0.5 s, 1 s, 2 s, ...
    between tries. What is said names the host only: a webhook URL carries its secret."""
    body = webhook_body(event)
    host = urlsplit(url).hostname or "the webhook"
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        ok, again, detail = _post_once(url, body, timeout)
        if ok or not again or attempt > retries:
            seconds = time.monotonic() - started
            return Delivery("webhook", ok, f"{host}: {redact(detail)}", seconds, attempt)
        time.sleep(FIRST_BACKOFF_SECONDS * 2 ** (attempt - 1))


def deliver(
    settings: NotifySettings,
    event: NotifyEvent,
    *,
    cwd: Path | None = None,
    sandbox: CommandSandbox | None = None,
) -> list[Delivery]:
    """Send ``event`` to every target ``settings`` name, one after the other."""
    sent = []
    if settings.command:
        sent.append(
            run_command(
                settings.command,
                event,
                timeout=settings.timeout_seconds,
                cwd=cwd,
                sandbox=sandbox,
            )
        )
    if settings.webhook:
        sent.append(
            post_webhook(
                settings.webhook,
                event,
                timeout=settings.timeout_seconds,
                retries=settings.retries,
            )
        )
    return sent
