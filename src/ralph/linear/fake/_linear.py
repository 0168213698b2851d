"""FakeLinear: executes GraphQL documents against Linear's published schema over an
in-memory workspace, answers as Linear does (``extensions.code``/``type`` errors, the
request and complexity budgets in ``X-RateLimit-*`` headers, RATELIMITED as HTTP 400),
can be scripted to fail, and is reachable in memory (it is a Transport) or over HTTP on
127.0.0.1 for other processes."""

from __future__ import annotations

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
    DocumentNode,
    GraphQLError,
    GraphQLSchema,
    build_schema,
    execute_sync,
    parse,
    validate,
)

from ralph._graphql_http import Reply, TransportFailure, serve_graphql
from ralph._published import PathLike, PublishedDefinition
from ralph.linear.fake._limits import LeakyBucket, complexity, rate_limited_body
from ralph.linear.fake._model import (
    STATE_TYPES,
    IssueLabel,
    LinearFault,
    Team,
    User,
    WorkflowState,
    Workspace,
)
from ralph.linear.fake._root import Root

__all__ = ["FakeLinear", "Request", "ScriptedFault", "linear_schema"]

_OPERATION = re.compile(r"^\s*(query|mutation)\s+(\w+)", re.MULTILINE)
#: Linear refuses a single request above this many complexity points.
MAX_COMPLEXITY = 10_000

#: A new team's workflow states, as Linear makes them (name, type).
DEFAULT_STATES = (
    ("Backlog", "backlog"),
    ("Todo", "unstarted"),
    ("In Progress", "started"),
    ("In Review", "started"),
    ("Done", "completed"),
    ("Canceled", "canceled"),
    ("Duplicate", "canceled"),
)


#: Linear's schema is Linear's (MIT), not shipped with Ralph: the fake is pointed at a copy.
LINEAR_SCHEMA = PublishedDefinition(
    needed_by="the fake Linear",
    what="Linear's published GraphQL schema",
    variable="RALPH_LINEAR_SCHEMA",
    origin="schema.graphql from github.com/linear/linear (packages/sdk/src/schema.graphql)",
)


def linear_schema(path: PathLike | None = None) -> GraphQLSchema:
    """Linear's published schema, from ``path`` or ``$RALPH_LINEAR_SCHEMA``."""
    return _linear_schema(LINEAR_SCHEMA.path(path))


@functools.cache
def _linear_schema(path: Path) -> GraphQLSchema:
    try:
        # No source locations: only a query's errors point into their text, and a
        # schema's would be over half its objects for the collector to walk.
        return build_schema(LINEAR_SCHEMA.read(path), assume_valid_sdl=True, no_location=True)
    except (GraphQLError, TypeError) as exc:
        raise LINEAR_SCHEMA.unusable(path, str(exc)) from exc


@functools.lru_cache(maxsize=256)
def _prepared(schema: GraphQLSchema, source: str) -> tuple[DocumentNode | None, tuple[str, ...]]:
    """A document parsed and validated once: the client sends the same few many times."""
    try:
        document = parse(source)
    except GraphQLError as exc:
        return None, (exc.message,)
    return document, tuple(e.message for e in validate(schema, document))


@dataclass(frozen=True)
class ScriptedFault:
    """One scripted misbehaviour, used by the first request it matches.

    ``match``: an operation name (``CreateIssue``), ``query``, ``mutation`` or ``any``.
    ``after``: run the request first, then answer with this fault (the write happened,
    the client cannot know). ``transport``: drop the connection instead of answering."""

    match: str = "any"
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    after: bool = False
    transport: bool = False
    #: For a RATELIMITED answer: the requests budget shows empty, refilled in this long.
    retry_in: float | None = None

    def matches(self, name: str, mutation: bool) -> bool:
        return self.match in ("any", name, "mutation" if mutation else "query")

    @classmethod
    def server_error(cls, match: str = "any", status: int = 500) -> ScriptedFault:
        """A 5xx before anything ran."""
        return cls(match, status=status, body={"errors": [{"message": "Internal server error"}]})

    @classmethod
    def dropped_after_write(cls, match: str = "mutation") -> ScriptedFault:
        """The request runs (a mutation is applied), then the connection drops."""
        return cls(match, after=True, transport=True)

    @classmethod
    def dropped(cls, match: str = "any") -> ScriptedFault:
        """The connection drops before anything ran."""
        return cls(match, transport=True)

    @classmethod
    def rate_limited(cls, match: str = "any", *, retry_in: float = 0.0) -> ScriptedFault:
        """A RATELIMITED answer (HTTP 400) whose requests budget resets in
        ``retry_in`` seconds (the headers are filled in when it is sent)."""
        return cls(match, status=400, body=rate_limited_body(), retry_in=retry_in)


@dataclass(frozen=True)
class Request:
    name: str
    mutation: bool
    at: float
    #: The HTTP status the client got (0 for a dropped connection).
    status: int
    complexity: int = 0
    variables: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class _Key:
    user: User
    oauth: bool
    requests: LeakyBucket
    complexity: LeakyBucket


class FakeLinear:
    """A Linear workspace for tests and demos. ``post`` is the Transport; ``serve`` puts
    it on HTTP (where the Authorization header is checked as Linear does)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        requests_per_hour: int = 5000,
        complexity_per_hour: int = 250_000,
        max_complexity: int = MAX_COMPLEXITY,
        refuse_cycles: bool = False,
        schema: PathLike | None = None,
    ) -> None:
        """The budgets are an API key's (Linear's rate-limiting documentation: 5,000
        requests and 250,000 complexity points an hour, 10,000 points a request).
        ``refuse_cycles``: refuse a blocking relation that closes a cycle (Linear's
        own behaviour is not documented; by default only duplicates are refused).
        ``schema``: a copy of Linear's published schema (default ``$RALPH_LINEAR_SCHEMA``)."""
        self.clock = clock
        self.schema = linear_schema(schema)
        self.workspace = Workspace(clock)
        self.root = Root(self.workspace, refuse_cycles=refuse_cycles)
        self.requests_per_hour = requests_per_hour
        self.complexity_per_hour = complexity_per_hour
        self.max_complexity = max_complexity
        self.keys: dict[str, _Key] = {}
        self.faults: list[ScriptedFault] = []
        self.requests: list[Request] = []
        #: Exceptions raised inside resolvers: bugs of the fake, which tests should see.
        self.internal_errors: list[BaseException] = []
        self._meter = threading.Lock()

    # -- seeding the workspace ---------------------------------------------------------------

    def add_user(self, name: str, email: str | None = None) -> User:
        with self.workspace.lock:
            user = User(
                self.workspace.new_id(),
                name,
                name.split()[0].lower(),
                email or f"{name.split()[0].lower()}@example.com",
            )
            self.workspace.users.append(user)
            return user

    def add_token(self, token: str, user: User | str, *, oauth: bool = False) -> User:
        """An API key (or with ``oauth``, an access token) acting as ``user`` (a user or
        a new user's name); each key has its own budgets."""
        with self.workspace.lock:
            holder = self.add_user(user) if isinstance(user, str) else user
            self.keys[token] = _Key(
                holder,
                oauth,
                LeakyBucket(self.requests_per_hour, self.clock),
                LeakyBucket(self.complexity_per_hour, self.clock),
            )
            return holder

    def add_team(
        self,
        key: str,
        name: str,
        estimates: str = "tShirt",
        *,
        extended: bool = False,
        allow_zero: bool = False,
        states: tuple[tuple[str, str], ...] = DEFAULT_STATES,
        members: tuple[User, ...] = (),
    ) -> Team:
        """A team with Linear's default workflow states and an estimate scale
        (``exponential``, ``fibonacci``, ``linear``, ``tShirt`` or ``notUsed``)."""
        with self.workspace.lock:
            team = Team(self.workspace.new_id(), key.upper(), name, estimates, extended, allow_zero)
            for position, (state_name, kind) in enumerate(states):
                assert kind in STATE_TYPES, kind
                team.state_list.append(
                    WorkflowState(
                        self.workspace.new_id(), state_name, kind, float(position), "#bec2c8", team
                    )
                )
            team.member_list.extend(members or self.workspace.users)
            self.workspace.teams.append(team)
            return team

    def add_label(self, name: str, team: Team | None = None) -> IssueLabel:
        with self.workspace.lock:
            label = IssueLabel(self.workspace.new_id(), name, "#bec2c8", team)
            (team.label_list if team is not None else self.workspace.labels).append(label)
            return label

    def script(self, *faults: ScriptedFault) -> None:
        with self._meter:
            self.faults.extend(faults)

    def drain(
        self, token: str, *, requests: float | None = None, complexity: float | None = None
    ) -> None:
        """Set what is left of a key's budgets (a test reaching the limit quickly)."""
        key = self.keys[token]
        with self.workspace.lock:
            if requests is not None:
                key.requests.refill()
                key.requests.level = requests
            if complexity is not None:
                key.complexity.refill()
                key.complexity.level = complexity

    # -- the Transport -----------------------------------------------------------------------

    def post(self, payload: Mapping[str, Any], token: str) -> Reply:
        """Answer ``payload`` sent with ``token`` (the key itself, as in memory)."""
        source = str(payload.get("query", ""))
        found = _OPERATION.search(source)
        mutation = bool(found and found.group(1) == "mutation")
        name = found.group(2) if found else "anonymous"
        variables = dict(payload.get("variables") or {})
        status = 0
        cost = 0
        try:
            reply, cost = self._answer(source, variables, token, name, mutation)
            status = reply.status
            return reply
        finally:
            with self._meter:
                self.requests.append(Request(name, mutation, self.clock(), status, cost, variables))

    def close(self) -> None:
        """A Transport's close: the workspace stays for the next client."""

    def _take_fault(self, name: str, mutation: bool) -> ScriptedFault | None:
        with self._meter:
            for fault in self.faults:
                if fault.matches(name, mutation):
                    self.faults.remove(fault)
                    return fault
        return None

    def _answer(
        self, source: str, variables: dict[str, Any], token: str, name: str, mutation: bool
    ) -> tuple[Reply, int]:
        fault = self._take_fault(name, mutation)
        key = self.keys.get(token)
        if fault is not None and not fault.after:
            if fault.transport:
                raise TransportFailure("connection reset by the fake")
            return self._scripted(fault, key), 0
        if key is None:
            return _refusal(
                400, "AUTHENTICATION_ERROR", "Authentication required, not authenticated"
            ), 0
        with self.workspace.lock:
            reply, cost = self._execute(source, variables, key)
        if fault is not None and fault.transport:
            raise TransportFailure("connection reset by the fake after the request ran")
        if fault is not None:
            return self._scripted(fault, key), cost
        return reply, cost

    def _execute(self, source: str, variables: dict[str, Any], key: _Key) -> tuple[Reply, int]:
        document, problems = _prepared(self.schema, source)
        if problems:
            code = "GRAPHQL_PARSE_FAILED" if document is None else "GRAPHQL_VALIDATION_FAILED"
            return _refusal(400, code, "; ".join(problems), self._headers(key)), 0
        assert document is not None
        cost = complexity(self.schema, document, variables)
        if cost > self.max_complexity:
            message = f"Query too complex: {cost} points, the limit is {self.max_complexity}"
            return _refusal(400, "INVALID_INPUT", message, self._headers(key)), cost
        if not key.requests.has(1) or not key.complexity.has(cost):
            return Reply(400, self._headers(key, cost), rate_limited_body()), cost
        key.requests.take(1)
        key.complexity.take(cost)
        result = execute_sync(
            self.schema,
            document,
            root_value=self.root,
            context_value={"user": key.user},
            variable_values=variables,
        )
        body: dict[str, Any] = {"data": _as_javascript_sends(result.data)}
        status = 200
        if result.errors:
            body["errors"] = [self._error(e) for e in result.errors]
            # Linear answers a refused request as a whole with 400; data beside errors: 200.
            if not result.data or all(v is None for v in result.data.values()):
                status = 400
        return Reply(status, self._headers(key, cost), body), cost

    def _error(self, error: GraphQLError) -> dict[str, Any]:
        formatted: dict[str, Any] = dict(error.formatted)
        original = error.original_error
        if isinstance(original, LinearFault):
            fault = original
        elif original is not None:
            self.internal_errors.append(original)
            fault = LinearFault("Internal server error", "INTERNAL_ERROR")
        else:
            fault = LinearFault(error.message, "GRAPHQL_VALIDATION_FAILED")
        formatted["message"] = str(fault)
        formatted["extensions"] = {
            "code": fault.code,
            "type": fault.type,
            "userError": fault.code == "INVALID_INPUT",
            "userPresentableMessage": fault.shown,
        }
        return formatted

    def _scripted(self, fault: ScriptedFault, key: _Key | None) -> Reply:
        headers = dict(fault.headers)
        if key is not None:
            headers = {**self._headers(key), **headers}
        if fault.retry_in is not None:
            reset = str(int((self.clock() + fault.retry_in) * 1000))
            headers.update(
                {"x-ratelimit-requests-remaining": "0", "x-ratelimit-requests-reset": reset}
            )
        return Reply(fault.status, headers, fault.body)

    def _headers(self, key: _Key, cost: int | None = None) -> dict[str, str]:
        headers = {"content-type": "application/json; charset=utf-8"}
        headers.update(key.requests.headers("requests"))
        headers.update(key.complexity.headers("complexity"))
        if cost is not None:
            headers["x-complexity"] = str(cost)
        return headers

    # -- over HTTP ---------------------------------------------------------------------------

    def answer_http(self, payload: Mapping[str, Any], authorization: str) -> Reply:
        """Answer as Linear's endpoint does, reading the key from the header: an API key
        bare, an OAuth token after ``Bearer``; a key sent as a bearer token is refused."""
        scheme, _, rest = authorization.partition(" ")
        bearer = scheme.lower() == "bearer" and bool(rest)
        token = rest if bearer else authorization
        key = self.keys.get(token)
        if key is not None and key.oauth != bearer:
            message = (
                "Remove the Bearer prefix from the Authorization header."
                if not key.oauth
                else "Send the OAuth access token as a Bearer token."
            )
            return _refusal(400, "AUTHENTICATION_ERROR", message)
        return self.post(payload, token)

    @contextmanager
    def serve(self, port: int = 0) -> Iterator[str]:
        """Serve on 127.0.0.1 (``port``; 0: any free one) for the ``with`` block; yields
        the GraphQL URL (what ``RALPH_LINEAR_API_URL`` takes)."""
        with serve_graphql(self.answer_http, "fake-linear", port=port) as url:
            yield url


def _refusal(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> Reply:
    body = {
        "data": None,
        "errors": [
            {
                "message": message,
                "extensions": {
                    "code": code,
                    "type": code.lower().replace("_", " "),
                    "userError": True,
                    "userPresentableMessage": message,
                },
            }
        ],
    }
    return Reply(status, dict(headers or {}), body)


def _as_javascript_sends(value: Any) -> Any:
    """``value`` with every whole Float as an integer, as Linear's JSON has it (it is
    written by JavaScript, which has one kind of number): ``number`` 12, not 12.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _as_javascript_sends(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_javascript_sends(v) for v in value]
    return value
