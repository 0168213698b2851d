"""Mistakes in where the store is: a read never makes a new empty store (only ``ralph
init`` and ``ralph db migrate`` create one), and no password shows in any error."""

from __future__ import annotations

import sqlite3
import uuid

import pytest

from ralph.cli import main
from ralph.db import redact_store_text, redact_url
from ralph.errors import StoreUnavailable
from ralph.tasks import open_store

from ...conftest import PG_URL, require_postgres


def ralph(capsys, *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    code = info.value.code or 0
    assert isinstance(code, int)
    return code, capsys.readouterr().err


def test_a_store_in_a_folder_that_does_not_exist_is_named_and_not_made(capsys, tmp_path):
    code, err = ralph(capsys, "--store", f"sqlite:///{tmp_path}/typo/deep/x.db", "runs", "list")
    assert code == 2
    assert err.count("\n") == 1
    assert f"no Ralph store at {tmp_path}/typo/deep/x.db" in err
    assert not (tmp_path / "typo").exists()


def test_an_emptied_store_file_is_an_error_not_an_empty_board(capsys, tmp_path):
    (tmp_path / "ralph.db").write_bytes(b"")
    code, err = ralph(capsys, "--store", f"sqlite:///{tmp_path}/ralph.db", "runs", "list")
    assert code == 2
    assert "is empty, not a Ralph store" in err
    assert (tmp_path / "ralph.db").stat().st_size == 0


def test_a_sqlite_database_without_ralphs_tables_is_not_taken_over(capsys, tmp_path):
    with sqlite3.connect(tmp_path / "other.db") as other:
        other.execute("CREATE TABLE notes (body TEXT)")
    code, err = ralph(capsys, "--store", f"sqlite:///{tmp_path}/other.db", "runs", "list")
    assert code == 2
    assert "has no Ralph store (no ralph_* tables); run `ralph db migrate`" in err
    with sqlite3.connect(tmp_path / "other.db") as other:
        tables = {r[0] for r in other.execute("SELECT name FROM sqlite_master")}
    assert tables == {"notes"}


def test_db_migrate_creates_the_store_a_read_then_finds(capsys, tmp_path):
    url = f"sqlite:///{tmp_path}/new.db"
    assert ralph(capsys, "--store", url, "db", "migrate")[0] == 0
    assert ralph(capsys, "--store", url, "runs", "list")[0] == 0


def test_a_postgresql_url_without_a_database_is_refused_before_connecting():
    with pytest.raises(StoreUnavailable, match="names no database; add it to the URL"):
        open_store("postgresql://")
    with pytest.raises(StoreUnavailable, match="names no database"):
        open_store("postgresql://u:secret@127.0.0.1:5432")


@pytest.mark.postgres
def test_a_read_never_creates_tables_in_a_postgresql_database():
    require_postgres()
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_URL, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    try:
        with pytest.raises(StoreUnavailable, match="has no Ralph store"):
            open_store(url, create=False)
        with psycopg.connect(PG_URL, autocommit=True) as connection:
            count = connection.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = %s",
                (schema,),
            ).fetchone()
        assert count == (0,)
    finally:
        with psycopg.connect(PG_URL, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.mark.parametrize(
    ("url", "exit_code"),
    [
        # Nothing answers on port 1: the command failed (1); the others are malformed (2).
        ("postgresql:///x?password=TOPSECRETPW&host=127.0.0.1&port=1", 1),
        ("host=127.0.0.1 port=1 password=TOPSECRETPW dbname=x", 2),
        ("postgresql://postgres:TOPSECRETPW@127.0.0.1:1/x", 1),
        ("postgresql://postgres:TOP%SECRETPW@127.0.0.1:1/x", 2),
    ],
)
def test_no_form_of_a_store_url_shows_its_password_in_an_error(capsys, url, exit_code):
    code, err = ralph(capsys, "--store", url, "runs", "list")
    assert code == exit_code
    assert "SECRET" not in err
    assert err.count("\n") == 1


def test_redaction_covers_a_password_echoed_back_decoded():
    url = "postgresql://u:p%40ss%21word@h/db"
    assert "p@ss!word" not in redact_store_text('bad token: "p@ss!word"', url)
    assert redact_url("host=h password='a b' dbname=x") == "host=h password=*** dbname=x"
