"""The XS fast track's guards: each rule refuses with its reason in words."""

from __future__ import annotations

from typing import Any

from ralph.workflow import (
    FAST_TRACK_LABEL,
    FAST_TRACK_SPENT_LABEL,
    decide_fast_track,
    shared_path_of,
)


def decide(**overrides: Any) -> tuple[bool, str]:
    given: dict[str, Any] = {
        "enabled": True,
        "proposed": True,
        "estimate": "XS",
        "files": ["src/app/greeting.py"],
    } | overrides
    decision = decide_fast_track(**given)
    return decision.granted, decision.reason


def test_an_xs_issue_with_files_named_is_fast_tracked():
    granted, reason = decide(files=["src/a.py", "./tests/test_a.py"])
    assert granted
    assert reason == "XS, and the change is concrete: src/a.py, tests/test_a.py"


def test_the_setting_turned_off_keeps_the_full_pipeline():
    assert decide(enabled=False) == (
        False,
        "the project turned the fast track off (fast_track = false)",
    )


def test_nothing_is_fast_tracked_that_the_agent_did_not_propose():
    assert decide(proposed=False) == (False, "the triage agent did not propose it")


def test_only_an_xs_issue_is_fast_tracked():
    assert decide(estimate="S") == (False, "only an XS issue is fast-tracked; this one is S")
    assert decide(estimate=None)[1] == (
        "only an XS issue is fast-tracked; this one is not estimated"
    )


def test_an_issue_whose_fast_track_failed_is_not_fast_tracked_again():
    granted, reason = decide(labels=["bug", FAST_TRACK_SPENT_LABEL])
    assert not granted
    assert reason.startswith("it was fast-tracked before, and its implementation failed")
    # Fast-tracked and not failed (a triage resumed after a crash): still granted.
    assert decide(labels=[FAST_TRACK_LABEL])[0]


def test_a_member_of_an_epic_with_three_children_is_never_fast_tracked():
    assert decide(epic_children=3) == (
        False,
        "its epic has 3 children, which are researched and planned together",
    )
    assert decide(epic_children=1)[0]


def test_an_issue_planned_with_others_is_not_fast_tracked():
    assert decide(group=[7, 9]) == (False, "it is planned together with #7, #9")


def test_one_to_three_files_must_be_named():
    assert decide(files=[]) == (False, "no file is named: the change is not concrete enough")
    assert decide(files=["a", "b", "c"])[0]
    assert decide(files=["a", "b", "c", "d"]) == (
        False,
        "4 files are named; the fast track takes 1 to 3",
    )
    assert decide(files=["a", "a", "./a"])[0]  # the same file thrice is one


def test_a_path_outside_the_repository_is_not_concrete():
    assert decide(files=["src/../x.py"]) == (
        False,
        "'src/../x.py' is not a path inside the repository",
    )
    assert not decide(files=["/etc/passwd"])[0]


def test_a_file_under_shared_infrastructure_refuses_the_fast_track():
    shared = ["src/db/", "*.lock", "Makefile"]
    assert decide(files=["src/db/schema.py"], shared_paths=shared) == (
        False,
        "src/db/schema.py is shared infrastructure (shared_paths: 'src/db/')",
    )
    assert not decide(files=["a.py", "uv.lock"], shared_paths=shared)[0]
    assert not decide(files=["Makefile"], shared_paths=shared)[0]
    assert decide(files=["src/dbx.py", "src/app.py"], shared_paths=shared)[0]


def test_shared_paths_are_folders_files_or_globs():
    assert shared_path_of("infra/ci/deploy.yml", ["infra"]) == "infra"
    assert shared_path_of("ci/build.yml", ["ci/*.yml"]) == "ci/*.yml"
    assert shared_path_of("src/infra.py", ["infra"]) is None
