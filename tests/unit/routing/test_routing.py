"""Routing rules (RT in docs/compatibility.md): the original's evaluation cases as a
table, and ``.ralph-routing.yml`` read with every mistake named by line and column."""

from __future__ import annotations

import pytest

from ralph.errors import InvalidInput
from ralph.routing import (
    IssueToRoute,
    IssueType,
    MatchCriteria,
    RoutingAction,
    RoutingConfig,
    RoutingRule,
    evaluate_rules,
    parse_routing,
)
from ralph.workflow import WorkflowState


def rule(name="test-rule", *, enabled=True, **match):
    return RoutingRule(
        name=name,
        match=MatchCriteria(**{"repo": "my-org/*", **match}),
        action=RoutingAction(project_numbers=(3,)),
        enabled=enabled,
    )


def issue(repo="my-org/my-repo", labels=(), issue_type=IssueType.ISSUE):
    return IssueToRoute(repo, labels, issue_type)


def matched(rules, context, *, stop=True):
    found = evaluate_rules(RoutingConfig(rules=tuple(rules), stop_on_first_match=stop), context)
    return [m.index for m in found.matched]


# (case, rule's criteria, the issue, whether it matches) from the original's engine tests.
CASES = [
    ("RT1 repo glob", {"repo": "my-org/*"}, issue(), True),
    ("RT2 labels.any", {"labels_any": ("bug", "critical")}, issue(labels=["bug"]), True),
    (
        "RT3 labels.all",
        {"labels_all": ("bug", "critical")},
        issue(labels=["bug", "critical", "p1"]),
        True,
    ),
    (
        "RT4 issueType",
        {"issue_type": IssueType.PULL_REQUEST},
        issue(issue_type=IssueType.PULL_REQUEST),
        True,
    ),
    ("RT5 no match", {"repo": "other-org/*"}, issue(), False),
    (
        "RT6 AND: repo matches, labels do not",
        {"labels_any": ("bug",)},
        issue(labels=["enhancement"]),
        False,
    ),
    (
        "RT7 omitted criteria match anything",
        {},
        issue(labels=["anything"], issue_type=IssueType.DRAFT_ISSUE),
        True,
    ),
    (
        "RT8 any: one is enough",
        {"labels_any": ("bug", "critical", "p0")},
        issue(labels=["critical"]),
        True,
    ),
    ("RT9 all: one missing", {"labels_all": ("bug", "critical")}, issue(labels=["bug"]), False),
    ("RT10 labels ignore case", {"labels_any": ("Bug",)}, issue(labels=["bug"]), True),
    (
        "RT11 any and all: all missing",
        {"labels_any": ("enhancement", "feature"), "labels_all": ("reviewed",)},
        issue(labels=["enhancement"]),
        False,
    ),
    (
        "RT11 any and all: any missing",
        {"labels_any": ("enhancement", "feature"), "labels_all": ("reviewed",)},
        issue(labels=["reviewed", "bug"]),
        False,
    ),
    (
        "RT11 any and all: both",
        {"labels_any": ("enhancement", "feature"), "labels_all": ("reviewed",)},
        issue(labels=["enhancement", "reviewed"]),
        True,
    ),
    ("RT12 negate a match", {"negate": True}, issue(), False),
    ("RT12 negate a miss", {"negate": True}, issue(repo="other-org/repo"), True),
    ("RT13 * within one segment", {"repo": "my-org/*"}, issue(repo="my-org/repo-name"), True),
    ("RT13 * not another owner", {"repo": "my-org/*"}, issue(repo="other-org/repo-name"), False),
    ("RT14 * a single segment", {"repo": "*"}, issue(repo="my-repo"), True),
    ("RT14 * not across /", {"repo": "*"}, issue(repo="my-org/my-repo"), False),
    ("RT15 ** across segments", {"repo": "**"}, issue(), True),
    ("RT16 exact name", {"repo": "my-org/my-repo"}, issue(), True),
    ("RT16 exact name, other", {"repo": "my-org/my-repo"}, issue(repo="my-org/other-repo"), False),
    ("RT17 repo ignores case", {"repo": "My-Org/My-Repo"}, issue(), True),
    ("RT18 ? one character", {"repo": "my-org/my-rep?"}, issue(), True),
    ("RT18 anchored", {"repo": "my-org/my"}, issue(), False),
    ("RT18 dots are literal", {"repo": "my.org/*"}, issue(repo="myxorg/a"), False),
]


@pytest.mark.parametrize(
    ("case", "criteria", "context", "matches"), CASES, ids=[c[0] for c in CASES]
)
def test_the_originals_matching_cases(case, criteria, context, matches):
    assert bool(matched([rule(**criteria)], context)) is matches


def test_rt19_disabled_rules_are_skipped():
    assert matched([rule(enabled=False)], issue()) == []
    assert matched([rule(enabled=True), rule()], issue(), stop=False) == [0, 1]


def test_rt20_evaluation_stops_at_the_first_match_unless_told_not_to():
    rules = [rule("rule-1"), rule("rule-2")]
    first = evaluate_rules(RoutingConfig(rules=tuple(rules)), issue())
    assert [m.rule.name for m in first.matched] == ["rule-1"]
    assert first.stopped_early is True
    every = evaluate_rules(RoutingConfig(rules=tuple(rules), stop_on_first_match=False), issue())
    assert [m.rule.name for m in every.matched] == ["rule-1", "rule-2"]
    assert every.stopped_early is False
    none = evaluate_rules(RoutingConfig(rules=(rule(repo="x/*"),)), issue())
    assert (none.matched, none.stopped_early) == ((), False)


VALID = """\
version: 1
stopOnFirstMatch: false
rules:
  - name: bugs to triage
    match:
      labels:
        any: [bug, Crash]
      repo: acme/*
    action:
      workflowState: Backlog
      projectNumber: 3
      labels: [needs-triage]
  - match:
      issueType: Pull_Request
      negate: true
    action:
      projectNumbers: [3, 5, 3]
    enabled: false
"""


def test_a_valid_file_is_read_into_rules():
    config = parse_routing(VALID)
    assert config.stop_on_first_match is False
    first, second = config.rules
    assert first.name == "bugs to triage"
    assert first.match == MatchCriteria(repo="acme/*", labels_any=("bug", "Crash"))
    assert first.action == RoutingAction(
        project_numbers=(3,), workflow_state=WorkflowState.BACKLOG, labels=("needs-triage",)
    )
    assert first.enabled is True
    assert second.match.issue_type is IssueType.PULL_REQUEST
    assert second.match.negate is True
    assert second.action.project_numbers == (3, 5)
    assert second.enabled is False


def test_defaults_stop_at_the_first_match_and_no_rules_is_fine():
    assert parse_routing("version: 1\n") == RoutingConfig()
    assert parse_routing("version: 1\nrules: []\n") == RoutingConfig()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # syntax errors: the line and column of the problem
        ("version: 1\nrules: [\n", "line 3, column 1: expected the node content"),
        ("{not json", "line 1, column 10: expected ',' or '}'"),
        ("version: 1\n  rules: []\n", "line 2, column 8: mapping values are not allowed here"),
        ("version: 1\nrules:\n\t- x\n", "line 3, column 1: found character '\\t'"),
        # the schema: where, and what to write instead
        ("", "is empty; it needs at least `version: 1`"),
        ("rules: []\n", "line 1, column 1: needs `version: 1`"),
        ("version: 2\n", "line 1, column 10: version: 2 is not a known version"),
        ("- a\n", "line 1, column 1: must be a mapping with version"),
        ("version: 1\nrule: []\n", "line 2, column 1: rule: unknown key 'rule'; use version"),
        ("version: 1\nrules: {}\n", "line 2, column 8: rules: must be a list of rules"),
        ("version: 1\nstopOnFirstMatch: yes please\n", "stopOnFirstMatch: 'yes please' is not"),
        (
            "version: 1\nrules:\n  - action: {labels: [x]}\n",
            "line 3, column 5: rules[0]: needs match:",
        ),
        (
            "version: 1\nrules:\n  - match: {negate: true}\n    action: {labels: [x]}\n",
            "line 3, column 12: rules[0].match: needs at least one of repo, labels, issueType",
        ),
        (
            "version: 1\nrules:\n  - match: {repo: a}\n    action: {}\n",
            "line 4, column 13: rules[0].action: needs at least one of projectNumber",
        ),
        (
            "version: 1\nrules:\n  - match: {repo: a}\n    action: {workflowState: Doing}\n",
            "line 4, column 29: rules[0].action.workflowState: Unknown workflow state 'Doing'",
        ),
        (
            "version: 1\nrules:\n  - match: {repo: a}\n    action: {projectNumber: 0}\n",
            "rules[0].action.projectNumber: 0 is not a project number",
        ),
        (
            "version: 1\nrules:\n  - match: {repo: a}\n    action: {projectNumbers: 3}\n",
            "rules[0].action.projectNumbers: must be a list of project numbers",
        ),
        (
            "version: 1\nrules:\n  - match: {labels: [bug]}\n    action: {labels: [x]}\n",
            "rules[0].match.labels: must be a mapping with any, all",
        ),
        (
            "version: 1\nrules:\n  - match: {labels: {some: [bug]}}\n    action: {labels: [x]}\n",
            "rules[0].match.labels.some: unknown key 'some'; use any, all",
        ),
        (
            "version: 1\nrules:\n  - match: {issueType: epic}\n    action: {labels: [x]}\n",
            "rules[0].match.issueType: 'epic' is not an issue type; use issue, pull_request",
        ),
        (
            'version: 1\nrules:\n  - match: {repo: a}\n    action: {labels: ["a\\nb"]}\n',
            "rules[0].action.labels[0]: 'a\\nb' is not one line of text",
        ),
        (
            "version: 1\nrules:\n  - match: {repo: a}\n    action: {labels: []}\n",
            "rules[0].action.labels: must be a list of one or more names",
        ),
        (
            "version: 1\nrules:\n  - match: {repo: a}\n    action: {labels: [x]}\n    on: no\n",
            "rules[0].on: unknown key 'on'; use name, match, action, enabled",
        ),
    ],
)
def test_every_mistake_is_one_line_naming_the_place(text, message):
    with pytest.raises(InvalidInput) as refused:
        parse_routing(text, source="rules.yml")
    assert str(refused.value).startswith("rules.yml")
    assert message in str(refused.value)
    assert "\n" not in str(refused.value)
