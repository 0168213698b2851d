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

from dataclasses import dataclass

__all__ = ["ALL", "GraphQLDocument"]


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


_ISSUE_FIELDS = """
fragment IssueFields on Issue {
  id number title body url state stateReason createdAt updatedAt closedAt
  labels(first: 50) { nodes { name } }
  assignees(first: 10) { nodes { login } }
  parent { number }
  subIssues(first: 100) { nodes { number } }
  blockedBy(first: 50) { nodes { number } }
  blocking(first: 50) { nodes { number } }
  closedByPullRequestsReferences(first: 10, includeClosedPrs: true) { nodes { number } }
  projectItems(first: 10) {
    nodes {
      id
      project { id }
      fieldValues(first: 20) {
        nodes {
          ... on ProjectV2ItemFieldSingleSelectValue {
            name
            field { ... on ProjectV2SingleSelectField { name } }
          }
        }
      }
    }
  }
}
"""

_COMMENT_FIELDS = """
fragment CommentFields on IssueComment {
  databaseId body createdAt
  author { login }
}
"""

_PULL_REQUEST_FIELDS = """
fragment PullRequestFields on PullRequest {
  id number title body url state mergeable createdAt mergedAt
  headRefName baseRefName
  mergeCommit { oid }
  commits(last: 1) {
    nodes {
      commit {
        statusCheckRollup {
          contexts(first: 100) {
            nodes {
              __typename
              ... on CheckRun { name status conclusion }
              ... on StatusContext { context state }
            }
          }
        }
      }
    }
  }
}
"""

_PROJECT_FIELDS = """
fragment ProjectFields on ProjectV2 {
  id number title url
  fields(first: 50) {
    nodes {
      ... on ProjectV2FieldCommon { id name }
      ... on ProjectV2SingleSelectField { options { id name color description } }
    }
  }
}
"""

VIEWER = GraphQLDocument("Viewer", "query Viewer { viewer { login } }")

REPOSITORY = GraphQLDocument(
    "Repository",
    """
query Repository($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    id nameWithOwner
    owner { id login }
    defaultBranchRef { name }
  }
}
""",
)

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

ISSUE = GraphQLDocument(
    "Issue",
    """
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
    + _ISSUE_FIELDS
    + _COMMENT_FIELDS,
)

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

ISSUES = GraphQLDocument(
    "Issues",
    """
query Issues($owner: String!, $name: String!, $states: [IssueState!], $first: Int!,
             $after: String) {
  repository(owner: $owner, name: $name) {
    issues(first: $first, after: $after, states: $states,
           orderBy: {field: CREATED_AT, direction: ASC}) {
      pageInfo { hasNextPage endCursor }
      nodes { ...IssueFields }
    }
  }
}
"""
    + _ISSUE_FIELDS,
    page_size=50,
)

ISSUE_BY_MARKER = GraphQLDocument(
    "IssueByMarker",
    """
query IssueByMarker($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    issues(first: 20, orderBy: {field: CREATED_AT, direction: DESC}) {
      nodes { id number body }
    }
  }
}
""",
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
    + _PULL_REQUEST_FIELDS,
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
      nodes { ...PullRequestFields }
    }
  }
}
"""
    + _PULL_REQUEST_FIELDS,
    page_size=50,
)

# -- mutations ------------------------------------------------------------------------------

CREATE_ISSUE = GraphQLDocument(
    "CreateIssue",
    """
mutation CreateIssue($repository: ID!, $title: String!, $body: String, $labels: [ID!],
                     $parent: ID) {
  createIssue(input: {repositoryId: $repository, title: $title, body: $body,
                      labelIds: $labels, parentIssueId: $parent}) {
    issue { id number }
  }
}
""",
    mutation=True,
    creates=True,
)

UPDATE_ISSUE = GraphQLDocument(
    "UpdateIssue",
    """
mutation UpdateIssue($id: ID!, $title: String, $body: String, $labels: [ID!]) {
  updateIssue(input: {id: $id, title: $title, body: $body, labelIds: $labels}) {
    issue { id }
  }
}
""",
    mutation=True,
)

CREATE_LABEL = GraphQLDocument(
    "CreateLabel",
    """
mutation CreateLabel($repository: ID!, $name: String!, $color: String!) {
  createLabel(input: {repositoryId: $repository, name: $name, color: $color}) {
    label { id name }
  }
}
""",
    mutation=True,
    creates=True,
)

CLOSE_ISSUE = GraphQLDocument(
    "CloseIssue",
    """
mutation CloseIssue($id: ID!, $reason: IssueClosedStateReason) {
  closeIssue(input: {issueId: $id, stateReason: $reason}) { issue { id } }
}
""",
    mutation=True,
)

REOPEN_ISSUE = GraphQLDocument(
    "ReopenIssue",
    """
mutation ReopenIssue($id: ID!) {
  reopenIssue(input: {issueId: $id}) { issue { id } }
}
""",
    mutation=True,
)

ADD_COMMENT = GraphQLDocument(
    "AddComment",
    """
mutation AddComment($subject: ID!, $body: String!) {
  addComment(input: {subjectId: $subject, body: $body}) {
    commentEdge { node { ...CommentFields } }
  }
}
"""
    + _COMMENT_FIELDS,
    mutation=True,
    creates=True,
)

ADD_SUB_ISSUE = GraphQLDocument(
    "AddSubIssue",
    """
mutation AddSubIssue($parent: ID!, $child: ID!, $replace: Boolean) {
  addSubIssue(input: {issueId: $parent, subIssueId: $child, replaceParent: $replace}) {
    issue { id }
  }
}
""",
    mutation=True,
)

REMOVE_SUB_ISSUE = GraphQLDocument(
    "RemoveSubIssue",
    """
mutation RemoveSubIssue($parent: ID!, $child: ID!) {
  removeSubIssue(input: {issueId: $parent, subIssueId: $child}) { issue { id } }
}
""",
    mutation=True,
)

ADD_BLOCKED_BY = GraphQLDocument(
    "AddBlockedBy",
    """
mutation AddBlockedBy($issue: ID!, $blocking: ID!) {
  addBlockedBy(input: {issueId: $issue, blockingIssueId: $blocking}) { issue { id } }
}
""",
    mutation=True,
)

REMOVE_BLOCKED_BY = GraphQLDocument(
    "RemoveBlockedBy",
    """
mutation RemoveBlockedBy($issue: ID!, $blocking: ID!) {
  removeBlockedBy(input: {issueId: $issue, blockingIssueId: $blocking}) { issue { id } }
}
""",
    mutation=True,
)

ADD_PROJECT_ITEM = GraphQLDocument(
    "AddProjectItem",
    """
mutation AddProjectItem($project: ID!, $content: ID!) {
  addProjectV2ItemById(input: {projectId: $project, contentId: $content}) { item { id } }
}
""",
    mutation=True,
)

SET_FIELD_OPTION = GraphQLDocument(
    "SetFieldOption",
    """
mutation SetFieldOption($project: ID!, $item: ID!, $field: ID!, $option: String!) {
  updateProjectV2ItemFieldValue(input: {projectId: $project, itemId: $item,
                                        fieldId: $field,
                                        value: {singleSelectOptionId: $option}}) {
    projectV2Item { id }
  }
}
""",
    mutation=True,
)

CREATE_PULL_REQUEST = GraphQLDocument(
    "CreatePullRequest",
    """
mutation CreatePullRequest($repository: ID!, $head: String!, $base: String!,
                           $title: String!, $body: String) {
  createPullRequest(input: {repositoryId: $repository, headRefName: $head,
                            baseRefName: $base, title: $title, body: $body}) {
    pullRequest { ...PullRequestFields }
  }
}
"""
    + _PULL_REQUEST_FIELDS,
    mutation=True,
    creates=True,
)

MERGE_PULL_REQUEST = GraphQLDocument(
    "MergePullRequest",
    """
mutation MergePullRequest($id: ID!, $method: PullRequestMergeMethod, $headline: String) {
  mergePullRequest(input: {pullRequestId: $id, mergeMethod: $method,
                           commitHeadline: $headline}) {
    pullRequest { ...PullRequestFields }
  }
}
"""
    + _PULL_REQUEST_FIELDS,
    mutation=True,
)

CLOSE_PULL_REQUEST = GraphQLDocument(
    "ClosePullRequest",
    """
mutation ClosePullRequest($id: ID!) {
  closePullRequest(input: {pullRequestId: $id}) { pullRequest { id } }
}
""",
    mutation=True,
)

CREATE_PROJECT = GraphQLDocument(
    "CreateProject",
    """
mutation CreateProject($owner: ID!, $title: String!, $repository: ID) {
  createProjectV2(input: {ownerId: $owner, title: $title, repositoryId: $repository}) {
    projectV2 { ...ProjectFields }
  }
}
"""
    + _PROJECT_FIELDS,
    mutation=True,
    creates=True,
)

CREATE_FIELD = GraphQLDocument(
    "CreateField",
    """
mutation CreateField($project: ID!, $name: String!,
                     $options: [ProjectV2SingleSelectFieldOptionInput!]) {
  createProjectV2Field(input: {projectId: $project, dataType: SINGLE_SELECT, name: $name,
                               singleSelectOptions: $options}) {
    projectV2Field { ... on ProjectV2SingleSelectField { id name } }
  }
}
""",
    mutation=True,
    creates=True,
)

LINK_REPOSITORY = GraphQLDocument(
    "LinkRepository",
    """
mutation LinkRepository($project: ID!, $repository: ID!) {
  linkProjectV2ToRepository(input: {projectId: $project, repositoryId: $repository}) {
    repository { id }
  }
}
""",
    mutation=True,
)

#: Every document, by name (the schema test walks this).
ALL: dict[str, GraphQLDocument] = {
    document.name: document
    for document in (
        VIEWER,
        REPOSITORY,
        OWNER,
        PROJECT,
        PROJECT_BY_TITLE,
        PROJECT_REPOSITORIES,
        ISSUE,
        ISSUE_COMMENTS,
        ISSUES,
        ISSUE_BY_MARKER,
        COMMENT_BY_MARKER,
        LABELS,
        PULL_REQUEST,
        PULL_REQUESTS,
        CREATE_ISSUE,
        UPDATE_ISSUE,
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
        CREATE_PULL_REQUEST,
        MERGE_PULL_REQUEST,
        CLOSE_PULL_REQUEST,
        CREATE_PROJECT,
        CREATE_FIELD,
        LINK_REPOSITORY,
    )
}
