"""Every GraphQL document Ralph sends to Linear, in one place.

Each is one named operation selecting only what the tracker reads; connections page with
``$first``/``$after`` and ``pageInfo { hasNextPage endCursor }`` (Relay). A unit test
validates them all against Linear's published schema (``$RALPH_LINEAR_SCHEMA``) and checks that
each stays under Linear's 10,000 complexity points at its page size, so a misspelt field
or a page too big fails the build rather than a run.

Creating mutations take an optional client-made ``id`` in their input (Linear accepts a
UUID there): a writer that lost the answer can ask for that id before creating again.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ALL",
    "GROUP_LIMIT",
    "LINKS",
    "LINKS_PAGE",
    "MAX_PAGE",
    "ROW_LABELS",
    "LinearDocument",
]

#: Linear refuses ``first`` above 250.
MAX_PAGE = 250
#: Issues read together with their comments (``IssuesWithComments``): 15 cost about
#: 4,600 points, under half of Linear's 10,000 a request.
GROUP_LIMIT = 15


@dataclass(frozen=True)
class LinearDocument:
    name: str
    text: str
    mutation: bool = False
    #: Creates something a blind resend could duplicate (an issue, a comment...).
    creates: bool = False
    #: A paged query's page (its ``$first``); 0: not paged.
    page_size: int = 0


#: What the tracker reads of an issue, and no more: Linear charges every field, and a
#: nested connection its whole page whatever it holds, so the pages are what an issue of
#: Ralph's usually has. Nested connections say when they were cut short (``hasNextPage``):
#: an issue with more children, labels or relations is read apart. Relations keep their ids (a
#: blocking relation is removed by its id).
_ISSUE_FIELDS = """
fragment IssueFields on Issue {
  id identifier url title description estimate priority
  createdAt updatedAt archivedAt
  state { id name type }
  parent { identifier }
  children(first: 10) { pageInfo { hasNextPage } nodes { identifier } }
  labels(first: 10) { pageInfo { hasNextPage } nodes { name } }
  assignee { name }
  relations(first: 10) {
    pageInfo { hasNextPage }
    nodes { id type relatedIssue { id identifier } }
  }
  inverseRelations(first: 10) {
    pageInfo { hasNextPage }
    nodes { id type issue { id identifier } }
  }
}
"""

_PAGE = "pageInfo { hasNextPage endCursor }"


def _query(name: str, body: str, *, page_size: int = 0, issue: bool = False) -> LinearDocument:
    text = body.strip() + "\n" + (_ISSUE_FIELDS if issue else "")
    return LinearDocument(name, text, page_size=page_size)


def _mutation(
    name: str, body: str, *, creates: bool = False, issue: bool = False
) -> LinearDocument:
    text = body.strip() + "\n" + (_ISSUE_FIELDS if issue else "")
    return LinearDocument(name, text, mutation=True, creates=creates)


VIEWER = _query("Viewer", "query Viewer { viewer { id name displayName email } }")

#: A team by its key (ENG), with its workflow states and its estimate scale.
TEAM = _query(
    "Team",
    """
query Team($key: String!) {
  teams(filter: { key: { eq: $key } }, first: 1) {
    nodes {
      id key name
      issueEstimationType issueEstimationAllowZero issueEstimationExtended
      defaultIssueEstimate
      states(first: 100) { nodes { id name type position } }
    }
  }
}
""",
)

TEAM_LABELS = _query(
    "TeamLabels",
    f"""
query TeamLabels($teamId: String!, $first: Int!, $after: String) {{
  team(id: $teamId) {{
    labels(first: $first, after: $after) {{ {_PAGE} nodes {{ id name }} }}
  }}
}}
""",
    page_size=MAX_PAGE,
)

CREATE_WORKFLOW_STATE = _mutation(
    "CreateWorkflowState",
    """
mutation CreateWorkflowState($input: WorkflowStateCreateInput!) {
  workflowStateCreate(input: $input) { success workflowState { id name type position } }
}
""",
    creates=True,
)

#: The fields an issue's row has (``IssueRows``): everything ``IssueFields`` has but its
#: connections, which a page prices at their whole page for every issue, read apart
#: (``LINKS``) for the few issues whose one-node probes found something: children,
#: relations either way, or a full page of labels.
_ISSUE_ROW = """
fragment IssueRow on Issue {
  id identifier url title description estimate priority
  createdAt updatedAt archivedAt
  state { id name type }
  parent { identifier }
  assignee { name }
  labels(first: 4) { nodes { name } }
  children(first: 1) { nodes { id } }
  relations(first: 1) { nodes { id } }
  inverseRelations(first: 1) { nodes { id } }
}
"""
#: A row's labels page: a row with this many may have more (its links read them all).
ROW_LABELS = 4

#: Issues matching a filter (the team's, narrowed as the caller asks: open ones, a
#: state, a label, updated since...), as rows; 200 a page keeps a request near 3,700
#: points, under half of Linear's 10,000.
ISSUE_ROWS = LinearDocument(
    "IssueRows",
    f"""
query IssueRows($filter: IssueFilter!, $first: Int!, $after: String, $archived: Boolean) {{
  issues(filter: $filter, first: $first, after: $after, includeArchived: $archived) {{
    {_PAGE} nodes {{ ...IssueRow }}
  }}
}}
""".strip()
    + "\n"
    + _ISSUE_ROW,
    page_size=200,
)

#: The fields a dashboard shows of an issue (``board_issues``): a row without its labels
#: and with only the probe of the issues blocking it, about 9 points an issue.
_BOARD_ROW = """
fragment BoardRow on Issue {
  id identifier url title description estimate priority
  createdAt updatedAt archivedAt
  state { id name type }
  parent { identifier }
  assignee { name }
  inverseRelations(first: 1) { nodes { id } }
}
"""

BOARD_ROWS = LinearDocument(
    "BoardRows",
    f"""
query BoardRows($filter: IssueFilter!, $first: Int!, $after: String, $archived: Boolean) {{
  issues(filter: $filter, first: $first, after: $after, includeArchived: $archived) {{
    {_PAGE} nodes {{ ...BoardRow }}
  }}
}}
""".strip()
    + "\n"
    + _BOARD_ROW,
    page_size=250,
)

#: A connection's first page (``LINKS_PAGE``) for issues by id, no ``pageInfo`` (priced
#: at every node of the page, it would cost as much as the nodes): one that fills its
#: page is read whole apart, as one ``IssueFields`` cut short is.
LINKS_PAGE = 10


def _links(name: str, connection: str, nodes: str, limit: int) -> LinearDocument:
    """``connection``'s first page for up to ``limit`` issues (its page size) by id."""
    text = f"""
query {name}($ids: [ID!]!, $first: Int!) {{
  issues(filter: {{ id: {{ in: $ids }} }}, first: $first, includeArchived: true) {{
    nodes {{ id {connection}(first: {LINKS_PAGE}) {{ nodes {{ {nodes} }} }} }}
  }}
}}
"""
    return LinearDocument(name, text.strip() + "\n", page_size=limit)


#: By connection (``IssueFields``'s name for it), the document reading its first page
#: for as many issues as its page size (about 3,300 points at most).
LINKS: dict[str, LinearDocument] = {
    "children": _links("ChildrenOf", "children", "identifier", 250),
    "labels": _links("LabelsOf", "labels", "name", 250),
    "relations": _links("RelationsOf", "relations", "id type relatedIssue { id identifier }", 125),
    "inverseRelations": _links(
        "InverseRelationsOf", "inverseRelations", "id type issue { id identifier }", 125
    ),
}

#: What on the team changed since a look: the ids of the issues updated at or after it
#: began (less an overlap; those already kept as they are are not read again), 50 points
#: for a first page of 20 where a read costs thousands (``ralph serve`` and the web
#: board read the board on every poll); then pages of 250 ids (602 points) when more.
TEAM_CHANGES = _query(
    "TeamChanges",
    """
query TeamChanges(
  $teamId: String!, $since: DateTimeOrDuration!, $first: Int!, $after: String
) {
  team(id: $teamId) {
    issues(
      first: $first, after: $after, includeArchived: true
      filter: { updatedAt: { gte: $since } }
    ) {
      pageInfo { hasNextPage endCursor } nodes { id updatedAt }
    }
  }
}
""",
    page_size=250,
)
#: The first page of ``TEAM_CHANGES``: a poll's overlap with the last holds a busy
#: team's few edits of the last minutes.
TEAM_CHANGES_FIRST = 20

#: One issue by its id or its identifier (ENG-12): Linear's ``issue(id:)`` takes both.
ISSUE = _query(
    "Issue", "query Issue($id: String!) { issue(id: $id) { ...IssueFields } }", issue=True
)

ISSUE_BY_NUMBER = _query(
    "IssueByNumber",
    """
query IssueByNumber($teamId: ID!, $number: Float!) {
  issues(
    filter: { team: { id: { eq: $teamId } }, number: { eq: $number } }
    first: 1
    includeArchived: true
  ) { nodes { ...IssueFields } }
}
""",
    issue=True,
)

#: One issue by number with its first comments, in one request (``get_issue``); an issue
#: with more comments (``hasNextPage``) reads them apart (``IssueComments``).
ISSUE_WITH_COMMENTS = _query(
    "IssueWithComments",
    f"""
query IssueWithComments($teamId: ID!, $number: Float!) {{
  issues(
    filter: {{ team: {{ id: {{ eq: $teamId }} }}, number: {{ eq: $number }} }}
    first: 1
    includeArchived: true
  ) {{
    nodes {{
      ...IssueFields
      comments(first: 50) {{ {_PAGE} nodes {{ id body createdAt user {{ name }} }} }}
    }}
  }}
}}
""",
    issue=True,
)

#: Several issues by number with their first comments, in one request (a snapshot's
#: ``prefetch``: an issue and its relatives); ``$first`` is how many are asked for.
ISSUES_WITH_COMMENTS = _query(
    "IssuesWithComments",
    f"""
query IssuesWithComments($teamId: ID!, $numbers: [Float!]!, $first: Int!) {{
  issues(
    filter: {{ team: {{ id: {{ eq: $teamId }} }}, number: {{ in: $numbers }} }}
    first: $first
    includeArchived: true
  ) {{
    nodes {{
      ...IssueFields
      comments(first: 50) {{ {_PAGE} nodes {{ id body createdAt user {{ name }} }} }}
    }}
  }}
}}
""",
    page_size=GROUP_LIMIT,
    issue=True,
)


def _issue_connection(name: str, connection: str, nodes: str) -> LinearDocument:
    """The rest of an issue's connection that ``IssueFields`` cut short."""
    return _query(
        name,
        f"""
query {name}($id: String!, $first: Int!, $after: String) {{
  issue(id: $id) {{ {connection}(first: $first, after: $after) {{ {_PAGE} nodes {{ {nodes} }} }} }}
}}
""",
        page_size=100,
    )


ISSUE_CHILDREN = _issue_connection("IssueChildren", "children", "identifier")
ISSUE_LABELS = _issue_connection("IssueLabels", "labels", "name")
ISSUE_RELATIONS = _issue_connection(
    "IssueRelations", "relations", "id type relatedIssue { id identifier }"
)
ISSUE_INVERSE_RELATIONS = _issue_connection(
    "IssueInverseRelations", "inverseRelations", "id type issue { id identifier }"
)

CREATE_ISSUE = _mutation(
    "CreateIssue",
    """
mutation CreateIssue($input: IssueCreateInput!) {
  issueCreate(input: $input) { success issue { ...IssueFields } }
}
""",
    creates=True,
    issue=True,
)

#: Any of state, estimate, priority, parent, labels, assignee, title, description.
UPDATE_ISSUE = _mutation(
    "UpdateIssue",
    """
mutation UpdateIssue($id: String!, $input: IssueUpdateInput!) {
  issueUpdate(id: $id, input: $input) { success issue { ...IssueFields } }
}
""",
    issue=True,
)

_COMMENT_MADE = "success comment { id body createdAt user { name } }"

#: A move and its audit comment in one request: Linear runs a request's mutations in
#: order and stops at one that fails, so the audit never lands without the move.
MOVE_ISSUE = _mutation(
    "MoveIssue",
    f"""
mutation MoveIssue($id: String!, $input: IssueUpdateInput!, $audit: CommentCreateInput!) {{
  issueUpdate(id: $id, input: $input) {{ success issue {{ ...IssueFields }} }}
  audit: commentCreate(input: $audit) {{ {_COMMENT_MADE} }}
}}
""",
    creates=True,
    issue=True,
)

#: A phase's note, then the move it led to and its audit comment, in one request.
MOVE_ISSUE_NOTED = _mutation(
    "MoveIssueNoted",
    f"""
mutation MoveIssueNoted(
  $id: String!
  $input: IssueUpdateInput!
  $note: CommentCreateInput!
  $audit: CommentCreateInput!
) {{
  note: commentCreate(input: $note) {{ {_COMMENT_MADE} }}
  issueUpdate(id: $id, input: $input) {{ success issue {{ ...IssueFields }} }}
  audit: commentCreate(input: $audit) {{ {_COMMENT_MADE} }}
}}
""",
    creates=True,
    issue=True,
)

ARCHIVE_ISSUE = _mutation(
    "ArchiveIssue",
    """
mutation ArchiveIssue($id: String!) {
  issueArchive(id: $id) { success entity { id archivedAt } }
}
""",
)

UNARCHIVE_ISSUE = _mutation(
    "UnarchiveIssue",
    """
mutation UnarchiveIssue($id: String!) {
  issueUnarchive(id: $id) { success entity { id archivedAt } }
}
""",
)

CREATE_COMMENT = _mutation(
    "CreateComment",
    """
mutation CreateComment($input: CommentCreateInput!) {
  commentCreate(input: $input) { success comment { id body createdAt user { name } } }
}
""",
    creates=True,
)

ISSUE_COMMENTS = _query(
    "IssueComments",
    f"""
query IssueComments($id: String!, $first: Int!, $after: String) {{
  issue(id: $id) {{
    comments(first: $first, after: $after) {{
      {_PAGE} nodes {{ id body createdAt user {{ name }} }}
    }}
  }}
}}
""",
    page_size=100,
)

#: ``type: blocks``: ``issueId`` blocks ``relatedIssueId``.
CREATE_RELATION = _mutation(
    "CreateIssueRelation",
    """
mutation CreateIssueRelation($input: IssueRelationCreateInput!) {
  issueRelationCreate(input: $input) {
    success
    issueRelation { id }
  }
}
""",
    creates=True,
)

DELETE_RELATION = _mutation(
    "DeleteIssueRelation",
    """
mutation DeleteIssueRelation($id: String!) {
  issueRelationDelete(id: $id) { success entityId }
}
""",
)

CREATE_LABEL = _mutation(
    "CreateIssueLabel",
    """
mutation CreateIssueLabel($input: IssueLabelCreateInput!) {
  issueLabelCreate(input: $input) { success issueLabel { id name } }
}
""",
    creates=True,
)

#: Reconciling a sub-issue create whose answer was lost: the parent's children of that
#: title (archived ones too: a person may have archived it since).
FIND_CHILD_BY_TITLE = _query(
    "FindChildByTitle",
    """
query FindChildByTitle($parentId: ID!, $title: String!) {
  issues(
    filter: { parent: { id: { eq: $parentId } }, title: { eq: $title } }
    first: 10
    includeArchived: true
  ) { nodes { id identifier title archivedAt } }
}
""",
)

#: Reconciling a comment create whose answer was lost: the issue's comments starting
#: with the comment's header (Ralph's comments open with a unique header line).
FIND_COMMENT = _query(
    "FindComment",
    """
query FindComment($issueId: ID!, $header: String!) {
  comments(
    filter: { issue: { id: { eq: $issueId } }, body: { startsWith: $header } }
    first: 10
  ) { nodes { id body createdAt } }
}
""",
)

#: Whether a comment created with a client-made id exists.
COMMENT = _query(
    "Comment",
    "query Comment($id: String!) { comment(id: $id) { id body createdAt user { name } } }",
)

ALL: dict[str, LinearDocument] = {
    d.name: d
    for d in (
        VIEWER,
        TEAM,
        TEAM_LABELS,
        CREATE_WORKFLOW_STATE,
        ISSUE_ROWS,
        BOARD_ROWS,
        *LINKS.values(),
        TEAM_CHANGES,
        ISSUE,
        ISSUE_BY_NUMBER,
        ISSUE_WITH_COMMENTS,
        ISSUES_WITH_COMMENTS,
        ISSUE_CHILDREN,
        ISSUE_LABELS,
        ISSUE_RELATIONS,
        ISSUE_INVERSE_RELATIONS,
        CREATE_ISSUE,
        UPDATE_ISSUE,
        MOVE_ISSUE,
        MOVE_ISSUE_NOTED,
        ARCHIVE_ISSUE,
        UNARCHIVE_ISSUE,
        CREATE_COMMENT,
        ISSUE_COMMENTS,
        CREATE_RELATION,
        DELETE_RELATION,
        CREATE_LABEL,
        FIND_CHILD_BY_TITLE,
        FIND_COMMENT,
        COMMENT,
    )
}
