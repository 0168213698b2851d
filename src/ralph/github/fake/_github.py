"""FakeGitHub: executes GraphQL documents against GitHub's published schema over the
in-memory world, answers like GitHub (errors with a ``type``, rate-limit headers,
``x-oauth-scopes``), can be scripted to fail, and is reachable in memory (it is a
Transport) or over HTTP on 127.0.0.1 for other processes."""

from __future__ import annotations

import dataclasses
import functools
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphql import (
    DefinitionNode,
    DocumentNode,
    ExecutionResult,
    GraphQLError,
    GraphQLSchema,
    InputObjectTypeDefinitionNode,
    ObjectTypeDefinitionNode,
    build_ast_schema,
    execute_sync,
    parse,
    validate,
)

from ralph._graphql_http import Reply, TransportFailure, serve_graphql
from ralph._published import PathLike, PublishedDefinition
from ralph.errors import ConfigError
from ralph.github._tokens import token_kind
from ralph.github.fake._board import Team, View
from ralph.github.fake._limits import (
    RESOURCE_LIMITS_EXCEEDED,
    ContentThrottle,
    nodes_in,
    primary_points,
    too_quickly,
)
from ralph.github.fake._model import (
    GraphQLFault,
    Issue,
    ProjectV2,
    Repository,
    TokenHolder,
    World,
)
from ralph.github.fake._pulls import BASE_MODIFIED, NOT_MERGEABLE
from ralph.github.fake._queue import run_due
from ralph.github.fake._root import Root
from ralph.github.fake._scripting import PullRequestScripting

__all__ = ["FakeGitHub", "Request", "ScriptedFault", "github_schema"]

_OPERATION = re.compile(r"^\s*(query|mutation)\s+(\w+)", re.MULTILINE)
HOUR = 3600.0


#: What a GitHub Enterprise Server before 3.16 lacks of sub-issues: type -> fields.
_SUB_ISSUE_FIELDS = {
    "Issue": {"parent", "subIssues", "subIssuesSummary"},
    "Mutation": {"addSubIssue", "removeSubIssue", "reprioritizeSubIssue"},
    "CreateIssueInput": {"parentIssueId"},
}


#: What a GitHub Enterprise Server without project status updates lacks: type -> fields.
_STATUS_UPDATE_FIELDS = {
    "ProjectV2": {"statusUpdates"},
    "Mutation": {
        "createProjectV2StatusUpdate",
        "updateProjectV2StatusUpdate",
        "deleteProjectV2StatusUpdate",
    },
}


#: GitHub's schema is GitHub's (MIT), not shipped with Ralph: the fake is pointed at a copy.
#: Issue dependencies are not in it yet: an extension adding them as GitHub documents
#: them is read from beside it.
GITHUB_SCHEMA = PublishedDefinition(
    needed_by="the fake GitHub",
    what="GitHub's published GraphQL schema",
    variable="RALPH_GITHUB_SCHEMA",
    origin=(
        "schema.graphql from the npm package @octokit/graphql-schema (15.26.1),"
        " with the issue-dependencies extension (issue-dependencies.graphql) beside it"
    ),
)
DEPENDENCIES_EXTENSION = "issue-dependencies.graphql"


def github_schema(
    path: PathLike | None = None,
    *,
    dependencies: bool = True,
    sub_issues: bool = True,
    status_updates: bool = True,
) -> GraphQLSchema:
    """GitHub's published schema, from ``path`` or ``$RALPH_GITHUB_SCHEMA``, plus the
    issue-dependencies extension beside it; less any of them for a GitHub Enterprise
    Server that lacks it."""
    return _schema(GITHUB_SCHEMA.path(path), dependencies, sub_issues, status_updates)


@functools.cache
def _schema(
    path: Path, dependencies: bool, sub_issues: bool, status_updates: bool
) -> GraphQLSchema:
    document = _published_sdl(path)
    if dependencies:
        extension = _dependencies_sdl(path.parent / DEPENDENCIES_EXTENSION).definitions
        document = dataclasses.replace(document, definitions=(*document.definitions, *extension))
    if not sub_issues:
        document = _without(document, _SUB_ISSUE_FIELDS)
    if not status_updates:
        document = _without(document, _STATUS_UPDATE_FIELDS)
    try:
        schema = build_ast_schema(document, assume_valid_sdl=True)
    except TypeError as exc:  # a type used but never defined: not GitHub's whole schema
        raise GITHUB_SCHEMA.unusable(path, str(exc)) from exc
    # The published SDL trips graphql-core's strict self-check (deprecated interface
    # fields); it is GitHub's schema as served, so skip the check.
    schema._validation_errors = []
    return schema


@functools.cache
def _published_sdl(path: Path) -> DocumentNode:
    """GitHub's schema parsed, once for every variant built from it (a parse is half a
    build)."""
    return _parsed(path)


@functools.cache
def _dependencies_sdl(path: Path) -> DocumentNode:
    if not path.is_file():
        raise ConfigError(f"{path} is missing; {GITHUB_SCHEMA.advice()}")
    return _parsed(path)


def _parsed(path: Path) -> DocumentNode:
    try:
        # No source locations: only a query's errors point into their text, and a
        # schema's would be over half its objects for the collector to walk.
        return parse(GITHUB_SCHEMA.read(path), no_location=True)
    except GraphQLError as exc:
        raise GITHUB_SCHEMA.unusable(path, exc.message) from exc


def _without(document: DocumentNode, left_out: Mapping[str, set[str]]) -> DocumentNode:
    """``document`` with the named fields taken out of their types."""
    definitions: list[DefinitionNode] = []
    for definition in document.definitions:
        if (
            isinstance(definition, ObjectTypeDefinitionNode | InputObjectTypeDefinitionNode)
            and definition.name.value in left_out
        ):
            gone = left_out[definition.name.value]
            kept = tuple(f for f in definition.fields or () if f.name.value not in gone)
            definition = dataclasses.replace(definition, fields=kept)  # type: ignore[arg-type]
        definitions.append(definition)
    return dataclasses.replace(document, definitions=tuple(definitions))


@dataclass(frozen=True)
class ScriptedFault:
    """One scripted misbehaviour, used by the first request it matches.

    ``match``: an operation name (``CreateIssue``), ``query``, ``mutation`` or ``any``.
    ``after``: run the request first, then answer with this fault (the write happened,
    the client cannot know). ``transport``: drop the connection instead of answering.
    ``partial``: answer the real data with this fault's ``errors`` beside it."""

    match: str = "any"
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    after: bool = False
    transport: bool = False
    partial: bool = False

    def matches(self, name: str, mutation: bool) -> bool:
        return self.match in ("any", name, "mutation" if mutation else "query")

    @classmethod
    def submitted_too_quickly(cls, operation: str) -> ScriptedFault:
        """GitHub's content-creation throttle on ``operation`` (``CreateIssue``...), as
        GraphQL sends it: HTTP 200, the field null, UNPROCESSABLE "was submitted too
        quickly"; nothing is created."""
        return cls(operation, body=too_quickly(operation[0].lower() + operation[1:]))

    @classmethod
    def base_branch_modified(cls) -> ScriptedFault:
        """``mergePullRequest`` refused because the base moved under it (transient:
        GitHub asks to try again; nothing was merged)."""
        return cls("MergePullRequest", body=_refused("mergePullRequest", BASE_MODIFIED))

    @classmethod
    def merged_but_not_mergeable(cls) -> ScriptedFault:
        """``mergePullRequest`` merges, then answers "not mergeable" (seen on GitHub,
        strands-labs/robots#2251)."""
        return cls("MergePullRequest", body=_refused("mergePullRequest", NOT_MERGEABLE), after=True)

    @classmethod
    def resource_limits(cls, operation: str) -> ScriptedFault:
        """GitHub stopping ``operation`` for reading too much (nothing comes back)."""
        return cls(operation, body=RESOURCE_LIMITS_EXCEEDED)


@dataclass(frozen=True)
class Request:
    name: str
    mutation: bool
    started: float
    finished: float
    #: The HTTP status the client got (0 for a dropped connection).
    status: int
    variables: Mapping[str, Any] = field(default_factory=dict)


class FakeGitHub(PullRequestScripting):
    """A GitHub for tests and demos. ``post`` is the Transport; ``serve`` puts it on HTTP;
    the scripting of pull requests (protection, CI, reviews, queues) is the mixin's."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        points: int = 5000,
        content_per_minute: int | None = None,
        node_limit: int | None = None,
        dependencies: bool = True,
        sub_issues: bool = True,
        status_updates: bool = True,
        schema: PathLike | None = None,
    ) -> None:
        """``content_per_minute``: throttle content creation as GitHub does when it
        finds it too quick; ``node_limit``: refuse queries whose answer holds more
        objects, as GitHub's resource limits do; ``dependencies``, ``sub_issues``,
        ``status_updates`` (a board's): False for a GitHub Enterprise Server without them
        (not in its schema). ``schema``: a copy of GitHub's published schema (default
        ``$RALPH_GITHUB_SCHEMA``)."""
        self.clock = clock
        self.schema = github_schema(
            schema,
            dependencies=dependencies,
            sub_issues=sub_issues,
            status_updates=status_updates,
        )
        self.world = World(clock=clock)
        self.root = Root(self.world)
        if content_per_minute is not None:
            self.root.throttle = ContentThrottle(clock, content_per_minute)
        self.node_limit = node_limit
        self.faults: list[ScriptedFault] = []
        self.requests: list[Request] = []
        self.points = points
        self.remaining = points
        self.reset_at = clock() + HOUR
        self._in_flight_mutations = 0
        self.max_mutations_in_flight = 0
        #: Exceptions raised inside resolvers: bugs of the fake, which tests should see.
        self.internal_errors: list[BaseException] = []
        self._meter = threading.Lock()

    # -- setting the world up -------------------------------------------------------------

    def add_token(self, token: str, login: str, scopes: str = "repo, project, read:org") -> None:
        """A token acting as ``login``. Its kind is its prefix's, as on GitHub: one that
        lists no scopes (``github_pat_``, ``ghs_``, ``ghu_``) ignores ``scopes`` and
        may do what its permissions allow (all of it here, but a user's boards)."""
        self.world.account(login)
        kind = token_kind(token)
        listed = frozenset(s.strip() for s in scopes.split(",") if s.strip())
        self.world.tokens[token] = TokenHolder(login, listed if kind.lists_scopes else None, kind)

    def add_repository(
        self,
        full_name: str,
        *,
        git_path: Path | None = None,
        organization: bool = False,
        private: bool = False,
    ) -> Repository:
        owner_login, name = full_name.split("/")
        with self.world.lock:
            owner = self.world.account(owner_login, organization=organization)
            repository = Repository(owner, name, git_path)
            repository.isPrivate = private
            self.world.repositories[full_name.lower()] = repository
            return repository

    def add_project(self, owner: str, title: str) -> ProjectV2:
        with self.world.lock:
            account = self.world.account(owner)
            project = ProjectV2(account, len(account.projects) + 1, title)
            account.projects.append(project)
            return project

    def add_view(
        self, project: ProjectV2, name: str, *, layout: str = "TABLE_LAYOUT", filter: str = ""
    ) -> View:
        """A view a person made on the board (GitHub's API cannot make one)."""
        with self.world.lock:
            view = View(project, name, layout, filter)
            project.view_list.append(view)
            return view

    def add_team(self, organization: str, slug: str) -> Team:
        with self.world.lock:
            team = Team(self.world.account(organization, organization=True), slug)
            team.organization.team_list.append(team)
            return team

    def add_issue(self, full_name: str, title: str, *, author: str = "someone") -> Issue:
        """An issue a person opened on ``full_name`` (not through Ralph)."""
        with self.world.lock:
            repository = self.repository(full_name)
            issue = Issue(repository, repository.next_number(), title, "", author)
            repository.issue_list.append(issue)
            return issue

    def script(self, *faults: ScriptedFault) -> None:
        self.faults.extend(faults)

    # -- the Transport ---------------------------------------------------------------------

    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        source = str(payload.get("query", ""))
        found = _OPERATION.search(source)
        mutation = bool(found and found.group(1) == "mutation")
        name = found.group(2) if found else "anonymous"
        started = self.clock()
        with self._meter:
            self._in_flight_mutations += mutation
            self.max_mutations_in_flight = max(
                self.max_mutations_in_flight, self._in_flight_mutations
            )
        status = 0
        try:
            reply = self._answer(source, payload, token, name, mutation)
            status = reply.status
            return reply
        finally:
            with self._meter:
                self._in_flight_mutations -= mutation
                variables = dict(payload.get("variables") or {})
                finished = self.clock()
                self.requests.append(Request(name, mutation, started, finished, status, variables))

    def _take_fault(self, name: str, mutation: bool) -> ScriptedFault | None:
        with self._meter:
            for fault in self.faults:
                if fault.matches(name, mutation):
                    self.faults.remove(fault)
                    return fault
        return None

    def _answer(
        self, source: str, payload: Mapping[str, Any], token: str, name: str, mutation: bool
    ) -> Reply:
        fault = self._take_fault(name, mutation)
        if fault is not None and not (fault.after or fault.partial):
            if fault.transport:
                raise TransportFailure("connection reset by the fake")
            return Reply(fault.status, self._headers(token, fault.headers), fault.body)
        account = self.world.tokens.get(token)
        if account is None:
            return Reply(
                401,
                {},
                {
                    "message": "Bad credentials",
                    "documentation_url": "https://docs.github.com/graphql",
                },
            )
        body = self._execute(source, payload.get("variables") or {}, account)
        limit = self.node_limit
        if not mutation and limit is not None and nodes_in(body.get("data")) > limit:
            body = RESOURCE_LIMITS_EXCEEDED
        if fault is not None and fault.transport:
            raise TransportFailure("connection reset by the fake after the write")
        if fault is not None and fault.partial:
            body = {**body, "errors": [*(body.get("errors") or []), *fault.body["errors"]]}
            return Reply(200, self._headers(token), body)
        if fault is not None:
            return Reply(fault.status, self._headers(token, fault.headers), fault.body)
        return Reply(200, self._headers(token), body)

    def _execute(
        self, source: str, variables: Mapping[str, Any], account: TokenHolder
    ) -> dict[str, Any]:
        with self.world.lock, self.world.one_instant():
            document, problems = _prepared(self.schema, source)
            self._spend(primary_points(document, variables))  # GitHub's formula
            self.world.serial += 1
            run_due(self.world)
            result = (
                ExecutionResult(data=None, errors=list(problems))
                if problems
                else execute_sync(
                    self.schema,
                    document,
                    root_value=self.root,
                    context_value={
                        "login": account.login,
                        "scopes": account.scopes,
                        "kind": account.kind,
                    },
                    variable_values=dict(variables),
                    type_resolver=_type_of,
                )
            )
        body: dict[str, Any] = {"data": result.data}
        if result.errors:
            body["errors"] = [_github_error(error) for error in result.errors]
            self.internal_errors.extend(
                e.original_error
                for e in result.errors
                if e.original_error is not None and not isinstance(e.original_error, GraphQLFault)
            )
        return body

    def close(self) -> None:
        """A Transport's close: the world stays for the next client."""

    # -- rate limits -----------------------------------------------------------------------

    def _spend(self, cost: int) -> None:
        if self.clock() >= self.reset_at:
            self.remaining, self.reset_at = self.points, self.clock() + HOUR
        self.remaining = max(self.remaining - cost, 0)

    def _headers(self, token: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {
            "content-type": "application/json; charset=utf-8",
            "x-ratelimit-limit": str(self.points),
            "x-ratelimit-remaining": str(self.remaining),
            "x-ratelimit-used": str(self.points - self.remaining),
            "x-ratelimit-reset": str(int(self.reset_at)),
            "x-ratelimit-resource": "graphql",
        }
        account = self.world.tokens.get(token)
        if account is not None:  # empty for tokens that list no scopes, as gh CLI sees
            headers["x-oauth-scopes"] = ", ".join(sorted(account.scopes or ()))
        headers.update({k.lower(): v for k, v in (extra or {}).items()})
        return headers

    # -- over HTTP -------------------------------------------------------------------------

    @contextmanager
    def serve(self) -> Iterator[str]:
        """Serve on 127.0.0.1 for the ``with`` block; yields the GraphQL URL."""

        def answer(payload: Any, authorization: str) -> Reply:
            return self.post(payload, authorization.partition(" ")[2])

        with serve_graphql(answer, "fake-github") as url:
            yield url


@functools.lru_cache(maxsize=256)
def _prepared(schema: GraphQLSchema, source: str) -> tuple[DocumentNode, tuple[GraphQLError, ...]]:
    """A document parsed and validated once: clients send the same few many times, and
    parsing and validating cost more than most answers (a syntax error raises, as before)."""
    document = parse(source)
    return document, tuple(validate(schema, document))


def _refused(field: str, message: str) -> dict[str, Any]:
    """A 200 whose mutation ``field`` GitHub refused with ``message``."""
    return {
        "data": {field: None},
        "errors": [{"type": "UNPROCESSABLE", "path": [field], "message": message}],
    }


def _type_of(value: Any, info: Any, abstract: Any) -> str | None:
    if isinstance(value, Mapping):
        return value.get("__typename")
    return getattr(value, "typename", None) or None


def _github_error(error: Any) -> dict[str, Any]:
    formatted: dict[str, Any] = dict(error.formatted)
    original = error.original_error
    if isinstance(original, GraphQLFault):
        formatted["type"] = original.kind
    elif original is not None:
        formatted["message"] = "Something went wrong while executing your query."
    return formatted
