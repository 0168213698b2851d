"""Every GraphQL document Ralph sends to GitHub, in one place.

Each document selects only what its caller reads and pages through connections with
cursors (``$after``). A unit test validates all of them against GitHub's published
schema (with the issue-dependencies extension), so a field that does not exist fails
the build rather than a run.

A :class:`GraphQLDocument` says what the client needs to send it safely: whether it mutates
(mutations are paced one at a time) and whether it *creates* content (counted against
GitHub's content-creation budget and never replayed blindly after an ambiguous
failure).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = [
    "ALL",
    "ISSUE_SHAPES",
    "BatchPart",
    "GraphQLDocument",
    "IssueShape",
    "batch",
    "input_of",
    "issue_group_query",
    "issue_query",
    "issues_query",
]


@dataclass(frozen=True)
class GraphQLDocument:
    name: str
    text: str
    mutation: bool = False
    #: Creates something a blind retry could duplicate (an issue, a comment, a PR...).
    creates: bool = False
    #: A paged query's usual page (its ``$first``); the client halves it when GitHub
    #: stops the query for its size or time. 0: not paged.
    page_size: int = 0
    #: How many things it creates (a batch may post several comments): each counts
    #: against GitHub's content-creation budget.
    creations: int = 0

    @property
    def content(self) -> int:
        """What one request of it spends of the content-creation budget."""
        return max(self.creations, 1) if self.creates else 0


_ISSUE_FIELDS = """
fragment IssueFields on Issue {
  id number title body url state stateReason createdAt updatedAt closedAt
  labels(first: 50) { nodes { name } }
  assignees(first: 10) { nodes { login } }
  parent { ...Related }
  subIssues(first: 100) { nodes { ...Related } }
  blockedBy(first: 50) { pageInfo { hasNextPage } nodes { ...Related } }
  blocking(first: 50) { pageInfo { hasNextPage } nodes { ...Related } }
  closedByPullRequestsReferences(first: 10, includeClosedPrs: true) { nodes { number } }
}
"""

#: One project item with Ralph's fields and Status, read by name.
_BOARD_ITEM = """
fragment BoardItem on ProjectV2Item {
  id isArchived
  project { id }
  workflowState: fieldValueByName(name: "Workflow State") { ...OptionName }
  estimate: fieldValueByName(name: "Estimate") { ...OptionName }
  priority: fieldValueByName(name: "Priority") { ...OptionName }
  status: fieldValueByName(name: "Status") { ...OptionName }
}
"""

#: The issue's board data: its project items and their field values. GitHub gives them
#: only to a token with ``read:project``, so with split tokens they are read apart, with
#: the board's token (``ISSUE_ITEMS``). An issue on more than ten boards has the rest
#: paged in (``ISSUE_PROJECT_ITEMS``) when Ralph's board is not among the first.
_ISSUE_ITEMS = (
    """
fragment IssueItems on Issue {
  projectItems(first: 10) {
    pageInfo { hasNextPage endCursor }
    nodes { ...BoardItem }
  }
}
"""
    + _BOARD_ITEM
)

#: Ralph's fields are read by name: ``fieldValues`` lists a board's values by position,
#: built-in ones first, so on a board with many fields Ralph's (made last) fall off a page.
_OPTION_NAME = """
fragment OptionName on ProjectV2ItemFieldValue {
  ... on ProjectV2ItemFieldSingleSelectValue { name }
}
"""

#: A related issue may live in another repository: its number alone would name a local one.
_RELATED = """
fragment Related on Issue { number state repository { nameWithOwner } }
"""


@dataclass(frozen=True)
class IssueShape:
    """What an issue read selects beside the issue's own fields."""

    #: The project items' field values (the board's data; see ``_ISSUE_ITEMS``).
    board: bool = True
    #: ``blockedBy``/``blocking``: github.com has them; GitHub Enterprise Server may not.
    dependencies: bool = True
    #: ``parent``/``subIssues``: GitHub Enterprise Server has them from 3.16.
    sub_issues: bool = True


#: Every shape an issue read can take (the schema test validates each).
ISSUE_SHAPES = tuple(
    IssueShape(board, dependencies, sub_issues)
    for board in (True, False)
    for dependencies in (True, False)
    for sub_issues in (True, False)
)

_LEFT_OUT = {"dependencies": ("blockedBy", "blocking"), "sub_issues": ("parent", "subIssues")}
_FIELD_NAME = re.compile(r"\s*(\w+)")


def _shaped(operation: str, shape: IssueShape) -> str:
    """``operation`` (which spreads ``IssueFields``) with the fragments ``shape`` needs:
    the issue's fields less the relations left out, and its board data if asked for."""
    left_out = {
        name for flag, names in _LEFT_OUT.items() if not getattr(shape, flag) for name in names
    }
    fields = "".join(
        line
        for line in _ISSUE_FIELDS.splitlines(keepends=True)
        if (found := _FIELD_NAME.match(line)) is None or found.group(1) not in left_out
    )
    # GraphQL refuses a fragment no selection spreads, so each comes only with its user.
    if "...Related" in fields:
        fields += _RELATED
    if not shape.board:
        return operation + fields
    return (
        operation.replace("...IssueFields", "...IssueFields ...IssueItems")
        + fields
        + _ISSUE_ITEMS
        + _OPTION_NAME
    )


_COMMENT_FIELDS = """
fragment CommentFields on IssueComment {
  id databaseId body createdAt
  author { login }
}
"""

#: What every read of a pull request has (a list, a create's or a merge's answer).
_PULL_REQUEST_SUMMARY = """
fragment PullRequestSummary on PullRequest {
  id number title body url state createdAt mergedAt
  headRefName baseRefName headRefOid
  author { login }
  mergeCommit { oid }
}
"""

#: A pull request read whole, in one request: what GitHub judges (mergeability, the
#: review decision, the merge state), the head's checks with whether the base branch
#: requires each (``isRequired`` needs the number: only a read of one pull request has
#: it), the latest 50 reviews and the first 50 review threads with their first 30
#: comments. Threads past 50 are paged in (``PULL_REQUEST_THREADS``); older reviews and
#: longer threads are left out (GitHub's ``reviewDecision`` already counts every review).
#: The last removal from the merge queue says why the queue dropped it (and on which head).
_PULL_REQUEST_FIELDS = """
fragment PullRequestFields on PullRequest {
  ...PullRequestSummary
  mergeable mergeStateStatus reviewDecision isMergeQueueEnabled isInMergeQueue
  autoMergeRequest { enabledAt }
  commits(last: 1) {
    nodes {
      commit {
        oid
        statusCheckRollup {
          contexts(first: 100) {
            nodes {
              __typename
              ... on CheckRun {
                name status conclusion detailsUrl summary
                isRequired(pullRequestNumber: $number)
              }
              ... on StatusContext {
                context state targetUrl description
                isRequired(pullRequestNumber: $number)
              }
            }
          }
        }
      }
    }
  }
  reviews(last: 50) { nodes { ...ReviewFields } }
  reviewThreads(first: 50) {
    pageInfo { hasNextPage endCursor }
    nodes { ...ThreadFields }
  }
  timelineItems(last: 1, itemTypes: [REMOVED_FROM_MERGE_QUEUE_EVENT]) {
    nodes { ... on RemovedFromMergeQueueEvent { createdAt reason beforeCommit { oid } } }
  }
}
"""
_REVIEW_FIELDS = """
fragment ReviewFields on PullRequestReview {
  id state body submittedAt
  author { login ... on User { id } }
  commit { oid }
}
"""
_THREAD_FIELDS = """
fragment ThreadFields on PullRequestReviewThread {
  id path line originalLine isResolved
  comments(first: 30) { nodes { ...ThreadCommentFields } }
}
"""
_THREAD_COMMENT_FIELDS = """
fragment ThreadCommentFields on PullRequestReviewComment {
  id body createdAt diffHunk
  author { login }
}
"""
_PULL_REQUEST_WHOLE = (
    _PULL_REQUEST_FIELDS
    + _PULL_REQUEST_SUMMARY
    + _REVIEW_FIELDS
    + _THREAD_FIELDS
    + _THREAD_COMMENT_FIELDS
)

_PROJECT_FIELDS = """
fragment ProjectFields on ProjectV2 {
  id number title url closed viewerCanUpdate
  fields(first: 50) {
    nodes {
      ... on ProjectV2FieldCommon { id name }
      ... on ProjectV2SingleSelectField { options { id name color description } }
    }
  }
}
"""

_STATUS_UPDATE_FIELDS = """
fragment StatusUpdateFields on ProjectV2StatusUpdate {
  id status body startDate targetDate createdAt updatedAt
  creator { login }
}
"""

VIEWER = GraphQLDocument("Viewer", "query Viewer { viewer { login } }")

#: Which relations this GitHub's issues have (GitHub Enterprise Server may lack some).
ISSUE_FEATURES = GraphQLDocument(
    "IssueFeatures", 'query IssueFeatures { __type(name: "Issue") { fields { name } } }'
)

#: Whether this GitHub's boards have status updates (GitHub Enterprise Server may not).
BOARD_FEATURES = GraphQLDocument(
    "BoardFeatures", 'query BoardFeatures { __type(name: "ProjectV2") { fields { name } } }'
)

#: The repository, with how it lets pull requests merge (read once per tracker).
_REPOSITORY_FIELDS = """
fragment RepositoryFields on Repository {
  id nameWithOwner
  owner { id login }
  defaultBranchRef { name }
  viewerPermission hasIssuesEnabled isArchived
  mergeCommitAllowed squashMergeAllowed rebaseMergeAllowed autoMergeAllowed
  mergeQueue { id }
}
"""

#: With which relations this GitHub's issues have (``IssueFeatures``'s question, asked
#: with it: ``ralph init`` and ``ralph doctor`` need both).
REPOSITORY = GraphQLDocument(
    "Repository",
    """
query Repository($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) { ...RepositoryFields }
  issueType: __type(name: "Issue") { fields { name } }
}
"""
    + _REPOSITORY_FIELDS,
)

USER = GraphQLDocument("User", "query User($login: String!) { user(login: $login) { id login } }")

OWNER = GraphQLDocument(
    "Owner",
    """
query Owner($login: String!) {
  repositoryOwner(login: $login) { id login __typename }
}
""",
)

PROJECT = GraphQLDocument(
    "Project",
    """
query Project($login: String!, $number: Int!) {
  repositoryOwner(login: $login) {
    ... on ProjectV2Owner { projectV2(number: $number) { ...ProjectFields } }
  }
}
"""
    + _PROJECT_FIELDS,
)

#: What a tracker needs once a process, in one request: the repository, its labels' ids
#: (the first hundred), the board's ids (when one token reads both) and which relations
#: this GitHub's issues have (``IssueFeatures``'s question, for a server that may lack some).
REPOSITORY_AND_BOARD = GraphQLDocument(
    "RepositoryAndBoard",
    """
query RepositoryAndBoard($owner: String!, $name: String!, $login: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    ...RepositoryFields
    labels(first: 100) { pageInfo { hasNextPage } nodes { id name } }
  }
  repositoryOwner(login: $login) {
    ... on ProjectV2Owner { projectV2(number: $number) { ...ProjectFields } }
  }
  issueType: __type(name: "Issue") { fields { name } }
}
"""
    + _REPOSITORY_FIELDS
    + _PROJECT_FIELDS,
)

PROJECT_BY_TITLE = GraphQLDocument(
    "ProjectByTitle",
    """
query ProjectByTitle($login: String!, $title: String!) {
  repositoryOwner(login: $login) {
    ... on ProjectV2Owner {
      projectsV2(first: 20, query: $title) { nodes { number title closed } }
    }
  }
}
""",
)

PROJECT_REPOSITORIES = GraphQLDocument(
    "ProjectRepositories",
    """
query ProjectRepositories($project: ID!) {
  node(id: $project) {
    ... on ProjectV2 { repositories(first: 100) { nodes { id nameWithOwner } } }
  }
}
""",
)

#: A board's items as the dashboard reads them (``ralph status --projects``): issues of
#: any repository, with Ralph's fields on that board.
PROJECT_ITEMS = GraphQLDocument(
    "ProjectItems",
    """
query ProjectItems($login: String!, $number: Int!, $first: Int!, $after: String) {
  repositoryOwner(login: $login) {
    ... on ProjectV2Owner {
      projectV2(number: $number) {
        items(first: $first, after: $after) {
          pageInfo { hasNextPage endCursor }
          nodes {
            isArchived
            workflowState: fieldValueByName(name: "Workflow State") { ...OptionName }
            estimate: fieldValueByName(name: "Estimate") { ...OptionName }
            priority: fieldValueByName(name: "Priority") { ...OptionName }
            content {
              __typename
              ... on Issue {
                number title updatedAt closedAt
                assignees(first: 10) { nodes { login } }
                repository { nameWithOwner }
              }
            }
          }
        }
      }
    }
  }
}
"""
    + _OPTION_NAME,
    page_size=50,
)

#: A board's built-in workflows and whether each is on (``ralph doctor``; what each
#: one sets is a setting of the board that GitHub's API does not show).
BOARD_WORKFLOWS = GraphQLDocument(
    "BoardWorkflows",
    """
query BoardWorkflows($project: ID!) {
  node(id: $project) {
    ... on ProjectV2 { workflows(first: 50) { nodes { name enabled } } }
  }
}
""",
)

STATUS_UPDATES = GraphQLDocument(
    "StatusUpdates",
    """
query StatusUpdates($project: ID!, $first: Int!, $after: String) {
  node(id: $project) {
    ... on ProjectV2 {
      statusUpdates(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { ...StatusUpdateFields }
      }
    }
  }
}
"""
    + _STATUS_UPDATE_FIELDS,
    page_size=50,
)

_ISSUE = """
query Issue($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      ...IssueFields
      comments(first: 100) {
        pageInfo { hasNextPage endCursor }
        nodes { ...CommentFields }
      }
    }
  }
}
"""


@functools.cache
def issue_query(shape: IssueShape = IssueShape()) -> GraphQLDocument:
    """One issue with its first comments, selecting what ``shape`` says."""
    return GraphQLDocument("Issue", _shaped(_ISSUE, shape) + _COMMENT_FIELDS)


ISSUE = issue_query()

#: Most issues one aliased read asks for (a group's members: an epic and its children).
GROUP_LIMIT = 20

_GROUP_MEMBER = """
    i{index}: issue(number: $n{index}) {{
      ...IssueFields
      comments(first: 100) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{ ...CommentFields }}
      }}
    }}"""


@functools.cache
def issue_group_query(shape: IssueShape = IssueShape(), count: int = 2) -> GraphQLDocument:
    """``count`` issues by number in one request (aliases ``i0``, ``i1``... for the
    variables ``$n0``, ``$n1``...): a group's members are read together, not one by one."""
    if not 1 <= count <= GROUP_LIMIT:
        raise ValueError(f"an issue group read takes 1 to {GROUP_LIMIT} issues, not {count}")
    numbers = ", ".join(f"$n{i}: Int!" for i in range(count))
    members = "".join(_GROUP_MEMBER.format(index=i) for i in range(count))
    text = (
        f"query IssueGroup($owner: String!, $name: String!, {numbers}) {{\n"
        f"  repository(owner: $owner, name: $name) {{{members}\n  }}\n}}\n"
    )
    return GraphQLDocument("IssueGroup", _shaped(text, shape) + _COMMENT_FIELDS)


ISSUE_GROUP = issue_group_query()

ISSUE_COMMENTS = GraphQLDocument(
    "IssueComments",
    """
query IssueComments($owner: String!, $name: String!, $number: Int!, $first: Int!,
                    $after: String) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      comments(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { ...CommentFields }
      }
    }
  }
}
"""
    + _COMMENT_FIELDS,
    page_size=100,
)


def _dependencies(name: str, field: str) -> GraphQLDocument:
    """All of an issue's ``field`` edges, paged (the issue read stops at 50)."""
    text = f"""
query {name}($owner: String!, $name: String!, $number: Int!, $first: Int!, $after: String) {{
  repository(owner: $owner, name: $name) {{
    issue(number: $number) {{
      {field}(first: $first, after: $after) {{
        pageInfo {{ hasNextPage endCursor }}
        nodes {{ ...Related }}
      }}
    }}
  }}
}}
"""
    return GraphQLDocument(name, text + _RELATED, page_size=100)


ISSUE_BLOCKED_BY = _dependencies("IssueBlockedBy", "blockedBy")
ISSUE_BLOCKING = _dependencies("IssueBlocking", "blocking")

_ISSUES = """
query Issues($owner: String!, $name: String!, $states: [IssueState!], $first: Int!,
             $after: String, $filter: IssueFilters) {
  repository(owner: $owner, name: $name) {
    issues(first: $first, after: $after, states: $states, filterBy: $filter,
           orderBy: {field: CREATED_AT, direction: ASC}) {
      pageInfo { hasNextPage endCursor }
      nodes { ...IssueFields }
    }
  }
}
"""


@functools.cache
def issues_query(shape: IssueShape = IssueShape()) -> GraphQLDocument:
    """A repository's issues, a page at a time, selecting what ``shape`` says."""
    return GraphQLDocument("Issues", _shaped(_ISSUES, shape), page_size=50)


ISSUES = issues_query()

#: The board's issues as ``ralph status`` reads them: a hundred a page, and only what the
#: dashboard shows (no labels, children, blocked issues or pull requests): three
#: connections an issue, so 3 of GitHub's points per hundred issues instead of 8.
_BOARD_ISSUE_FIELDS = """
fragment BoardIssueFields on Issue {
  id number title state stateReason createdAt updatedAt closedAt
  assignees(first: 10) { nodes { login } }
  blockedBy(first: 50) { pageInfo { hasNextPage } nodes { ...Related } }
}
"""
BOARD_ISSUES = GraphQLDocument(
    "BoardIssues",
    """
query BoardIssues($owner: String!, $name: String!, $states: [IssueState!], $first: Int!,
                  $after: String, $filter: IssueFilters) {
  repository(owner: $owner, name: $name) {
    issues(first: $first, after: $after, states: $states, filterBy: $filter,
           orderBy: {field: CREATED_AT, direction: ASC}) {
      pageInfo { hasNextPage endCursor }
      nodes { ...BoardIssueFields ...IssueItems }
    }
  }
}
"""
    + _BOARD_ISSUE_FIELDS
    + _RELATED
    + _ISSUE_ITEMS
    + _OPTION_NAME,
    page_size=100,
)

ISSUE_ITEMS = GraphQLDocument(
    "IssueItems",
    """
query IssueItems($ids: [ID!]!) {
  nodes(ids: $ids) { ... on Issue { id ...IssueItems } }
}
"""
    + _ISSUE_ITEMS
    + _OPTION_NAME,
)

#: An issue's project items past the first ten an issue read has (an issue on many
#: boards: Ralph's item may come later).
ISSUE_PROJECT_ITEMS = GraphQLDocument(
    "IssueProjectItems",
    """
query IssueProjectItems($id: ID!, $first: Int!, $after: String) {
  node(id: $id) {
    ... on Issue {
      projectItems(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { ...BoardItem }
      }
    }
  }
}
"""
    + _BOARD_ITEM
    + _OPTION_NAME,
    page_size=50,
)

#: The newest issues first, paged: where a write whose answer was lost looks for the
#: issues it made (by the marker in their bodies).
ISSUE_BY_MARKER = GraphQLDocument(
    "IssueByMarker",
    """
query IssueByMarker($owner: String!, $name: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    issues(first: $first, after: $after, orderBy: {field: CREATED_AT, direction: DESC}) {
      pageInfo { hasNextPage endCursor }
      nodes { id number body url createdAt }
    }
  }
}
""",
    page_size=50,
)

COMMENT_BY_MARKER = GraphQLDocument(
    "CommentByMarker",
    """
query CommentByMarker($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) { comments(last: 20) { nodes { ...CommentFields } } }
  }
}
"""
    + _COMMENT_FIELDS,
)

LABELS = GraphQLDocument(
    "Labels",
    """
query Labels($owner: String!, $name: String!, $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    labels(first: $first, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes { id name }
    }
  }
}
""",
    page_size=100,
)

PULL_REQUEST = GraphQLDocument(
    "PullRequest",
    """
query PullRequest($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) { ...PullRequestFields }
  }
}
"""
    + _PULL_REQUEST_WHOLE,
)

PULL_REQUESTS = GraphQLDocument(
    "PullRequests",
    """
query PullRequests($owner: String!, $name: String!, $states: [PullRequestState!],
                   $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequests(first: $first, after: $after, states: $states,
                 orderBy: {field: CREATED_AT, direction: ASC}) {
      pageInfo { hasNextPage endCursor }
      nodes { ...PullRequestSummary }
    }
  }
}
"""
    + _PULL_REQUEST_SUMMARY,
    page_size=50,
)

#: The pull requests from one branch (a branch has few: one query, not a scan).
PULL_REQUESTS_FROM = GraphQLDocument(
    "PullRequestsFrom",
    """
query PullRequestsFrom($owner: String!, $name: String!, $head: String!,
                       $states: [PullRequestState!], $first: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequests(first: $first, after: $after, states: $states, headRefName: $head,
                 orderBy: {field: CREATED_AT, direction: ASC}) {
      pageInfo { hasNextPage endCursor }
      nodes { ...PullRequestSummary }
    }
  }
}
"""
    + _PULL_REQUEST_SUMMARY,
    page_size=20,
)

#: A pull request's review threads past the first 50 its read has.
PULL_REQUEST_THREADS = GraphQLDocument(
    "PullRequestThreads",
    """
query PullRequestThreads($owner: String!, $name: String!, $number: Int!, $first: Int!,
                         $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { ...ThreadFields }
      }
    }
  }
}
"""
    + _THREAD_FIELDS
    + _THREAD_COMMENT_FIELDS,
    page_size=50,
)

#: A review's reconcile: the latest reviews, to find one by its marker.
REVIEW_BY_MARKER = GraphQLDocument(
    "ReviewByMarker",
    """
query ReviewByMarker($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) { reviews(last: 20) { nodes { ...ReviewFields } } }
  }
}
"""
    + _REVIEW_FIELDS,
)

#: A reply's reconcile: the thread's latest comments, to find one by its marker.
THREAD_COMMENTS = GraphQLDocument(
    "ThreadComments",
    """
query ThreadComments($thread: ID!) {
  node(id: $thread) {
    ... on PullRequestReviewThread { comments(last: 20) { nodes { ...ThreadCommentFields } } }
  }
}
"""
    + _THREAD_COMMENT_FIELDS,
)

# -- mutations ------------------------------------------------------------------------------
# Every mutation takes one ``$input`` holding only the keys being set (``input_of``), as gh
# does: GraphQL tells an explicit ``null`` from an absent key, and GitHub acts on a
# ``null`` (it would blank a body or refuse a title).


def input_of(**fields: object) -> dict[str, dict[str, object]]:
    """A mutation's variables: ``$input`` with the fields that are set (not None)."""
    return {"input": {name: value for name, value in fields.items() if value is not None}}


def _mutation(
    name: str, field: str, input_type: str, selection: str, *, creates: bool = False
) -> GraphQLDocument:
    text = (
        f"mutation {name}($input: {input_type}!) {{\n"
        f"  {field}(input: $input) {{ {selection.strip()} }}\n}}\n"
    )
    return GraphQLDocument(name, text, mutation=True, creates=creates)


#: Most mutations one request carries: GitHub runs them in order, and a larger request
#: risks its resource limits with some applied and some not.
BATCH_LIMIT = 10


@dataclass(frozen=True)
class BatchPart:
    """One mutation of a batch: its alias in the answer, the mutation field, its input
    type and what it selects."""

    alias: str
    field: str
    input_type: str
    selection: str
    creates: bool = False


def batch(name: str, parts: tuple[BatchPart, ...]) -> GraphQLDocument:
    """Several mutations in one request, run by GitHub in the order given; each takes
    its own ``$<alias>`` input, built from the keys it sets (``input_of``'s ``input``).
    One request paces and counts as one mutation; each creating part still counts
    against the content budget (``GraphQLDocument.creates``)."""
    return _batch(name, parts)


@functools.cache
def _batch(name: str, parts: tuple[BatchPart, ...]) -> GraphQLDocument:
    if not 1 <= len(parts) <= BATCH_LIMIT:
        raise ValueError(f"a batch holds 1 to {BATCH_LIMIT} mutations, not {len(parts)}")
    variables = ", ".join(f"${p.alias}: {p.input_type}!" for p in parts)
    fields = "".join(
        f"  {p.alias}: {p.field}(input: ${p.alias}) {{ {p.selection.strip()} }}\n" for p in parts
    )
    text = f"mutation {name}({variables}) {{\n{fields}}}\n"
    if "...CommentFields" in text:
        text += _COMMENT_FIELDS
    made = sum(p.creates for p in parts)
    return GraphQLDocument(name, text, mutation=True, creates=made > 0, creations=made)


def set_field_part(alias: str) -> BatchPart:
    """A single-select write of a batch."""
    return BatchPart(
        alias,
        "updateProjectV2ItemFieldValue",
        "UpdateProjectV2ItemFieldValueInput",
        "projectV2Item { id }",
    )


def edit_part(alias: str) -> BatchPart:
    """An issue's title, body or labels (as ``UpdateIssue``) in a batch."""
    return BatchPart(alias, "updateIssue", "UpdateIssueInput", _EDITED)


def create_issue_part(alias: str) -> BatchPart:
    """A new issue of a batch (as ``CreateIssue``; creating)."""
    return BatchPart(
        alias, "createIssue", "CreateIssueInput", "issue { id number url createdAt }", creates=True
    )


def add_item_part(alias: str) -> BatchPart:
    """An issue put on the board in a batch (as ``AddProjectItem``; idempotent)."""
    return BatchPart(alias, "addProjectV2ItemById", "AddProjectV2ItemByIdInput", "item { id }")


def blocked_by_part(alias: str) -> BatchPart:
    """A dependency of a batch (as ``AddBlockedBy``)."""
    return BatchPart(alias, "addBlockedBy", "AddBlockedByInput", "issue { id }")


def comment_part(alias: str) -> BatchPart:
    """A comment of a batch (creating: it counts against the content budget)."""
    return BatchPart(
        alias,
        "addComment",
        "AddCommentInput",
        "commentEdge { node { ...CommentFields } }",
        creates=True,
    )


def create_field_part(alias: str) -> BatchPart:
    """A new single-select field of the board (creating, as ``CreateField``)."""
    return BatchPart(
        alias,
        "createProjectV2Field",
        "CreateProjectV2FieldInput",
        "projectV2Field { ... on ProjectV2SingleSelectField { id name options { id name } } }",
        creates=True,
    )


#: A state move as one request: comments the phase left for the move, the Workflow
#: State, the Status when it changes, and the audit comment, in that order.
MOVE_STATE = batch(
    "MoveState",
    (
        comment_part("note0"),
        set_field_part("state"),
        set_field_part("status"),
        comment_part("audit"),
    ),
)
#: A new issue's fields in one request (Workflow State, Status, Estimate, Priority).
SET_FIELDS = batch(
    "SetFields",
    tuple(set_field_part(alias) for alias in ("state", "status", "estimate", "priority")),
)
MOVE_STATES = batch(
    "MoveStates",
    tuple(
        part(f"{kind}{i}")
        for i in range(3)
        for kind, part in (
            ("state", set_field_part),
            ("status", set_field_part),
            ("audit", comment_part),
        )
    ),
)
CREATE_FIELDS = batch("CreateFields", tuple(create_field_part(f"field{i}") for i in range(3)))


CREATE_ISSUE = _mutation(
    "CreateIssue",
    "createIssue",
    "CreateIssueInput",
    "issue { id number url createdAt }",
    creates=True,
)
#: What an edit answers: what it changed, so a kept issue is changed, not read again.
_EDITED = "issue { id title body updatedAt labels(first: 100) { nodes { name } } }"
UPDATE_ISSUE = _mutation("UpdateIssue", "updateIssue", "UpdateIssueInput", _EDITED)
#: ``ralph issue edit --add-label/--remove-label``: labels added or taken off by id,
#: the issue's others kept (``updateIssue``'s ``labelIds`` replaces them all).
ADD_LABELS = _mutation(
    "AddLabels", "addLabelsToLabelable", "AddLabelsToLabelableInput", "clientMutationId"
)
REMOVE_LABELS = _mutation(
    "RemoveLabels",
    "removeLabelsFromLabelable",
    "RemoveLabelsFromLabelableInput",
    "clientMutationId",
)
CREATE_LABEL = _mutation(
    "CreateLabel", "createLabel", "CreateLabelInput", "label { id name }", creates=True
)
CLOSE_ISSUE = _mutation(
    "CloseIssue",
    "closeIssue",
    "CloseIssueInput",
    "issue { id state stateReason closedAt updatedAt }",
)
REOPEN_ISSUE = _mutation("ReopenIssue", "reopenIssue", "ReopenIssueInput", "issue { id }")
ADD_COMMENT = GraphQLDocument(
    "AddComment",
    _mutation(
        "AddComment", "addComment", "AddCommentInput", "commentEdge { node { ...CommentFields } }"
    ).text
    + _COMMENT_FIELDS,
    mutation=True,
    creates=True,
)
#: An audit comment GitHub took for a state write it refused (the move did not happen).
DELETE_COMMENT = _mutation(
    "DeleteComment", "deleteIssueComment", "DeleteIssueCommentInput", "clientMutationId"
)
ADD_SUB_ISSUE = _mutation("AddSubIssue", "addSubIssue", "AddSubIssueInput", "issue { id }")
REMOVE_SUB_ISSUE = _mutation(
    "RemoveSubIssue", "removeSubIssue", "RemoveSubIssueInput", "issue { id }"
)
ADD_BLOCKED_BY = _mutation("AddBlockedBy", "addBlockedBy", "AddBlockedByInput", "issue { id }")
REMOVE_BLOCKED_BY = _mutation(
    "RemoveBlockedBy", "removeBlockedBy", "RemoveBlockedByInput", "issue { id }"
)
ADD_PROJECT_ITEM = _mutation(
    "AddProjectItem", "addProjectV2ItemById", "AddProjectV2ItemByIdInput", "item { id }"
)
SET_FIELD_OPTION = _mutation(
    "SetFieldOption",
    "updateProjectV2ItemFieldValue",
    "UpdateProjectV2ItemFieldValueInput",
    "projectV2Item { id }",
)
CREATE_PULL_REQUEST = GraphQLDocument(
    "CreatePullRequest",
    _mutation(
        "CreatePullRequest",
        "createPullRequest",
        "CreatePullRequestInput",
        "pullRequest { ...PullRequestSummary }",
    ).text
    + _PULL_REQUEST_SUMMARY,
    mutation=True,
    creates=True,
)
MERGE_PULL_REQUEST = GraphQLDocument(
    "MergePullRequest",
    _mutation(
        "MergePullRequest",
        "mergePullRequest",
        "MergePullRequestInput",
        "pullRequest { ...PullRequestSummary }",
    ).text
    + _PULL_REQUEST_SUMMARY,
    mutation=True,
)
ENQUEUE_PULL_REQUEST = _mutation(
    "EnqueuePullRequest",
    "enqueuePullRequest",
    "EnqueuePullRequestInput",
    "mergeQueueEntry { id state position }",
)
ENABLE_AUTO_MERGE = _mutation(
    "EnableAutoMerge",
    "enablePullRequestAutoMerge",
    "EnablePullRequestAutoMergeInput",
    "pullRequest { id }",
)
ADD_REVIEW = GraphQLDocument(
    "AddReview",
    _mutation(
        "AddReview",
        "addPullRequestReview",
        "AddPullRequestReviewInput",
        "pullRequestReview { ...ReviewFields }",
    ).text
    + _REVIEW_FIELDS,
    mutation=True,
    creates=True,
)
REPLY_TO_THREAD = GraphQLDocument(
    "ReplyToThread",
    _mutation(
        "ReplyToThread",
        "addPullRequestReviewThreadReply",
        "AddPullRequestReviewThreadReplyInput",
        "comment { ...ThreadCommentFields }",
    ).text
    + _THREAD_COMMENT_FIELDS,
    mutation=True,
    creates=True,
)
RESOLVE_THREAD = GraphQLDocument(
    "ResolveThread",
    _mutation(
        "ResolveThread",
        "resolveReviewThread",
        "ResolveReviewThreadInput",
        "thread { ...ThreadFields }",
    ).text
    + _THREAD_FIELDS
    + _THREAD_COMMENT_FIELDS,
    mutation=True,
)
REQUEST_REVIEWS = _mutation(
    "RequestReviews", "requestReviews", "RequestReviewsInput", "pullRequest { id }"
)
CLOSE_PULL_REQUEST = _mutation(
    "ClosePullRequest", "closePullRequest", "ClosePullRequestInput", "pullRequest { id }"
)
CREATE_PROJECT = GraphQLDocument(
    "CreateProject",
    _mutation(
        "CreateProject", "createProjectV2", "CreateProjectV2Input", "projectV2 { ...ProjectFields }"
    ).text
    + _PROJECT_FIELDS,
    mutation=True,
    creates=True,
)
CREATE_FIELD = _mutation(
    "CreateField",
    "createProjectV2Field",
    "CreateProjectV2FieldInput",
    "projectV2Field { ... on ProjectV2SingleSelectField { id name } }",
    creates=True,
)
LINK_REPOSITORY = _mutation(
    "LinkRepository",
    "linkProjectV2ToRepository",
    "LinkProjectV2ToRepositoryInput",
    "repository { id }",
)

ARCHIVE_PROJECT_ITEM = _mutation(
    "ArchiveProjectItem",
    "archiveProjectV2Item",
    "ArchiveProjectV2ItemInput",
    "item { id isArchived }",
)
UNARCHIVE_PROJECT_ITEM = _mutation(
    "UnarchiveProjectItem",
    "unarchiveProjectV2Item",
    "UnarchiveProjectV2ItemInput",
    "item { id isArchived }",
)


def _status_update_mutation(name: str, field: str, *, creates: bool = False) -> GraphQLDocument:
    text = _mutation(
        name, field, f"{field[0].upper()}{field[1:]}Input", "statusUpdate { ...StatusUpdateFields }"
    ).text
    return GraphQLDocument(name, text + _STATUS_UPDATE_FIELDS, mutation=True, creates=creates)


CREATE_STATUS_UPDATE = _status_update_mutation(
    "CreateStatusUpdate", "createProjectV2StatusUpdate", creates=True
)
UPDATE_STATUS_UPDATE = _status_update_mutation("UpdateStatusUpdate", "updateProjectV2StatusUpdate")
DELETE_STATUS_UPDATE = _mutation(
    "DeleteStatusUpdate",
    "deleteProjectV2StatusUpdate",
    "DeleteProjectV2StatusUpdateInput",
    "deletedStatusUpdateId",
)


# -- the board as a board (the original's project-management tools) ---------------------

_BOARD_FIELDS = """
fragment BoardFields on ProjectV2 {
  id number title url closed public shortDescription readme
  owner { ... on Organization { login } ... on User { login } }
  fields(first: 50) {
    nodes {
      ... on ProjectV2FieldCommon { id name dataType }
      ... on ProjectV2SingleSelectField { options { id name color description } }
    }
  }
  items(first: 1) { totalCount }
  views(first: 1) { totalCount }
}
"""

BOARD = GraphQLDocument(
    "Board",
    """
query Board($login: String!, $number: Int!) {
  repositoryOwner(login: $login) {
    ... on ProjectV2Owner { projectV2(number: $number) { ...BoardFields } }
  }
}
"""
    + _BOARD_FIELDS,
)

BOARDS = GraphQLDocument(
    "Boards",
    """
query Boards($login: String!, $first: Int!, $after: String) {
  repositoryOwner(login: $login) {
    ... on ProjectV2Owner {
      projectsV2(first: $first, after: $after, orderBy: {field: TITLE, direction: ASC}) {
        pageInfo { hasNextPage endCursor }
        nodes { ...BoardFields }
      }
    }
  }
}
"""
    + _BOARD_FIELDS,
    page_size=20,
)

_ITEM_FIELDS = """
fragment ItemFields on ProjectV2Item {
  id type isArchived updatedAt
  workflowState: fieldValueByName(name: "Workflow State") { ...OptionName }
  estimate: fieldValueByName(name: "Estimate") { ...OptionName }
  priority: fieldValueByName(name: "Priority") { ...OptionName }
  content {
    __typename
    ... on Issue {
      number title body state url updatedAt
      repository { nameWithOwner }
      labels(first: 20) { nodes { name } }
      assignees(first: 10) { nodes { login } }
    }
    ... on PullRequest {
      number title body pullState: state url updatedAt
      repository { nameWithOwner }
      labels(first: 20) { nodes { name } }
      assignees(first: 10) { nodes { login } }
    }
    ... on DraftIssue {
      id title body updatedAt
      assignees(first: 10) { nodes { login } }
    }
  }
}
"""

BOARD_ITEMS = GraphQLDocument(
    "BoardItems",
    """
query BoardItems($project: ID!, $first: Int!, $after: String) {
  node(id: $project) {
    ... on ProjectV2 {
      items(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { ...ItemFields }
      }
    }
  }
}
"""
    + _ITEM_FIELDS
    + _OPTION_NAME,
    page_size=50,
)

BOARD_VIEWS = GraphQLDocument(
    "BoardViews",
    """
query BoardViews($project: ID!, $first: Int!, $after: String) {
  node(id: $project) {
    ... on ProjectV2 {
      views(first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { id number name layout filter }
      }
    }
  }
}
""",
    page_size=50,
)

#: The node id of issue or pull request ``number`` (they share numbers).
CONTENT_ID = GraphQLDocument(
    "ContentId",
    """
query ContentId($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) {
      __typename
      ... on Issue { id }
      ... on PullRequest { id }
    }
  }
}
""",
)

#: Every board an issue is on, with its Workflow State there (sync_across_projects).
ISSUE_BOARDS = GraphQLDocument(
    "IssueBoards",
    """
query IssueBoards($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      id
      projectItems(first: 20) {
        nodes {
          id
          project { id number title }
          workflowState: fieldValueByName(name: "Workflow State") { ...OptionName }
        }
      }
    }
  }
}
"""
    + _OPTION_NAME,
)

#: A board's single-select fields, by its id (another board than Ralph's own).
BOARD_FIELDS = GraphQLDocument(
    "BoardFieldsById",
    """
query BoardFieldsById($project: ID!) {
  node(id: $project) {
    ... on ProjectV2 {
      fields(first: 50) {
        nodes {
          ... on ProjectV2FieldCommon { id name }
          ... on ProjectV2SingleSelectField { options { id name } }
        }
      }
    }
  }
}
""",
)

USER_ID = GraphQLDocument(
    "UserId", "query UserId($login: String!) { user(login: $login) { id login } }"
)

TEAM_ID = GraphQLDocument(
    "TeamId",
    """
query TeamId($login: String!, $slug: String!) {
  organization(login: $login) { team(slug: $slug) { id slug } }
}
""",
)

UPDATE_BOARD = _mutation(
    "UpdateBoard", "updateProjectV2", "UpdateProjectV2Input", "projectV2 { id }"
)
COPY_BOARD = _mutation(
    "CopyBoard", "copyProjectV2", "CopyProjectV2Input", "projectV2 { id number }", creates=True
)
DELETE_ITEM = _mutation(
    "DeleteItem", "deleteProjectV2Item", "DeleteProjectV2ItemInput", "deletedItemId"
)
CLEAR_FIELD = _mutation(
    "ClearField",
    "clearProjectV2ItemFieldValue",
    "ClearProjectV2ItemFieldValueInput",
    "projectV2Item { id }",
)
ADD_DRAFT = _mutation(
    "AddDraft",
    "addProjectV2DraftIssue",
    "AddProjectV2DraftIssueInput",
    "projectItem { id content { ... on DraftIssue { id } } }",
    creates=True,
)
UPDATE_DRAFT = _mutation(
    "UpdateDraft",
    "updateProjectV2DraftIssue",
    "UpdateProjectV2DraftIssueInput",
    "draftIssue { id }",
)
CONVERT_DRAFT = _mutation(
    "ConvertDraft",
    "convertProjectV2DraftIssueItemToIssue",
    "ConvertProjectV2DraftIssueItemToIssueInput",
    "item { id content { ... on Issue { number } } }",
    creates=True,
)
MOVE_ITEM = _mutation(
    "MoveItem",
    "updateProjectV2ItemPosition",
    "UpdateProjectV2ItemPositionInput",
    "items(first: 1) { nodes { id } }",
)
UPDATE_FIELD = _mutation(
    "UpdateField",
    "updateProjectV2Field",
    "UpdateProjectV2FieldInput",
    "projectV2Field { ... on ProjectV2SingleSelectField { id name } }",
)
DELETE_FIELD = _mutation(
    "DeleteField",
    "deleteProjectV2Field",
    "DeleteProjectV2FieldInput",
    "projectV2Field { ... on ProjectV2FieldCommon { id } }",
)
UNLINK_REPOSITORY = _mutation(
    "UnlinkRepository",
    "unlinkProjectV2FromRepository",
    "UnlinkProjectV2FromRepositoryInput",
    "repository { id }",
)
UPDATE_COLLABORATORS = _mutation(
    "UpdateCollaborators",
    "updateProjectV2Collaborators",
    "UpdateProjectV2CollaboratorsInput",
    "collaborators(first: 1) { totalCount }",
)
LINK_TEAM = _mutation("LinkTeam", "linkProjectV2ToTeam", "LinkProjectV2ToTeamInput", "team { id }")
UNLINK_TEAM = _mutation(
    "UnlinkTeam", "unlinkProjectV2FromTeam", "UnlinkProjectV2FromTeamInput", "team { id }"
)

_BOARD_DOCUMENTS = (
    BOARD,
    BOARDS,
    BOARD_ITEMS,
    BOARD_VIEWS,
    CONTENT_ID,
    ISSUE_BOARDS,
    BOARD_FIELDS,
    USER_ID,
    TEAM_ID,
    UPDATE_BOARD,
    COPY_BOARD,
    DELETE_ITEM,
    CLEAR_FIELD,
    ADD_DRAFT,
    UPDATE_DRAFT,
    CONVERT_DRAFT,
    MOVE_ITEM,
    UPDATE_FIELD,
    DELETE_FIELD,
    UNLINK_REPOSITORY,
    UPDATE_COLLABORATORS,
    LINK_TEAM,
    UNLINK_TEAM,
)

#: Every document, by name (the schema test walks this).
ALL: dict[str, GraphQLDocument] = {
    document.name: document
    for document in (
        *_BOARD_DOCUMENTS,
        VIEWER,
        ISSUE_FEATURES,
        BOARD_FEATURES,
        REPOSITORY,
        REPOSITORY_AND_BOARD,
        USER,
        OWNER,
        PROJECT,
        PROJECT_BY_TITLE,
        PROJECT_REPOSITORIES,
        PROJECT_ITEMS,
        BOARD_WORKFLOWS,
        STATUS_UPDATES,
        ISSUE,
        ISSUE_COMMENTS,
        ISSUE_GROUP,
        ISSUES,
        BOARD_ISSUES,
        ISSUE_BLOCKED_BY,
        ISSUE_BLOCKING,
        ISSUE_ITEMS,
        ISSUE_PROJECT_ITEMS,
        ISSUE_BY_MARKER,
        COMMENT_BY_MARKER,
        LABELS,
        PULL_REQUEST,
        PULL_REQUESTS,
        PULL_REQUESTS_FROM,
        PULL_REQUEST_THREADS,
        REVIEW_BY_MARKER,
        THREAD_COMMENTS,
        CREATE_ISSUE,
        UPDATE_ISSUE,
        ADD_LABELS,
        REMOVE_LABELS,
        CREATE_LABEL,
        CLOSE_ISSUE,
        REOPEN_ISSUE,
        ADD_COMMENT,
        ADD_SUB_ISSUE,
        REMOVE_SUB_ISSUE,
        ADD_BLOCKED_BY,
        REMOVE_BLOCKED_BY,
        ADD_PROJECT_ITEM,
        SET_FIELD_OPTION,
        MOVE_STATE,
        SET_FIELDS,
        MOVE_STATES,
        CREATE_FIELDS,
        CREATE_PULL_REQUEST,
        MERGE_PULL_REQUEST,
        ENQUEUE_PULL_REQUEST,
        ENABLE_AUTO_MERGE,
        ADD_REVIEW,
        REPLY_TO_THREAD,
        RESOLVE_THREAD,
        REQUEST_REVIEWS,
        CLOSE_PULL_REQUEST,
        CREATE_PROJECT,
        CREATE_FIELD,
        LINK_REPOSITORY,
        ARCHIVE_PROJECT_ITEM,
        UNARCHIVE_PROJECT_ITEM,
        CREATE_STATUS_UPDATE,
        UPDATE_STATUS_UPDATE,
        DELETE_STATUS_UPDATE,
    )
}
