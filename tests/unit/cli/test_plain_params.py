"""Every parameter of the command line converts a value as Typer would (through pydantic),
without pydantic where the value is plain (``ralph.cli._params``)."""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any, get_origin

import pytest
import typer.main
from typer._click import Context
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param
from typer.core import _TyperParameter

from ralph.cli import app
from ralph.cli._help import _tidy_help
from ralph.cli._lazy_root import whole_tree
from ralph.cli._params import PlainRuntimeParam, plain_runtime_param

#: Typed values, plain and not: whole numbers Typer reads differently from ``int()``
#: (``+5``, ``007``, ``1_0``), decimals, words, empty text, out-of-range numbers.
SAMPLES = (
    "0",
    "1",
    "-1",
    "7",
    "+5",
    "007",
    "1_0",
    " 4",
    "1.5",
    "2.0",
    "1e3",
    "inf",
    "nan",
    ".5",
    "x",
    "",
    "#3",
    "99999999999999999999999",
    "a/b",
    "Human Needed",
    "json",
    "JSON",
)


def parameters() -> Iterator[tuple[str, _TyperParameter]]:
    root = whole_tree(app)
    _tidy_help(root)

    def walk(command: Any, path: str) -> Iterator[tuple[str, _TyperParameter]]:
        for param in command.params:
            if isinstance(param, _TyperParameter):
                yield f"{path} {param.name}", param
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, f"{path} {name}")

    yield from walk(root, "ralph")


def samples_for(param: _TyperParameter) -> list[Any]:
    annotation: Any = param.type_descriptor.annotation
    typed: list[Any] = list(SAMPLES)
    if get_origin(annotation) is list:
        return [[s] for s in typed] + [["a", "b"], []]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        typed += [*annotation, *(m.value for m in annotation), *(m.name for m in annotation)]
    return [*typed, 0, 3, 2.5, True, False, Path("p")]


def outcome(convert: Any, value: Any, param: _TyperParameter, ctx: Context) -> tuple[str, Any]:
    try:
        result = convert(value, param=param, ctx=ctx)
    except BadParameter as error:
        return "refused", error.format_message()
    except Exception as error:  # Typer's own errors, whatever their kind: the same kind
        return "raised", (type(error).__name__, str(error))
    return "gave", (type(result).__name__, repr(result))  # repr: nan is not nan


@pytest.mark.parametrize(("where", "param"), list(parameters()), ids=lambda x: str(x))
def test_a_parameter_converts_every_value_as_typer_does(where: str, param: _TyperParameter):
    ours = plain_runtime_param(param.type_descriptor)
    theirs = build_runtime_param(param.type_descriptor)
    ctx = Context(typer.main.get_command(app))
    for value in samples_for(param):
        assert outcome(ours._coerce_value, value, param, ctx) == outcome(
            theirs._coerce_value, value, param, ctx
        ), (where, value)


def test_every_parameter_but_a_file_is_converted_here():
    kinds = {type(plain_runtime_param(p.type_descriptor)) for _, p in parameters()}
    assert kinds == {PlainRuntimeParam}


def test_the_tree_the_command_line_runs_converts_with_the_plain_conversion():
    root = whole_tree(app)
    _tidy_help(root)
    issue_list = root.commands["issue"].commands["list"]  # type: ignore[attr-defined]
    limit = next(p for p in issue_list.params if p.name == "limit")
    assert isinstance(limit, _TyperParameter)
    assert isinstance(limit.get_runtime_param(), PlainRuntimeParam)
