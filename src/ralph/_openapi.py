"""A REST request checked against a service's published OpenAPI 3 document, as the
service itself would check it: the fake Jira and the fake GitLab refuse what the real
ones refuse (an unknown path or method, a missing or mistyped parameter, a body that
breaks the operation's schema) before they answer anything.

The document is a third-party file Ralph does not ship: a fake is handed its path
(``ralph._published``). Bodies are checked with ``jsonschema`` (Draft 4, as OpenAPI 3.0
schemas are written) against the operation's schema with the document as the root, so
``#/components/...`` references resolve; OpenAPI's ``nullable`` is honoured and
``readOnly`` properties are refused in a request, as the specification says."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

__all__ = ["OpenApiDocument", "Operation"]

_TEMPLATE_PART = re.compile(r"\{[^}/]+\}")
_METHODS = ("get", "put", "post", "delete", "patch")


@dataclass(frozen=True)
class Operation:
    """One method on one path template, with the template's parameters bound."""

    method: str
    template: str
    spec: Mapping[str, Any]
    #: The path parameters' values, by name, as they came (still URL-encoded).
    path_values: Mapping[str, str]

    @property
    def operation_id(self) -> str:
        return str(self.spec.get("operationId", f"{self.method} {self.template}"))


class OpenApiDocument:
    """An OpenAPI 3.0 document (a JSON or YAML file) and the requests it allows."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        self.spec = spec
        # Templates by segment count, the most literal first: GitLab's
        # /projects/{id}/issues/{issue_iid} and Jira's /issue/{key}/transitions must beat
        # a template with a parameter where they have a word.
        self._templates: dict[int, list[tuple[int, re.Pattern[str], str, list[str]]]] = {}
        for template in spec.get("paths", {}):
            names = [part[1:-1] for part in _TEMPLATE_PART.findall(template)]
            literals = _TEMPLATE_PART.split(template)
            pattern = re.compile("^" + "([^/]+)".join(map(re.escape, literals)) + "$")
            segments = template.count("/")
            literal = segments - len(names)
            self._templates.setdefault(segments, []).append((literal, pattern, template, names))
        for entries in self._templates.values():
            entries.sort(key=lambda entry: -entry[0])
        self._validators: dict[tuple[str, str], Any] = {}

    @classmethod
    def load(cls, path: Path) -> OpenApiDocument:
        """The document in ``path``: JSON by its suffix, else YAML."""
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            return cls(json.loads(text))
        import yaml

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return cls(yaml.load(text, Loader=loader))

    def operation(self, method: str, path: str) -> Operation | None:
        """The operation ``method path`` is, or None when the document has no such one."""
        method = method.lower()
        for _literal, pattern, template, names in self._templates.get(path.count("/"), []):
            match = pattern.match(path)
            if match is None:
                continue
            spec = self.spec["paths"][template].get(method)
            if spec is None:
                continue
            return Operation(method, template, spec, dict(zip(names, match.groups(), strict=True)))
        return None

    def problems(
        self, method: str, path: str, query: Sequence[tuple[str, str]] = (), body: Any = None
    ) -> list[str]:
        """What is wrong with the request, one line each: [] when the service takes it."""
        operation = self.operation(method, path)
        if operation is None:
            return [f"no operation {method.upper()} {path} in the published API"]
        found = list(self._parameter_problems(operation, query))
        found.extend(self._body_problems(operation, body))
        return found

    # -- parameters -------------------------------------------------------------------

    def _parameters(self, operation: Operation) -> list[Mapping[str, Any]]:
        shared = self.spec["paths"][operation.template].get("parameters", [])
        return [self._resolve(p) for p in [*shared, *operation.spec.get("parameters", [])]]

    def _parameter_problems(
        self, operation: Operation, query: Sequence[tuple[str, str]]
    ) -> Iterable[str]:
        given: dict[str, list[str]] = {}
        for name, value in query:
            given.setdefault(name.removesuffix("[]"), []).append(value)
        declared = {
            p["name"].removesuffix("[]"): p
            for p in self._parameters(operation)
            if p.get("in") == "query"
        }
        for name in given:
            if name not in declared:
                yield f"{operation.operation_id}: unknown query parameter {name!r}"
        for name, parameter in declared.items():
            schema = self._resolve(parameter.get("schema", {}))
            if name not in given:
                if parameter.get("required"):
                    yield f"{operation.operation_id}: query parameter {name!r} is required"
                continue
            values = given[name]
            if schema.get("type") == "array":
                item = self._resolve(schema.get("items", {}))
                values = (
                    [part for value in values for part in value.split(",")]
                    if len(values) == 1 and item.get("type") != "string"
                    else values
                )
                for value in values:
                    yield from _scalar_problems(operation, name, value, item)
            else:
                if len(values) > 1:
                    yield f"{operation.operation_id}: query parameter {name!r} given twice"
                yield from _scalar_problems(operation, name, values[-1], schema)
        for parameter in self._parameters(operation):
            if parameter.get("in") == "path":
                value = operation.path_values.get(parameter["name"], "")
                yield from _scalar_problems(
                    operation, parameter["name"], value, self._resolve(parameter.get("schema", {}))
                )

    # -- the body ---------------------------------------------------------------------

    def _body_schema(self, operation: Operation) -> Mapping[str, Any] | None:
        request_body = operation.spec.get("requestBody")
        if request_body is None:
            return None
        content = self._resolve(request_body).get("content", {})
        media = content.get("application/json") or content.get("*/*")
        return None if media is None else media.get("schema", {})

    def _body_problems(self, operation: Operation, body: Any) -> Iterable[str]:
        request_body = operation.spec.get("requestBody")
        if body is None:
            if request_body is not None and self._resolve(request_body).get("required"):
                yield f"{operation.operation_id}: a request body is required"
            return
        schema = self._body_schema(operation)
        if schema is None:
            yield f"{operation.operation_id}: takes no JSON body"
            return
        for error in self._validator(operation, schema).iter_errors(body):
            if (
                error.validator == "type"
                and error.instance is None
                and error.schema.get("nullable")
            ):
                continue
            where = "/".join(str(part) for part in error.absolute_path) or "the body"
            yield f"{operation.operation_id}: {where}: {error.message}"
        yield from self._read_only_problems(operation, schema, body, "")

    def _read_only_problems(
        self, operation: Operation, schema: Mapping[str, Any], body: Any, where: str
    ) -> Iterable[str]:
        schema = self._resolve(schema)
        if not isinstance(body, dict):
            return
        properties = schema.get("properties", {})
        for key, value in body.items():
            sub = properties.get(key)
            if sub is None:
                continue
            sub = self._resolve(sub)
            if sub.get("readOnly"):
                yield f"{operation.operation_id}: {where}{key} is read-only"
            else:
                yield from self._read_only_problems(operation, sub, value, f"{where}{key}/")

    def _validator(self, operation: Operation, schema: Mapping[str, Any]) -> Any:
        key = (operation.method, operation.template)
        validator = self._validators.get(key)
        if validator is None:
            from jsonschema import Draft4Validator

            validator = Draft4Validator({**self.spec, **schema})
            self._validators[key] = validator
        return validator

    def _resolve(self, node: Mapping[str, Any]) -> Mapping[str, Any]:
        """``node``, or what its ``$ref`` (within this document) points at."""
        seen = 0
        while isinstance(node, Mapping) and "$ref" in node and seen < 16:
            target: Any = self.spec
            for part in str(node["$ref"]).removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node, seen = target, seen + 1
        return node

    @cached_property
    def title(self) -> str:
        return str(self.spec.get("info", {}).get("title", "the API"))


def _scalar_problems(
    operation: Operation, name: str, value: str, schema: Mapping[str, Any]
) -> Iterable[str]:
    kind = schema.get("type")
    where = f"{operation.operation_id}: parameter {name!r}"
    if kind == "integer":
        try:
            number = int(value)
        except ValueError:
            yield f"{where}: {value!r} is not an integer"
            return
        if "maximum" in schema and number > schema["maximum"]:
            yield f"{where}: {number} is over the maximum {schema['maximum']}"
        if "minimum" in schema and number < schema["minimum"]:
            yield f"{where}: {number} is under the minimum {schema['minimum']}"
    elif kind == "boolean" and value not in ("true", "false"):
        yield f"{where}: {value!r} is not true or false"
    elif "enum" in schema and value not in [str(choice) for choice in schema["enum"]]:
        yield f"{where}: {value!r} is not one of {', '.join(map(str, schema['enum']))}"
