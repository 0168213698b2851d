"""What an agent does, on the pages: a running task's row on its run page says its turns,
tokens, cost, last tool call, last words and refused tools, a finished task's row its
last activity; the board's card says it beside the running task; the run's JSON carries
it; and what an agent said is shown as text, never as markup."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from ralph.graph import Role, TaskKind, TaskSpec
from ralph.project import Project
from ralph.runtimes import ActivityFeed
from ralph.tasks import Claim

from .conftest import WebProject

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

HOSTILE = '<script>alert("said")</script> fixed it'


def _working(project: Project, issue: int) -> tuple[int, Claim]:
    """A run with one research task on ``issue``, claimed by a worker."""
    store = project.store
    run = store.create_run("activity", root_issue=issue, mode="hero")
    store.add_tasks(
        run.id,
        [
            TaskSpec(
                key="research",
                kind=TaskKind.RESEARCH,
                role=Role.ANALYST,
                issues=(issue,),
                subject=f"Research #{issue}",
                active_form="Researching",
            )
        ],
    )
    claim = store.claim(run.id, "host:1/analyst-1", {Role.ANALYST})
    assert claim is not None
    return run.id, claim


def _report(project: Project, claim: Claim, feed: ActivityFeed) -> None:
    activity = feed.snapshot()
    project.store.record_activity(claim, activity.to_dict(), activity.summary())


def _row(page: str, task: int) -> str:
    return page.split(f'<tr id="row-{task}"')[1].split("</tr>")[0]


def test_a_running_task_shows_what_its_agent_is_doing_and_a_finished_one_what_it_did(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    run, claim = _working(open_board, waiting.epic)
    task = claim.task.id
    feed = ActivityFeed("claude")
    feed.begin("claude")
    page = client.get(f"/runs/{run}").text
    assert 'id="activity-' not in _row(page, task)  # nothing reported yet: no line

    feed.turn()
    feed.usage(tokens=2_048, cost_usd=0.034)
    feed.tool("Edit", "calc/__init__.py")
    feed.said(HOSTILE)
    feed.refused("WebFetch")
    _report(open_board, claim, feed)
    page = client.get(f"/runs/{run}?fragment=1").text
    # Above the graph, what works now, each linked to its row.
    working = page.split('<section class="working" id="working">')[1].split("</section>")[0]
    assert f'<a href="#row-{task}">Research #{waiting.epic}</a>' in working
    assert "Edit calc/__init__.py</span>" in working
    row = _row(page, task)
    line = row.split(f'id="activity-{task}"')[1]
    assert '<div class="activity at-work"' in row
    assert "● now · claude" in line
    assert '<span class="turns">turn 1</span>' in line
    assert '<span class="tokens">2.0k tokens</span>' in line
    assert '<span class="cost">$0.03</span>' in line
    assert "Edit calc/__init__.py</span>" in line
    assert "refused: WebFetch" in line
    assert "<script>" not in row
    assert "&lt;script&gt;alert(&#34;said&#34;)&lt;/script&gt; fixed it" in line

    feed.tool("Bash", "pytest -q")
    feed.ended(turns=3, tokens=5_000, cost_usd=0.05)
    _report(open_board, claim, feed)
    # Its agent has ended; the task still runs (its checks, its commit).
    row = _row(client.get(f"/runs/{run}").text, task)
    assert "agent done · claude" in row
    open_board.store.complete(claim, {"ok": True})
    page = client.get(f"/runs/{run}").text
    assert 'id="working"' not in page  # nothing works now
    row = _row(page, task)
    assert '<div class="activity"' in row  # no longer live
    assert "last · claude" in row
    assert '<span class="turns">turn 3</span>' in row
    assert "Bash pytest -q</span>" in row


def test_the_board_card_says_what_the_running_task_s_agent_does(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    _, claim = _working(open_board, waiting.epic)
    feed = ActivityFeed("codex")
    feed.begin("codex")
    feed.turn()
    feed.tool("Read", "<b>README.md</b>")
    _report(open_board, claim, feed)
    board = client.get("/?fragment=1").text
    card = board.split(f'id="card-{waiting.epic}"')[1].split("</article>")[0]
    running = card.split('class="running"')[1]
    assert '<span class="now"' in running
    assert "turn 1 · Read &lt;b&gt;README.md&lt;/b&gt;</span>" in running


def test_the_run_api_carries_each_task_s_activity(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    run, claim = _working(open_board, waiting.epic)
    feed = ActivityFeed("claude")
    feed.begin("claude")
    feed.usage(tokens=1_200, cost_usd=0.01)
    feed.tool("Write", "notes.md")
    feed.said("Working on it")
    _report(open_board, claim, feed)
    (line,) = client.get(f"/api/runs/{run}").json()["report"]["tasks"]
    activity = line["activity"]
    assert activity["agent"] == "claude"
    assert (activity["tokens"], activity["tool"], activity["said"]) == (
        1_200,
        "Write notes.md",
        "Working on it",
    )
    assert [e["kind"] for e in activity["recent"]] == ["tool", "said"]


def test_the_hero_s_finished_tasks_show_their_agents_last_activity(
    client: TestClient, waiting: WebProject
) -> None:
    page = client.get(f"/runs/{waiting.run}").text
    assert page.count('<div class="activity"') >= 3
    assert "last · scripted" in page
    assert '<div class="activity at-work"' not in page  # nothing runs now
