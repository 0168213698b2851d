"""Editing ``.ralph-routing.yml`` rule by rule (the original's ``configure_routing``):
each change is parsed whole with the rules it joins before the file is written, so the
file on disk always parses; a missing file is an empty list of rules."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ralph.errors import InvalidInput
from ralph.routing import ROUTING_FILE, RoutingConfig, parse_routing

__all__ = ["RoutingFile"]

_ENVIRONMENT = "RALPH_ROUTING_CONFIG"


@dataclass(frozen=True)
class RoutingFile:
    path: Path
    #: How answers and errors name it (relative to the project).
    shown: str

    @classmethod
    def of(cls, root: Path, given: str | None = None) -> RoutingFile:
        """``given``, else ``$RALPH_ROUTING_CONFIG``, else the project's
        ``.ralph-routing.yml``; it must lie inside the project (a tool never writes
        elsewhere)."""
        name = given or os.environ.get(_ENVIRONMENT) or ROUTING_FILE
        top = root.resolve()
        path = (top / name).resolve()
        if not path.is_relative_to(top):
            raise InvalidInput(
                f"the routing file {name!r} is outside the project; name a file inside it"
            )
        return cls(path, str(path.relative_to(top)))

    # -- reading ----------------------------------------------------------------------------

    def _data(self) -> dict[str, Any]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {"version": 1, "rules": []}
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"cannot read {self.shown}: {exc}") from None
        self._parse(text)  # a file that does not parse is named, never edited
        data = yaml.safe_load(text) or {}
        data.setdefault("rules", [])
        if data["rules"] is None:
            data["rules"] = []
        return dict(data)

    def _parse(self, text: str) -> RoutingConfig:
        return parse_routing(text, source=self.shown)

    def load(self) -> RoutingConfig:
        """The rules (none when there is no file)."""
        return self._parse(yaml.safe_dump(self._data(), sort_keys=False))

    def listing(self) -> dict[str, Any]:
        data = self._data()
        return {
            "exists": self.path.is_file(),
            "stopOnFirstMatch": data.get("stopOnFirstMatch", True),
            "rules": [{"index": i, **rule} for i, rule in enumerate(data["rules"])],
        }

    def validation(self) -> dict[str, Any]:
        """Whether the file parses, and the one problem when it does not."""
        try:
            rules = self.load()
        except InvalidInput as exc:
            return {"valid": False, "errors": [str(exc)]}
        return {"valid": True, "errors": [], "ruleCount": len(rules.rules)}

    # -- changing ---------------------------------------------------------------------------

    def add(self, rule: dict[str, Any]) -> list[dict[str, Any]]:
        data = self._data()
        data["rules"].append(_as_file_rule(rule))
        return self._write(data)

    def replace(self, index: int, rule: dict[str, Any]) -> list[dict[str, Any]]:
        data = self._data()
        self._check_index(data, index)
        data["rules"][index] = _as_file_rule(rule)
        return self._write(data)

    def remove(self, index: int) -> list[dict[str, Any]]:
        data = self._data()
        self._check_index(data, index)
        del data["rules"][index]
        return self._write(data)

    def _check_index(self, data: dict[str, Any], index: int) -> None:
        count = len(data["rules"])
        if not 0 <= index < count:
            raise InvalidInput(
                f"ruleIndex {index} is not a rule of {self.shown}: it has {count} "
                f"(0 to {count - 1})"
                if count
                else f"ruleIndex {index} is not a rule: {self.shown} has none; add_rule first"
            )

    def _write(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        text = yaml.safe_dump(data, sort_keys=False, width=10_000)
        self._parse(text)  # refused whole: the file is left as it was
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(self.path)
        return [{"index": i, **rule} for i, rule in enumerate(data["rules"])]


def _as_file_rule(rule: dict[str, Any]) -> dict[str, Any]:
    """The tool's rule in the file's shape: the original tool took ``match.labels`` as a
    list where the file has ``labels: {any: [...]}``; both are accepted."""
    if not isinstance(rule, dict):
        raise InvalidInput("rule must be an object: {match: {...}, action: {...}}")
    found = dict(rule)
    match = found.get("match")
    if isinstance(match, dict) and isinstance(match.get("labels"), list):
        found["match"] = {**match, "labels": {"any": list(match["labels"])}}
    return found
