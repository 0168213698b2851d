"""``ralph web`` on a Linear team, as a process against FakeLinear served on 127.0.0.1:
the board shows the team's issues in Ralph's columns, an issue page its comments from
Linear and the pull request (on the local code host) that closes it, nothing offers
what only GitHub has, and Linear not answering is a 503 of one line, never a 500.

In Chromium on a laptop's screen the board shows every column without scrolling
sideways; its screenshot goes to the test's folder (and ``RALPH_TEST_SCREENSHOTS``)."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ralph.config import load_config
from ralph.linear import LinearClient
from ralph.linear.fake import ScriptedFault
from ralph.linear.queries import CREATE_COMMENT
from ralph.project import open_project
from ralph.workflow import WorkflowState

from ..conftest import spawn_ralph
from .conftest import WebProject, url_of, waiting_on

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
LAPTOP: Any = {"width": 1366, "height": 768}


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebProject]:
    """The demo epic on Linear, split, researched and planned, its plans in review; a
    person's comment on the first of them, written in Linear."""
    with waiting_on("linear-sqlite", tmp_path_factory.mktemp("linear-web")) as made:
        assert made.linear is not None
        (issue,) = [
            i for i in made.linear.workspace.team("ENG").issue_list if i.number == made.in_review[0]
        ]
        made.linear.add_token("lin_api_grace_key", "Grace Hopper")
        LinearClient(made.linear, "lin_api_grace_key").mutate(
            CREATE_COMMENT,
            {"input": {"issueId": issue.id, "body": "Looks right; mind **the accents**."}},
        )
        yield made


@contextmanager
def serving(made: WebProject) -> Iterator[str]:
    process = spawn_ralph("web", "--port", "0", cwd=made.repo, env=made.env)
    try:
        yield url_of(process)
    finally:
        process.kill()
        _, err = process.communicate(timeout=30)
        assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def url(board: WebProject) -> Iterator[str]:
    with serving(board) as found:
        yield found


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_board_shows_the_teams_issues_in_ralphs_columns(board: WebProject, url: str) -> None:
    assert board.linear is not None
    status, page = get(url)
    assert status == 200
    states = re.findall(r'<section class="column[^"]*"[^>]*data-state="([^"]+)"', page)
    assert sorted(states) == sorted(s.value for s in WorkflowState)
    for issue in board.linear.workspace.team("ENG").issue_list:
        assert f'data-issue="{issue.number}"' in page
    column = page.split('id="col-plan-in-review"')[1].split("</section>")[0]
    for number in board.in_review:
        assert f'data-issue="{number}"' in column
    assert "github.com" not in page


def test_an_issue_page_shows_its_comments_from_linear(board: WebProject, url: str) -> None:
    status, page = get(f"{url}issues/{board.in_review[0]}")
    assert status == 200
    assert "Grace Hopper" in page
    assert "mind <strong>the accents</strong>" in page
    # The phases' document comments, posted by Ralph through Linear, are there too.
    assert "thoughts/shared/plans/" in page
    assert "github.com" not in page


def test_an_issue_page_links_the_issue_on_linear(board: WebProject, url: str) -> None:
    number = board.in_review[0]
    status, page = get(f"{url}issues/{number}")
    assert status == 200
    link = re.search(r'<a href="(https://linear\.app/[^"]+)"[^>]*>on the tracker</a>', page)
    assert link is not None, "no link to the issue on Linear"
    assert link.group(1).startswith(f"https://linear.app/acme/issue/ENG-{number}/")


def test_an_issue_page_shows_the_local_pull_request_that_closes_it(
    board: WebProject, url: str
) -> None:
    number = board.in_review[-1]
    with pytest.MonkeyPatch.context() as settings:
        for name, value in board.env.items():
            settings.setenv(name, value)
        with open_project(load_config(board.repo)) as project:
            git = ["git", "-C", str(board.repo)]
            subprocess.run([*git, "branch", "linear-wave", "main"], check=True)
            pr = project.code_host.create_pull_request(
                head="linear-wave", base="main", title="Wave", body=f"Fixes ENG-{number}"
            )
    status, page = get(f"{url}issues/{number}")
    assert status == 200
    prs = page.split('<section class="prs">')[1].split("</section>")[0]
    assert f"#{pr.number}" in prs
    assert "Wave" in prs
    status, document = get(f"{url}api/issues/{number}")
    assert status == 200
    assert f'"number":{pr.number}' in document.replace(" ", "")


def test_linear_not_answering_is_a_503_of_one_line_then_the_page_again(
    board: WebProject, url: str
) -> None:
    assert board.linear is not None
    # Every try of the issue's read with its relatives (the first and three retries) fails.
    board.linear.script(*[ScriptedFault.server_error("IssuesWithComments")] * 4)
    status, page = get(f"{url}issues/{board.in_review[0]}")
    assert status == 503, page
    said = re.search(r'<p class="message">(.*?)</p>', page, re.S)
    assert said is not None, page
    assert "Linear did not answer IssuesWithComments" in said.group(1)
    assert "\n" not in said.group(1).strip()
    assert get(f"{url}issues/{board.in_review[0]}")[0] == 200


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium: `make browser` installs it")
def test_on_a_laptop_the_linear_board_shows_every_column_without_scrolling_sideways(
    board: WebProject, url: str, tmp_path: Path
) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # As root, Chromium's own sandbox cannot start; the test only opens this board.
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport=LAPTOP)
            page.set_default_timeout(30_000)
            page.goto(url)
            page.wait_for_selector("#live.on")
            width = page.evaluate("window.innerWidth")
            assert page.evaluate("document.scrollingElement.scrollWidth") <= width
            for number in board.in_review:
                page.wait_for_selector(f'#col-plan-in-review [data-issue="{number}"]')
            shot = tmp_path / "linear-board.png"
            page.screenshot(path=str(shot))
            page.goto(f"{url}issues/{board.in_review[0]}")
            assert "the accents" in page.inner_text("body")
            page.screenshot(path=str(tmp_path / "linear-issue.png"), full_page=True)
        finally:
            browser.close()
    wanted = os.environ.get("RALPH_TEST_SCREENSHOTS")
    if wanted:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        for name in ("linear-board.png", "linear-issue.png"):
            shutil.copy(tmp_path / name, Path(wanted) / name)


def test_a_wrong_key_is_a_page_of_one_line_naming_it_never_a_500(board: WebProject) -> None:
    wrong = dataclasses.replace(board, env={**board.env, "RALPH_LINEAR_TOKEN": "lin_api_wrong"})
    with serving(wrong) as url:
        for path in ("", f"issues/{board.in_review[0]}", "api/board"):
            status, page = get(f"{url}{path}")
            assert status == 400, (path, page)
            assert "Linear refused the API key" in page, (path, page)
            assert "lin_api_wrong" not in page
