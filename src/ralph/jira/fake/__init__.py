"""A fake Jira Cloud site for tests and demos: every request checked against Jira's
published OpenAPI document (``RALPH_JIRA_OPENAPI``), a site in memory (projects with
statuses and a workflow, issue types, fields, issues with ADF text, comments, labels,
priorities, parents, "Blocks" links), JQL searches paginated by ``nextPageToken``,
Jira's limits and scripted faults; in memory or served on 127.0.0.1."""

from __future__ import annotations

from ralph.jira.fake._jira import JIRA_OPENAPI, FakeJira, JiraRequest, ScriptedFault, jira_openapi
from ralph.jira.fake._jql import JqlError, parse_jql
from ralph.jira.fake._model import ralph_statuses

__all__ = [
    "JIRA_OPENAPI",
    "FakeJira",
    "JiraRequest",
    "JqlError",
    "ScriptedFault",
    "jira_openapi",
    "parse_jql",
    "ralph_statuses",
]
