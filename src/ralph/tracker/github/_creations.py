"""The GitHub tracker's new issues: one alone (``CreateIssue``, ``AddProjectItem``, its
fields), or several together (``CreateIssues``, ``AddProjectItems``: two requests for a
split's children, not two each).

Each creation carries an operation marker. A lost answer is looked for by the markers
before anything is sent again: when all landed they are taken, when none did the batch
is sent again, and when only some did, those are taken and the others are made alone,
so no issue is made twice.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ralph._secrets import redact
from ralph._text import check_title, one_line
from ralph.errors import GitHubError, GitHubInvalid
from ralph.github import BatchAnswer, marker, strip_markers
from ralph.github import queries as q
from ralph.tracker._board_fields import ESTIMATE, PRIORITY, WORKFLOW_STATE
from ralph.tracker._fields import check_labels
from ralph.tracker._model import Issue, NewIssue
from ralph.tracker.github._moves import GitHubMoves
from ralph.tracker.github._read import epoch
from ralph.workflow import Estimate, Priority, WorkflowState

__all__ = ["GitHubCreations"]

logger = logging.getLogger(__name__)

#: How many of the newest issues a lost write's markers are looked for in: its own (at
#: most ten a batch) and what others made while it was retried, at GitHub's pace for
#: content (about 80 a minute).
_MARKER_LOOKBACK = 200


class _PartlyMade(GitHubError):
    """A lost batch of creations of which only some landed (found by their markers)."""

    def __init__(self, found: dict[str, Any]) -> None:
        super().__init__("some of the issues were made")
        self.found = found


@dataclass(frozen=True)
class _Creation:
    """One issue to make, as sent: its marker and its body as stored."""

    new: NewIssue
    tag: str
    stored: str


class GitHubCreations(GitHubMoves):
    """New issues, alone or several in a request."""

    def _create_issue(
        self,
        title: str,
        body: str,
        parent: int | None,
        state: WorkflowState | None,
        estimate: Estimate | None,
        priority: Priority | None,
        labels: Sequence[str],
        author: str,
    ) -> Issue:
        new = NewIssue(title, body, parent, state, estimate, priority, tuple(labels), author)
        creation = self._creation(new)

        def already() -> dict[str, Any] | None:
            found = self._landed([creation])
            return None if not found else {"createIssue": found["issue0"]}

        with self._keeping_snapshots():  # the parent gains the child below
            data = self.client.mutate(
                q.CREATE_ISSUE, {"input": self._creation_input(creation)}, reconcile=already
            )
        node = data["createIssue"]["issue"]
        number = self._took_creation(creation, node)
        with self._touching(number):
            # A new issue is on no board: added without a look (the add is idempotent).
            added = self.client.mutate(
                q.ADD_PROJECT_ITEM,
                q.input_of(projectId=self.board().project_id, contentId=node["id"]),
                token="board",
            )
            self._item_ids[number] = added["addProjectV2ItemById"]["item"]["id"]
            self._creation_fields(number, new)
        return self._made(creation, node)

    def create_issues(self, new: Sequence[NewIssue]) -> list[Issue]:
        """The issues made together, ten a request (``CreateIssues``), put on the board
        together (``AddProjectItems``), then their fields (inside a snapshot: with each
        issue's first move). With split tokens, or one issue, as ``create_issue``."""
        new = list(new)
        if len(new) < 2 or self.client.tokens.split:
            return super().create_issues(new)
        for each in new:
            self._check_new(each)
        cleaned = [replace(n, title=redact(n.title), body=redact(n.body)) for n in new]
        made: list[Issue] = []
        for start in range(0, len(cleaned), q.BATCH_LIMIT):
            made += self._create_together(cleaned[start : start + q.BATCH_LIMIT])
        return made

    def _check_new(self, new: NewIssue) -> None:
        check_title(new.title)
        check_labels(new.labels)

    def _create_together(self, new: Sequence[NewIssue]) -> list[Issue]:
        creations = [self._creation(n) for n in new]
        variables = {f"issue{i}": self._creation_input(c) for i, c in enumerate(creations)}
        parts = tuple(q.create_issue_part(alias) for alias in variables)

        def already() -> dict[str, Any] | None:
            found = self._landed(creations)
            if len(found) == len(creations):
                return found
            if found:  # sending the batch again would make these twice
                raise _PartlyMade(found)
            return None

        try:
            with self._keeping_snapshots():  # the parent gains the children below
                answer = self.client.mutate_batch(
                    q.batch("CreateIssues", parts), variables, reconcile=already
                )
        except _PartlyMade as partly:
            answer = BatchAnswer(partly.found)
        nodes: dict[int, dict[str, Any]] = {}
        for i, creation in enumerate(creations):
            if answer.ok(f"issue{i}"):
                nodes[i] = answer.data[f"issue{i}"]["issue"]
                self._took_creation(creation, nodes[i])
        self._put_on_board({self._number(node): node["id"] for node in nodes.values()})
        made: dict[int, Issue] = {}
        for i, node in nodes.items():
            self._creation_fields(self._number(node), creations[i].new)
            made[i] = self._made(creations[i], node)
        refused = {alias: why for alias, why in answer.refused.items() if alias in variables}
        if refused:
            alias, why = next(iter(refused.items()))
            title = creations[int(alias.removeprefix("issue"))].new.title
            raise GitHubInvalid(f'GitHub refused to make the issue "{title}": {why}')
        for i, creation in enumerate(creations):  # not landed when the batch was lost
            if i not in made:
                n = creation.new
                made[i] = self._create_issue(
                    n.title, n.body, n.parent, n.state, n.estimate, n.priority, n.labels, n.author
                )
        return [made[i] for i in range(len(creations))]

    def _number(self, node: Mapping[str, Any]) -> int:
        return int(node["number"])

    def _put_on_board(self, content: Mapping[int, str]) -> None:
        """New issues (number -> node id) on the board together (the add is idempotent,
        so a lost answer is sent again as it is); one GitHub refused is added by its
        first field write."""
        if not content:
            return
        numbers = list(content)
        variables = {
            f"item{i}": q.input_of(projectId=self.board().project_id, contentId=content[n])["input"]
            for i, n in enumerate(numbers)
        }
        parts = tuple(q.add_item_part(alias) for alias in variables)
        with self._touching(*numbers):
            answer = self.client.mutate_batch(
                q.batch("AddProjectItems", parts), variables, token="board"
            )
        for i, number in enumerate(numbers):
            if answer.ok(f"item{i}"):
                self._item_ids[number] = answer.data[f"item{i}"]["item"]["id"]

    def _creation(self, new: NewIssue) -> _Creation:
        if new.parent is not None:
            self._require("sub_issues")
        return _Creation(new, marker(), self.stored_text(new.body))

    def _creation_input(self, creation: _Creation) -> dict[str, object]:
        new = creation.new
        return q.input_of(
            repositoryId=self.repository_id(),
            title=new.title,
            body=f"{creation.stored}\n\n{creation.tag}" if new.body else creation.tag,
            labelIds=self._label_ids(new.labels) if new.labels else None,
            parentIssueId=self._node_id(new.parent) if new.parent is not None else None,
        )["input"]

    def _landed(self, creations: Sequence[_Creation]) -> dict[str, Any]:
        """The creations GitHub holds, found by their markers (alias -> its answer):
        the newest issues are read until each is found, as far back as others could
        have been made since (a busy repository makes many while a write is retried)."""
        found: dict[str, Any] = {}
        newest = self.client.pages(q.ISSUE_BY_MARKER, self._where, ("repository", "issues"))
        for node in itertools.islice(newest, _MARKER_LOOKBACK):
            for i, creation in enumerate(creations):
                if creation.tag in node["body"]:
                    found[f"issue{i}"] = {"issue": node}
            if len(found) == len(creations):
                break
        return found

    def _took_creation(self, creation: _Creation, node: Mapping[str, Any]) -> int:
        """What a new issue tells the caches: its ids, its parent's new child (GitHub
        lists a new sub-issue last)."""
        number = self._number(node)
        parent = creation.new.parent
        if parent is not None:
            self._relatives[parent] = _with(self._relatives.get(parent, ()), number)
            self._snapshots.update(
                parent, lambda issue: replace(issue, sub_issues=_with(issue.sub_issues, number))
            )
        self._node_ids[number] = str(node["id"])
        self._statuses[number] = None
        self._relatives[number] = (parent,) if parent is not None else ()
        return number

    def _creation_fields(self, number: int, new: NewIssue) -> None:
        wanted = {WORKFLOW_STATE: new.state, ESTIMATE: new.estimate, PRIORITY: new.priority}
        fields = {field: value for field, value in wanted.items() if value is not None}
        if self._snapshots.active and fields:
            # Sent with the issue's first move (a split places its children at once),
            # or when the snapshot ends, or before the issue is read from GitHub.
            self._wait_fields(number, fields)
        else:
            self._set_fields(number, state=new.state, estimate=new.estimate, priority=new.priority)

    def _made(self, creation: _Creation, node: Mapping[str, Any]) -> Issue:
        """The new issue as GitHub now holds it (what was sent: no read back), kept."""
        new = creation.new
        made = Issue(
            number=self._number(node),
            title=one_line(new.title),
            body=strip_markers(creation.stored) if new.body else "",
            workflow_state=new.state,
            estimate=new.estimate,
            priority=new.priority,
            labels=tuple(dict.fromkeys(new.labels)),
            parent=new.parent,
            created_at=epoch(node.get("createdAt")) or self.now(),
            updated_at=epoch(node.get("createdAt")) or self.now(),
            url=str(node.get("url") or ""),
        )
        self._snapshots.keep(made)
        return made


def _with(numbers: tuple[int, ...], number: int) -> tuple[int, ...]:
    return numbers if number in numbers else (*numbers, number)
