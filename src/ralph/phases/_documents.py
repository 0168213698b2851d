"""Checks shared by the phases whose agents write documents."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ralph.artifacts import ArtifactKind, validate_document

__all__ = ["document_problems"]


def document_problems(
    kind: ArtifactKind, workdir: Path, path: str, headings: Sequence[str] = ()
) -> list[str]:
    """What is wrong with the document the agent was asked to write at ``path``."""
    file = workdir / path
    if not file.is_file():
        return [f"the agent did not write {path}"]
    text = file.read_text()
    problems = [f"{path}: {problem}" for problem in validate_document(kind, text)]
    lines = {line.strip() for line in text.splitlines()}
    problems += [
        f"{path} has no '{heading}' section" for heading in headings if heading not in lines
    ]
    return problems
