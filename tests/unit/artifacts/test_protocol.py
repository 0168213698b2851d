"""The Artifact Comment Protocol: paths, comments, discovery, self-healing, frontmatter."""

from __future__ import annotations

from datetime import date

import pytest

from ralph.artifacts import (
    SELF_HEALED,
    ArtifactKind,
    Links,
    Verdict,
    artifact_comment,
    critique_path,
    discover,
    find_link,
    parse_frontmatter,
    parse_verdict,
    plan_path,
    research_path,
    review_comment,
    slugify,
    validate_document,
)

DAY = date(2026, 2, 21)
GITHUB = Links("acme", "shop")
LOCAL = Links()
R, P = ArtifactKind.RESEARCH, ArtifactKind.PLAN


def test_paths_follow_the_originals_names_with_four_digit_padding():
    assert research_path(42, "Auth flow!", DAY) == (
        "thoughts/shared/research/2026-02-21-GH-0042-auth-flow.md"
    )
    assert (
        plan_path([42], "Auth flow", DAY) == "thoughts/shared/plans/2026-02-21-GH-0042-auth-flow.md"
    )
    assert plan_path([42, 43, 44], "Auth", DAY) == (
        "thoughts/shared/plans/2026-02-21-group-GH-0042-auth.md"
    )
    assert plan_path([44, 42], "Auth", DAY, stream=True) == (
        "thoughts/shared/plans/2026-02-21-stream-GH-42-44-auth.md"
    )
    assert critique_path(7, DAY) == "thoughts/shared/reviews/2026-02-21-GH-0007-critique.md"


def test_slugs_are_short_ascii_words():
    assert slugify("Café: make the Session store survive restarts, please") == (
        "cafe-make-the-session-store-survive"
    )
    assert slugify("!!!") == "untitled"


def test_links_are_blob_urls_on_github_and_paths_locally():
    path = "thoughts/shared/research/x.md"
    assert GITHUB.link(path) == f"https://github.com/acme/shop/blob/main/{path}"
    assert GITHUB.path(GITHUB.link(path)) == path
    assert LOCAL.link(path) == path
    assert LOCAL.path(f"https://github.com/other/repo/blob/main/{path}") == path
    enterprise = Links("acme", "shop", web="https://ghe.example")
    assert enterprise.link(path) == f"https://ghe.example/acme/shop/blob/main/{path}"
    assert LOCAL.path(enterprise.link(path)) == path


def test_comments_have_the_exact_headers_and_layout():
    assert artifact_comment(R, "x.md", "Key findings: none") == (
        "## Research Document\n\nx.md\n\nKey findings: none\n"
    )
    body = review_comment(Verdict.NEEDS_ITERATION, "c.md", "Phase 2 is vague.")
    assert body.startswith("## Plan Review\n\nVERDICT: NEEDS_ITERATION\n")
    assert parse_verdict(body) is Verdict.NEEDS_ITERATION
    assert parse_verdict("no verdict here") is None


def test_a_review_comment_links_its_critique_not_its_verdict():
    critique = GITHUB.link("thoughts/shared/reviews/c.md")
    linked = review_comment(Verdict.APPROVED, critique, "Fine.")
    assert f"\nFull critique: {critique}\n" in linked
    assert find_link([linked], ArtifactKind.REVIEW) == critique
    assert find_link([review_comment(Verdict.APPROVED)], ArtifactKind.REVIEW) is None


def test_the_last_linking_comment_wins_and_every_comment_is_read():
    comments = (
        [artifact_comment(P, "old.md")]
        + ["chatter"] * 20
        + [
            artifact_comment(P, "new.md"),
            "more chatter",
        ]
    )
    assert find_link(comments, P) == "new.md"
    assert find_link(["## Group Implementation Plan\n\ng.md\n"], P) == "g.md"
    assert find_link(comments, R) is None


def test_discovery_prefers_the_comment():
    found = discover(R, 42, [artifact_comment(R, GITHUB.link("a/b.md"))], ["x.md"], GITHUB)
    assert found is not None
    assert (found.path, found.source, found.needs_self_heal) == ("a/b.md", "comment", False)


FILES = [
    "thoughts/shared/research/2026-01-01-GH-42-old.md",
    "thoughts/shared/research/2026-02-01-GH-0042-newer.md",
    "thoughts/shared/research/2026-02-02-GH-0420-other-issue.md",
    "thoughts/shared/plans/2026-02-03-group-GH-0040-auth.md",
    "thoughts/shared/plans/2026-02-04-stream-GH-43-45-ui.md",
    "src/GH-0042.md",
]


def test_disk_fallback_matches_padded_and_unpadded_names_newest_first_but_not_longer_numbers():
    found = discover(R, 42, [], FILES, LOCAL)
    assert found is not None
    assert found.path == "thoughts/shared/research/2026-02-01-GH-0042-newer.md"
    assert found.needs_self_heal
    assert discover(R, 4, [], FILES, LOCAL) is None


def test_plans_are_found_through_the_group_primary_or_a_stream():
    through_group = discover(P, 41, [], FILES, LOCAL, group_primary=40)
    assert through_group is not None
    assert through_group.path.endswith("group-GH-0040-auth.md")
    through_stream = discover(P, 45, [], FILES, LOCAL)
    assert through_stream is not None
    assert through_stream.path.endswith("stream-GH-43-45-ui.md")
    assert discover(P, 44, [], FILES, LOCAL) is None


def test_self_healing_posts_the_normal_comment_saying_so():
    found = discover(R, 42, [], FILES, GITHUB)
    assert found is not None
    comment = found.heal_comment(R, GITHUB)
    assert comment.startswith("## Research Document\n\nhttps://github.com/acme/shop/blob/main/")
    assert SELF_HEALED in comment
    assert find_link([comment], R) == GITHUB.link(found.path)


RESEARCH = """---
date: 2026-02-21
github_issue: 42
status: complete
tags: [auth, sessions]
topic: "Session store"
---

# Research
"""


def test_frontmatter_is_parsed():
    fields, body = parse_frontmatter(RESEARCH)
    assert fields == {
        "date": "2026-02-21",
        "github_issue": 42,
        "status": "complete",
        "tags": ["auth", "sessions"],
        "topic": "Session store",
    }
    assert body.startswith("\n# Research")
    assert parse_frontmatter("# no frontmatter") == ({}, "# no frontmatter")
    assert parse_frontmatter("---\na: 1\n") == ({}, "---\na: 1\n")


@pytest.mark.parametrize(
    ("kind", "text", "problems"),
    [
        (R, RESEARCH, []),
        (R, "# nothing", ["no frontmatter (a leading --- block)"]),
        (R, "---\ngithub_issue: 1\n---\n", ["frontmatter lacks 'status'"]),
        (P, "---\nstatus: draft\ngithub_issues: [1, 2]\n---\n## Phase 1: x\n", []),
        (
            P,
            "---\nstatus: draft\n---\nno phases\n",
            ["frontmatter lacks 'github_issue' or 'github_issues'", "no '## Phase N' sections"],
        ),
        (
            ArtifactKind.REVIEW,
            "---\ngithub_issue: 1\nstatus: x\n---\n",
            ["frontmatter lacks 'date'"],
        ),
    ],
)
def test_documents_are_validated_per_kind(kind, text, problems):
    assert validate_document(kind, text) == problems


def test_a_long_title_makes_a_slug_cut_after_a_whole_word():
    title = "Make the session store survive restarts of the whole cluster please " * 3
    assert slugify("supercalifragilistic " * 2 + "x" * 80, max_words=6) == (
        "supercalifragilistic-supercalifragilistic"
    )
    assert slugify(title, max_words=50) == (
        "make-the-session-store-survive-restarts-of-the-whole-cluster"  # 60 characters
    )


@pytest.mark.parametrize(
    "title", ["x" * 300, "é" * 300, "ü" * 200 + " " + "y" * 300, "\U0001f600" * 100 + "z" * 9000]
)
def test_a_document_file_name_stays_far_below_the_file_name_limit(title):
    names = [
        research_path(123456, title, DAY),
        plan_path([123456], title, DAY),
        plan_path([123456, 123457], title, DAY),
        plan_path(list(range(100000, 100012)), title, DAY, stream=True),
    ]
    for path in names:
        name = path.rpartition("/")[2]
        assert len(name.encode()) <= 200, name
        assert name.endswith(".md")
