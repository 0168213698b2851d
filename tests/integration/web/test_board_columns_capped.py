"""The board of a large project: each column shows its first cards and says how many
more, with a link to the whole column, so a board of 10,000 issues is a page a browser
draws at once (it was 2.8 MB)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from ralph.web._board import CARDS_PER_COLUMN
from ralph.workflow import WorkflowState

from .conftest import client_of

pytestmark = pytest.mark.timeout(120)

BACKLOG = CARDS_PER_COLUMN + 12


@pytest.fixture
def crowded(tmp_path: Path, monkeypatch) -> Iterator[TestClient]:
    monkeypatch.setenv("RALPH_AGENT", "scripted")
    repo, _ = create_demo_project(tmp_path / "board")
    with open_project(load_config(repo)) as project:
        for n in range(BACKLOG - 1):  # the demo's epic is in Backlog too
            project.tracker.create_issue(f"Waiting {n}", state=WorkflowState.BACKLOG)
        project.tracker.create_issue("Ready", state=WorkflowState.READY_FOR_PLAN)
        with client_of(project) as client:
            yield client


def column(page: str, state: str) -> str:
    return page.split(f'data-state="{state}"')[1].split("</section>")[0]


def test_a_long_column_shows_its_first_cards_and_how_many_more(crowded: TestClient) -> None:
    page = crowded.get("/").text
    backlog = column(page, "Backlog")
    assert len(re.findall(r'<article class="card', backlog)) == CARDS_PER_COLUMN
    assert f'<span class="count">{BACKLOG}</span>' in backlog
    assert re.search(r'<a class="more" href="/\?column=Backlog">12 more</a>', backlog)
    ready = column(page, "Ready for Plan")
    assert len(re.findall(r'<article class="card', ready)) == 1
    assert 'class="more"' not in ready


def test_a_column_asked_for_shows_every_card_and_stays_so_when_it_refreshes(
    crowded: TestClient,
) -> None:
    page = crowded.get("/?column=Backlog").text
    assert len(re.findall(r'<article class="card', column(page, "Backlog"))) == BACKLOG
    assert 'data-refresh="/?fragment=1&amp;column=Backlog"' in page
    fragment = crowded.get("/?fragment=1&column=Backlog").text
    assert len(re.findall(r'<article class="card', column(fragment, "Backlog"))) == BACKLOG


def test_a_column_that_is_no_state_shows_the_board_as_usual(crowded: TestClient) -> None:
    page = crowded.get("/?column=%3Cscript%3E")
    assert page.status_code == 200
    assert len(re.findall(r'<article class="card', column(page.text, "Backlog"))) == (
        CARDS_PER_COLUMN
    )
    assert "<script>" not in page.text.split("<body")[1].replace('<script src="', "")
