"""The Artifact Comment Protocol (docs/compatibility.md): where documents live, how an issue
comment links one, and how a phase finds the document for an issue.

Comments are the source of truth; the file tree is the fallback, and a document found
only on disk is linked again with a "self-healed" comment. Pure: the caller passes the
issue's comments and the repository's file list.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date

__all__ = [
    "DOCUMENTS_ROOT",
    "HEADERS",
    "SELF_HEALED",
    "ArtifactKind",
    "Discovery",
    "Links",
    "Verdict",
    "artifact_comment",
    "critique_path",
    "discover",
    "find_link",
    "kind_of_path",
    "parse_verdict",
    "plan_path",
    "research_path",
    "review_comment",
    "slugify",
]


class ArtifactKind(enum.StrEnum):
    RESEARCH = "research"
    PLAN = "plan"
    REVIEW = "review"
    IMPLEMENTATION = "implementation"


class Verdict(enum.StrEnum):
    APPROVED = "APPROVED"
    NEEDS_ITERATION = "NEEDS_ITERATION"


HEADERS: dict[ArtifactKind, str] = {
    ArtifactKind.RESEARCH: "## Research Document",
    ArtifactKind.PLAN: "## Implementation Plan",
    ArtifactKind.REVIEW: "## Plan Review",
    ArtifactKind.IMPLEMENTATION: "## Implementation Complete",
}
#: Headers readers also accept for a kind.
_ALSO_READ: dict[ArtifactKind, tuple[str, ...]] = {
    ArtifactKind.PLAN: ("## Group Implementation Plan",),
}
#: The folder every document Ralph writes is under.
DOCUMENTS_ROOT = "thoughts/"
_FOLDERS = {
    ArtifactKind.RESEARCH: "thoughts/shared/research",
    ArtifactKind.PLAN: "thoughts/shared/plans",
    ArtifactKind.REVIEW: "thoughts/shared/reviews",
}
SELF_HEALED = "(Self-healed: artifact was found on disk but not linked via comment)"
#: How a review comment introduces the critique's link (the original's words).
CRITIQUE_LABEL = "Full critique:"
_VERDICT = re.compile(r"^VERDICT:\s*(APPROVED|NEEDS_ITERATION)\s*$", re.MULTILINE)


#: Longest slug: with the date and number before it, a document's file name stays far
#: below the 255 bytes file systems allow (a slug is ASCII: one byte a character).
SLUG_MAX_LENGTH = 60


def slugify(text: str, max_words: int = 6, max_length: int = SLUG_MAX_LENGTH) -> str:
    """``Store sessions in the DB!`` -> ``store-sessions-in-the-db``: at most
    ``max_words`` words and ``max_length`` characters, cut after a whole word when one
    fits (a single longer word is cut)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())[:max_words]
    slug = ""
    for word in words:
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > max_length:
            slug = slug or word[:max_length]
            break
        slug = longer
    return slug or "untitled"


def kind_of_path(path: str) -> ArtifactKind | None:
    """The kind of document a repository-relative ``path`` holds by its folder
    (``thoughts/shared/plans/...`` is a plan), or None."""
    folder = path.rpartition("/")[0]
    return next((kind for kind, known in _FOLDERS.items() if folder == known), None)


def research_path(number: int, title: str, day: date) -> str:
    return (
        f"{_FOLDERS[ArtifactKind.RESEARCH]}/{day.isoformat()}-GH-{number:04d}-{slugify(title)}.md"
    )


def plan_path(numbers: Sequence[int], title: str, day: date, *, stream: bool = False) -> str:
    """One issue: ``GH-0042``; a group: ``group-GH-0042`` (its primary); a stream:
    ``stream-GH-42-44`` (its issues, sorted)."""
    folder, stamp, slug = _FOLDERS[ArtifactKind.PLAN], day.isoformat(), slugify(title)
    if stream:
        joined = "-".join(str(n) for n in sorted(numbers))
        # Many issues leave less room for the slug (never under a word's worth).
        slug = slugify(title, max_length=min(SLUG_MAX_LENGTH, max(12, 120 - len(joined))))
        return f"{folder}/{stamp}-stream-GH-{joined}-{slug}.md"
    if len(numbers) > 1:
        return f"{folder}/{stamp}-group-GH-{numbers[0]:04d}-{slug}.md"
    return f"{folder}/{stamp}-GH-{numbers[0]:04d}-{slug}.md"


def critique_path(number: int, day: date) -> str:
    return f"{_FOLDERS[ArtifactKind.REVIEW]}/{day.isoformat()}-GH-{number:04d}-critique.md"


@dataclass(frozen=True)
class Links:
    """How comments point at documents: GitHub blob URLs for a GitHub tracker, plain
    repository-relative paths for the local one."""

    owner: str | None = None
    repo: str | None = None
    branch: str = "main"
    #: The web address of the GitHub instance (GitHub Enterprise Server has its own).
    web: str = "https://github.com"

    @property
    def _prefix(self) -> str | None:
        if self.owner and self.repo:
            return f"{self.web.rstrip('/')}/{self.owner}/{self.repo}/blob/{self.branch}/"
        return None

    def link(self, path: str) -> str:
        prefix = self._prefix
        return f"{prefix}{path}" if prefix else path

    def path(self, link: str) -> str:
        """The repository-relative path a link points at (any owner's blob URL works)."""
        match = re.match(r"https?://[^/\s]+/[^/\s]+/[^/\s]+/blob/[^/\s]+/(.+)", link.strip())
        return match.group(1) if match else link.strip()


def artifact_comment(kind: ArtifactKind, link: str, summary: str = "") -> str:
    """Header, blank line, link, then an optional short summary."""
    body = f"{HEADERS[kind]}\n\n{link}\n"
    return f"{body}\n{summary.strip()}\n" if summary.strip() else body


def review_comment(verdict: Verdict, critique_link: str | None = None, summary: str = "") -> str:
    lines = [HEADERS[ArtifactKind.REVIEW], "", f"VERDICT: {verdict.value}"]
    if critique_link:
        lines += ["", f"{CRITIQUE_LABEL} {critique_link}"]
    if summary.strip():
        lines += ["", summary.strip()]
    return "\n".join(lines) + "\n"


def parse_verdict(body: str) -> Verdict | None:
    match = _VERDICT.search(body)
    return Verdict(match.group(1)) if match else None


def _link_after_header(body: str, headers: Iterable[str]) -> str | None:
    lines = body.splitlines()
    for index, line in enumerate(lines):
        if line.strip() in headers:
            for following in lines[index + 1 :]:
                # A review comment puts its verdict between the header and the link,
                # which it labels as the original does ("Full critique: <URL>").
                text = following.strip()
                if text and not _VERDICT.match(text):
                    return text.removeprefix(CRITIQUE_LABEL).strip()
            return None
    return None


def find_link(comments: Sequence[str], kind: ArtifactKind) -> str | None:
    """The link in the last comment carrying the kind's header (all comments are read,
    not only the latest ten as in the original)."""
    headers = (HEADERS[kind], *_ALSO_READ.get(kind, ()))
    for body in reversed(comments):
        link = _link_after_header(body, headers)
        if link is not None:
            return link
    return None


@dataclass(frozen=True)
class Discovery:
    path: str
    #: "comment" when linked from the issue, "disk" when found by name only.
    source: str

    @property
    def needs_self_heal(self) -> bool:
        return self.source == "disk"

    def heal_comment(self, kind: ArtifactKind, links: Links) -> str:
        return artifact_comment(kind, links.link(self.path), SELF_HEALED)


def _names_issue(name: str, number: int) -> bool:
    # GH-42 and GH-0042 both name #42; GH-420 does not (the original's glob matched it).
    return re.search(rf"GH-0*{number}(?!\d)", name) is not None


def _stream_names_issue(name: str, number: int) -> bool:
    match = re.search(r"stream-GH-((?:\d+-)*\d+)", name)
    return match is not None and str(number) in match.group(1).split("-")


def discover(
    kind: ArtifactKind,
    number: int,
    comments: Sequence[str],
    files: Iterable[str],
    links: Links,
    *,
    group_primary: int | None = None,
) -> Discovery | None:
    """Find the kind's document for an issue: the last linking comment, else a file named
    for the issue (padded or not), its group's primary, or a stream it belongs to; the
    newest name wins."""
    link = find_link(comments, kind)
    if link is not None:
        return Discovery(links.path(link), "comment")
    folder = _FOLDERS.get(kind)
    if folder is None:
        return None
    candidates = sorted(
        path for path in files if path.startswith(folder + "/") and path.endswith(".md")
    )
    names = {path: path.rsplit("/", 1)[-1] for path in candidates}
    matchers: list[Callable[[str], bool]] = [
        lambda name: _names_issue(name, number) and "stream-GH" not in name
    ]
    if kind is ArtifactKind.PLAN:
        primary = group_primary if group_primary is not None else number
        matchers.append(lambda name: "group-GH" in name and _names_issue(name, primary))
        matchers.append(lambda name: _stream_names_issue(name, number))
    for matches in matchers:
        found = [path for path in candidates if matches(names[path])]
        if found:
            return Discovery(found[-1], "disk")
    return None
