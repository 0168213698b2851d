"""The live feed over a real server (uvicorn on a free port, in a thread): a task
starting or ending, a state move and an escalation reach an open event stream without a
reload, on every board (the local tracker on SQLite and on PostgreSQL, where the store's
change signal wakes the feed; GitHub and Linear, read every ``poll_seconds``); a stream that stops
reading is told to reload instead of holding events; and stopping the server ends every
open stream."""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
import uvicorn

from ralph.graph import Role, TaskKind, TaskSpec
from ralph.project import Project
from ralph.runtimes import ActivityFeed
from ralph.tasks import TaskStore
from ralph.web import create_app
from ralph.web._feed import FEED_QUEUE_SIZE, FeedMessage, Subscription
from ralph.web._server import _Server
from ralph.workflow import WorkflowState

from .conftest import WebProject

pytestmark = pytest.mark.slow

WAIT = 10.0
#: How often the feed reads a remote board (GitHub, Linear) here (ralph.toml's
#: poll_seconds otherwise).
REMOTE_POLL_SECONDS = 1.0


@pytest.fixture(scope="module")
def waiting_template(every_board: WebProject) -> WebProject:
    return every_board


@dataclass
class Served:
    url: str
    server: _Server
    thread: threading.Thread


@pytest.fixture
def served(open_board: Project) -> Iterator[Served]:
    remote = open_board.tracker.remote
    app = create_app(open_board, poll_seconds=REMOTE_POLL_SECONDS if remote else None)
    urls: queue.Queue[str] = queue.Queue()
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    config.timeout_graceful_shutdown = 5
    server = _Server(config, urls.put)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    found = Served(urls.get(timeout=WAIT), server, thread)
    yield found
    server.handle_exit(2, None)
    thread.join(WAIT)


class Stream:
    """An open /events stream read on a thread: its messages in a queue."""

    def __init__(self, url: str) -> None:
        self.messages: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()
        self.opened = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(url,), daemon=True)
        self._thread.start()
        assert self.opened.wait(WAIT)

    def _read(self, url: str) -> None:
        event = ""
        try:
            with (
                httpx2.Client(timeout=httpx2.Timeout(WAIT, read=60)) as client,
                client.stream("GET", url + "events") as response,
            ):
                for line in response.iter_lines():
                    if line.startswith("retry:"):
                        self.opened.set()
                    elif line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("data: "):
                        self.messages.put((event, json.loads(line[6:])))
        except httpx2.HTTPError:
            pass
        finally:
            self.messages.put(None)  # the stream ended

    def wait_for(self, event: str, match: dict[str, Any] | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + WAIT
        while (left := deadline - time.monotonic()) > 0:
            try:
                found = self.messages.get(timeout=left)
            except queue.Empty:
                break
            assert found is not None, f"the stream ended before a {event!r} came"
            name, data = found
            if name == event and all(data.get(k) == v for k, v in (match or {}).items()):
                return data
        raise AssertionError(f"no {event!r} {match or ''} within {WAIT}s")

    def ended(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()


def test_a_state_move_reaches_an_open_page_as_a_board_event(
    served: Served, open_board: Project
) -> None:
    stream = Stream(served.url)
    issue = open_board.tracker.create_issue("Live", state=WorkflowState.BACKLOG)
    stream.wait_for("board")
    open_board.tracker.set_state(issue.number, WorkflowState.RESEARCH_NEEDED, actor="human")
    stream.wait_for("board")
    board = httpx2.get(served.url + "?fragment=1", timeout=WAIT).text
    column = board.split('data-state="Research Needed"')[1].split("</section>")[0]
    assert f'data-issue="{issue.number}"' in column


def test_a_task_starting_and_ending_reaches_an_open_page_as_run_events(
    served: Served, open_board: Project
) -> None:
    store: TaskStore = open_board.store
    stream = Stream(served.url)
    run = store.create_run("live", root_issue=None, mode="hero")
    (task,) = store.add_tasks(
        run.id,
        [
            TaskSpec(
                key="t",
                kind=TaskKind.RESEARCH,
                role=Role.ANALYST,
                issues=(1,),
                subject="Research live",
                active_form="Researching",
            )
        ],
    )
    stream.wait_for("runs", {"run": run.id, "kind": "task_added", "task": task.id})
    claim = store.claim(run.id, "tester", {Role.ANALYST})
    assert claim is not None
    stream.wait_for("runs", {"run": run.id, "kind": "task_claimed"})
    page = httpx2.get(f"{served.url}runs/{run.id}?fragment=1", timeout=WAIT).text
    assert 'class="task status-running' in page
    store.complete(claim, {"ok": True})
    stream.wait_for("runs", {"run": run.id, "kind": "task_done"})


def test_an_agents_activity_reaches_an_open_run_page_as_a_run_event(
    served: Served, open_board: Project
) -> None:
    store: TaskStore = open_board.store
    run = store.create_run("live activity", root_issue=None, mode="hero")
    store.add_tasks(
        run.id,
        [
            TaskSpec(
                key="t",
                kind=TaskKind.IMPLEMENT,
                role=Role.BUILDER,
                issues=(1,),
                subject="Implement live",
                active_form="Implementing",
            )
        ],
    )
    claim = store.claim(run.id, "tester", {Role.BUILDER})
    assert claim is not None
    stream = Stream(served.url)
    feed = ActivityFeed("claude")
    feed.begin("claude")
    feed.turn()
    feed.tool("Edit", "calc/__init__.py")
    store.record_activity(claim, feed.snapshot().to_dict(), feed.snapshot().summary())
    stream.wait_for("runs", {"run": run.id, "kind": "task_activity", "task": claim.task.id})
    page = httpx2.get(f"{served.url}runs/{run.id}?fragment=1", timeout=WAIT).text
    line = page.split(f'id="activity-{claim.task.id}"')[1].split("</div>")[0]
    assert "turn 1" in line
    assert "Edit calc/__init__.py" in line


def test_an_escalation_reaches_an_open_page(served: Served, open_board: Project) -> None:
    from .conftest import escalate_one

    issue = open_board.tracker.create_issue(
        "Escalates", state=WorkflowState.RESEARCH_NEEDED, body="Research it."
    )
    stream = Stream(served.url)
    escalate_one(open_board, issue.number)
    stream.wait_for("board")
    board = httpx2.get(served.url + "?fragment=1", timeout=WAIT).text
    column = board.split('data-state="Human Needed"')[1].split("</section>")[0]
    assert f'data-issue="{issue.number}"' in column


def test_stopping_the_server_ends_every_open_stream(served: Served) -> None:
    streams = [Stream(served.url) for _ in range(3)]
    served.server.handle_exit(2, None)
    served.thread.join(WAIT)
    assert not served.thread.is_alive()
    assert all(stream.ended(WAIT) for stream in streams)


def test_a_page_that_stops_reading_is_told_to_reload_and_holds_a_bounded_queue() -> None:
    async def scenario() -> list[FeedMessage | None]:
        subscription = Subscription(asyncio.get_running_loop())
        for n in range(FEED_QUEUE_SIZE * 3):
            subscription.offer(FeedMessage("runs", {"event": n}))
        await asyncio.sleep(0.05)  # the offers run on the loop
        assert subscription.queue.qsize() <= FEED_QUEUE_SIZE
        found = []
        while not subscription.queue.empty():
            found.append(subscription.queue.get_nowait())
        return found

    found = asyncio.run(scenario())
    assert any(m is not None and m.event == "reload" for m in found)
    last = found[-1]
    assert last is not None
    assert last.data == {"event": FEED_QUEUE_SIZE * 3 - 1}
