"""The hygiene report's golden cases (HY in docs/compatibility.md): title normalisation,
duplicate pairs, each section's rule, the summary and the Markdown layout."""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ralph.dashboard import (
    DAY_SECONDS,
    MAX_DUPLICATES,
    DashboardItem,
    HygieneConfig,
    build_hygiene_report,
    format_hygiene_markdown,
    normalize_title,
    title_similarity,
)
from ralph.dashboard._hygiene import EXACT_UP_TO
from ralph.errors import InvalidInput

NOW = 1_771_243_200.0  # 2026-02-16T12:00:00Z, the original's tests' NOW
HOUR = 3600.0


def item(number, state="Backlog", *, title=None, days_ago=None, closed_days_ago=None, **fields):
    updated = NOW - (days_ago * DAY_SECONDS if days_ago is not None else HOUR)
    return DashboardItem(
        number=number,
        title=f"Issue {number}" if title is None else title,
        updated_at=updated,
        closed_at=None if closed_days_ago is None else NOW - closed_days_ago * DAY_SECONDS,
        workflow_state=state,
        **fields,
    )


def report(*items, **config):
    return build_hygiene_report(list(items), now=NOW, config=HygieneConfig(**config))


def numbers(section):
    return [i.number for i in section]


@pytest.mark.parametrize(
    ("title", "normalized"),
    [
        ("Add caching to API", "caching to api"),  # HY1
        ("Create bulk_archive tool", "bulk_archive tool"),
        ('Add `bulk_archive` tool: "v2"', "bulk_archive tool v2"),
        ("Fix login bug", "login bug"),
        ("Implement new feature", "new feature"),
        ("Dashboard improvements", "dashboard improvements"),
        ("Fix", "fix"),  # the verb alone, no space after it, stays
        ("Add fix: the thing", "fix the thing"),  # only the first verb goes
    ],
)
def test_hy1_titles_are_normalised_as_the_original_did(title, normalized):
    assert normalize_title(title) == normalized


@pytest.mark.parametrize(
    ("a", "b", "pairs"),
    [
        ("Add caching to API layer", "Add caching to API layers", 1),
        ("Fix login flow", "Fix batch jobs", 0),
        ("Create bulk_archive tool", "Implement bulk_archive tool", 1),
        ("Add caching", "Fix auth bug", 0),
    ],
)
def test_hy1_duplicate_candidates_by_title_similarity(a, b, pairs):
    found = report(item(1, title=a), item(2, title=b)).duplicate_candidates
    assert len(found) == pairs
    if pairs:
        assert (found[0].first.number, found[0].second.number) == (1, 2)
        assert found[0].similarity >= 0.8


def test_hy1_the_similarity_is_the_edit_distance_over_the_longer_title():
    assert title_similarity("caching to API", "caching to API") == 1
    # "caching to api layer" vs "...layers": one edit in 21 characters.
    assert title_similarity("Add caching to API layer", "Add caching to API layers") == (
        pytest.approx(1 - 1 / 21)
    )
    pair = report(
        item(1, title="Add caching to API layer"), item(2, title="Add caching to API layers")
    )
    assert pair.duplicate_candidates[0].similarity == 0.95
    assert title_similarity("", "") == 1


def test_hy1_done_and_canceled_issues_are_never_duplicate_candidates():
    found = report(
        item(1, "Done", title="Add caching to API layer"),
        item(2, "Canceled", title="Add caching to API layers"),
        item(3, "Done", title="Add caching to API layer"),
    )
    assert found.duplicate_candidates == ()


def test_titles_of_very_different_lengths_are_not_compared():
    # Lengths 2 and 4: half apart, compared; 1 and 4: more than half, skipped.
    near = report(item(1, title="ab"), item(2, title="abcd"), similarity_threshold=0)
    assert len(near.duplicate_candidates) == 1
    far = report(item(1, title="a"), item(2, title="abcd"), similarity_threshold=0)
    assert far.duplicate_candidates == ()


def test_archive_candidates_are_done_or_canceled_for_longer_than_the_threshold():
    found = report(
        item(1, "Done", closed_days_ago=20),
        item(2, "Done", closed_days_ago=3),
        item(3, "Canceled", days_ago=20),  # no close time: its last update counts
        item(4, "In Progress", days_ago=30),
        item(5, "Done", days_ago=20, closed_days_ago=3),  # the close time is preferred
    )
    assert numbers(found.archive_candidates) == [1, 3]
    later = report(item(1, "Done", closed_days_ago=20), archive_days=30)
    assert later.archive_candidates == ()


def test_stale_items_are_open_work_not_updated_for_longer_than_the_threshold():
    found = report(
        item(1, "Backlog", days_ago=10),
        item(2, "In Progress", days_ago=2),
        item(3, "Done", days_ago=30),
        item(4, None, days_ago=8),  # no state yet counts as open work
        item(5, "Human Needed", days_ago=8),
    )
    assert numbers(found.stale_items) == [1, 4, 5]


def test_orphaned_items_are_unassigned_backlog_issues_older_than_the_threshold():
    found = report(
        item(1, "Backlog", days_ago=20),
        item(2, "Backlog", days_ago=20, assignees=("alice",)),
        item(3, "In Progress", days_ago=20),
        item(4, "Backlog", days_ago=10),
    )
    assert numbers(found.orphaned_items) == [1]


def test_field_gaps_and_coverage_count_open_work_only():
    found = report(
        item(1, estimate="S", priority="P1"),
        item(2),
        item(3, estimate="XS"),
        item(4, "Done"),
    )
    assert numbers(found.missing_estimate) == [2]
    assert numbers(found.missing_priority) == [2, 3]
    assert found.field_coverage_percent == 33
    assert report(item(1, estimate="S", priority="P1"), item(2)).field_coverage_percent == 50
    assert report(item(1, "Done")).field_coverage_percent == 100
    assert report().field_coverage_percent == 100


def test_wip_violations_list_states_over_their_limit_in_the_limits_order():
    items = [item(n, "In Progress") for n in (1, 2, 3, 4)] + [item(5, "In Review")]
    found = report(*items, wip_limits={"In Review": 0, "In Progress": 3, "Backlog": 1})
    assert [(v.state, v.count, v.limit) for v in found.wip_violations] == [
        ("In Review", 1, 0),
        ("In Progress", 4, 3),
    ]
    assert numbers(found.wip_violations[1].items) == [1, 2, 3, 4]
    assert report(*items[:2], wip_limits={"In Progress": 3}).wip_violations == ()


def test_ages_are_shown_to_a_tenth_of_a_day():
    found = report(item(1, days_ago=10.26), item(2, days_ago=10.25))
    assert [i.age_days for i in found.stale_items] == [10.3, 10.3]


@pytest.mark.parametrize(
    ("setting", "value", "named"),
    [
        ("archive_days", -1, "--archive-days"),
        ("stale_days", float("nan"), "--stale-days"),
        ("orphan_days", float("inf"), "--orphan-days"),
        ("similarity_threshold", 1.5, "--similarity"),
        ("similarity_threshold", -0.1, "--similarity"),
        ("similarity_threshold", float("nan"), "--similarity"),
    ],
)
def test_a_bad_threshold_is_refused_naming_the_option(setting, value, named):
    with pytest.raises(InvalidInput, match=named):
        HygieneConfig(**{setting: value})


def test_thresholds_at_their_bounds_are_accepted():
    HygieneConfig(archive_days=0, stale_days=0, orphan_days=0, similarity_threshold=0)
    HygieneConfig(similarity_threshold=1)


def test_the_json_has_the_original_shape_and_summary():
    found = report(item(1, "Done", closed_days_ago=20), item(2, days_ago=20)).to_dict()
    assert found["generatedAt"] == "2026-02-16T12:00:00Z"
    assert found["totalItems"] == 2
    assert found["archiveCandidates"] == [
        {"number": 1, "title": "Issue 1", "workflowState": "Done", "ageDays": 0.0}
    ]
    assert found["summary"] == {
        "archiveCandidateCount": 1,
        "staleCount": 1,
        "orphanCount": 1,
        "fieldCoveragePercent": 0,
        "wipViolationCount": 0,
        "duplicateCandidateCount": 0,
    }
    assert set(found["fieldGaps"]) == {"missingEstimate", "missingPriority"}


def test_the_markdown_report_lists_the_summary_then_each_non_empty_section():
    text = format_hygiene_markdown(
        report(
            item(42, "Done", title="Ship it", closed_days_ago=20),
            item(10, title="Add caching to API layer", days_ago=20.5),
            item(11, title="Add caching to API layers", estimate="S", priority="P2"),
            item(12, "In Progress", title="Sessions"),
            item(13, "In Progress", title="Login form"),
            wip_limits={"In Progress": 1},
        )
    )
    assert text.startswith("# Project Hygiene Report\n_Generated: 2026-02-16T12:00:00Z_\n")
    assert "**Total items**: 5\n\n## Summary\n- Archive candidates: 1\n- Stale items: 1\n" in text
    assert "- Orphaned items: 1\n- Field coverage: 25%\n- WIP violations: 1\n" in text
    assert "- Duplicate candidates: 1\n" in text
    assert (
        "## Archive Candidates\n| Issue | Title | State | Age |\n"
        "|-------|-------|-------|-----|\n| #42 | Ship it | Done | 0d |\n"
    ) in text
    assert "## Stale Items\n| Issue | Title | State | Age |" in text
    assert "| #10 | Add caching to API layer | Backlog | 20.5d |" in text
    assert "## Field Gaps\n### Missing Estimate\n" in text
    assert "### Missing Priority\n" in text
    assert "## WIP Violations\n### In Progress: 2 items (limit: 1)\n" in text
    assert (
        "## Duplicate Candidates\n| Issue A | Title A | Issue B | Title B | Similarity |\n"
        "|---------|---------|---------|---------|------------|\n"
        "| #10 | Add caching to API layer | #11 | Add caching to API layers | 0.95 |\n"
    ) in text


def test_an_empty_board_reports_only_the_summary():
    text = format_hygiene_markdown(report())
    assert "## Summary" in text
    for section in ("Archive Candidates", "Stale Items", "Orphaned", "Field Gaps", "WIP"):
        assert f"## {section}" not in text
    assert "## Duplicate Candidates" not in text


def test_an_issue_without_a_state_shows_a_dash():
    text = format_hygiene_markdown(report(item(1, None, days_ago=9)))
    assert "| #1 | Issue 1 | — | 9d |" in text


@settings(max_examples=300, deadline=None)
@given(
    titles=st.lists(st.text(alphabet="abc de", max_size=12), min_size=2, max_size=6),
    threshold=st.sampled_from([0.0, 0.3, 0.5, 0.8, 0.95, 1.0]),
)
def test_duplicates_are_exactly_the_pairs_at_or_above_the_threshold(titles, threshold):
    """The report's shortcut (a bounded edit distance) finds what the definition does."""
    items = [item(n, title=t) for n, t in enumerate(titles, 1)]
    found = report(*items, similarity_threshold=threshold).duplicate_candidates
    expected = []
    for i, a in enumerate(titles):
        for j in range(i + 1, len(titles)):
            na, nb = normalize_title(a), normalize_title(titles[j])
            longest = max(len(na), len(nb))
            if longest and abs(len(na) - len(nb)) / longest > 0.5:
                continue
            if title_similarity(a, titles[j]) >= threshold:
                expected.append((i + 1, j + 1))
    assert [(d.first.number, d.second.number) for d in found] == expected
    for d in found:
        exact = title_similarity(titles[d.first.number - 1], titles[d.second.number - 1])
        assert abs(d.similarity - exact) <= 0.005 + 1e-9  # rounded to two decimals


def test_titles_that_differ_only_in_a_number_are_different_issues():
    found = report(
        item(1, title="Issue 4 of the benchmark board"),
        item(2, title="Issue 5 of the benchmark board"),
        item(3, title="Support Python 3.12"),
        item(4, title="Support Python 3.13"),
        item(5, title="Issue 4 of the benchmark boards"),
    ).duplicate_candidates
    assert [(d.first.number, d.second.number) for d in found] == [(1, 5)]


@pytest.mark.timeout(30)
def test_ten_thousand_titles_a_number_apart_are_no_duplicates_and_take_no_time():
    items = [item(n, title=f"Issue {n} of the benchmark board") for n in range(1, 10_001)]
    assert report(*items).duplicate_candidates == ()


def test_the_report_keeps_the_most_alike_pairs_and_counts_the_rest():
    items = [item(n, title="Add caching to API layer") for n in range(1, 21)]
    items += [item(n, title="Add caching to the API layers") for n in range(21, 24)]
    found = report(*items)
    assert len(found.duplicate_candidates) == MAX_DUPLICATES
    assert found.duplicates_left_out == 190 + 3 + 60 - MAX_DUPLICATES
    assert {d.similarity for d in found.duplicate_candidates} == {1.0}
    pairs = [(d.first.number, d.second.number) for d in found.duplicate_candidates]
    assert pairs == sorted(pairs)
    summary = found.to_dict()["summary"]
    assert summary["duplicateCandidateCount"] == 190 + 3 + 60
    text = format_hygiene_markdown(found)
    assert f"- Duplicate candidates: 253 (the {MAX_DUPLICATES} most alike below)" in text


_WORDS = ["api", "cache", "layer", "login", "fix", "add", "token", "user", "page", "form"]


@settings(max_examples=200, deadline=None)
@given(
    titles=st.lists(
        st.lists(st.sampled_from(_WORDS), min_size=1, max_size=5).map(" ".join),
        min_size=2,
        max_size=12,
    ),
    threshold=st.sampled_from([0.5, 0.7, 0.8, 0.9]),
)
def test_duplicates_of_word_titles_are_exactly_the_pairs_at_or_above_the_threshold(
    titles, threshold
):
    """The candidates' blocking (shared rare pairs of letters) loses no pair the
    definition finds, on titles made of a few common words."""
    items = [item(n, title=t) for n, t in enumerate(titles, 1)]
    found = report(*items, similarity_threshold=threshold).duplicate_candidates
    expected = []
    for i, a in enumerate(titles):
        for j in range(i + 1, len(titles)):
            na, nb = normalize_title(a), normalize_title(titles[j])
            longest = max(len(na), len(nb))
            if longest and abs(len(na) - len(nb)) / longest > 0.5:
                continue
            if title_similarity(a, titles[j]) >= threshold:
                expected.append((i + 1, j + 1))
    assert [(d.first.number, d.second.number) for d in found] == expected


def test_on_a_large_board_a_title_a_letter_from_another_is_still_found():
    """Beyond EXACT_UP_TO titles, those sharing a rare word (or pair of words) are
    compared: a near-copy keeps all its words but one."""
    rng = random.Random(5)

    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(4, 8)))

    titles = [f"{word()} {word()} {word()}" for _ in range(EXACT_UP_TO + 200)]
    titles.append(titles[17][:-1] + "z" if titles[17][-1] != "z" else titles[17][:-1] + "y")
    items = [item(n, title=t) for n, t in enumerate(titles, 1)]
    found = report(*items).duplicate_candidates
    assert [(d.first.number, d.second.number) for d in found] == [(18, len(titles))]
