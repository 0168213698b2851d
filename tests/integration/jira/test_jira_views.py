"""What a person reads of a Jira project, as real processes against FakeJira served on
127.0.0.1 once hero took the demo epic to Done and one issue waits in Backlog:
``ralph status``, ``ralph report`` (refused in one line: Jira has no status updates;
``--dry-run`` prints it), ``ralph hygiene``, ``ralph issue show``, and ``ralph web``'s
board and issue pages (the issue linked to its page on the site; a missing issue, Jira
not answering and a wrong token each a page of one line, never a 500)."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ralph.jira.fake import ScriptedFault
from ralph.workflow import WorkflowState

from ..conftest import spawn_ralph
from ..web.conftest import url_of
from .test_jira_shapes import TOKEN, Site, site

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

#: What the fixture's commands printed: the new issue's line and the hero run's output.
_SAID: dict[str, str] = {}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with site(tmp_path_factory.mktemp("jira-views")) as made:
        made.init()
        run = made.ralph("hero", str(made.epic()), timeout=500)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        created = made.ralph("issue", "new", "Add a wave", "-e", "S")
        _SAID.update(created=created.stdout, merged=run.stdout)
        yield made


def test_a_person_is_told_the_issues_by_their_jira_keys(served: Site) -> None:
    # What Jira shows them: PROJ-5, not a number of Ralph's (`ralph hero 5` still takes it).
    assert _SAID["created"] == "Created PROJ-5: Add a wave [Backlog]\n"
    assert re.search(r"closing PROJ-\d(, PROJ-\d)*\.", _SAID["merged"]), _SAID["merged"][-2000:]


def test_status_shows_the_project_in_ralphs_states(served: Site) -> None:
    shown = served.ralph("status")
    assert shown.returncode == 0, shown.stderr
    assert "Pipeline — 5 issues" in shown.stdout
    lines = shown.stdout.splitlines()
    assert "Done: 4" in lines, shown.stdout
    assert lines[lines.index("Backlog: 1") + 1].startswith("  #5 S Add a wave"), shown.stdout


def test_report_is_refused_in_one_line_and_printed_with_dry_run(served: Site) -> None:
    posted = served.ralph("report")
    assert posted.returncode == 2
    said = posted.stderr.strip()
    assert "\n" not in said
    assert "a Jira project has no status updates" in said
    assert "ralph report --dry-run" in said
    assert "Traceback" not in posted.stderr
    printed = served.ralph("report", "--dry-run")
    assert printed.returncode == 0, printed.stderr
    assert "**Total**: 5 issues" in printed.stdout
    assert "4 issues completed in the last 7 days." in printed.stdout


def test_hygiene_reads_the_project(served: Site) -> None:
    report = served.ralph("hygiene")
    assert report.returncode == 0, report.stderr
    assert re.search(r"\| #5 \| Add a wave \| Backlog \|", report.stdout), report.stdout
    archive = served.ralph("hygiene", "--archive")
    assert archive.returncode == 0, archive.stderr
    assert "Nothing to archive" in archive.stdout


def test_issue_show_has_the_epic_its_sub_tasks_and_comments(served: Site) -> None:
    shown = served.ralph("issue", "show", "1")
    assert shown.returncode == 0, shown.stderr
    assert "Done" in shown.stdout
    assert "Ada Lovelace" in shown.stdout  # the comments Ralph wrote through Jira


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


@contextmanager
def serving(served: Site, token: str = TOKEN) -> Iterator[str]:
    process = spawn_ralph("web", "--port", "0", cwd=served.work, env={"RALPH_JIRA_TOKEN": token})
    try:
        yield url_of(process)
    finally:
        process.kill()
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err


def message(page: str) -> str:
    said = re.search(r'<p class="message">(.*?)</p>', page, re.S)
    assert said is not None, page
    return said.group(1).strip()


def test_the_web_board_and_issue_pages_show_the_project(served: Site) -> None:
    with serving(served) as url:
        status, page = get(url)
        assert status == 200
        states = re.findall(r'<section class="column[^"]*"[^>]*data-state="([^"]+)"', page)
        assert sorted(states) == sorted(s.value for s in WorkflowState)
        for number in range(1, 6):
            assert f'data-issue="{number}"' in page
        assert "github.com" not in page

        status, page = get(f"{url}issues/2")
        assert status == 200
        assert "thoughts/shared/plans/" in page  # the phases' comments, from Jira
        link = re.search(r'<a href="([^"]+)"[^>]*>on the tracker</a>', page)
        assert link is not None, "no link to the issue on Jira"
        assert link.group(1) == f"{served.url}/browse/PROJ-2"

        status, page = get(f"{url}issues/99")
        assert status == 404
        assert message(page) == "Issue #99 not found in Jira project PROJ"
        assert get(f"{url}api/board")[0] == 200


def test_jira_not_answering_is_a_503_of_one_line_then_the_page_again(served: Site) -> None:
    with serving(served) as url:
        # Every try of the issue's read (the first and three retries) fails.
        served.jira.faults.extend([ScriptedFault.server_error("GET /rest/api/3/issue/PROJ-2")] * 4)
        status, page = get(f"{url}issues/2")
        assert status == 503, page
        assert message(page).startswith("Jira did not answer GET /rest/api/3/issue/PROJ-2")
        assert "\n" not in message(page)
        assert get(f"{url}issues/2")[0] == 200


def test_a_wrong_token_is_a_page_of_one_line_naming_it_never_a_500(served: Site) -> None:
    with serving(served, "jira-wrong-token") as url:
        for path in ("", "issues/2", "api/board"):
            status, page = get(f"{url}{path}")
            assert status == 400, (path, page)
            assert "Jira refused the credentials" in page, (path, page)
            assert "check the API token in RALPH_JIRA_TOKEN" in page, (path, page)
            assert "jira-wrong-token" not in page
