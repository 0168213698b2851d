"""Every page and API document of ``ralph web``, in-process through the ASGI test client,
on a project a hero left waiting at its plan's gate: what each shows, the same JSON as
the CLI's ``--json``, and ids that do not exist (a 404 page, never a traceback)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
from typing import Any

import pytest
from starlette.testclient import TestClient

from ralph.artifacts import ArtifactKind, artifact_comment
from ralph.cli import main
from ralph.project import Project
from ralph.tracker import CheckConclusion, CheckRun, ReviewEvent
from ralph.workflow import STATE_ORDER, WorkflowState

from .conftest import WebProject

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def waiting_template(every_board: WebProject) -> WebProject:
    """The same pages and documents on every board: local (SQLite, PostgreSQL), GitHub."""
    return every_board


def _critical_keys(document: Any) -> list[str]:
    """The report's ``criticalKeys``, wherever the run's document holds it."""
    if isinstance(document, dict):
        if "criticalKeys" in document:
            return list(document["criticalKeys"])
        document = list(document.values())
    if isinstance(document, list):
        for part in document:
            found = _critical_keys(part)
            if found:
                return found
    return []


def cli_json(project: WebProject, *args: str) -> Any:
    out = io.StringIO()
    with (
        contextlib.chdir(project.repo),
        contextlib.redirect_stdout(out),
        pytest.raises(SystemExit) as ended,
    ):
        main([*args, "--json"])
    assert ended.value.code in (0, None)
    return json.loads(out.getvalue())


def test_the_board_shows_a_column_per_state_in_pipeline_order_with_its_cards(
    client: TestClient, waiting: WebProject
) -> None:
    page = client.get("/")
    assert page.status_code == 200
    columns = re.findall(
        r'<section class="column[^"]*" id="col-[^"]+" data-state="([^"]+)"', page.text
    )
    order = [*STATE_ORDER, WorkflowState.HUMAN_NEEDED, WorkflowState.CANCELED]
    assert columns == [state.value for state in order]
    review = page.text.split('data-state="Plan in Review"')[1].split("</section>")[0]
    for number in waiting.in_review:
        assert f'data-issue="{number}"' in review
    assert '<span class="badge est">XS</span>' in review
    assert "Health:" in page.text
    assert '<script src="/static/live.js" defer></script>' in page.text
    assert 'data-refresh="/?fragment=1" data-on="board runs"' in page.text


def test_the_board_fragment_is_the_board_alone_for_live_updates(client: TestClient) -> None:
    fragment = client.get("/?fragment=1")
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<section id="board"')
    assert "<html" not in fragment.text


def test_the_board_api_is_ralph_status_json_with_lock_holders(
    client: TestClient, waiting: WebProject
) -> None:
    served = client.get("/api/board").json()
    printed = cli_json(waiting, "status")
    for document in (served, printed):
        document.pop("generatedAt")
        for phase in document["phases"]:
            for issue in phase["issues"]:
                issue.pop("ageHours")
    assert served.pop("lockHolders") == {}
    assert served == printed


def test_an_issue_page_shows_history_documents_and_the_review_actions(
    client: TestClient, waiting: WebProject
) -> None:
    number = waiting.in_review[0]
    page = client.get(f"/issues/{number}")
    assert page.status_code == 200
    text = page.text
    assert "Plan in Review" in text
    assert "<h2>History</h2>" in text
    assert "Research Needed</td>" in text
    # the research document and the plan, from main, as HTML
    assert "research: <code>thoughts/shared/research/" in text
    assert "plan: <code>thoughts/shared/plans/" in text
    assert re.search(r'<div class="markdown"><h1>', text)
    assert f'action="/issues/{number}/approve"' in text
    assert f'action="/issues/{number}/reject"' in text


def _pull_request_for(project: Project, waiting: WebProject, number: int) -> int:
    """A pull request closing issue ``number`` (a branch with a commit, pushed where
    the board keeps its git), with a passing check and a person's review."""

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=waiting.repo, check=True, capture_output=True)

    git("checkout", "-q", "-b", "web-farewell")
    (waiting.repo / "FAREWELL.md").write_text("Say farewell.\n")
    git("add", "FAREWELL.md")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Farewell")
    git("checkout", "-q", "main")
    if waiting.github is not None:
        git("push", "-q", "origin", "web-farewell")
    pr = project.code_host.create_pull_request(
        head="web-farewell",
        base="main",
        title="Say farewell",
        body=project.tracker.closing_words(number),
    )
    if waiting.github is not None:
        waiting.github.add_check("acme/greet", pr.number, "unit tests", "SUCCESS")
        waiting.github.review("acme/greet", pr.number, "alice", "COMMENT", "Reads **well**.")
    else:
        project.code_host.record_check(
            pr.number,
            CheckRun(name="unit tests", conclusion=CheckConclusion.SUCCESS, required=True),
        )
        project.code_host.submit_review(
            pr.number, ReviewEvent.COMMENT, "Reads **well**.", author="alice"
        )
    return pr.number


def test_an_issue_page_shows_its_pull_requests_with_checks_and_reviews(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    number = waiting.in_review[-1]
    pr = _pull_request_for(open_board, waiting, number)
    text = client.get(f"/issues/{number}").text
    prs = text.split('<section class="prs">')[1].split("</section>")[0]
    assert f"#{pr}" in prs
    assert "Say farewell" in prs
    assert "web-farewell → main" in prs
    assert re.search(r"<td>unit tests</td><td class=\"check-pass\">", prs)
    assert "<strong>alice</strong>: commented" in prs
    assert "Reads <strong>well</strong>." in prs
    # Its diff, read from the project's git: the file it adds, its line coloured.
    files = prs.split('class="pr-files"')[1]
    assert "1 file changed" in files
    assert "<code>FAREWELL.md</code>" in files
    assert '<span class="diff-add">+Say farewell.</span>' in files
    served = client.get(f"/api/issues/{number}").json()
    assert [p["number"] for p in served["pullRequests"]] == [pr]
    assert served == cli_json(waiting, "issue", "show", str(number))


def test_the_issue_api_is_ralph_issue_show_json(client: TestClient, waiting: WebProject) -> None:
    number = waiting.in_review[0]
    assert client.get(f"/api/issues/{number}").json() == cli_json(
        waiting, "issue", "show", str(number)
    )


def test_the_runs_page_and_api_list_every_run(client: TestClient, waiting: WebProject) -> None:
    page = client.get("/runs")
    assert page.status_code == 200
    assert f'href="/runs/{waiting.run}"' in page.text
    served = client.get("/api/runs").json()
    assert served == cli_json(waiting, "runs", "list")
    # The run stopped at the plan's gate: a person is needed, and its badge is not green.
    assert served[0]["outcome"] == "needs_person"
    assert '<span class="status outcome-needs_person">needs a person</span>' in page.text
    assert "finished" not in page.text


def test_a_run_page_draws_its_task_graph_and_says_what_needs_a_person(
    client: TestClient, waiting: WebProject
) -> None:
    page = client.get(f"/runs/{waiting.run}")
    assert page.status_code == 200
    text = page.text
    svg = text.split('<svg xmlns="http://www.w3.org/2000/svg" class="task-graph"')[1].split(
        "</svg>"
    )[0]
    assert svg.count('<g class="task status-') == text.count('<tr id="row-')
    assert 'class="task status-done' in svg
    assert 'class="task status-pending' in svg
    keys = _critical_keys(client.get(f"/api/runs/{waiting.run}").json())
    marked = re.findall(
        r'class="task status-[a-z_]+ critical" id="task-\d+" data-key="([^"]+)"', svg
    )
    assert keys
    assert set(marked) == set(keys)  # the report's critical path, drawn heavier
    if len(keys) > 1:  # a path of one task (its only work so far) has no edge to draw
        assert 'class="edge critical"' in svg, keys
    assert "Needs a person" in text
    assert '<span class="status outcome-needs_person">needs a person</span></h1>' in text
    assert f"ralph approve {waiting.in_review[0]}" in text or "ralph approve" in text
    assert f"ralph hero {waiting.epic}" in text
    assert "Approve the plan" in text
    assert "$0.25" in text
    assert 'href="/api/tasks/' in text
    # The hero stopped at the gate: nothing runs the run until a person approves.
    assert "paused: no session is working on it" in text
    assert "stopping" not in text


def test_the_run_and_task_apis_are_the_cli_json(client: TestClient, waiting: WebProject) -> None:
    assert client.get(f"/api/runs/{waiting.run}").json() == cli_json(
        waiting, "runs", "show", str(waiting.run)
    )
    task = client.get(f"/api/runs/{waiting.run}").json()["report"]["tasks"][0]["id"]
    assert client.get(f"/api/tasks/{task}").json() == cli_json(waiting, "tasks", "show", str(task))


def test_the_spend_page_shows_costs_per_day_run_and_phase_against_the_budget(
    client: TestClient, open_board: Project
) -> None:
    spend = client.get("/api/spend").json()
    charges = [c for run in open_board.store.list_runs() for c in open_board.store.charges(run.id)]
    assert spend["totalUsd"] > 0
    assert spend["totalUsd"] == pytest.approx(sum(c.usd for c in charges))
    assert [line["key"] for line in spend["phases"]][:3] == ["triage", "split", "research"]
    assert spend["days"][0]["key"] == spend["today"]
    page = client.get("/spend")
    assert page.status_code == 200
    assert "Per phase" in page.text
    assert "(no cap)" in page.text


@pytest.mark.parametrize(
    "path",
    [
        "/issues/999",
        "/issues/0",
        "/issues/abc",
        "/issues/99999999999999999999999",
        "/runs/999",
        "/runs/-1",
        "/nowhere",
    ],
)
def test_a_page_that_does_not_exist_is_a_404_page_without_a_traceback(
    client: TestClient, path: str
) -> None:
    page = client.get(path)
    assert page.status_code == 404
    assert "text/html" in page.headers["content-type"]
    assert '<section class="error">' in page.text
    assert "Traceback" not in page.text


@pytest.mark.parametrize(
    "path", ["/api/issues/999", "/api/runs/999", "/api/tasks/999", "/api/tasks/1x"]
)
def test_an_api_document_that_does_not_exist_is_a_404_with_one_line(
    client: TestClient, path: str
) -> None:
    found = client.get(path)
    assert found.status_code == 404
    error = found.json()["error"]
    assert error
    assert "\n" not in error
    assert "Traceback" not in error


def test_issue_text_is_shown_as_text_never_as_markup(
    client: TestClient, open_board: Project
) -> None:
    hostile = open_board.tracker.create_issue(
        "<img src=x onerror=alert(1)>",
        body="<script>alert(1)</script>\n\n[click](javascript:alert(2))",
    )
    page = client.get(f"/issues/{hostile.number}").text
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;" in page
    assert 'href="javascript:' not in page
    assert "[click](javascript:alert(2))" in page
    assert "<img src=x" not in page
    board = client.get("/").text
    assert "<img src=x" not in board
    assert "&lt;img src=x" in board


def test_issue_text_in_rich_markup_is_shown_as_written(
    client: TestClient, open_board: Project
) -> None:
    title = "[wip] Fix [/] the [bold]thing"
    marked = open_board.tracker.create_issue(title, body="[debug-auto] said [/] :warning:")
    page = client.get(f"/issues/{marked.number}").text
    assert title in page
    assert "[debug-auto] said [/] :warning:" in page
    assert title in client.get("/").text
    assert client.get(f"/api/issues/{marked.number}").json()["title"] == title


def test_an_issue_page_points_an_implementation_at_its_pull_request_not_at_the_base_branch(
    client: TestClient, open_board: Project
) -> None:
    number = open_board.tracker.create_issue("Wave goodbye").number
    link = "local:greet/pull/9"
    comment = artifact_comment(ArtifactKind.IMPLEMENTATION, link)
    open_board.tracker.add_comment(number, comment)
    text = client.get(f"/issues/{number}").text
    assert f"implementation: <code>{link}</code>" in text
    assert "A pull request: see Pull requests below." in text
    assert "Not on the base branch." not in text
