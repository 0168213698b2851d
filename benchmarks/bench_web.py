"""``ralph web`` on a board of 1,000 issues and a run of 500 tasks (SQLite). Prints medians
and ratios from one run; not a test.

Goals (issue: watching it): a page renders in at most 150 ms (the board's running tasks
and the run's carrying their agents' activity); a store event reaches an
open event stream in at most 200 ms at the median; the server's memory stays flat over
an hour of events at 10 a second (compressed: the same 36,000 events as fast as the
store takes them, one stream reading and one that stopped reading).

    make bench-web    # or: .venv/bin/python benchmarks/bench_web.py
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx2

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.graph import Role, TaskKind, TaskSpec
from ralph.project import Project, open_project
from ralph.runtimes import Activity, ActivityFeed
from ralph.workflow import STATE_ORDER, Estimate, Priority

ISSUES = pick(1_000, 20)
TASKS = pick(500, 10)
#: Tasks running at once, each with its agent's activity (on the board's cards and the
#: run's page).
RUNNING = pick(20, 2)
REPEATS = pick(15, 1)
SSE_SAMPLES = pick(60, 3)
HOUR_EVENTS = pick(36_000, 200)
EVENTS_PER_COMMIT = 10
#: Events of one run before the next starts (a run's graph is a few hundred tasks).
RUN_EVENTS = pick(500, 10)
RALPH = shutil.which("ralph", path=str(Path(sys.executable).parent)) or "ralph"


def median_ms(action: Callable[[], object], repeats: int = REPEATS) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def fill(project: Project) -> int:
    """1,000 issues over every state, and a run of 500 tasks (chains of research, plan,
    implement per issue, some done, 20 running with their agents' activity); returns
    the run's id."""
    tracker = project.tracker
    estimates, priorities = list(Estimate)[:2], list(Priority)
    for n in range(ISSUES - 1):
        tracker.create_issue(
            f"Issue {n} of the benchmark board",
            body="Something to do.",
            state=STATE_ORDER[n % len(STATE_ORDER)],
            estimate=estimates[n % 2],
            priority=priorities[n % len(priorities)],
        )
    store = project.store
    run = store.create_run("bench", root_issue=1, mode="team")
    specs = []
    kinds = [(TaskKind.RESEARCH, Role.ANALYST), (TaskKind.PLAN, Role.BUILDER)]
    kinds += [(TaskKind.IMPLEMENT, Role.BUILDER), (TaskKind.PR, Role.INTEGRATOR)]
    for n in range(TASKS):
        chain, step = divmod(n, len(kinds))
        kind, role = kinds[step]
        deps = (f"t{n - 1}",) if step else ()
        specs.append(
            TaskSpec(
                key=f"t{n}",
                kind=kind,
                role=role,
                issues=(chain + 2,),
                subject=f"{kind.value.capitalize()} GH-{chain + 2}",
                active_form="Working",
                deps=deps,
            )
        )
    store.add_tasks(run.id, specs)
    for _ in range(TASKS // 3):
        claim = store.claim(run.id, "bench:1/analyst-1", set(Role))
        if claim is None:
            break
        store.complete(claim, {"ok": True})
    for n in range(RUNNING):
        claim = store.claim(run.id, f"bench:1/builder-{n + 1}", set(Role))
        if claim is None:
            break
        activity = _busy_agent(n)
        store.record_activity(claim, activity.to_dict(), activity.summary())
    return run.id


def _busy_agent(n: int) -> Activity:
    """An agent some turns into its work: tokens, cost, tool calls, words, a refusal,
    and its last events (as many as an activity keeps)."""
    feed = ActivityFeed("claude")
    feed.begin("claude")
    for turn in range(1, 6):
        feed.turn()
        feed.usage(tokens=4_000 * turn, cost_usd=0.01 * turn, total=True)
        feed.tool("Edit", f"src/module_{n}/part_{turn}.py")
        feed.said(f"Changed part {turn} of module {n}; the tests come next " + "x" * 80)
    feed.refused("WebFetch")
    return feed.snapshot()


def render_times(server: Server, run_id: int) -> dict[str, tuple[float, float]]:
    """Each page over HTTP from a running ``ralph web``, as a browser gets it: the median
    wall time and the server's CPU time per request (on a shared machine the wall time
    follows the load; the CPU time is what the page costs)."""
    pages = {
        "board": "/",
        "board fragment (live update)": "/?fragment=1",
        "run of 500 tasks": f"/runs/{run_id}",
        "runs": "/runs",
        "issue": "/issues/2",
        "spend": "/spend",
        "api/board": "/api/board",
        f"api/runs/{run_id}": f"/api/runs/{run_id}",
    }
    found = {}
    with httpx2.Client(base_url=server.url, timeout=30) as client:
        for name, path in pages.items():
            assert client.get(path).status_code == 200, path
            cpu = server.cpu_seconds()
            wall = median_ms(partial(client.get, path))
            found[name] = (wall, (server.cpu_seconds() - cpu) * 1000 / REPEATS)
    return found


class Server:
    """``ralph web --port 0`` as a process, and its memory."""

    def __init__(self, repo: Path) -> None:
        self.process = subprocess.Popen(
            [RALPH, "web", "--port", "0"], cwd=repo, stdout=subprocess.PIPE, text=True
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        self.url = first.rsplit(" at ", 1)[1].strip()

    def rss_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
        return kb / 1024

    def cpu_seconds(self) -> float:
        """The server's user and system CPU time so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


Arrivals = queue.Queue[tuple[float, dict[str, Any]]]


def listen(url: str, received: Arrivals, stop: threading.Event) -> None:
    """Read /events, putting (arrival time, data) of each ``runs`` message."""
    with (
        httpx2.Client(timeout=httpx2.Timeout(10, read=120)) as client,
        client.stream("GET", url + "events") as response,
    ):
        event = ""
        for line in response.iter_lines():
            if stop.is_set():
                return
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "runs":
                received.put((time.time(), json.loads(line[6:])))


def sse_latency(server: Server, project: Project) -> list[float]:
    """Milliseconds from a task's commit (its event's time) to its arrival on a stream."""
    received: Arrivals = queue.Queue()
    stop = threading.Event()
    threading.Thread(target=listen, args=(server.url, received, stop), daemon=True).start()
    time.sleep(1.0)
    store = project.store
    run = store.create_run("latency", root_issue=None, mode="hero")
    latencies = []
    for n in range(SSE_SAMPLES):
        (task,) = store.add_tasks(
            run.id,
            [
                TaskSpec(
                    key=f"l{n}",
                    kind=TaskKind.TRIAGE,
                    role=Role.ANALYST,
                    issues=(1,),
                    subject="Latency",
                    active_form="Timing",
                )
            ],
        )
        at = store.events(run.id)[-1].at
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            arrived, data = received.get(timeout=10)
            if data.get("task") == task.id:
                latencies.append((arrived - at) * 1000)
                break
        time.sleep(0.1)
    stop.set()
    return latencies


def memory_over_an_hour(server: Server, project: Project) -> list[tuple[int, float]]:
    """The server's RSS after each quarter of an hour of events at 10 a second."""
    received: Arrivals = queue.Queue()
    stop = threading.Event()
    threading.Thread(target=listen, args=(server.url, received, stop), daemon=True).start()
    # A page that stopped reading: connected, never read again.
    stalled = httpx2.Client(timeout=httpx2.Timeout(10, read=600))
    stalled_stream = stalled.stream("GET", server.url + "events")
    stalled_stream.__enter__()
    time.sleep(1.0)
    store = project.store
    samples = [(0, server.rss_mb())]
    quarter = HOUR_EVENTS // 4
    run = store.create_run("an hour", root_issue=None, mode="hero")
    for done in range(0, HOUR_EVENTS, EVENTS_PER_COMMIT):
        if done and done % RUN_EVENTS == 0:  # a run a few minutes long, then the next
            store.finish_run(run.id)
            run = store.create_run("an hour", root_issue=None, mode="hero")
        store.add_tasks(
            run.id,
            [
                TaskSpec(
                    key=f"h{done + k}",
                    kind=TaskKind.TRIAGE,
                    role=Role.ANALYST,
                    issues=(1,),
                    subject="Hour",
                    active_form="Ticking",
                )
                for k in range(EVENTS_PER_COMMIT)
            ],
        )
        while not received.empty():
            received.get_nowait()
        if (done + EVENTS_PER_COMMIT) % quarter == 0:
            time.sleep(1.0)  # let the feed catch up before measuring
            samples.append((done + EVENTS_PER_COMMIT, server.rss_mb()))
    stop.set()
    stalled.close()
    return samples


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="ralph-bench-web-"))
    try:
        repo, _ = create_demo_project(folder / "board")
        with open_project(load_config(repo)) as project:
            started = time.perf_counter()
            run_id = fill(project)
            print(
                f"board of {ISSUES} issues and a run of {TASKS} tasks made in "
                f"{time.perf_counter() - started:.1f}s (SQLite)"
            )
            server = Server(repo)
            try:
                load = os.getloadavg()[0]
                print(
                    f"\nPage render over HTTP, median of {REPEATS} (goal <= 150 ms), "
                    f"and the server's CPU per request; load average {load:.2f} "
                    f"on {os.cpu_count()} cores:"
                )
                for name, (ms, cpu) in render_times(server, run_id).items():
                    print(
                        f"  {name:32} {ms:7.1f} ms  ({ms / 150:.2f} of the goal)  cpu {cpu:6.1f} ms"
                    )
                latencies = sorted(sse_latency(server, project))
                p50 = statistics.median(latencies)
                p95 = latencies[int(len(latencies) * 0.95) - 1]
                print(
                    f"\nSSE delivery, store event -> client, {len(latencies)} events "
                    f"(goal p50 <= 200 ms): p50 {p50:.1f} ms ({p50 / 200:.2f} of the goal), "
                    f"p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms"
                )
                samples = memory_over_an_hour(server, project)
            finally:
                server.stop()
            print(
                f"\nServer memory over an hour of events at 10/s ({HOUR_EVENTS} events, "
                "compressed; one stream reading, one stalled):"
            )
            for events, mb in samples:
                print(f"  after {events:6} events: {mb:6.1f} MB")
            first_quarter, last = samples[1][1], samples[-1][1]
            print(
                f"  growth from the first quarter to the end: {last - first_quarter:+.1f} MB "
                f"({last / first_quarter:.2f}x; goal: flat)"
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    os.environ.setdefault("RALPH_AGENT", "scripted")
    main()
