"""The installed ``ralph`` command as a real process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .conftest import ralph_process

ROOT = Path(__file__).parents[2]


def ralph(*args: str):
    return ralph_process(*args, cwd=ROOT, env={"COLUMNS": "120"}, timeout=60)


def test_pipeline_analyze_reads_the_bundled_board():
    result = ralph("pipeline", "analyze", "examples/auth-epic.json")
    assert result.returncode == 0, result.stderr
    assert "Phase: PLAN" in result.stdout
    assert "Task graph (13 tasks)" in result.stdout
    assert result.stderr == ""


def test_a_user_error_exits_2_with_one_line_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"issues": [{"number": 1, "workflowState": "Nope"}]}')
    result = ralph("pipeline", "position", str(bad))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"ralph: error: {bad}: issue #1: unknown workflow state 'Nope' (valid: Backlog, "
        "Research Needed, Research in Progress, Ready for Plan, Plan in Progress, "
        "Plan in Review, In Progress, In Review, Done, Human Needed, Canceled, or null)"
    ]


def test_a_store_that_does_not_answer_exits_1_not_2(tmp_path):
    # Nothing listens on port 9: the command failed, but nothing the person typed is wrong.
    result = ralph("--store", "postgresql://postgres@127.0.0.1:9/test", "runs", "list")
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("ralph: error: cannot connect to PostgreSQL at ")


def test_a_store_url_that_names_no_store_exits_2(tmp_path):
    result = ralph("--store", f"sqlite:///{tmp_path}/missing.db", "runs", "list")
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "no Ralph store at" in line


def test_python_dash_m_runs_the_same_cli():
    result = ralph_process("--help", cwd=ROOT, command=(sys.executable, "-m", "ralph"))
    assert result.returncode == 0
    assert "pipeline" in result.stdout


@pytest.mark.parametrize("args", [[], ["pipeline"]])
def test_no_arguments_prints_help(args):
    result = ralph(*args)
    assert "Usage" in result.stdout + result.stderr
