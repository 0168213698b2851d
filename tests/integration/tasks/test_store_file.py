"""The store names the file it keeps, so the phase runner leaves Ralph's own writes to it
out of an agent's confinement check."""

from __future__ import annotations


def test_a_store_names_its_sqlite_file_and_none_elsewhere(store, backend, tmp_path):
    expected = tmp_path / "ralph.db" if backend == "sqlite" else None
    assert store.path == expected
