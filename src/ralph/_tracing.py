"""OpenTelemetry traces of runs, tasks, phases and agent runs, exported over OTLP/HTTP
when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``..._TRACES_ENDPOINT``) is set, so a team sees
Ralph in the tracing system it already has. The SDK is the ``otel`` extra
(``pip install 'ralph-delivery[otel]'``); unset, a span is a shared no-op and nothing of
OpenTelemetry is imported.

Every span of one run shares a trace whose id is derived from the run (its store's
repository, id and creation time), and hangs under the same parent: the tasks a
``ralph worker`` process runs on another machine land in the trace of the session that
planned them, with no context passed between processes. The standard ``OTEL_*``
variables (service name, headers, timeouts) apply; ``OTEL_SERVICE_NAME`` defaults to
``ralph``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ralph._distribution import install_hint
from ralph._secrets import redact

__all__ = ["RunTrace", "Span", "flush_traces", "reset_tracing", "span", "tracing_enabled"]

logger = logging.getLogger(__name__)

_ENDPOINTS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


@dataclass(frozen=True)
class RunTrace:
    """The trace a run's spans belong to, the same in every process that works on it."""

    trace_id: int
    span_id: int

    @classmethod
    def of(cls, repo: str, run_id: int, created_at: float) -> RunTrace:
        digest = hashlib.sha256(f"ralph-run:{repo}:{run_id}:{created_at!r}".encode()).digest()
        # Zero is OpenTelemetry's "invalid"; a digest of zeros is as good as impossible.
        return cls(
            int.from_bytes(digest[:16], "big") or 1, int.from_bytes(digest[16:24], "big") or 1
        )


class Span:
    """One operation; attributes and an error may be added while it runs."""

    def set(self, name: str, value: Any) -> None:
        """Record ``name`` (None values are left out)."""

    def fail(self, message: str) -> None:
        """Mark the span failed, with ``message``."""


_NO_SPAN = Span()


class _OtelSpan(Span):
    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def set(self, name: str, value: Any) -> None:
        if value is None:
            return
        if not isinstance(value, bool | int | float | str):
            value = [v if isinstance(v, bool | int | float) else str(v) for v in value]
        self._inner.set_attribute(name, redact(value) if isinstance(value, str) else value)

    def fail(self, message: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        self._inner.set_status(Status(StatusCode.ERROR, redact(message)))


_lock = threading.Lock()
#: None: not set up yet; False: tracing is off for this process (no SDK); else the tracer.
_tracer: Any = None
_provider: Any = None


def tracing_enabled() -> bool:
    """Whether spans are exported: an endpoint is set (checked on every call, a dict
    lookup) and the SDK could be loaded."""
    if not any(os.environ.get(name) for name in _ENDPOINTS):
        return False
    return _load() is not False


def _load() -> Any:
    global _tracer, _provider
    with _lock:
        if _tracer is not None:
            return _tracer
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.resources import Resource
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor
        except ImportError:
            logger.warning(
                "OTEL_EXPORTER_OTLP_ENDPOINT is set but OpenTelemetry's SDK is not installed; "
                f"install it with {install_hint('otel')}. No traces are sent."
            )
            _tracer = False
            return _tracer
        name = os.environ.get("OTEL_SERVICE_NAME") or "ralph"
        _provider = TracerProvider(resource=Resource.create({"service.name": name}))
        _provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        _tracer = _provider.get_tracer("ralph")
        return _tracer


def flush_traces(timeout_seconds: float = 10.0) -> None:
    """Send the spans still queued (the SDK also does at exit)."""
    if _provider is not None:
        _provider.force_flush(int(timeout_seconds * 1000))


def reset_tracing() -> None:
    """Forget the exporter (flushed first), so the next span reads the environment
    again: for tests, and a process that changes its endpoint."""
    global _tracer, _provider
    with _lock:
        if _provider is not None:
            _provider.shutdown()
        _tracer = _provider = None


@contextmanager
def span(
    name: str, attributes: Mapping[str, Any] | None = None, *, run: RunTrace | None = None
) -> Iterator[Span]:
    """A span named ``name`` around the block: a child of the current span, or of
    ``run``'s trace when given. An exception leaving the block marks it failed."""
    if not tracing_enabled():
        yield _NO_SPAN
        return
    from opentelemetry import trace
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

    context = None
    if run is not None:
        parent = SpanContext(
            run.trace_id, run.span_id, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED)
        )
        context = trace.set_span_in_context(NonRecordingSpan(parent))
    with _tracer.start_as_current_span(
        name, context=context, record_exception=False, set_status_on_exception=False
    ) as inner:
        wrapped = _OtelSpan(inner)
        for key, value in (attributes or {}).items():
            wrapped.set(key, value)
        try:
            yield wrapped
        except BaseException as exc:
            wrapped.fail(f"{type(exc).__name__}: {exc}")
            raise
