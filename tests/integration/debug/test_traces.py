"""OpenTelemetry traces against a collector in the test: an OTLP/HTTP endpoint on
127.0.0.1 that decodes the protobuf spans Ralph exports. A run, its tasks, their phases
and agent runs arrive as one trace; without an endpoint nothing of the SDK is loaded."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ralph._tracing import RunTrace, flush_traces, reset_tracing
from ralph.config import load_config
from ralph.project import open_project
from tests.bytecode import bytecode_folder

from ..cli_project import farewell_project
from ..conftest import ralph_process


@dataclass
class Collector:
    url: str
    spans: list[Any] = field(default_factory=list)
    services: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def named(self, name: str) -> list[Any]:
        with self.lock:
            return [s for s in self.spans if s.name == name]


@pytest.fixture
def collector() -> Iterator[Collector]:
    found = Collector("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            request = ExportTraceServiceRequest.FromString(body)
            with found.lock:
                for resource in request.resource_spans:
                    for attribute in resource.resource.attributes:
                        if attribute.key == "service.name":
                            found.services.add(attribute.value.string_value)
                    for scope in resource.scope_spans:
                        found.spans.extend(scope.spans)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    found.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield found
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture
def exporting(collector, monkeypatch) -> Iterator[Collector]:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url)
    reset_tracing()
    yield collector
    reset_tracing()


def attributes(span: Any) -> dict[str, Any]:
    values = {}
    for attribute in span.attributes:
        value = attribute.value
        kind = value.WhichOneof("value")
        values[attribute.key] = (
            [getattr(v, v.WhichOneof("value")) for v in value.array_value.values]
            if kind == "array_value"
            else getattr(value, kind)
        )
    return values


def test_a_hero_run_is_one_trace_of_tasks_phases_and_agent_runs(
    tmp_path, ralph_cli, monkeypatch, exporting
):
    repo, number = farewell_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    code, out, err = ralph_cli("hero", str(number))
    assert code == 0, out + err
    flush_traces()
    [run] = exporting.named("ralph.run")
    tasks = exporting.named("ralph.task")
    phases = exporting.named("ralph.phase")
    agents = exporting.named("ralph.agent")
    assert exporting.services == {"ralph"}
    with open_project(load_config(repo)) as project:
        stored = project.store.get_run(attributes(run)["ralph.run"])
    trace = RunTrace.of(load_config(repo).repo, stored.id, stored.created_at)
    assert int.from_bytes(run.trace_id, "big") == trace.trace_id
    assert {s.trace_id for s in [*tasks, *phases, *agents]} == {run.trace_id}
    assert attributes(run)["ralph.ending"] == "finished"
    # Every task span hangs under the run's trace parent, in whichever thread it ran.
    assert {int.from_bytes(s.parent_span_id, "big") for s in [run, *tasks]} == {trace.span_id}
    kinds = {attributes(s)["ralph.task.kind"] for s in tasks}
    assert {"plan", "implement", "merge"} <= kinds
    by_id = {s.span_id: s for s in exporting.spans}
    for phase in phases:
        assert by_id[phase.parent_span_id].name == "ralph.task"
    for agent in agents:
        parent = by_id[agent.parent_span_id]
        assert parent.name == "ralph.phase"
        assert attributes(agent)["ralph.phase"] == attributes(parent)["ralph.phase"]
        assert attributes(agent)["ralph.status"] == "ok"
    assert all(attributes(s)["ralph.status"] == "done" for s in tasks)


def test_a_command_exports_its_spans_before_it_exits(tmp_path, collector):
    repo, number = farewell_project(tmp_path / "demo")
    done = ralph_process(
        "run",
        "research",
        str(number),
        cwd=repo,
        env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_SERVICE_NAME": "ralph-test"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [phase] = collector.named("ralph.phase")
    [agent] = collector.named("ralph.agent")
    assert agent.parent_span_id == phase.span_id
    assert attributes(phase)["ralph.phase"] == "research"
    assert collector.services == {"ralph-test"}


def test_a_refused_phase_is_a_failed_span(tmp_path, ralph_cli, monkeypatch, exporting):
    repo, number = farewell_project(tmp_path / "demo")
    monkeypatch.chdir(repo)
    assert ralph_cli("run", "review", str(number))[0] == 2
    flush_traces()
    [phase] = exporting.named("ralph.phase")
    assert phase.status.code == 2  # ERROR
    assert phase.status.message  # the refusal, as the command printed it


def test_without_an_endpoint_the_sdk_is_never_imported(tmp_path):
    probe = (
        "import sys\n"
        "from ralph._tracing import span, tracing_enabled\n"
        "import ralph.orchestrate, ralph.phases\n"
        "with span('x', {'a': 1}) as s: s.set('b', 2)\n"
        "print(tracing_enabled(), sorted(m for m in sys.modules if m.startswith("
        "('opentelemetry.sdk', 'opentelemetry.exporter'))))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPYCACHEPREFIX": str(bytecode_folder())}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False []"
