"""The spend page and its JSON with a charge whose cost is unknown (an agent used a
model Ralph has no price for): "?" and the model named, never $0.00."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from ralph.config import Config
from ralph.db import open_database
from ralph.git import GitRepo
from ralph.project import Project
from ralph.tasks import open_store
from ralph.tracker import LocalCodeHost, LocalTracker
from ralph.web import create_app

pytestmark = pytest.mark.timeout(30)


def test_an_unknown_cost_shows_as_unknown_beside_the_budget(tmp_path: Path) -> None:
    config = Config(root=tmp_path, repo="shop", budget_run_usd=5.0)
    store = open_store("memory://")
    priced, unpriced = store.create_run("priced"), store.create_run("unpriced")
    store.record_charge(priced.id, None, 0.5, tokens=1000)
    store.record_charge(unpriced.id, None, 0.0, tokens=900, unpriced_model="mystery-1")
    project = Project(
        config,
        tracker := LocalTracker(open_database("memory://"), repo="demo"),
        LocalCodeHost(tracker.db, repo=tracker.repo, tracker=tracker),
        store,
        GitRepo(tmp_path),
    )
    with TestClient(create_app(project), base_url="http://127.0.0.1:8765") as client:
        spend = client.get("/api/spend").json()
        page = client.get("/spend").text
    assert (spend["costKnown"], spend["unpricedModels"]) == (False, ["mystery-1"])
    runs = {line["label"]: line["unpriced"] for line in spend["runs"]}
    assert runs == {"priced": [], "unpriced": ["mystery-1"]}
    assert "Spend <small>? in all" in page
    assert "$0.50 of $5.00" in page  # the priced run against its cap
    assert 'add [prices."mystery-1"] to ralph.toml' in page.replace("&#34;", '"')
    assert "$0.00" not in page.split("Per day")[1].split("Per phase")[0]
