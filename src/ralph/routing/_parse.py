"""``.ralph-routing.yml`` read into rules (the original's schema, camelCase keys). Pure: the
caller reads the file. Every mistake is one InvalidInput naming the file, where in it
(line and column; for a misplaced value also its path, ``rules[0].action``) and what
to write instead. Unknown keys are refused, so a misspelt one never silently matches
everything."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import yaml

from ralph.errors import InvalidInput, UnknownState
from ralph.routing._rules import (
    ROUTING_FILE,
    IssueType,
    MatchCriteria,
    RoutingAction,
    RoutingConfig,
    RoutingRule,
)
from ralph.workflow import WorkflowState, parse_state

__all__ = ["parse_routing"]

_CONTROL = frozenset(chr(c) for c in range(32)) | {"\x7f"}


class _Where:
    """The YAML node tree beside the loaded data: a path's line and column."""

    def __init__(self, source: str, root: yaml.Node) -> None:
        self.source = source
        self.root = root

    def node(self, path: tuple[str | int, ...]) -> yaml.Node:
        node = self.root
        for step in path:
            if isinstance(node, yaml.MappingNode):
                found = next(
                    (
                        v
                        for k, v in node.value
                        if isinstance(k, yaml.ScalarNode) and k.value == step
                    ),
                    None,
                )
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
                found = node.value[step] if step < len(node.value) else None
            else:
                found = None
            if found is None:
                break
            node = found
        return node

    def key(self, path: tuple[str | int, ...], key: Any) -> yaml.Node:
        """The key node ``key`` of the mapping at ``path`` (where an unknown key is)."""
        node = self.node(path)
        if isinstance(node, yaml.MappingNode):
            for k, _ in node.value:
                if isinstance(k, yaml.ScalarNode) and self._constructed(k) == key:
                    return k
        return node

    @staticmethod
    def _constructed(node: yaml.ScalarNode) -> Any:
        return yaml.SafeLoader("").construct_object(node)

    def fail(
        self, path: tuple[str | int, ...], problem: str, *, at: yaml.Node | None = None
    ) -> NoReturn:
        mark = (at or self.node(path)).start_mark
        named = _path(path)
        where = f"{self.source} line {mark.line + 1}, column {mark.column + 1}"
        raise InvalidInput(f"{where}: {named + ': ' if named else ''}{problem}")


def _named(key: yaml.Node, step: str | int) -> bool:
    return isinstance(key, yaml.ScalarNode) and key.value == step


def _path(path: tuple[str | int, ...]) -> str:
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def _load(text: str, source: str) -> tuple[Any, _Where]:
    try:
        loader = yaml.SafeLoader(text)
        try:
            root = loader.get_single_node()
            data = loader.construct_document(root) if root is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "is not YAML").split())
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"
        raise InvalidInput(
            f"{source} {where}: {problem}; fix the YAML (see docs/service.md, Routing)"
        ) from None
    except yaml.YAMLError as exc:
        problem = " ".join(str(exc).split())
        raise InvalidInput(
            f"{source}: {problem}; fix the YAML (see docs/service.md, Routing)"
        ) from None
    if root is None:
        raise InvalidInput(f"{source} is empty; it needs at least `version: 1` and `rules:`")
    return data, _Where(source, root)


def _keys(
    where: _Where, path: tuple[str | int, ...], value: Any, allowed: tuple[str, ...]
) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        where.fail(path, f"must be a mapping with {', '.join(allowed)}")
    unknown = [k for k in value if k not in allowed]
    if unknown:
        node = where.key(path, unknown[0])
        # As written: YAML reads some words as true or false (on, no...).
        written = node.value if isinstance(node, yaml.ScalarNode) else str(unknown[0])
        where.fail(
            (*path, written),
            f"unknown key {written!r}; use {', '.join(allowed)}",
            at=node,
        )
    return value


def _bool(where: _Where, path: tuple[str | int, ...], value: Any) -> bool:
    if not isinstance(value, bool):
        where.fail(path, f"{value!r} is not true or false")
    return value


def _text(where: _Where, path: tuple[str | int, ...], value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or _CONTROL & set(value):
        where.fail(path, f"{value!r} is not one line of text")
    return value


def _texts(where: _Where, path: tuple[str | int, ...], value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        where.fail(path, "must be a list of one or more names, e.g. [bug]")
    return tuple(_text(where, (*path, i), v) for i, v in enumerate(value))


def _project(where: _Where, path: tuple[str | int, ...], value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**31:
        where.fail(path, f"{value!r} is not a project number (1, 2, ...)")
    return value


def _optional(
    where: _Where,
    path: tuple[str | int, ...],
    table: Mapping[str, Any],
    key: str,
    read: Callable[[_Where, tuple[str | int, ...], Any], Any],
) -> Any:
    return read(where, (*path, key), table[key]) if key in table else None


def _match(where: _Where, path: tuple[str | int, ...], value: Any) -> MatchCriteria:
    table = _keys(where, path, value, ("repo", "labels", "issueType", "negate"))
    labels_any: tuple[str, ...] = ()
    labels_all: tuple[str, ...] = ()
    if "labels" in table:
        labels = _keys(where, (*path, "labels"), table["labels"], ("any", "all"))
        if not labels:
            where.fail((*path, "labels"), "needs any: [...] or all: [...]")
        labels_any = _optional(where, (*path, "labels"), labels, "any", _texts) or ()
        labels_all = _optional(where, (*path, "labels"), labels, "all", _texts) or ()
    issue_type = None
    if "issueType" in table:
        raw = table["issueType"]
        try:
            issue_type = IssueType(str(raw).lower())
        except ValueError:
            where.fail(
                (*path, "issueType"),
                f"{raw!r} is not an issue type; use {', '.join(t.value for t in IssueType)}",
            )
    repo = _optional(where, path, table, "repo", _text)
    if repo is None and not (labels_any or labels_all) and issue_type is None:
        where.fail(path, "needs at least one of repo, labels, issueType")
    return MatchCriteria(
        repo=repo,
        labels_any=labels_any,
        labels_all=labels_all,
        issue_type=issue_type,
        negate=bool(_optional(where, path, table, "negate", _bool)),
    )


def _action(where: _Where, path: tuple[str | int, ...], value: Any) -> RoutingAction:
    keys = ("projectNumber", "projectNumbers", "workflowState", "labels")
    table = _keys(where, path, value, keys)
    if not table:
        where.fail(path, f"needs at least one of {', '.join(keys)}")
    numbers: list[int] = []
    if "projectNumber" in table:
        numbers.append(_project(where, (*path, "projectNumber"), table["projectNumber"]))
    if "projectNumbers" in table:
        raw = table["projectNumbers"]
        if not isinstance(raw, list) or not raw:
            where.fail((*path, "projectNumbers"), "must be a list of project numbers, e.g. [3]")
        numbers += [_project(where, (*path, "projectNumbers", i), n) for i, n in enumerate(raw)]
    state: WorkflowState | None = None
    if "workflowState" in table:
        try:
            state = parse_state(_text(where, (*path, "workflowState"), table["workflowState"]))
        except UnknownState as exc:
            where.fail((*path, "workflowState"), str(exc))
    return RoutingAction(
        project_numbers=tuple(dict.fromkeys(numbers)),
        workflow_state=state,
        labels=_optional(where, path, table, "labels", _texts) or (),
    )


def _rule(where: _Where, path: tuple[str | int, ...], value: Any) -> RoutingRule:
    table = _keys(where, path, value, ("name", "match", "action", "enabled"))
    for required in ("match", "action"):
        if required not in table:
            where.fail(path, f"needs {required}:")
    enabled = _optional(where, path, table, "enabled", _bool)
    return RoutingRule(
        match=_match(where, (*path, "match"), table["match"]),
        action=_action(where, (*path, "action"), table["action"]),
        name=_optional(where, path, table, "name", _text),
        enabled=True if enabled is None else enabled,
    )


def parse_routing(text: str, *, source: str = ROUTING_FILE) -> RoutingConfig:
    """The rules in ``text`` (the file's content; ``source`` names it in errors)."""
    data, where = _load(text, source)
    table = _keys(where, (), data, ("version", "stopOnFirstMatch", "rules"))
    if "version" not in table:
        where.fail((), "needs `version: 1` (the format's version)")
    if table["version"] != 1 or isinstance(table["version"], bool):
        where.fail(("version",), f"{table['version']!r} is not a known version; write version: 1")
    rules = table.get("rules")
    if rules is None:
        rules = []
    if not isinstance(rules, list):
        where.fail(("rules",), "must be a list of rules (each with match: and action:)")
    stop = _optional(where, (), table, "stopOnFirstMatch", _bool)
    return RoutingConfig(
        rules=tuple(_rule(where, ("rules", i), rule) for i, rule in enumerate(rules)),
        stop_on_first_match=True if stop is None else stop,
    )
