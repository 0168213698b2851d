"""The issue page as a newcomer reads it: the runs that worked on the issue, linked; a pull
request's diff from the project's git (its files, its lines coloured), also once merged;
Markdown as written (a path keeps its underscores, a fenced diff is coloured); enums in
words; one time format; a document's frontmatter as text; and the escalation's reason
beside the Retry button."""

from __future__ import annotations

import re
import subprocess

import pytest
from markupsafe import escape
from starlette.testclient import TestClient

from ralph.project import Project
from ralph.tracker import PullRequestState
from ralph.web._words import when
from ralph.workflow import WorkflowState

from .conftest import WebProject, escalate_one

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

#: The one time format of every page: 2026-12-01 17:40:05.
TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def _section(page: str, start: str) -> str:
    return page.split(start, 1)[1].split("</section>", 1)[0]


def test_the_issue_page_links_the_runs_that_worked_on_it(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    number = waiting.in_review[0]
    runs = _section(client.get(f"/issues/{number}").text, '<section class="runs" id="runs">')
    assert f'<a href="/runs/{waiting.run}">Run {waiting.run}</a> hero of #{waiting.epic}' in runs
    assert "needs a person" in runs
    assert f"Research GH-{number}" in runs or f"#{number}" in runs
    assert TIME.search(runs)
    # An issue no run touched has no such section.
    untouched = open_board.tracker.create_issue("Untouched")
    assert 'id="runs"' not in client.get(f"/issues/{untouched.number}").text


def test_a_pull_request_s_diff_shows_its_files_with_coloured_lines_also_once_merged(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    repo, number = waiting.repo, waiting.in_review[0]

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("checkout", "-q", "-b", "web-diff")
    core = repo / "greet" / "core.py"
    first = core.read_text().splitlines()[0]
    core.write_text(core.read_text().replace(first, "# One more line.", 1))
    (repo / "NOTES.md").write_text("<b>notes</b>\n")
    git("add", "greet/core.py", "NOTES.md")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Notes")
    git("checkout", "-q", "main")
    pr = open_board.code_host.create_pull_request(
        head="web-diff", base="main", title="Notes", body=f"Closes #{number}"
    )
    page = client.get(f"/issues/{number}").text
    files = page.split(f'id="pr-{pr.number}-files"')[1].split("</div>")[0]
    assert "2 files changed" in files
    assert re.search(
        r"<code>NOTES.md</code> <span class=\"stat\"><span class=\"plus\">\+1</span>", files
    )
    assert '<span class="diff-add">+# One more line.</span>' in files
    assert f'<span class="diff-del">-{escape(first)}</span>' in files
    assert '<span class="diff-add">+&lt;b&gt;notes&lt;/b&gt;</span>' in files
    assert '<span class="diff-hunk">@@ ' in files

    open_board.code_host.merge_pull_request(pr.number)
    merged = open_board.code_host.get_pull_request(pr.number)
    assert merged.state is PullRequestState.MERGED
    page = client.get(f"/issues/{number}").text
    assert "· merged" in page
    files = page.split(f'id="pr-{pr.number}-files"')[1].split("</div>")[0]
    assert "2 files changed" in files
    assert '<span class="diff-add">+# One more line.</span>' in files


def test_a_pull_request_whose_commits_are_not_here_says_where_its_diff_is(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    repo, number = waiting.repo, waiting.in_review[0]

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("checkout", "-q", "-b", "elsewhere")
    (repo / "ELSEWHERE.md").write_text("Elsewhere.\n")
    git("add", "ELSEWHERE.md")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Elsewhere")
    git("checkout", "-q", "main")
    pr = open_board.code_host.create_pull_request(
        head="elsewhere", base="main", title="Elsewhere", body=f"Closes #{number}"
    )
    git("branch", "-q", "-D", "elsewhere")
    git("reflog", "expire", "--expire=now", "--all")
    git("gc", "-q", "--prune=now")
    page = client.get(f"/issues/{number}").text
    assert f'id="pr-{pr.number}-files"' not in page
    assert "The diff is not in this clone" in page


def test_markdown_keeps_paths_as_written_and_colours_fenced_diffs(
    client: TestClient, open_board: Project
) -> None:
    body = (
        "Edit calc/__init__.py and __init__.py, keep _emphasis_ and **bold**.\n\n"
        "```diff\n--- a/calc/__init__.py\n+++ b/calc/__init__.py\n@@ -1 +1 @@\n"
        "-old <line>\n+new line\n```\n"
    )
    issue = open_board.tracker.create_issue("Paths", body=body)
    page = client.get(f"/issues/{issue.number}").text
    text = _section(page, '<section class="body markdown">')
    assert "Edit calc/__init__.py and __init__.py, keep <em>emphasis</em>" in text
    assert "<strong>init</strong>" not in text
    assert '<pre class="diff">' in text
    assert '<span class="diff-del">-old &lt;line&gt;</span>' in text
    assert '<span class="diff-add">+new line</span>' in text
    assert '<span class="diff-file">+++ b/calc/__init__.py</span>' in text


def test_enums_read_as_words_and_every_time_in_one_format(
    client: TestClient, open_board: Project, waiting: WebProject
) -> None:
    number = waiting.in_review[0]
    page = client.get(f"/issues/{number}").text
    assert not re.search(r">[A-Z]+(_[A-Z]+)+<", page)  # no REVIEW_REQUIRED, no OPEN_PR
    history = _section(page, '<section class="history">')
    stamps = re.findall(r"<tr><td>([^<]*)</td>", history)
    assert stamps
    assert all(TIME.fullmatch(s) for s in stamps), stamps
    comments = re.findall(
        r'<div class="comment"><p class="meta">[^<]* · ([^<]*)</p>', _section(page, "comments")
    )
    assert comments
    assert all(TIME.fullmatch(s) for s in comments), comments
    assert when("2026-02-20T12:00:00Z") == when(1_771_588_800.0)


def test_a_document_s_frontmatter_values_read_as_text(
    client: TestClient, waiting: WebProject
) -> None:
    page = client.get(f"/issues/{waiting.in_review[0]}").text
    documents = _section(page, '<section class="documents">')
    fields = re.findall(r'<summary>.*?</summary>\s*<p class="meta">(.*?)</p>', documents, re.S)
    assert fields
    for line in fields:
        assert not re.search(r"[\[\]{}']", line), line


def test_the_escalation_box_says_why_beside_the_retry_button(
    client: TestClient, open_board: Project
) -> None:
    issue = open_board.tracker.create_issue(
        "Fails", state=WorkflowState.RESEARCH_NEEDED, body="Research it."
    )
    escalate_one(open_board, issue.number)
    page = client.get(f"/issues/{issue.number}").text
    box = page.split("<h2>Escalated: waits for a person</h2>")[1].split("</section>")[0]
    reason = box.split('id="escalation-reason">')[1].split("</p>")[0]
    assert reason.strip()
    assert "No reason was recorded" not in reason
    assert box.index('id="escalation-reason"') < box.index('id="retry"')
