"""The Artifact Comment Protocol: document paths, link comments, discovery with the file
tree as fallback and self-healing, and document frontmatter. Pure: no I/O."""

from __future__ import annotations

from ralph.artifacts._frontmatter import (
    REQUIRED_SECTIONS,
    missing_sections,
    parse_frontmatter,
    set_frontmatter,
    validate_document,
)
from ralph.artifacts._protocol import (
    HEADERS,
    SELF_HEALED,
    ArtifactKind,
    Discovery,
    Links,
    Verdict,
    artifact_comment,
    critique_path,
    discover,
    find_link,
    kind_of_path,
    parse_verdict,
    plan_path,
    research_path,
    review_comment,
    slugify,
)
from ralph.artifacts._sections import (
    AUTOMATED,
    MANUAL,
    UNPLANNED,
    Checkbox,
    PlanStep,
    diff_blocks,
    files_under,
    plan_steps,
    step_files,
    tick_step,
)
from ralph.artifacts._streams import StreamNames

__all__ = [
    "AUTOMATED",
    "HEADERS",
    "MANUAL",
    "REQUIRED_SECTIONS",
    "SELF_HEALED",
    "UNPLANNED",
    "ArtifactKind",
    "Checkbox",
    "Discovery",
    "Links",
    "PlanStep",
    "StreamNames",
    "Verdict",
    "artifact_comment",
    "critique_path",
    "diff_blocks",
    "discover",
    "files_under",
    "find_link",
    "kind_of_path",
    "missing_sections",
    "parse_frontmatter",
    "parse_verdict",
    "plan_path",
    "plan_steps",
    "research_path",
    "review_comment",
    "set_frontmatter",
    "slugify",
    "step_files",
    "tick_step",
    "validate_document",
]
