"""Setting up a GitHub board for Ralph, and checking one (``ralph init --github``,
``ralph doctor``).

The three fields, their options, colours and descriptions are the original's
(docs/compatibility.md), so a board made by either works with both. Setup is idempotent: it
finds the project (by number, or by title), creates only the fields that are missing,
and links the repository once. A field that exists but lacks some of Ralph's options is
reported, not rewritten: GitHub's API can only replace all of a field's options
(``updateProjectV2Field`` "will overwrite the existing options"), which would clear
that field on every item of a board in use; adding an option on the board keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ralph.errors import GitHubAuthError, GitHubError, GitHubInvalid, GitHubNotFound
from ralph.github import (
    ALL_ISSUE_FEATURES,
    GitHubClient,
    IssueFeatures,
    TokenKind,
    features_of,
    token_kind,
)
from ralph.github import queries as q
from ralph.tracker._board_fields import FIELDS, PROJECT_TITLE
from ralph.tracker._model import Check
from ralph.tracker.github._read import Board, board_from

__all__ = [
    "BoardSetup",
    "check_board",
    "check_repository",
    "repository_default_branch",
    "set_up_board",
]


def _options(field: str) -> list[dict[str, str]]:
    return [{"name": n, "color": c, "description": d} for n, c, d in FIELDS[field]]


@dataclass(frozen=True)
class BoardSetup:
    board: Board
    created_project: bool
    created_fields: tuple[str, ...]
    #: Fields that exist without some of Ralph's options: (field, missing options).
    incomplete_fields: tuple[tuple[str, tuple[str, ...]], ...]
    linked: bool
    owner: str
    default_branch: str
    #: Why the repository could not be linked to a board of another owner (best effort).
    link_warning: str = ""
    #: The issue relations this GitHub has (GitHub Enterprise Server may lack some).
    features: IssueFeatures = ALL_ISSUE_FEATURES


def _project(client: GitHubClient, owner: str, number: int) -> Board | None:
    try:
        data = client.query(q.PROJECT, {"login": owner, "number": number}, token="board")
    except GitHubNotFound:
        return None
    found = (data.get("repositoryOwner") or {}).get("projectV2")
    return board_from(found) if found else None


def _by_title(client: GitHubClient, owner: str, title: str) -> int | None:
    data = client.query(q.PROJECT_BY_TITLE, {"login": owner, "title": title}, token="board")
    nodes = ((data.get("repositoryOwner") or {}).get("projectsV2") or {}).get("nodes", [])
    open_matches = [n for n in nodes if n and n["title"] == title and not n["closed"]]
    return min((n["number"] for n in open_matches), default=None)


def _board_variable(client: GitHubClient) -> str:
    return "RALPH_GH_PROJECT_TOKEN" if client.tokens.split else "RALPH_GH_TOKEN"


def _unreachable(client: GitHubClient, owner: str, *, creating: bool = False) -> str | None:
    """Why the board's token cannot see ``owner``'s boards, when its kind explains it:
    GitHub answers such a token as if the board did not exist. ``creating``: no board
    was found by title, which an organisation's may rightly have none of."""
    kind = token_kind(client.tokens.get("board"))
    if kind.lists_scopes or kind is TokenKind.APP_USER:
        return None
    found = client.query(q.OWNER, {"login": owner}, token="board")["repositoryOwner"]
    variable = _board_variable(client)
    if found["__typename"] == "User":
        return (
            f"{owner} is a user and {variable} is a {kind.value}: a user-owned board needs "
            "a classic token or OAuth token with the project scope"
        )
    if creating:
        return None
    return (
        f"{variable} is a {kind.value}: it needs the organization permission Projects: "
        f"read and write on {owner} (Organization permissions → Projects)"
    )


def _repository(client: GitHubClient, full_name: str) -> dict[str, Any]:
    return _repository_and_features(client, full_name)[0]


def _repository_and_features(
    client: GitHubClient, full_name: str
) -> tuple[dict[str, Any], IssueFeatures]:
    """The repository's node, and the relations this GitHub's issues have (one request)."""
    owner, _, name = full_name.partition("/")
    try:
        data = client.query(q.REPOSITORY, {"owner": owner, "name": name})
    except GitHubNotFound:
        raise GitHubNotFound(
            f"repository {full_name} not found, or the token cannot see it "
            "(a classic token needs the repo scope)"
        ) from None
    return dict(data["repository"]), features_of(data.get("issueType"))


def set_up_board(
    client: GitHubClient,
    full_name: str,
    *,
    project: int | None = None,
    project_owner: str = "",
    title: str = PROJECT_TITLE,
) -> BoardSetup:
    """Find or create the board for ``full_name`` and give it Ralph's fields."""
    repository, features = _repository_and_features(client, full_name)
    owner = project_owner or repository["owner"]["login"]
    created_project = linked_as_made = False
    number = project if project is not None else _by_title(client, owner, title)
    board = _project(client, owner, number) if number is not None else None
    if board is None and (why := _unreachable(client, owner, creating=project is None)):
        raise GitHubAuthError(why)
    if board is None and project is not None:
        raise GitHubNotFound(
            f"project #{project} of {owner} not found; check the number in its URL "
            f"(github.com/users/{owner}/projects/N or orgs/{owner}/projects/N), or leave "
            "out --project to create one"
        )
    if board is None:
        owner_id = client.query(q.OWNER, {"login": owner})["repositoryOwner"]["id"]

        def already() -> dict[str, Any] | None:
            found = _by_title(client, owner, title)
            return None if found is None else {"createProjectV2": {"projectV2": {"number": found}}}

        # Linked as it is made, when GitHub lists it under the repository (same owner).
        linked_as_made = owner.casefold() == repository["owner"]["login"].casefold()
        made = client.mutate(
            q.CREATE_PROJECT,
            q.input_of(
                ownerId=owner_id,
                title=title,
                repositoryId=repository["id"] if linked_as_made else None,
            ),
            token="board",
            reconcile=already,
        )
        node = made["createProjectV2"]["projectV2"]
        created_project = True
        # The answer is the board; a creation found by its title (reconciled) is read.
        board = board_from(node) if "id" in node else _project(client, owner, int(node["number"]))
        assert board is not None  # just made
    created, incomplete, board = _ensure_fields(client, board, owner)
    linked, link_warning = False, ""
    try:
        linked = linked_as_made or _link(client, board, repository["id"])
    except GitHubError as exc:
        if owner.casefold() == repository["owner"]["login"].casefold():
            raise
        # GitHub lists only a project of the repository's owner under the repository.
        link_warning = (
            f"could not link {full_name} to project #{board.number} of {owner} ({exc}); "
            "Ralph works without the link"
        )
    default = (repository.get("defaultBranchRef") or {}).get("name") or "main"
    return BoardSetup(
        board, created_project, created, incomplete, linked, owner, default, link_warning, features
    )


def _create_fields(client: GitHubClient, board: Board, owner: str, fields: list[str]) -> Board:
    """The board's missing fields, made in one request (``CreateFields``); a field GitHub
    refused is named. The board with them, as GitHub answered (read again when the
    creation was found after a lost answer)."""
    aliases = {f"field{i}": field for i, field in enumerate(fields)}

    def already() -> dict[str, Any] | None:
        fresh = _project(client, owner, board.number)
        if fresh is None or any(field not in fresh.fields for field in fields):
            return None
        return {alias: {"projectV2Field": None} for alias in aliases}

    parts = tuple(q.create_field_part(alias) for alias in aliases)
    answer = client.mutate_batch(
        q.batch("CreateFields", parts),
        {
            alias: q.input_of(
                projectId=board.project_id,
                dataType="SINGLE_SELECT",
                name=field,
                singleSelectOptions=_options(field),
            )["input"]
            for alias, field in aliases.items()
        },
        token="board",
        reconcile=already,
    )
    if answer.refused:
        alias, why = next(iter(answer.refused.items()))
        raise GitHubInvalid(f'GitHub refused the "{aliases[alias]}" field: {why}')
    nodes = [(answer.data.get(alias) or {}).get("projectV2Field") for alias in aliases]
    if not all(node and "options" in node for node in nodes):
        return _project(client, owner, board.number) or board
    made = {n["name"]: (n["id"], {o["name"]: o["id"] for o in n["options"]}) for n in nodes if n}
    return replace(
        board,
        fields={**board.fields, **made},
        field_names=board.field_names | frozenset(made),
    )


def _ensure_fields(
    client: GitHubClient, board: Board, owner: str
) -> tuple[tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...], Board]:
    """The fields made, those lacking options, and the board with every field."""
    created: list[str] = []
    incomplete: list[tuple[str, tuple[str, ...]]] = []
    # GitHub refuses a second field of the same name; say so rather than try.
    other_type = [f for f in FIELDS if f not in board.fields and f in board.field_names]
    if other_type:
        named = ", ".join(f'"{f}"' for f in other_type)
        raise GitHubInvalid(
            f"project #{board.number} has {named} of another type than single-select; rename "
            "or delete it on the board, then run ralph init again"
        )
    absent = [field for field in FIELDS if field not in board.fields]
    if absent:
        board = _create_fields(client, board, owner, absent)
        created.extend(absent)
    for field in FIELDS:
        existing = board.fields.get(field)
        if existing is None:
            continue
        missing = tuple(name for name, _, _ in FIELDS[field] if name not in existing[1])
        if missing:  # left to a person: see the module docstring
            incomplete.append((field, missing))
    return tuple(created), tuple(incomplete), board


def _link(client: GitHubClient, board: Board, repository_id: str) -> bool:
    data = client.query(q.PROJECT_REPOSITORIES, {"project": board.project_id}, token="board")
    linked = (data.get("node") or {}).get("repositories", {}).get("nodes", [])
    if any(node["id"] == repository_id for node in linked):
        return False
    client.mutate(
        q.LINK_REPOSITORY,
        q.input_of(projectId=board.project_id, repositoryId=repository_id),
        token="board",
    )
    return True


def repository_default_branch(client: GitHubClient, full_name: str) -> str:
    """The branch pull requests of ``full_name`` merge into by default; GitHubNotFound
    saying what to check when the token cannot see the repository (``ralph init
    --linear TEAM --github OWNER/REPO``: GitHub holds only the pull requests)."""
    repository = _repository(client, full_name)
    return (repository.get("defaultBranchRef") or {}).get("name") or "main"


def check_repository(client: GitHubClient, full_name: str) -> list[Check]:
    """What ``ralph doctor`` reports for GitHub as the code host alone (issues
    elsewhere): the token, its repo scope, the repository and what the token may do in
    it. Each failing check says what to do."""
    kind = token_kind(client.tokens.repo).value
    try:
        login, scopes = client.viewer()
    except GitHubAuthError as exc:
        return [Check("token", False, f"GitHub does not accept the {kind} ({exc})")]
    checks = [Check("token", True, f"authenticated as {login} ({kind})")]
    checks.extend(_scope_checks(scopes, ("repo",), "RALPH_GH_TOKEN"))
    try:
        repository = _repository(client, full_name)
    except GitHubError as exc:
        return [*checks, Check("repository", False, str(exc))]
    checks.append(Check("repository", True, repository["nameWithOwner"]))
    # Issues live on the tracker: whether GitHub's are turned on does not matter here.
    checks.extend(c for c in _repository_checks(repository) if c.name != "issues")
    return checks


def check_board(
    client: GitHubClient, full_name: str, *, project: int, project_owner: str = ""
) -> list[Check]:
    """What ``ralph doctor`` reports: the token, its scopes, the repository, the project,
    Ralph's fields and their options. Each failing check says what to do."""
    checks: list[Check] = []
    kind = token_kind(client.tokens.repo).value
    try:
        login, scopes = client.viewer()
    except GitHubAuthError as exc:
        return [Check("token", False, f"GitHub does not accept the {kind} ({exc})")]
    checks.append(Check("token", True, f"authenticated as {login} ({kind})"))
    if client.tokens.split:
        board_kind = token_kind(client.tokens.board).value
        try:
            project_login, project_scopes = client.viewer(token="board")
        except GitHubAuthError as exc:
            return [*checks, Check("project token", False, f"{board_kind} not accepted ({exc})")]
        checks.append(
            Check("project token", True, f"authenticated as {project_login} ({board_kind})")
        )
        checks.extend(_scope_checks(scopes, ("repo",), "RALPH_GH_TOKEN"))
        checks.extend(_scope_checks(project_scopes, ("project",), "RALPH_GH_PROJECT_TOKEN"))
    else:
        checks.extend(_scope_checks(scopes, ("repo", "project"), "RALPH_GH_TOKEN"))
    try:
        repository, features = _repository_and_features(client, full_name)
    except GitHubError as exc:
        return [*checks, Check("repository", False, str(exc))]
    checks.append(Check("repository", True, repository["nameWithOwner"]))
    checks.extend(_repository_checks(repository))
    if client.tokens.split:
        checks.append(_board_token_reaches(client, full_name))
    checks.extend(_feature_checks(features))
    owner = project_owner or repository["owner"]["login"]
    try:
        board = _project(client, owner, project)
        why = _unreachable(client, owner) if board is None else None
    except GitHubError as exc:
        return [*checks, Check("project", False, f"cannot read project #{project}: {exc}")]
    if board is None:
        return [
            *checks,
            Check(
                "project",
                False,
                why
                or f"project #{project} of {owner} not found; check github.project in "
                f"ralph.toml or run `ralph init --github {full_name}` to create one",
            ),
        ]
    checks.append(Check("project", True, f"#{board.number} {board.title} ({board.url})"))
    checks.extend(_board_checks(board, _board_variable(client)))
    checks.append(_workflow_check(client, board))
    for field, options in FIELDS.items():
        found = board.fields.get(field)
        if found is None:
            checks.append(
                Check(
                    f"field {field}",
                    False,
                    f'project #{board.number} has no "{field}" field; run `ralph init --github '
                    f"{full_name} --project {board.number}` to add it",
                )
            )
            continue
        missing = [name for name, _, _ in options if name not in found[1]]
        if missing:
            checks.append(
                Check(
                    f"field {field}",
                    False,
                    f'"{field}" lacks the options {", ".join(missing)}; add them to the '
                    f"field on project #{board.number} (its settings on GitHub)",
                )
            )
        else:
            checks.append(Check(f"field {field}", True, f"{len(options)} options"))
    return checks


#: Repository roles that may push branches and merge pull requests.
_WRITERS = ("ADMIN", "MAINTAIN", "WRITE")


def _repository_checks(repository: dict[str, Any]) -> list[Check]:
    """What the token may do in the repository, whatever its scopes say (a scope is
    not access: the role, SSO, an archived repository decide)."""
    name = repository["nameWithOwner"]
    role = repository.get("viewerPermission") or "NONE"
    checks = [
        Check("repository access", True, f"{role.lower()} (push, open and merge pull requests)")
        if role in _WRITERS
        else Check(
            "repository access",
            False,
            f"the token's role on {name} is {role.lower()}; Ralph needs write access "
            "to push branches and merge pull requests",
        )
    ]
    if repository.get("isArchived"):
        checks.append(
            Check("repository open", False, f"{name} is archived (read-only); unarchive it")
        )
    if repository.get("hasIssuesEnabled") is False:
        checks.append(
            Check(
                "issues",
                False,
                f"issues are turned off for {name}; turn them on in its settings "
                "(General → Features → Issues)",
            )
        )
    else:
        checks.append(Check("issues", True, "enabled"))
    return checks


def _board_token_reaches(client: GitHubClient, full_name: str) -> Check:
    """With split tokens: whether the board's token sees the repository, as it must to
    add the repository's issues to the board (GitHub answers as if a private repository
    it may not read did not exist)."""
    owner, _, name = full_name.partition("/")
    try:
        client.query(q.REPOSITORY, {"owner": owner, "name": name}, token="board")
    except GitHubError:
        return Check(
            "project token repository",
            False,
            f"RALPH_GH_PROJECT_TOKEN cannot see {full_name}; it adds the repository's issues "
            "to the board, so it needs to read them (a classic token: the repo scope for a "
            "private repository; a fine-grained one: the repository, Issues: read)",
        )
    return Check("project token repository", True, f"sees {full_name} (adds its issues)")


def _feature_checks(features: IssueFeatures) -> list[Check]:
    notes = features.notes()
    if not notes:
        return [Check("issue relations", True, "sub-issues and dependencies")]
    return [Check("issue relations", True, note, warning=True) for note in notes]


def _board_checks(board: Board, variable: str) -> list[Check]:
    """Whether the board is open and its token may change it."""
    checks = []
    if board.closed:
        checks.append(Check("project open", False, f"project #{board.number} is closed; reopen it"))
    if board.viewer_can_update:
        checks.append(Check("project access", True, "the token can edit the board"))
    else:
        checks.append(
            Check(
                "project access",
                False,
                f"{variable} cannot edit project #{board.number}; give its user the Write "
                "role on the board (and a classic token the project scope)",
            )
        )
    return checks


#: The built-in workflow that closes an issue when its Status becomes the one it
#: watches for (Done unless a person chose another; GitHub's API does not say which).
AUTO_CLOSE = "Auto-close issue"


def _workflow_check(client: GitHubClient, board: Board) -> Check:
    """Whether the board's own automation could close an issue Ralph is still working:
    Ralph sets Status to Done only for Done and Canceled, so an "Auto-close issue"
    that watches for Done is harmless and one that watches for another Status is not."""
    try:
        data = client.query(q.BOARD_WORKFLOWS, {"project": board.project_id}, token="board")
    except GitHubError as exc:
        return Check("board automations", True, f"cannot read them ({exc})", warning=True)
    nodes = ((data.get("node") or {}).get("workflows") or {}).get("nodes") or []
    on = sorted(node["name"] for node in nodes if node and node["enabled"])
    if AUTO_CLOSE in on:
        return Check(
            "board automations",
            True,
            f'"{AUTO_CLOSE}" is on for project #{board.number}: it closes an issue when its '
            "Status becomes the one it watches for. Ralph sets Status to Done only for Done "
            "and Canceled (In Progress for Human Needed); if it watches for another Status, "
            "set it to Done or turn it off (the board's Settings → Workflows)",
            warning=True,
        )
    return Check(
        "board automations",
        True,
        f"none closes an issue on its Status (on: {', '.join(on) or 'none'})",
    )


def _scope_checks(
    scopes: frozenset[str] | None, needed: tuple[str, ...], variable: str
) -> list[Check]:
    if scopes is None:  # fine-grained and app tokens list no scopes; the reads below tell
        return [Check(f"{variable} scopes", True, "not listed (the access checks below tell)")]
    missing = [s for s in needed if s not in scopes]
    if missing:
        return [
            Check(
                f"{variable} scopes",
                False,
                f"the token lacks the {', '.join(missing)} scope"
                f"{'s' if len(missing) > 1 else ''}; create a token with "
                f"{', '.join(needed)} (and read:org for organisation boards)",
            )
        ]
    return [Check(f"{variable} scopes", True, ", ".join(sorted(scopes)))]
