"""``ralph init`` finds the project's test command or takes ``--test-command``; when
there is none, ``ralph doctor`` and every run say so, loudly and once."""

from __future__ import annotations

import shlex
import sys

import pytest

from ralph.demo import create_sample_repository

from ..conftest import GitProject


@pytest.fixture
def sample(tmp_path, monkeypatch):
    repo = GitProject(create_sample_repository(tmp_path / "sample"))
    monkeypatch.chdir(repo.path)
    return repo


@pytest.fixture
def bare(tmp_path, monkeypatch):
    repo = GitProject(tmp_path / "bare")
    monkeypatch.chdir(repo.path)
    return repo


def test_init_finds_the_test_command_and_writes_it(ralph_cli, sample):
    code, out, err = ralph_cli("init")
    assert code == 0, err
    assert "Test command: python3 -m unittest (from tests/ (unittest))" in out
    assert 'test_command = "python3 -m unittest"' in (sample.path / "ralph.toml").read_text()
    assert "Warning" not in err


def test_init_takes_the_test_command_it_is_given(ralph_cli, sample):
    command = shlex.join([sys.executable, "-m", "unittest", "-q"])
    code, out, _ = ralph_cli("init", "--test-command", command)
    assert code == 0
    assert f"Test command: {command} (from --test-command)" in out
    code, _, err = ralph_cli("init", "--test-command", "make check")
    assert code == 2
    assert err.strip().splitlines() == [
        f"ralph: error: {sample.path / 'ralph.toml'} exists with test_command = {command!r}; "
        "set test_command there (ralph init never rewrites an existing ralph.toml)"
    ]


def test_without_tests_init_doctor_and_every_run_warn_once(ralph_cli, bare):
    code, out, err = ralph_cli("init")
    assert code == 0
    assert 'test_command = ""' in (bare.path / "ralph.toml").read_text()
    warning = "Warning: test_command is empty in"
    assert err.count(warning) == 1
    assert "Ralph runs no tests" in err
    assert "Test command:" not in out

    code, out, _ = ralph_cli("doctor")
    assert code == 0
    assert "! test_command: test_command is empty" in out

    ralph_cli("issue", "new", "Add a farewell", "--state", "Research Needed", "--estimate", "XS")
    code, out, err = ralph_cli("run", "research", "1")
    assert code == 0, out + err
    assert err.count(warning) == 1

    ralph_cli("issue", "new", "Another", "--state", "Research Needed", "--estimate", "XS")
    code, out, err = ralph_cli("hero", "2")
    assert err.count(warning) == 1, err


def test_doctor_shows_the_test_command_when_there_is_one(ralph_cli, sample):
    ralph_cli("init")
    code, out, _ = ralph_cli("doctor")
    assert code == 0
    assert "✓ test_command: python3 -m unittest" in out
