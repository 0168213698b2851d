"""``ralph pipeline ...`` on JSON files: JSON for machines, tables for people, and one
clear line with exit code 2 for input the user has to fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ralph.cli import main
from ralph.pipeline import IssueState, detect_position

EXAMPLE = Path(__file__).parents[3] / "examples" / "auth-epic.json"


@pytest.fixture
def run(capsys):
    def run(*args):
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        return info.value.code or 0, out, err

    return run


@pytest.fixture
def write(tmp_path):
    def write(data, name="input.json"):
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return str(path)

    return write


POSITION_INPUT: dict[str, Any] = {
    "issues": [
        {"number": 1, "title": "a", "workflowState": "Research Needed", "estimate": "S"},
        {"number": 2, "title": "b", "workflowState": "Ready for Plan", "estimate": "XS"},
    ],
    "isGroup": True,
    "groupPrimary": 1,
}


def test_position_json_is_the_libraries_answer(run, write):
    code, out, err = run("pipeline", "position", write(POSITION_INPUT), "--json")
    assert code == 0, err
    expected = detect_position(
        [IssueState.from_dict(i) for i in POSITION_INPUT["issues"]], is_group=True, group_primary=1
    )
    assert json.loads(out) == expected.to_dict()


def test_position_for_people_names_the_phase_and_what_blocks_convergence(run, write):
    code, out, _ = run("pipeline", "position", write(POSITION_INPUT))
    assert code == 0
    assert "Phase: RESEARCH" in out
    assert "waiting on: #1 (Research Needed)" in out


def test_is_group_and_primary_default_from_the_issues(run, write):
    code, out, _ = run(
        "pipeline", "position", write({"issues": POSITION_INPUT["issues"]}), "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["isGroup"] is True
    assert data["groupPrimary"] == 1


def test_streams_json(run, write):
    document = {
        "issues": [
            {"number": 42, "files": ["mw.ts"], "blockedBy": []},
            {"number": 44, "files": ["mw.ts", "x.ts"], "blockedBy": []},
            {"number": 43, "files": ["dash.ts"]},
        ]
    }
    code, out, _ = run("pipeline", "streams", write(document), "--json")
    assert code == 0
    data = json.loads(out)
    assert [s["id"] for s in data["streams"]] == ["stream-42-44", "stream-43"]
    code, out, _ = run("pipeline", "streams", write(document))
    assert "stream-42-44" in out
    assert "2 stream(s) detected." in out


def test_graph_uses_the_review_mode_option_over_the_files(run, write):
    document = {**POSITION_INPUT, "reviewMode": "auto"}
    code, out, _ = run(
        "pipeline", "graph", write(document), "--review-mode", "interactive", "--json"
    )
    assert code == 0
    kinds = [t["kind"] for t in json.loads(out)["tasks"]]
    assert "human_gate" in kinds
    assert "review" not in kinds


def test_graph_for_people_numbers_tasks_like_the_original(run, write):
    code, out, _ = run("pipeline", "graph", write(POSITION_INPUT))
    assert code == 0
    assert "T-1" in out
    assert "Plan group GH-1" in out


def test_graph_with_streams_from_the_file(run, write):
    document = {**POSITION_INPUT, "streams": [{"issues": [1]}, {"issues": [2]}]}
    code, out, _ = run("pipeline", "graph", write(document), "--json")
    assert code == 0
    keys = [t["key"] for t in json.loads(out)["tasks"]]
    assert "plan:stream-1" in keys
    assert "plan:stream-2" in keys


def test_group_json(run, write):
    board = {
        "seed": 20,
        "issues": [{"number": 20, "blockedBy": [21]}, {"number": 21, "blocking": [20]}],
    }
    code, out, _ = run("pipeline", "group", write(board), "--json")
    assert code == 0
    assert json.loads(out) == {"issues": [21, 20], "primary": 21, "isGroup": True}


def test_analyze_the_bundled_example(run):
    code, out, err = run("pipeline", "analyze", str(EXAMPLE))
    assert code == 0, err
    assert "Implementation order: #41 → #42 → #43 → #45 → #44" in out
    assert "Phase: PLAN" in out
    assert "stream-43-44-45" in out
    assert "Task graph (13 tasks)" in out


def test_analyze_json_has_every_part(run):
    code, out, _ = run("pipeline", "analyze", str(EXAMPLE), "--json", "--review-mode", "skip")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"group", "position", "streams", "graph"}
    assert not [t for t in data["graph"]["tasks"] if t["kind"] == "review"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid JSON at line 1 column 2"),
        ('{"isGroup": true}', 'missing field "issues"'),
        ('{"issues": {"number": 1}}', '"issues" must be a list'),
        ('{"issues": [{"title": "x"}]}', "issues[0]: missing field 'number'"),
        ('{"issues": [{"number": "7"}]}', "field 'number' must be an integer"),
        (
            '{"issues": [{"number": 3, "workflowState": "Blocked"}]}',
            "issue #3: unknown workflow state 'Blocked'",
        ),
        ('{"issues": [{"number": 3, "estimate": "XXL"}]}', "issue #3: unknown estimate 'XXL'"),
        ('{"issues": [{"number": 3}, {"number": 3}]}', "issue #3 appears twice"),
        ('{"issues": [], "isGroup": "yes"}', '"isGroup" must be true or false'),
        ('{"issues": [{"number": 1}], "reviewMode": "often"}', "Unknown review mode 'often'"),
    ],
)
def test_bad_input_is_one_line_naming_the_problem_and_exit_2(run, write, content, message):
    path = write(content)
    command = "graph" if "reviewMode" in content else "position"
    code, out, err = run("pipeline", command, path)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith((f"ralph: error: {path}", "ralph: error: Unknown"))
    assert message in err
    assert "Traceback" not in err


def test_a_missing_file_is_named(run, tmp_path):
    missing = tmp_path / "nope.json"
    code, _, err = run("pipeline", "position", str(missing))
    assert code == 2
    assert err == f"ralph: error: {missing}: no such file\n"


def test_a_directory_is_not_a_file(run, tmp_path):
    code, _, err = run("pipeline", "streams", str(tmp_path))
    assert code == 2
    assert "is a directory" in err


def test_a_dependency_cycle_is_reported_not_raised(run, write):
    board = {
        "seed": 1,
        "issues": [{"number": 1, "blockedBy": [2]}, {"number": 2, "blockedBy": [1]}],
    }
    code, _, err = run("pipeline", "group", write(board))
    assert code == 2
    assert "Cycle detected in dependencies! Issues involved: #1, #2." in err


def test_a_seed_missing_from_the_board_is_reported(run, write):
    code, _, err = run("pipeline", "analyze", write({"seed": 9, "issues": []}))
    assert code == 2
    assert "Issue #9 not found" in err


def test_help_works(run):
    code, out, _ = run("--help")
    assert code == 0
    assert "pipeline" in out
    code, out, _ = run("pipeline", "--help")
    assert code == 0
    for command in ("position", "streams", "graph", "group", "analyze"):
        assert command in out
