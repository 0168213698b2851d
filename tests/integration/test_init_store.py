"""``ralph --store URL init``: the store the person named is the one initialised, and a
new ralph.toml names it (without a password: ralph.toml is committed)."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import psycopg
import pytest

from ralph.project import without_password

from .conftest import GitProject, RalphCli, git


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitProject:
    repo = GitProject(tmp_path / "project")
    monkeypatch.chdir(repo.path)
    return repo


def tables(url: str) -> set[str]:
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
    return {str(name) for (name,) in rows}


def test_init_with_a_postgresql_store_creates_its_tables_and_writes_it_into_ralph_toml(
    project: GitProject, ralph_cli: RalphCli, pg_schema_url: str
):
    code, out, err = ralph_cli("--store", pg_schema_url, "init")
    assert code == 0, out + err
    assert {"ralph_tasks", "ralph_runs"} <= tables(pg_schema_url)
    written = tomllib.loads((project.path / "ralph.toml").read_text())
    assert written["store"] == pg_schema_url
    assert f"store {pg_schema_url} (created)" in out
    assert not (project.path / ".ralph" / "ralph.db").exists()
    # Without --store from now on, commands use that store.
    assert ralph_cli("issue", "new", "Add a farewell", "--estimate", "XS")[0] == 0
    with psycopg.connect(pg_schema_url) as connection:
        (count,) = connection.execute("SELECT count(*) FROM ralph_issues").fetchone()  # type: ignore[misc]
    assert count == 1


def test_init_keeps_a_password_out_of_ralph_toml():
    assert (
        without_password("postgresql://ralph:s3cret@db.example:5433/ralph?sslmode=require")
        == "postgresql://ralph@db.example:5433/ralph?sslmode=require"
    )
    assert without_password("postgresql://ralph@db/ralph") == "postgresql://ralph@db/ralph"
    assert without_password("sqlite:///.ralph/ralph.db") == "sqlite:///.ralph/ralph.db"


def test_init_in_a_project_initialises_the_named_store_and_says_ralph_toml_names_another(
    project: GitProject, ralph_cli: RalphCli, pg_schema_url: str
):
    assert ralph_cli("init")[0] == 0
    before = (project.path / "ralph.toml").read_text()
    code, out, err = ralph_cli("--store", pg_schema_url, "init")
    assert code == 0, out + err
    assert {"ralph_tasks", "ralph_runs"} <= tables(pg_schema_url)
    assert (project.path / "ralph.toml").read_text() == before
    assert "Warning: ralph.toml names the store sqlite:///.ralph/ralph.db; commands without " in (
        err
    )


def test_init_says_what_it_did_in_a_few_lines_what_to_commit_and_how_to_go_on(
    project: GitProject, ralph_cli: RalphCli
):
    code, out, _ = ralph_cli("init", "--test-command", "true")
    assert code == 0
    config = project.path / "ralph.toml"
    assert out.splitlines() == [
        f"Created {config}: local tracker (repo project), store sqlite:///.ralph/ralph.db "
        "(created)",
        "Added .ralph/ to .gitignore (all but .ralph/prompts/, which you commit)",
        "Test command: true (from --test-command)",
        'Commit what init wrote: git add ralph.toml .gitignore && git commit -m "Set up Ralph"',
        "Next:",
        '  try it with simulated agents: ralph issue new "My first issue" -e XS, then ralph '
        "hero 1 --agent scripted",
        "  connect Claude: ralph login (or set ANTHROPIC_API_KEY), then ralph doctor",
    ]
    # The commit line runs as printed, and leaves nothing of init's uncommitted.
    commit = out.splitlines()[3].split(": ", 1)[1]
    identity = {
        f"GIT_{who}_{what}": value
        for who in ("AUTHOR", "COMMITTER")
        for what, value in (("NAME", "T"), ("EMAIL", "t@localhost"))
    }
    subprocess.run(
        commit,
        shell=True,
        cwd=project.path,
        check=True,
        capture_output=True,
        env={**os.environ, **identity},
        timeout=30,
    )
    assert git(project.path, "status", "--porcelain") == ""
    # Run again, it has nothing new to say: what it found, nothing to commit, no next steps.
    code, out, _ = ralph_cli("init")
    assert (code, out.splitlines()) == (
        0,
        [
            f"Found {config}: local tracker (repo project), store sqlite:///.ralph/ralph.db",
            "Test command: true (from ralph.toml)",
        ],
    )
