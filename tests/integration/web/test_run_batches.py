"""A run's page lists the merge batches that concern it (its own merge's trains, and
another run's that carried a change of its issues): who rode each, its test runs, its
outcome, and which change broke it and why, escaped (a reason is agent-written test
output: never markup on the page)."""

from __future__ import annotations

import html
from pathlib import Path

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project
from tests.integration.tasks.test_runs_show_batches import seed_batches

from .conftest import client_of

REASON = "<b>test_bound</b> failed on top of #11, #12 <script>alert(1)</script>\nmore"


def test_the_run_page_lists_the_batches_that_concern_the_run(tmp_path: Path) -> None:
    repo, epic = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        # The run's other two issues, then the other run's.
        for title in ("Say goodbye", "Wave", "Translate the greetings"):
            other_root = project.tracker.create_issue(title).number
        seeded = seed_batches(project.store, root=epic, other_root=other_root, reason=REASON)
        client = client_of(project)
        page = client.get(f"/runs/{seeded.run}").text
        other = client.get(f"/runs/{seeded.other}").text
        document = client.get(f"/api/runs/{seeded.run}").json()
    assert "<h2>Merge batches <small>2</small></h2>" in page
    assert f'id="batch-{seeded.own}"' in page
    assert f'id="batch-{seeded.carrying}"' in page
    assert f'id="batch-{seeded.unrelated}"' not in page
    said = html.unescape(page)
    assert f"#11 for #{epic}, #12 for #{epic + 1}, #13 for #{epic + 2}" in said
    assert "3 test runs (6.0s)" in said
    assert "landed 2, sent back #13" in said
    assert f"Merge batch {seeded.carrying} (o/r), run {seeded.other}'s" in said
    # The reason's first line, as text.
    assert "<script>" not in page
    assert "<b>test_bound</b>" not in page
    assert "#13 broke it: &lt;b&gt;test_bound&lt;/b&gt; failed on top of #11, #12" in page
    assert "more" not in said.split("broke it:")[1].split("</div>")[0]
    # The other run's page: its two trains, the one still running said so.
    assert f'id="batch-{seeded.unrelated}" data-status="running"' in other
    assert [b["id"] for b in document["batches"]] == [seeded.own, seeded.carrying]


def test_a_run_without_batches_has_no_such_section(tmp_path: Path) -> None:
    repo, _ = create_demo_project(tmp_path / "greet")
    with open_project(load_config(repo)) as project:
        run = project.store.create_run("hero GH-1", root_issue=1, mode="hero")
        page = client_of(project).get(f"/runs/{run.id}").text
    assert "Merge batches" not in page
