"""The store or its database opened alone (``ralph runs``, ``tasks``, ``db``): the URL
given (``--store``) first, else the project's; a missing store is refused, never made,
except by the database opened to migrate it."""

from __future__ import annotations

import pytest

from ralph.config import Config
from ralph.errors import StoreUnavailable
from ralph.project import migrate_database, open_database_alone, open_store_alone

pytestmark = pytest.mark.timeout(30)


def test_a_missing_store_is_refused_not_made(tmp_path):
    config = Config(root=tmp_path, store_url=f"sqlite:///{tmp_path}/ralph.db")
    with pytest.raises(StoreUnavailable):
        open_store_alone(config)
    assert not (tmp_path / "ralph.db").exists()


def test_the_database_opened_to_migrate_is_made_and_the_store_then_opens(tmp_path):
    config = Config(root=tmp_path, store_url=f"sqlite:///{tmp_path}/ralph.db")
    with open_database_alone(config) as db:
        assert migrate_database(db)
    with open_store_alone(config) as store:
        assert store.list_runs() == []


def test_the_url_given_wins_over_the_projects(tmp_path):
    config = Config(root=tmp_path, store_url=f"sqlite:///{tmp_path}/missing.db")
    with open_database_alone(config, store_url=f"sqlite:///{tmp_path}/given.db") as db:
        migrate_database(db)
    with open_store_alone(None, store_url=f"sqlite:///{tmp_path}/given.db") as store:
        assert store.list_runs() == []
    assert not (tmp_path / "missing.db").exists()
