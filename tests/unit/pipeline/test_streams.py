"""Work streams: the conformance cases of docs/compatibility.md, and stream positions (SP1-SP4)."""

from __future__ import annotations

from ralph.pipeline import (
    FileOwnership,
    IssueState,
    Stage,
    WorkStream,
    detect_stream_positions,
    detect_work_streams,
)

MW, TYPES, REFRESH, DASH, MIG, CFG = (
    "src/auth/middleware.ts",
    "src/auth/types.ts",
    "src/auth/refresh.ts",
    "src/dashboard.ts",
    "migrations/001.sql",
    "config.yml",
)


def F(number, files, blocked_by=()):
    return FileOwnership(number, tuple(files), tuple(blocked_by))


def ids(result):
    return [s.id for s in result.streams]


def test_ws1_a_shared_file_joins_two_issues():
    result = detect_work_streams([F(42, [MW, TYPES]), F(44, [MW, REFRESH])])
    assert ids(result) == ["stream-42-44"]
    stream = result.streams[0]
    assert stream.issues == (42, 44)
    assert MW in stream.shared_files
    assert stream.primary_issue == 42


def test_ws2_disjoint_files_are_separate_streams():
    assert ids(detect_work_streams([F(42, [MW]), F(43, [DASH])])) == ["stream-42", "stream-43"]


def test_ws3_sharing_is_transitive():
    result = detect_work_streams([F(42, [MW]), F(43, [MW, MIG]), F(44, [MIG])])
    assert ids(result) == ["stream-42-43-44"]
    assert {MW, MIG} <= set(result.streams[0].shared_files)


def test_ws4_blocked_by_joins_issues_without_shared_files():
    result = detect_work_streams([F(42, [MW]), F(44, [DASH], [42])])
    assert ids(result) == ["stream-42-44"]
    assert result.streams[0].shared_files == ()
    assert "blockedBy" in result.rationale


def test_ws5_mixed():
    result = detect_work_streams([F(42, [MW]), F(43, [DASH], [42]), F(44, [CFG])])
    assert ids(result) == ["stream-42-43", "stream-44"]


def test_ws6_one_issue():
    result = detect_work_streams([F(42, [MW])])
    assert ids(result) == ["stream-42"]
    assert result.streams[0].shared_files == ()
    assert result.streams[0].primary_issue == 42


def test_ws7_input_order_does_not_change_ids():
    forward = detect_work_streams([F(42, [MW, TYPES]), F(44, [MW, REFRESH])])
    backward = detect_work_streams([F(44, [MW, REFRESH]), F(42, [MW, TYPES])])
    assert ids(forward) == ids(backward) == ["stream-42-44"]


def test_ws8_an_issue_without_files_is_independent():
    result = detect_work_streams([F(42, [MW]), F(43, [])])
    assert ids(result) == ["stream-42", "stream-43"]
    assert "independent" in result.rationale


def test_ws9_no_issues():
    result = detect_work_streams([])
    assert (result.total_issues, result.total_streams) == (0, 0)
    assert result.rationale == "No issues provided."


def test_ws_d1_blockers_outside_the_set_are_ignored():
    result = detect_work_streams([F(42, ["a"], [99])])
    assert ids(result) == ["stream-42"]
    assert "Stream stream-42: independent." in result.rationale


def test_ws_d2_streams_are_sorted_by_primary_issue():
    result = detect_work_streams([F(50, ["x"]), F(10, ["x"]), F(30, ["y"])])
    assert ids(result) == ["stream-10-50", "stream-30"]


def test_ws_d3_exact_rationale():
    result = detect_work_streams([F(42, [MW]), F(44, [MW])])
    assert result.rationale == (
        "1 stream(s) detected. Stream stream-42-44: issues share [src/auth/middleware.ts]."
    )


def test_ws_d4_a_file_listed_twice_in_one_issue_counts_as_shared():
    result = detect_work_streams([F(1, ["a", "a"]), F(2, ["b"], [1])])
    assert ids(result) == ["stream-1-2"]
    assert result.streams[0].shared_files == ("a",)


def test_totals_and_dict_shape():
    data = detect_work_streams([F(42, [MW]), F(43, [DASH])]).to_dict()
    assert data["totalIssues"] == 2
    assert data["totalStreams"] == 2
    assert data["streams"][0] == {
        "id": "stream-42",
        "issues": [42],
        "sharedFiles": [],
        "primaryIssue": 42,
    }


def test_file_ownership_from_dict_accepts_the_originals_keys():
    assert FileOwnership.from_dict({"number": 4, "files": ["a"], "blockedBy": [1]}) == F(
        4, ["a"], [1]
    )
    # Lists, against the annotation, become tuples.
    assert FileOwnership(4, ["a"], [1]) == F(4, ["a"], [1])  # type: ignore[arg-type]


def S(number, state):
    return IssueState(number, "", state, "S")


def test_sp1_each_stream_gets_its_own_position():
    streams = [
        WorkStream("stream-42-44", (42, 44), (), 42),
        WorkStream("stream-43", (43,), (), 43),
    ]
    states = [S(42, "In Progress"), S(43, "Research Needed"), S(44, "In Progress")]
    results = detect_stream_positions(streams, states)
    assert [r.stream_id for r in results] == ["stream-42-44", "stream-43"]
    assert [r.position.phase for r in results] == [Stage.IMPLEMENT, Stage.RESEARCH]


def test_sp2_a_stream_sees_only_its_own_issues():
    results = detect_stream_positions(
        [WorkStream("stream-42", (42,), (), 42)],
        [S(42, "Ready for Plan"), S(43, "Research Needed")],
    )
    assert [i.number for i in results[0].issues] == [42]
    assert results[0].position.phase is Stage.PLAN


def test_sp3_group_flags_per_stream():
    states = [S(42, "Ready for Plan"), S(44, "Ready for Plan")]
    pair = detect_stream_positions([WorkStream("stream-42-44", (42, 44), (), 42)], states)[0]
    assert pair.position.is_group is True
    assert pair.position.group_primary == 42
    lone = detect_stream_positions([WorkStream("stream-42", (42,), (), 42)], states)[0]
    assert lone.position.is_group is False


def test_sp4_no_streams():
    assert detect_stream_positions([], []) == []


def test_the_originals_json_objects_are_accepted_directly():
    result = detect_work_streams(
        [{"number": 42, "files": [MW], "blockedBy": []}, {"number": 44, "files": [MW]}]
    )
    assert [s.id for s in result.streams] == ["stream-42-44"]
    positions = detect_stream_positions(
        [s.to_dict() for s in result.streams],
        [
            {"number": 42, "workflowState": "In Progress"},
            {"number": 44, "workflowState": "In Progress"},
        ],
    )
    assert positions[0].position.phase is Stage.IMPLEMENT
