"""What a person does on the board: approve or reject a plan, retry an escalated issue,
cancel a run: each a POST with its CSRF token, through the CLI's functions, with their
rules. And who may look at all: the token. And what a page may run: the server's own
script, nothing inline (the Content-Security-Policy every answer carries)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ralph.config import load_config
from ralph.project import Project, open_project
from ralph.tasks import RunStatus, TaskStatus
from ralph.web._security import CSRF_COOKIE
from ralph.workflow import Estimate, WorkflowState

from .conftest import BOARD_KINDS, TOKEN, WebProject, client_of, escalate_one, waiting_on

pytestmark = pytest.mark.slow


def csrf_of(client: TestClient, page: str = "/") -> str:
    """The token a page's forms repeat (and the cookie the page set)."""
    text = client.get(page).text
    found = re.search(r'name="csrf" value="([^"]+)"', text) or re.search(
        r'data-csrf="([^"]+)"', text
    )
    assert found is not None
    assert client.cookies.get(CSRF_COOKIE) == found.group(1)
    return found.group(1)


def state_of(project: Project, number: int) -> WorkflowState | None:
    return project.tracker.get_issue(number).workflow_state


def test_approving_a_plan_from_its_page_moves_its_issues_to_in_progress(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    number = waiting.in_review[0]
    csrf = csrf_of(client, f"/issues/{number}")
    answer = client.post(f"/issues/{number}/approve", data={"csrf": csrf})
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(f"/issues/{number}?notice=Approved")
    for member in waiting.in_review:
        assert state_of(open_board, member) is WorkflowState.IN_PROGRESS
    shown = client.get(answer.headers["location"]).text
    assert "Approved the plan for" in shown
    assert "In Progress" in shown


def test_rejecting_a_plan_sends_it_back_with_the_feedback(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    number = waiting.in_review[0]
    csrf = csrf_of(client, f"/issues/{number}")
    answer = client.post(
        f"/issues/{number}/reject", data={"csrf": csrf, "feedback": "Test farewell too."}
    )
    assert answer.status_code == 303
    issue = open_board.tracker.get_issue(number)
    assert issue.workflow_state is WorkflowState.READY_FOR_PLAN
    assert "needs-iteration" in issue.labels
    assert any("Test farewell too." in c.body for c in issue.comments)


@pytest.mark.parametrize(
    "form",
    [{}, {"csrf": ""}, {"csrf": "not-the-cookie"}],
    ids=["no token", "empty token", "another token"],
)
def test_an_action_without_its_csrf_token_is_refused_and_changes_nothing(
    client: TestClient, open_board: Project, waiting: WebProject, form: dict[str, str]
) -> None:
    number = waiting.in_review[0]
    csrf_of(client)
    answer = client.post(f"/issues/{number}/approve", data=form)
    assert answer.status_code == 403
    assert "CSRF" in answer.text
    assert state_of(open_board, number) is WorkflowState.PLAN_IN_REVIEW


def test_an_action_from_a_browser_without_the_cookie_is_refused(
    open_board: Project, waiting: WebProject
) -> None:
    """A page of another site can post the field it guessed, never the cookie."""
    number = waiting.in_review[0]
    with client_of(open_board) as stranger:
        answer = stranger.post(f"/issues/{number}/approve", data={"csrf": "guessed"})
    assert answer.status_code == 403
    assert state_of(open_board, number) is WorkflowState.PLAN_IN_REVIEW


def test_an_action_the_workflow_refuses_is_one_line_and_changes_nothing(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    csrf = csrf_of(client)
    answer = client.post(f"/issues/{waiting.epic}/approve", data={"csrf": csrf})
    assert answer.status_code == 400
    message = re.search(r'<p class="message">(.*?)</p>', answer.text, re.S)
    assert message is not None
    assert "its plan is on its sub-issue #2" in message.group(1)
    assert "Traceback" not in answer.text
    retry = client.post(f"/issues/{waiting.in_review[0]}/retry", data={"csrf": csrf})
    assert retry.status_code == 400
    assert "only an escalated issue" in retry.text
    assert state_of(open_board, waiting.in_review[0]) is WorkflowState.PLAN_IN_REVIEW
    assert client.post("/issues/999/approve", data={"csrf": csrf}).status_code == 404


def test_retrying_an_escalated_issue_sends_it_back_to_where_its_phase_starts(
    client: TestClient, open_board: Project
) -> None:
    issue = open_board.tracker.create_issue(
        "Another", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS
    )
    escalate_one(open_board, issue.number)
    assert state_of(open_board, issue.number) is WorkflowState.HUMAN_NEEDED
    page = client.get(f"/issues/{issue.number}").text
    assert f"ralph issue retry {issue.number}" in page
    answer = client.post(f"/issues/{issue.number}/retry", data={"csrf": csrf_of(client)})
    assert answer.status_code == 303
    assert state_of(open_board, issue.number) is WorkflowState.RESEARCH_NEEDED


def test_the_board_lists_an_escalated_issue_with_its_reason_and_needs_attention(
    client: TestClient, open_board: Project
) -> None:
    issue = open_board.tracker.create_issue(
        "Another", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS
    )
    escalate_one(open_board, issue.number)
    board = client.get("/?fragment=1").text
    assert "Health: needs attention" in board
    strip = board.split('<ul class="attention"', 1)[1].split("</ul>", 1)[0]
    assert f'href="/issues/{issue.number}"' in strip
    assert f"#{issue.number} needs a person: " in strip
    assert "Health: all clear" not in board


def test_a_page_asked_for_by_another_name_is_refused_and_hands_out_no_csrf_cookie(
    client: TestClient, waiting: WebProject
) -> None:
    """DNS rebinding: a page of evil.example pointed at 127.0.0.1 asks for its own name."""
    for path in ("/", f"/api/issues/{waiting.epic}"):
        answer = client.get(path, headers={"host": "evil.example:8765"})
        assert answer.status_code == 403
        assert "set-cookie" not in answer.headers
    assert CSRF_COOKIE not in client.cookies


@pytest.mark.parametrize(
    "headers",
    [
        {"host": "evil.example:8765", "origin": "http://evil.example:8765"},
        {"origin": "http://evil.example:8765"},
        {"referer": "http://evil.example/"},
        {"sec-fetch-site": "cross-site"},
    ],
)
def test_a_retry_from_another_site_is_refused_even_with_the_csrf_token(
    client: TestClient, open_board: Project, headers: dict[str, str]
) -> None:
    issue = open_board.tracker.create_issue(
        "Another", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS
    )
    escalate_one(open_board, issue.number)
    csrf = csrf_of(client)
    answer = client.post(f"/issues/{issue.number}/retry", data={"csrf": csrf}, headers=headers)
    assert answer.status_code == 403
    assert state_of(open_board, issue.number) is WorkflowState.HUMAN_NEEDED
    same_site = {"origin": "http://127.0.0.1:8765", "sec-fetch-site": "same-origin"}
    answer = client.post(f"/issues/{issue.number}/retry", data={"csrf": csrf}, headers=same_site)
    assert answer.status_code == 303
    assert state_of(open_board, issue.number) is WorkflowState.RESEARCH_NEEDED


def test_cancelling_a_run_from_its_page_cancels_what_is_left_of_it(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    csrf = csrf_of(client, f"/runs/{waiting.run}")
    answer = client.post(
        f"/runs/{waiting.run}/cancel", data={"csrf": csrf, "back": f"/runs/{waiting.run}"}
    )
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(f"/runs/{waiting.run}?notice=Run")
    store = open_board.store
    assert store.get_run(waiting.run).status is RunStatus.CANCELED
    assert not [t for t in store.list_tasks(waiting.run) if not t.terminal]
    assert any(t.status is TaskStatus.CANCELED for t in store.list_tasks(waiting.run))
    again = client.post(f"/runs/{waiting.run}/cancel", data={"csrf": csrf})
    assert again.status_code == 400
    assert "only an active run" in again.text


@pytest.mark.parametrize("kind", BOARD_KINDS[1:])
def test_on_every_board_a_plan_is_approved_and_a_run_canceled_from_the_run_page(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The actions of the run page on PostgreSQL and on GitHub, on a board of their own
    (the module's other tests change the SQLite project's)."""
    with waiting_on(kind, tmp_path) as made:
        for name, value in made.env.items():
            monkeypatch.setenv(name, value)
        with open_project(load_config(made.repo)) as project, client_of(project) as client:
            page = f"/runs/{made.run}"
            csrf = csrf_of(client, page)
            assert f'action="/issues/{made.in_review[0]}/approve"' in client.get(page).text
            approved = client.post(
                f"/issues/{made.in_review[0]}/approve", data={"csrf": csrf, "back": page}
            )
            assert approved.status_code == 303
            assert approved.headers["location"].startswith(f"{page}?notice=Approved")
            for member in made.in_review:
                assert state_of(project, member) is WorkflowState.IN_PROGRESS
            canceled = client.post(f"{page}/cancel", data={"csrf": csrf, "back": page})
            assert canceled.status_code == 303
            assert project.store.get_run(made.run).status is RunStatus.CANCELED
            refused = client.post(f"/issues/{made.in_review[0]}/approve", data={"csrf": "x"})
            assert refused.status_code == 403


def test_an_action_returns_only_to_a_page_of_the_board(
    client: TestClient, waiting: WebProject
) -> None:
    csrf = csrf_of(client)
    answer = client.post(
        f"/issues/{waiting.in_review[0]}/approve",
        data={"csrf": csrf, "back": "https://elsewhere.example/"},
    )
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(f"/issues/{waiting.in_review[0]}?")


# -- the token --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/", "/issues/2", "/runs", "/spend", "/events", "/static/ralph.css"]
)
def test_with_a_token_a_page_without_it_is_401(open_board: Project, path: str) -> None:
    with client_of(open_board, TOKEN) as guest:
        answer = guest.get(path)
    assert answer.status_code == 401
    assert "token" in answer.text


@pytest.mark.parametrize(
    "header", [None, "Bearer wrong-token-0123456789", f"Basic {TOKEN}", f"Bearer {TOKEN}x"]
)
def test_with_a_token_an_api_call_without_the_right_one_is_401(
    open_board: Project, header: str | None
) -> None:
    headers = {"authorization": header} if header else {}
    with client_of(open_board, TOKEN) as guest:
        answer = guest.get("/api/board", headers=headers)
    assert answer.status_code == 401
    assert answer.json()["error"].startswith("This board needs its token")


def test_the_right_token_opens_every_page(open_board: Project) -> None:
    with client_of(open_board, TOKEN) as tool:
        assert (
            tool.get("/api/board", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
        )
    with client_of(open_board, TOKEN) as browser:
        first = browser.get(f"/runs?token={TOKEN}")
        assert first.status_code == 303
        assert first.headers["location"] == "/runs"
        assert "HttpOnly" in first.headers["set-cookie"]
        assert browser.get("/runs").status_code == 200  # the cookie from now on
        assert browser.get("/api/spend").status_code == 200


def test_with_a_token_the_board_answers_to_the_public_host_it_serves_and_no_other(
    open_board: Project,
) -> None:
    bearer = {"authorization": f"Bearer {TOKEN}"}
    with client_of(open_board, TOKEN, hosts=["192.0.2.7"]) as tool:
        served = tool.get("/api/board", headers={**bearer, "host": "192.0.2.7:8765"})
        assert served.status_code == 200
        other = tool.get("/api/board", headers={**bearer, "host": "evil.example:8765"})
        assert other.status_code == 403


def test_a_wrong_token_in_the_address_sets_no_cookie(open_board: Project) -> None:
    with client_of(open_board, TOKEN) as browser:
        answer = browser.get("/?token=wrong-token-0123456789")
        assert answer.status_code == 401
        assert "set-cookie" not in answer.headers
        assert browser.get("/").status_code == 401


# -- what a page may run ----------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/", "/issues/2", "/runs", "/runs/1", "/spend", "/static/live.js"]
)
def test_every_answer_lets_a_page_run_only_the_servers_own_script(
    client: TestClient, path: str
) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    policy = answer.headers["content-security-policy"]
    assert "script-src 'self';" in policy
    assert "frame-ancestors 'none'" in policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in answer.text
    assert " onsubmit=" not in answer.text


def test_a_refusal_carries_the_policy_too(open_board: Project) -> None:
    with client_of(open_board, TOKEN) as guest:
        refused = guest.get("/", headers={"host": "evil.example"})
        assert refused.status_code == 403
        assert "script-src 'self'" in refused.headers["content-security-policy"]
