"""The [merge] table: how long a merge that is not ready waits between looks, its
RALPH_MERGE_* overrides, and mistakes as one line."""

from __future__ import annotations

import pytest

from ralph.config import CONFIG_FILE, MergeWaitSettings, load_config
from ralph.errors import ConfigError


def merge_with(tmp_path, table: str | None, env: dict[str, str] | None = None) -> MergeWaitSettings:
    section = "" if table is None else f"[merge]\n{table}\n"
    (tmp_path / CONFIG_FILE).write_text(f'repo = "shop"\n{section}')
    return load_config(tmp_path, env=env or {}).merge


def test_a_waiting_merge_looks_again_after_15_seconds_doubling_to_5_minutes_by_default(tmp_path):
    assert merge_with(tmp_path, None) == MergeWaitSettings(wait_seconds=15, max_wait_seconds=300)
    assert merge_with(tmp_path, "") == MergeWaitSettings()


def test_the_file_sets_the_waits_and_the_environment_overrides_them(tmp_path):
    merge = merge_with(
        tmp_path,
        "wait_seconds = 5\nmax_wait_seconds = 60",
        env={"RALPH_MERGE_MAX_WAIT_SECONDS": "120.5"},
    )
    assert (merge.wait_seconds, merge.max_wait_seconds) == (5, 120.5)
    assert merge_with(tmp_path, None, {"RALPH_MERGE_WAIT_SECONDS": "0.5"}).wait_seconds == 0.5


@pytest.mark.parametrize(
    ("table", "env", "message"),
    [
        (
            "wait_seconds = 0",
            {},
            r"merge.wait_seconds: 0 is not valid; expected a finite number >= 0.1",
        ),
        ("wait_seconds = -1", {}, "merge.wait_seconds: -1 is not valid"),
        ('wait_seconds = "soon"', {}, "merge.wait_seconds: 'soon' is not valid"),
        ("wait_seconds = nan", {}, "merge.wait_seconds: nan is not valid"),
        ("wait_seconds = true", {}, "merge.wait_seconds: True is not valid"),
        ("max_wait_seconds = inf", {}, "merge.max_wait_seconds: inf is not valid"),
        (
            "max_wait_seconds = 100000",
            {},
            "merge.max_wait_seconds: 100000 is too large; at most 86400",
        ),
        (
            "wait_seconds = 60\nmax_wait_seconds = 30",
            {},
            r"merge.max_wait_seconds: max_wait_seconds \(30\) is shorter than wait_seconds \(60\)",
        ),
        ("wait_seconds = 400", {}, r"merge.wait_seconds: max_wait_seconds \(300\) is shorter"),
        ("", {"RALPH_MERGE_WAIT_SECONDS": "abc"}, "RALPH_MERGE_WAIT_SECONDS: 'abc' is not valid"),
        (
            "",
            {"RALPH_MERGE_MAX_WAIT_SECONDS": "1"},
            r"RALPH_MERGE_MAX_WAIT_SECONDS: max_wait_seconds \(1\) is shorter",
        ),
        ("wait_secs = 5", {}, "unknown setting merge.wait_secs; did you mean merge.wait_seconds?"),
    ],
)
def test_mistakes_are_one_line_naming_the_setting(tmp_path, table, env, message):
    with pytest.raises(ConfigError, match=message) as refused:
        merge_with(tmp_path, table, env)
    assert "\n" not in str(refused.value)


def test_a_merge_setting_that_is_no_table_is_refused(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('repo = "shop"\nmerge = 3\n')
    with pytest.raises(ConfigError, match=r"\[merge\] must be a table"):
        load_config(tmp_path, env={})
