"""Ideas: a thought captured before it is an issue (``ralph idea new``; skill
``draft-idea``), then formed into one issue or an epic with children (``ralph idea
form``; skill ``form-idea``). An idea is a file of the person's,
``thoughts/shared/ideas/YYYY-MM-DD-slug.md`` with the original's frontmatter and
sections; Ralph never commits it, and forming it records the issue in its frontmatter.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ralph._text import check_text, check_title, one_line
from ralph.artifacts import parse_frontmatter, set_frontmatter, slugify
from ralph.errors import InvalidInput
from ralph.tracker import Issue, IssueQuery, Tracker, check_labels
from ralph.workflow import OVERSIZED_ESTIMATES, Estimate, WorkflowState

__all__ = ["IDEAS", "Formed", "form_idea", "idea_path", "new_idea", "similar_issues"]

IDEAS = "thoughts/shared/ideas"
SECTIONS = ("The Idea", "Why This Matters", "Rough Shape", "Open Questions", "Related")
#: Titles at least this alike (difflib's ratio over their words) name the same work.
SIMILAR = 0.8
_TITLE_LENGTH = 72
_ITEM = re.compile(r"^(?:[-*]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.+)$")


def idea_path(title: str, day: date) -> str:
    return f"{IDEAS}/{day.isoformat()}-{slugify(title)}.md"


def _title_of(text: str) -> str:
    first = next(line.strip() for line in text.splitlines() if line.strip())
    if len(first) <= _TITLE_LENGTH:
        return first
    return first[:_TITLE_LENGTH].rsplit(" ", 1)[0] + "..."


def new_idea(
    root: Path,
    text: str,
    *,
    title: str | None = None,
    tags: Sequence[str] = (),
    day: date,
    author: str = "user",
) -> Path:
    """Write a new idea under ``root`` (the project's folder): ``text`` is the idea,
    ``title`` its heading (else its first line), ``author`` who had it (git's
    user.name). Refused when the file exists."""
    check_text(text, "the idea")
    heading = title if title is not None else _title_of(text)
    check_title(heading, "an idea")
    check_labels(tags)
    path = root / idea_path(heading, day)
    if path.exists():
        raise InvalidInput(f"{path} exists already; edit it, or give the idea another --title")
    listed = ", ".join(tags)
    sections = "".join(
        f"## {name}\n\n{text.strip() if name == 'The Idea' else ''}\n\n" for name in SECTIONS
    ).replace("\n\n\n\n", "\n\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\ndate: {day.isoformat()}\nstatus: draft\nauthor: {one_line(author) or 'user'}\n"
        f"tags: [{listed}]\n"
        f"github_issue: null\n---\n\n# {heading}\n\n{sections}"
    )
    return path


@dataclass(frozen=True)
class Idea:
    title: str
    sections: dict[str, str]
    fields: dict[str, object]

    def section(self, name: str) -> str:
        return self.sections.get(name.casefold(), "").strip()

    def items(self, name: str) -> list[str]:
        """The list items of a section, one line each."""
        found = (_ITEM.match(line.strip()) for line in self.section(name).splitlines())
        return [match.group(1).strip() for match in found if match]


def _read(path: Path) -> Idea:
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file; give the path of an idea ({IDEAS}/...)")
    try:
        text = path.read_text()
    except UnicodeDecodeError:
        raise InvalidInput(f"{path} is not UTF-8 text") from None
    fields, body = parse_frontmatter(text)
    title = next((line[2:].strip() for line in body.splitlines() if line.startswith("# ")), "")
    if "status" not in fields or not title:
        raise InvalidInput(
            f"{path} is not an idea (frontmatter with status, a '# Title'); "
            'write one with ralph idea new "TEXT"'
        )
    sections: dict[str, str] = {}
    current = None
    for line in body.splitlines():
        if line.startswith("## "):
            current = line[3:].strip().casefold()
            sections[current] = ""
        elif current is not None:
            sections[current] += line + "\n"
    return Idea(title, sections, fields)


def _words(title: str) -> str:
    return slugify(title, max_words=40, max_length=400).replace("-", " ")


def similar_issues(tracker: Tracker, title: str) -> list[tuple[Issue, float]]:
    """Open issues whose titles are at least ``SIMILAR`` alike to ``title``, most alike
    first."""
    wanted = _words(title)
    found = []
    for issue in tracker.list_issues(IssueQuery()):
        ratio = difflib.SequenceMatcher(None, wanted, _words(issue.title)).ratio()
        if ratio >= SIMILAR:
            found.append((issue, ratio))
    return sorted(found, key=lambda pair: -pair[1])


@dataclass(frozen=True)
class Formed:
    issue: Issue
    children: tuple[Issue, ...]


def _body(summary: str, criteria: Sequence[str], context: str, source: str) -> str:
    checks = "\n".join(f"- [ ] {item}" for item in criteria)
    why = f"{context}\n\n" if context else ""
    return (
        f"## Summary\n\n{summary}\n\n## Acceptance Criteria\n\n{checks}\n\n"
        f"## Context\n\n{why}Idea: `{source}`\n"
    )


def form_idea(
    tracker: Tracker,
    path: Path,
    *,
    source: str,
    epic: bool = False,
    estimate: Estimate | None = None,
    allow_duplicate: bool = False,
) -> Formed:
    """Create the issue an idea describes (with ``epic``: a parent and one child per item
    of its Rough Shape, each blocked by the one before), link the idea from it
    (``source``: the idea's path as the issue names it), and record the issue in the
    idea's frontmatter (``github_issue``, ``status: formed``). Refused when the idea was
    formed already, or an open issue's title is as good as the same (unless
    ``allow_duplicate``)."""
    idea = _read(path)
    formed = idea.fields.get("github_issue")
    if formed is not None:
        raise InvalidInput(f"{path} was formed already as #{formed}")
    check_title(idea.title, "the idea")
    if not any(idea.section(name) for name in SECTIONS if name != "The Idea"):
        raise InvalidInput(
            f"{path} is as ralph idea new wrote it; fill in Why This Matters and Rough Shape "
            "(any section past The Idea), then form it"
        )
    shape = idea.items("Rough Shape")
    if epic and len(shape) < 2:
        raise InvalidInput(
            f"an epic needs two or more items under '## Rough Shape' in {path}; it has {len(shape)}"
        )
    if epic and estimate is not None and estimate not in OVERSIZED_ESTIMATES:
        raise InvalidInput(f"an epic is estimated M, L or XL, not {estimate.value}")
    for item in shape if epic else ():
        check_title(item, "a child (an item of Rough Shape)")
    duplicates = [] if allow_duplicate else similar_issues(tracker, idea.title)
    if duplicates:
        issue, ratio = duplicates[0]
        raise InvalidInput(
            f"#{issue.number} {issue.title!r} looks like the same work ({ratio:.0%} alike); "
            "add to it, or pass --allow-duplicate to file the idea anyway"
        )
    summary = idea.section("The Idea") or idea.title
    criteria = idea.items("Acceptance Criteria") or (shape if not epic else []) or [idea.title]
    size = estimate or (Estimate.M if epic else None)
    issue = tracker.create_issue(
        idea.title,
        body=_body(summary, criteria, idea.section("Why This Matters"), source),
        state=WorkflowState.BACKLOG,
        estimate=size,
        author="human",
    )
    children: list[Issue] = []
    for item in shape if epic else ():
        child = tracker.create_issue(
            item,
            body=_body(item, [item], f"Part of #{issue.number}: {idea.title}.", source),
            parent=issue.number,
            state=WorkflowState.BACKLOG,
            estimate=Estimate.S,
            author="human",
        )
        if children:
            tracker.add_dependency(child.number, children[-1].number)
        children.append(child)
    recorded: dict[str, object] = {"github_issue": issue.number, "status": "formed"}
    if issue.url:
        recorded["github_url"] = issue.url
    path.write_text(set_frontmatter(path.read_text(), recorded))
    return Formed(tracker.get_issue(issue.number), tuple(children))
