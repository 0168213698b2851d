"""The tree drawn in ralph.errors' docstring is the real one: every RalphError subclass
anywhere in ralph is drawn, under the parent it derives from."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator

import ralph
from ralph import errors
from ralph.errors import RalphError

#: ``    │   ├── Name   what it means``: the column of the name gives its depth.
_DRAWN = re.compile(r"^(?P<indent>[ │├└─]*?)(?P<name>[A-Z]\w+)\b")


def _drawn_parents() -> dict[str, str]:
    """Each drawn error with the error drawn above it, one level up."""
    assert errors.__doc__ is not None
    tree = errors.__doc__.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    parents: dict[str, str] = {}
    at_depth: list[str] = []
    for line in tree.splitlines():
        drawn = _DRAWN.match(line)
        assert drawn is not None, f"not a line of the tree: {line!r}"
        depth = (len(drawn["indent"]) - 4) // 4
        del at_depth[depth:]
        if at_depth:
            parents[drawn["name"]] = at_depth[-1]
        at_depth.append(drawn["name"])
    return parents


def _subclasses(cls: type[RalphError]) -> Iterator[type[RalphError]]:
    subclass: type[RalphError]
    for subclass in cls.__subclasses__():
        yield subclass
        yield from _subclasses(subclass)


def _every_error() -> dict[str, str]:
    """Every RalphError subclass in ralph a caller can name, with the RalphError it
    derives from (a private one, such as the GitHub client's signal to page smaller,
    is caught by its public parent's name)."""
    for module in pkgutil.walk_packages(ralph.__path__, "ralph."):
        if not module.name.endswith(".__main__"):
            importlib.import_module(module.name)
    return {
        cls.__name__: next(b for b in cls.__bases__ if issubclass(b, RalphError)).__name__
        for cls in _subclasses(RalphError)
        if cls.__module__.startswith("ralph.") and not cls.__name__.startswith("_")
    }


def test_the_drawing_reads_as_a_tree_rooted_at_ralph_error() -> None:
    parents = _drawn_parents()
    assert parents["InvalidInput"] == "RalphError"
    assert parents["GitHubAuthError"] == "GitHubError"
    assert parents["StoreUnreachable"] == "StoreUnavailable"


def test_every_ralph_error_is_drawn_under_its_parent() -> None:
    assert _every_error() == _drawn_parents()
