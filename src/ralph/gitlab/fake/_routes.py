"""How the fake GitLab finds the code that answers a request: a table of (method, path
template) -> handler that each part of the fake fills (issues here, merge requests in
``_merge_requests``), the call a handler gets, GitLab's error answers, and its offset
pagination."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlencode

from ralph._rest_http import Reply, RestRequest

if TYPE_CHECKING:
    from ralph.gitlab.fake._fake import FakeGitLab
    from ralph.gitlab.fake._state import Project, State, User

__all__ = ["Call", "Fault", "Handler", "Routes", "paginate"]

#: GitLab's page when none is asked for, and the most it gives.
DEFAULT_PER_PAGE = 20
MAX_PER_PAGE = 100

_PART = re.compile(r"\{([^}/]+)\}")


class Fault(Exception):
    """GitLab's refusal: ``status`` and its JSON body (``{"message": ...}`` by default,
    Grape's ``{"error": ...}`` for a bad parameter)."""

    def __init__(self, status: int, message: Any, *, key: str = "message") -> None:
        super().__init__(f"{status} {message}")
        self.status = status
        self.body = {key: message}

    @classmethod
    def not_found(cls, what: str = "Not found") -> Fault:
        return cls(404, f"404 {what}")

    @classmethod
    def bad(cls, message: str) -> Fault:
        """A missing or malformed parameter, as Grape words it."""
        return cls(400, message, key="error")


@dataclass
class Call:
    """One request as a handler sees it: the decoded path values, the caller, the fake."""

    request: RestRequest
    params: dict[str, str]
    user: User
    fake: FakeGitLab
    #: Where the answer's headers go (pagination, Location...).
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def state(self) -> State:
        return self.fake.state

    @property
    def body(self) -> dict[str, Any]:
        body = self.request.body
        return body if isinstance(body, dict) else {}

    def query(self, name: str, default: str | None = None) -> str | None:
        return self.request.param(name, default)

    def query_list(self, name: str) -> list[str]:
        """A list parameter, as GitLab reads one: ``name[]`` repeated or ``name`` comma
        separated."""
        values = [v for k, v in self.request.query if k in (name, name + "[]")]
        return [part for value in values for part in value.split(",") if part]

    def project(self) -> Project:
        """The project ``{id}`` names, which the caller may see; 404 otherwise."""
        project = self.state.project(self.params["id"])
        if project is None or (project.members and self.user not in project.members):
            raise Fault.not_found("Project Not Found")
        return project

    def integer(self, name: str) -> int:
        try:
            return int(self.params[name])
        except (KeyError, ValueError):
            raise Fault.bad(f"{name} is invalid") from None


#: A handler answers a call: the JSON body (status 200, or 201 for a POST), or a Reply.
Handler = Callable[[Call], Any]


class Routes:
    """(method, template) -> handler; templates carry ``/api/v4`` and ``{names}``."""

    def __init__(self) -> None:
        self._table: list[tuple[str, re.Pattern[str], str, list[str], Handler]] = []

    def add(self, method: str, template: str, handler: Handler) -> None:
        """Answer ``method template`` with ``handler``, in place of an earlier one."""
        self._table = [e for e in self._table if (e[0], e[2]) != (method.upper(), template)]
        names = _PART.findall(template)
        literals = _PART.split(template)[::2]
        pattern = re.compile("^" + "([^/]+)".join(map(re.escape, literals)) + "$")
        self._table.append((method.upper(), pattern, template, names, handler))
        # The most literal template first, as GitLab's router matches.
        self._table.sort(key=lambda e: -(e[2].count("/") * 2 - len(e[3])))

    def find(self, method: str, path: str) -> tuple[Handler, dict[str, str]] | None:
        for verb, pattern, _template, names, handler in self._table:
            if verb != method.upper():
                continue
            match = pattern.match(path)
            if match:
                return handler, {n: unquote(v) for n, v in zip(names, match.groups(), strict=True)}
        return None

    def templates(self) -> list[tuple[str, str]]:
        return [(verb, template) for verb, _p, template, _n, _h in self._table]


def paginate(call: Call, items: Sequence[Any]) -> list[Any]:
    """One page of ``items`` as GitLab's offset pagination gives it, its headers
    (``x-page``, ``x-next-page``, ``x-total``, ``Link``...) set on ``call``. A
    ``per_page`` over 100 is cut to 100, as GitLab does (and noted as a warning: a
    client that asked for more would silently miss items)."""
    try:
        per_page = int(call.query("per_page") or DEFAULT_PER_PAGE)
        page = int(call.query("page") or 1)
    except ValueError:
        raise Fault.bad("per_page is invalid") from None
    if per_page > MAX_PER_PAGE:
        call.fake.warnings.append(f"per_page={per_page} over GitLab's {MAX_PER_PAGE}: cut")
    per_page = min(max(per_page, 1), MAX_PER_PAGE)
    page = max(page, 1)
    total = len(items)
    pages = max(math.ceil(total / per_page), 1)
    chunk = list(items[(page - 1) * per_page : page * per_page])
    nxt = str(page + 1) if page < pages else ""
    prev = str(page - 1) if page > 1 else ""

    def link(number: int) -> str:
        query = [(k, v) for k, v in call.request.query if k != "page"] + [("page", str(number))]
        return f"<{call.fake.base_url}{call.request.path}?{urlencode(query)}>"

    links = []
    if nxt:
        links.append(f'{link(page + 1)}; rel="next"')
    if prev:
        links.append(f'{link(page - 1)}; rel="prev"')
    links += [f'{link(1)}; rel="first"', f'{link(pages)}; rel="last"']
    call.headers.update(
        {
            "x-page": str(page),
            "x-per-page": str(per_page),
            "x-next-page": nxt,
            "x-prev-page": prev,
            "x-total": str(total),
            "x-total-pages": str(pages),
            "link": ", ".join(links),
        }
    )
    return chunk


def reply_of(call: Call, result: Any) -> Reply:
    if isinstance(result, Reply):
        return result
    status = 201 if call.request.method == "POST" else 200
    return Reply(status, dict(call.headers), result)
