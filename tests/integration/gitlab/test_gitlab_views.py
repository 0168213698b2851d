"""What a person reads of a GitLab project, as real processes against FakeGitLab served
on 127.0.0.1 once hero took the demo epic to Done through a merge request and one issue
waits in Backlog: ``ralph status``, ``ralph report`` (refused in one line: GitLab has no
status updates; ``--dry-run`` prints it), ``ralph hygiene`` (archiving is Ralph's
label), ``ralph issue show``, and ``ralph web``'s board and issue pages (the issue
linked to its page on GitLab, a missing issue a 404 of one line)."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from ralph.tracker.gitlab import ARCHIVED
from ralph.workflow import WorkflowState

from ..web.conftest import url_of
from ._site import Site, site

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with site(tmp_path_factory.mktemp("gitlab-views")) as made:
        made.init()
        run = made.ralph("hero", str(made.epic()), timeout=500)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        made.ralph("issue", "new", "Add a wave", "-e", "S")
        yield made


def test_status_shows_the_project_in_ralphs_states(served: Site) -> None:
    shown = served.ralph("status")
    assert shown.returncode == 0, shown.stderr
    assert "Pipeline — 5 issues" in shown.stdout, shown.stdout
    lines = shown.stdout.splitlines()
    assert "Done: 4" in lines, shown.stdout
    assert lines[lines.index("Backlog: 1") + 1].startswith("  #5 S Add a wave"), shown.stdout


def test_report_is_refused_in_one_line_and_printed_with_dry_run(served: Site) -> None:
    posted = served.ralph("report")
    assert posted.returncode == 2, posted.stdout + posted.stderr
    said = posted.stderr.strip()
    assert "\n" not in said, said
    assert "a GitLab project has no status updates" in said
    assert "ralph report --dry-run" in said
    assert "Traceback" not in posted.stderr
    printed = served.ralph("report", "--dry-run")
    assert printed.returncode == 0, printed.stderr
    assert "**Total**: 5 issues" in printed.stdout, printed.stdout
    assert "4 issues completed in the last 7 days." in printed.stdout


def test_hygiene_reads_the_project_and_archives_with_ralphs_label(served: Site) -> None:
    report = served.ralph("hygiene")
    assert report.returncode == 0, report.stderr
    assert re.search(r"\| #5 \| Add a wave \| Backlog \|", report.stdout), report.stdout
    archive = served.ralph("hygiene", "--archive")
    assert archive.returncode == 0, archive.stderr
    # Done a moment ago: nothing is old enough to archive.
    assert "Nothing to archive" in archive.stdout, archive.stdout
    assert not any(ARCHIVED in i.labels for i in served.issues())


def test_issue_show_has_the_epic_and_its_notes(served: Site) -> None:
    shown = served.ralph("issue", "show", "1")
    assert shown.returncode == 0, shown.stderr
    assert "Done" in shown.stdout
    assert "Ada" in shown.stdout  # the notes Ralph wrote through GitLab


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_the_web_board_and_issue_pages_show_the_project(served: Site) -> None:
    process = served.spawn("web", "--port", "0")
    try:
        url = url_of(process)
        status, page = get(url)
        assert status == 200
        states = re.findall(r'<section class="column[^"]*"[^>]*data-state="([^"]+)"', page)
        assert sorted(states) == sorted(s.value for s in WorkflowState)
        for number in range(1, 6):
            assert f'data-issue="{number}"' in page
        assert "github.com" not in page

        status, page = get(f"{url}issues/2")
        assert status == 200
        assert "thoughts/shared/plans/" in page  # the phases' notes, from GitLab
        link = re.search(r'<a href="([^"]+)"[^>]*>on the tracker</a>', page)
        assert link is not None, "no link to the issue on GitLab"
        assert link.group(1) == f"{served.url}/acme/app/-/issues/2"

        status, page = get(f"{url}issues/99")
        assert status == 404
        said = re.search(r'<p class="message">(.*?)</p>', page, re.S)
        assert said is not None, page
        assert said.group(1).strip() == "Issue #99 not found in GitLab project acme/app"
        assert get(f"{url}api/board")[0] == 200
    finally:
        process.kill()
        _, err = process.communicate(timeout=30)
    assert "Traceback" not in err, err
