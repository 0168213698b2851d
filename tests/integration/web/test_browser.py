"""``ralph web`` in a real browser: the system's Chromium (Debian's package, which ``make``
installs) driven by Playwright's API, against ``ralph web`` started as a process on a
project a hero left waiting at its plan's gate.

It opens the board (its columns and cards), a run page (its graph), approves a plan from
the page, starts a scripted run in another process and sees its card move without a
reload (through the page's one script, the project's own ``live.js``), opens a task's
log from its run page, and stops the server while the page still listens. A person
typing feedback on an issue's page keeps their words while the board changes: the
section is refreshed once they are done; a document they closed stays closed.

On a laptop's screen (1366×768) a board in a believable state (work in several columns,
an epic with its children, one escalation, a Done column, an issue locked by hand) shows
every column without scrolling sideways. A run page watched while a hero works shows
its agent's activity appear without a reload. The board's screenshot and that run
page's go to the test's folder, and to ``RALPH_TEST_SCREENSHOTS`` when it is set
(``make screenshots`` writes docs/screenshots/ for the README).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from ralph.tasks import RunStatus
from ralph.workflow import Estimate, Priority, WorkflowState

from ..conftest import spawn_ralph
from ..tasks.test_runs_show_batches import seed_batches
from .conftest import WebProject, escalate_one, make_waiting_project, url_of

pytestmark = pytest.mark.slow

#: Debian's package puts it here; ``make browser`` installs it.
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WAIT_MS = 30_000
#: A laptop's screen: what a newcomer opens the board on.
LAPTOP = {"width": 1366, "height": 768}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> WebProject:
    return make_waiting_project(tmp_path_factory.mktemp("browser") / "demo")


@contextmanager
def _serving(repo: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    process = spawn_ralph("web", "--port", "0", cwd=repo)
    try:
        yield url_of(process), process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


@pytest.fixture(scope="module")
def server(project: WebProject) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    with _serving(project.repo) as served:
        yield served


@dataclass(frozen=True)
class BusyBoard:
    made: WebProject
    escalated: int
    locked: int


def _busy_board(folder: Path) -> BusyBoard:
    """The waiting demo a week on: a child of its epic done, one issue taken by hand,
    a research that failed until it was escalated, ideas in the backlog."""
    made = make_waiting_project(folder)
    with open_project(load_config(made.repo)) as project:
        tracker = project.tracker
        done = tracker.create_issue(
            "Add a farewell function", parent=made.epic, state=WorkflowState.DONE
        )
        tracker.close_issue(done.number)
        locked = tracker.create_issue(
            "Document the greeting CLI in the README",
            state=WorkflowState.IN_PROGRESS,
            estimate=Estimate.S,
            priority=Priority.P1,
        ).number
        repo = project.config.repo or project.config.root.name
        project.store.acquire_issue_lock(
            repo, locked, "ana@laptop", "by-hand", lease_seconds=86_400
        )
        escalated = tracker.create_issue(
            "Greet people by their right-to-left names",
            state=WorkflowState.RESEARCH_NEEDED,
            estimate=Estimate.S,
        ).number
        escalate_one(project, escalated)
        for title in ("Translate the greetings", "A --shout option for greet"):
            tracker.create_issue(title, state=WorkflowState.BACKLOG, estimate=Estimate.XS)
    return BusyBoard(made, escalated, locked)


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory) -> BusyBoard:
    return _busy_board(tmp_path_factory.mktemp("busy") / "demo")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if CHROMIUM is None:
        pytest.fail("no Chromium on this machine: `make browser` installs Debian's package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # As root, Chromium's own sandbox cannot start; the test only opens this board.
        found = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield found
        found.close()


def _until(page: Any, expression: str) -> None:
    """Wait until ``expression`` holds in ``page``, evaluated from outside it: the pages'
    Content-Security-Policy forbids the eval that Playwright's ``wait_for_function`` uses."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"not within {WAIT_MS} ms: {expression}"
        time.sleep(0.1)


def _shoot(page: object, name: str, folder: Path) -> None:
    path = folder / name
    page.screenshot(path=str(path), full_page=False)  # type: ignore[attr-defined]
    wanted = os.environ.get("RALPH_TEST_SCREENSHOTS")
    if wanted:
        Path(wanted).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(wanted) / name)


def test_the_board_runs_and_actions_in_a_browser(
    project: WebProject,
    server: tuple[str, subprocess.Popen[str]],
    browser: object,
    tmp_path: Path,
) -> None:
    url, process = server
    page = browser.new_page(viewport={"width": 1600, "height": 900})  # type: ignore[attr-defined]
    page.set_default_timeout(WAIT_MS)
    # What the pages' Content-Security-Policy blocked: nothing, they run no inline code.
    blocked: list[str] = []
    page.on("console", lambda m: blocked.extend([m.text] if "Security Policy" in m.text else []))

    # The board: a column per state, in pipeline order, the plan's issues in review.
    page.goto(url)
    states = page.locator("section.column").evaluate_all("cs => cs.map(c => c.dataset.state)")
    assert states[:3] == ["Backlog", "Research Needed", "Research in Progress"]
    assert states[-2:] == ["Human Needed", "Canceled"]
    for number in project.in_review:
        page.wait_for_selector(f'#col-plan-in-review [data-issue="{number}"]')
    page.wait_for_selector("#live.on")  # the event stream is open

    # A run: its graph drawn, a node per task, the critical path marked.
    page.goto(f"{url}runs/{project.run}")
    nodes = page.locator("svg.task-graph g.task")
    assert nodes.count() == page.locator("table.tasks tbody tr").count() > 3
    assert page.locator("svg.task-graph g.task.critical").count() >= 1
    assert page.locator("svg.task-graph path.edge").count() >= 1

    # Approve the plan from its issue's page.
    number = project.in_review[0]
    page.goto(f"{url}issues/{number}")
    page.click("#approve")
    page.wait_for_selector("p.notice")
    assert "Approved the plan for" in page.inner_text("p.notice")
    assert page.inner_text("#state") == "In Progress"
    with open_project(load_config(project.repo)) as opened:
        for member in project.in_review:
            assert opened.tracker.get_issue(member).workflow_state is WorkflowState.IN_PROGRESS
        fresh = opened.tracker.create_issue(
            "Add a wave function",
            body="Add `wave(name)` next to `greet` in the core module.",
            state=WorkflowState.BACKLOG,
            estimate=Estimate.XS,
        )

    # A scripted run in another process moves the new card; the page never reloads.
    page.goto(url)
    page.wait_for_selector(f'#col-backlog [data-issue="{fresh.number}"]')
    page.wait_for_selector("#live.on")
    # The page's only script is the project's own, loaded from the server (none inline).
    assert page.evaluate("[...document.scripts].map(s => s.src)") == [f"{url}static/live.js"]
    page.evaluate("window.__notReloaded = true")
    hero = spawn_ralph(
        "hero",
        str(fresh.number),
        "--review-mode",
        "interactive",
        cwd=project.repo,
        env={"RALPH_AGENT": "scripted", "RALPH_SCRIPTED_DELAY": "0.5"},
    )
    try:
        page.wait_for_selector(f'#col-backlog [data-issue="{fresh.number}"]', state="detached")
        page.wait_for_selector(f'#col-plan-in-review [data-issue="{fresh.number}"]')
        assert page.evaluate("window.__notReloaded === true")
        hero.communicate(timeout=90)
    finally:
        _end(hero)
    page.goto(f"{url}runs")
    newest = page.locator("table.grid tbody tr td a").first.inner_text()
    page.goto(f"{url}runs/{newest}")
    page.wait_for_selector("svg.task-graph")

    # A task's log, kept by the run and linked from its row.
    log = page.locator("table.tasks a.run-file").first.get_attribute("href")
    assert log is not None
    page.goto(url + log.lstrip("/"))
    assert page.inner_text("body").startswith("== attempt 1: ")

    # Stopping the server ends the page's open event stream: it exits at once.
    page.goto(url)
    page.wait_for_selector("#live.on")
    assert blocked == []
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0
    page.close()


def test_a_busy_board_fits_a_laptop_screen(
    busy: BusyBoard, browser: object, tmp_path: Path
) -> None:
    with _serving(busy.made.repo) as (url, _):
        page = browser.new_page(viewport=LAPTOP)  # type: ignore[attr-defined]
        page.set_default_timeout(WAIT_MS)
        page.goto(url)
        page.wait_for_selector("#live.on")
        width = page.evaluate("window.innerWidth")
        spans = page.locator("section.column:not(.empty)").evaluate_all(
            "cs => cs.map(c => [c.dataset.state, c.getBoundingClientRect().left,"
            " c.getBoundingClientRect().right])"
        )
        assert len(spans) >= 5
        assert [state for state, left, right in spans if left < 0 or right > width] == []
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width
        # The escalated card is in sight as the page opens, its column first.
        assert page.locator("section.column").first.get_attribute("data-state") == "Human Needed"
        card = page.locator(f'#col-human-needed [data-issue="{busy.escalated}"]')
        box = card.bounding_box()
        assert box is not None
        assert box["y"] + box["height"] <= LAPTOP["height"]
        # The epic's children say whose they are; a lock taken by hand, who holds it.
        for number in busy.made.in_review:
            assert page.inner_text(f"#card-{number} .epic").startswith(f"↳ #{busy.made.epic} ")
        assert page.inner_text(f"#card-{busy.locked} .badge.lock") == "held by ana@laptop"
        _shoot(page, "board.png", tmp_path)

        page.goto(f"{url}runs/{busy.made.run}")
        graph = page.locator("svg.task-graph")
        box = graph.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= width
        # The re-plan's canceled tasks are not what the graph leads with.
        top = graph.evaluate(
            "g => Math.min(...[...g.querySelectorAll('rect')].map(r => +r.getAttribute('y')))"
        )
        first_row = graph.locator(f"g.task:has(rect[y='{top}'])")
        assert first_row.count() > 1
        assert graph.locator(f"g.task.status-canceled:has(rect[y='{top}'])").count() == 0
        assert (tmp_path / "board.png").stat().st_size > 10_000
        page.close()


def test_a_run_page_shows_the_merge_batches_that_carried_its_changes(
    browser: object, tmp_path: Path
) -> None:
    repo, epic = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as opened:
        for title in ("Say goodbye", "Wave", "Translate the greetings"):
            other = opened.tracker.create_issue(title).number
        seeded = seed_batches(opened.store, root=epic, other_root=other)
    with _serving(repo) as (url, _):
        page = browser.new_page(viewport=LAPTOP)  # type: ignore[attr-defined]
        page.set_default_timeout(WAIT_MS)
        page.goto(f"{url}runs/{seeded.run}")
        section = page.locator("#batches")
        section.scroll_into_view_if_needed()
        assert page.locator("#batches tbody tr").count() == 2
        row = page.inner_text(f"#batch-{seeded.own}")
        assert "landed 2, sent back #13" in row
        assert "#13 broke it: tests/test_limits.py::test_bound failed on top of #11, #12" in row
        box = section.bounding_box()
        assert box is not None
        assert box["x"] + box["width"] <= LAPTOP["width"]
        _shoot(page, "run-batches.png", tmp_path)
        page.close()


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> WebProject:
    return make_waiting_project(tmp_path_factory.mktemp("watched") / "demo")


def _run_of(repo: Path, issue: int, hero: subprocess.Popen[str], timeout: float = 30.0) -> int:
    """The run a hero started on ``issue``, once the store has it."""
    deadline = time.monotonic() + timeout
    with open_project(load_config(repo)) as opened:
        while time.monotonic() < deadline:
            runs = [r.id for r in opened.store.list_runs() if r.root_issue == issue]
            if runs:
                return runs[0]
            assert hero.poll() is None, hero.communicate(timeout=30)
            time.sleep(0.2)
    raise AssertionError(f"no run on #{issue} within {timeout:g}s")


def test_a_run_page_shows_its_agents_activity_live_without_a_reload(
    watched: WebProject, browser: object, tmp_path: Path
) -> None:
    with open_project(load_config(watched.repo)) as opened:
        fresh = opened.tracker.create_issue(
            "Add a wave function",
            body="Add `wave(name)` next to `greet` in greet/core.py.",
            state=WorkflowState.BACKLOG,
            estimate=Estimate.XS,
        )
    with _serving(watched.repo) as (url, _):
        page = browser.new_page(viewport=LAPTOP)  # type: ignore[attr-defined]
        page.set_default_timeout(WAIT_MS)
        hero = spawn_ralph(
            "hero",
            str(fresh.number),
            "--review-mode",
            "interactive",
            cwd=watched.repo,
            env={"RALPH_AGENT": "scripted", "RALPH_SCRIPTED_DELAY": "2"},
        )
        try:
            run = _run_of(watched.repo, fresh.number, hero)
            page.goto(f"{url}runs/{run}")
            page.wait_for_selector("#live.on")
            page.evaluate("window.__notReloaded = true")
            lines = "table.tasks .activity"
            before = page.locator(lines).count()
            # An agent at work: its line appears, live, then more as tasks finish.
            at_work = (
                "[...document.querySelectorAll('#working .activity .who')]"
                ".some(w => w.textContent.startsWith('● now'))"
            )
            _until(page, at_work)
            assert page.locator("table.tasks .activity .tool").count() >= 1
            for _ in range(5):  # a screenshot of an agent at work, not between two
                _shoot(page, "run.png", tmp_path)
                if page.evaluate(at_work):
                    break
                _until(page, at_work)
            _until(page, f"document.querySelectorAll({lines!r}).length > {before}")
            assert page.evaluate("window.__notReloaded === true")

            # Cancelling asks first (under the page's policy, no inline handler could);
            # a person who says no keeps the run going.
            asked: list[str] = []

            def dismiss(dialog: Any) -> None:
                asked.append(dialog.message)
                dialog.dismiss()

            page.once("dialog", dismiss)
            page.click("#cancel-run")
            assert asked == [f"Cancel run {run}? Its unfinished tasks are canceled."]
            with open_project(load_config(watched.repo)) as opened:
                assert opened.store.get_run(run).status is not RunStatus.CANCELED
            assert page.evaluate("window.__notReloaded === true")
            hero.communicate(timeout=120)
        finally:
            _end(hero)
        page.close()


def test_a_section_waits_while_a_person_types_in_it(watched: WebProject, browser: object) -> None:
    number = watched.in_review[-1]
    words = "Split the second step in two."
    with _serving(watched.repo) as (url, _):
        page = browser.new_page(viewport=LAPTOP)  # type: ignore[attr-defined]
        page.set_default_timeout(WAIT_MS)
        page.goto(f"{url}issues/{number}")
        page.wait_for_selector("#live.on")
        page.fill("#feedback", words)
        page.evaluate("document.getElementById('issue').__shown = true")
        with open_project(load_config(watched.repo)) as opened:
            opened.tracker.create_issue("Greet in Welsh", state=WorkflowState.BACKLOG)

        # The board changed: the issue's section is marked stale, the feedback kept.
        page.wait_for_selector("#issue[data-stale]")
        assert page.evaluate("document.getElementById('issue').__shown === true")
        assert page.input_value("#feedback") == words
        assert page.evaluate("document.activeElement.id") == "feedback"
        # Leaving the field with unsent words in it keeps them too.
        page.locator("#feedback").blur()
        page.wait_for_timeout(300)
        assert page.input_value("#feedback") == words
        assert page.locator("#issue[data-stale]").count() == 1

        # Once the words are gone and the field left, the section is fetched again.
        page.fill("#feedback", "")
        page.locator("#feedback").blur()
        _until(page, "!document.getElementById('issue').__shown")
        assert page.locator("[data-stale]").count() == 0
        page.close()


def test_a_details_a_person_toggled_stays_so_when_its_section_refreshes(
    watched: WebProject, browser: object
) -> None:
    number = watched.in_review[0]
    with _serving(watched.repo) as (url, _):
        page = browser.new_page(viewport=LAPTOP)  # type: ignore[attr-defined]
        page.set_default_timeout(WAIT_MS)
        page.goto(f"{url}issues/{number}")
        page.wait_for_selector("#live.on")
        shown = "[...document.querySelectorAll('#issue details')].map(d => d.open)"
        opened_by_server = page.evaluate(shown)
        assert True in opened_by_server
        page.click("#issue details[open] > summary")  # a person closes the open document
        toggled = page.evaluate(shown)
        assert toggled != opened_by_server
        page.evaluate("document.getElementById('issue').__shown = true")
        with open_project(load_config(watched.repo)) as opened:
            opened.tracker.create_issue("Greet in Breton", state=WorkflowState.BACKLOG)
        _until(page, "!document.getElementById('issue').__shown")
        assert page.evaluate(shown) == toggled
        page.close()


def _end(process: subprocess.Popen[str]) -> None:
    """Kill ``process`` if it still runs, and close its pipes either way (a test that
    failed halfway must not leave open files for the next test to be blamed for)."""
    if process.poll() is None:
        process.kill()
    process.communicate(timeout=30)
