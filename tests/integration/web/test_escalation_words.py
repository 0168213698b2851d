"""What the board shows a person about an escalated issue: the reason whole (its line
says what failed, its test output preformatted, never Markdown), the one recovery
(`ralph issue retry N`, then `ralph hero N`), titles' `code` as code, who moved it in
words, and no re-plan or timing internals on the run pages."""

from __future__ import annotations

import html
import re

import pytest
from starlette.testclient import TestClient

from ralph.phases import PhaseRunner
from ralph.project import Project
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.workflow import Estimate, WorkflowState

from .conftest import WebProject
from .test_actions import csrf_of

pytestmark = pytest.mark.slow

TITLE = "Add a `divide(a, b)` function"
OUTPUT = (
    "F\n" + "=" * 70 + "\nFAIL: test_add (tests.test_add.T.test_add)\n" + "-" * 70 + "\n"
    "Traceback (most recent call last):\n    self.assertEqual(add(1, 2), 3)\n"
    "AssertionError: -1 != 3 <b>\n\nFAILED (failures=1)"
)
REASON = f"the tests fail in the worktree (`python3 -m unittest`):\n{OUTPUT}"


def escalated(project: Project) -> int:
    issue = project.tracker.create_issue(
        TITLE, state=WorkflowState.IN_PROGRESS, estimate=Estimate.XS
    )
    PhaseRunner(project, ScriptedRuntime()).escalate("implement", [issue.number], REASON)
    return issue.number


def test_the_issue_page_shows_the_reason_whole_and_its_output_preformatted(
    client: TestClient, open_board: Project
) -> None:
    number = escalated(open_board)
    page = client.get(f"/issues/{number}").text
    reason = page.split('id="escalation-reason">', 1)[1].split("</p>", 1)[0]
    assert reason.endswith("AssertionError: -1 != 3 &lt;b&gt;"), reason
    assert "<code>python3 -m unittest</code>" in reason
    output = page.split('id="escalation-output">', 1)[1].split("</pre>", 1)[0]
    assert html.unescape(output) == OUTPUT
    assert "<h1>#" in page
    assert "<code>divide(a, b)</code>" in page.split("<h1>", 1)[1]
    # The comment's test output is a code block, not headings and rules.
    comments = page.split('class="comments"', 1)[1]
    assert "<h2>FAIL" not in comments
    assert "<hr" not in comments
    assert "FAIL: test_add" in comments
    assert f"<code>ralph issue retry {number}</code>" in comments
    # Who moved it, in words; the command stays in the cell's title.
    history = page.split('class="history"', 1)[1].split("</table>", 1)[0]
    assert re.search(r'<td title="ralph_impl">implementation</td>', history), history


def test_the_board_shows_the_reason_to_its_failing_line_and_titles_code_as_code(
    client: TestClient, open_board: Project
) -> None:
    number = escalated(open_board)
    board = client.get("/?fragment=1").text
    strip = board.split('<ul class="attention"', 1)[1].split("</ul>", 1)[0]
    line = next(li for li in strip.split("<li>") if f"/issues/{number}" in li)
    assert "AssertionError: -1 != 3 &lt;b&gt;</a>" in line
    card = board.split(f'id="card-{number}"', 1)[1].split("</article>", 1)[0]
    assert f"#{number} Add a <code>divide(a, b)</code> function</a>" in card
    flag = card.split('class="flag">', 1)[1].split("</p>", 1)[0]
    assert "<code>python3 -m unittest</code>" in flag


def test_retry_on_the_web_says_what_comes_next(client: TestClient, open_board: Project) -> None:
    number = escalated(open_board)
    answer = client.post(
        f"/issues/{number}/retry", data={"csrf": csrf_of(client)}, follow_redirects=True
    )
    notice = answer.text.split('class="notice" role="status">', 1)[1].split("</p>", 1)[0]
    assert notice == (
        f"#{number}: Human Needed → In Progress. Next: run <code>ralph hero {number}</code>, "
        "or <code>ralph serve</code> picks it up."
    )


def test_the_run_pages_show_no_re_plan_counts_or_critical_path(
    client: TestClient, waiting: WebProject
) -> None:
    runs = client.get("/runs").text
    assert "replaced by a re-plan" not in runs
    page = client.get(f"/runs/{waiting.run}").text
    assert "critical path of" not in page
    assert "makespan" not in page
    assert re.search(r"<p>took \d", page)
