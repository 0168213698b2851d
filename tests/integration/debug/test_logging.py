"""One logging setup for every command: the structured fields a record carries are shown
(key=value, or JSON lines with --log-format json or RALPH_LOG_FORMAT=json, as a service
or a worker would set it once), never dropped, and never a secret."""

from __future__ import annotations

import json

from ..cli_project import farewell_project
from ..conftest import ralph_process

API_KEY = "sk-ant-PLANTED-in-the-environment-1234"


def test_json_lines_carry_the_action_and_every_field(tmp_path):
    repo, number = farewell_project(tmp_path / "demo")
    done = ralph_process(
        "-v",
        "run",
        "research",
        str(number),
        cwd=repo,
        env={"RALPH_LOG_FORMAT": "json", "ANTHROPIC_API_KEY": API_KEY},
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    finished = [entry for entry in lines if entry["action"] == "agent finished"]
    assert finished, done.stderr
    assert finished[0]["phase"] == "research"
    assert finished[0]["status"] == "ok"
    assert finished[0]["level"] == "info"
    assert {"time", "logger", "message", "cost"} <= set(finished[0])
    assert API_KEY not in done.stderr


def test_text_lines_show_the_fields_as_key_value(tmp_path):
    repo, number = farewell_project(tmp_path / "demo")
    done = ralph_process("-v", "--log-format", "text", "run", "research", str(number), cwd=repo)
    assert done.returncode == 0, done.stderr
    [line] = [line for line in done.stderr.splitlines() if "agent finished" in line]
    assert " INFO ralph.phases._runner: agent finished " in line
    assert "phase=research status=ok cost=" in line


def test_an_unknown_log_format_is_one_line_and_exit_2(tmp_path):
    done = ralph_process("status", cwd=tmp_path, env={"RALPH_LOG_FORMAT": "xml"})
    assert done.returncode == 2
    assert done.stderr == "ralph: error: --log-format 'xml' is unknown; use text or json\n"
