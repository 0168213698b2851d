"""Command-line values converted without pydantic, where that is plain.

Typer 0.29 converts every value through a pydantic ``TypeAdapter`` (``typer._adapters``):
the first option a command reads imports pydantic and builds a schema, most of what
``ralph status`` spends starting. Nearly every Ralph parameter is a string, a flag, a
whole number or a choice, so those are converted here; a value this module does not
recognise as plainly valid (a typo, an out-of-range number, a type it does not know) goes
to Typer's own conversion, so every error reads exactly as Typer words it.
"""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args, get_origin

from typer._coercion import RuntimeParam, build_runtime_param
from typer._param_types import coerce_cli_choice, coerce_cli_path, routes_to_path
from typer.core import _TyperParameter

if TYPE_CHECKING:
    from typer._click import Context
    from typer._coercion import TypeDescriptor
    from typer.models import ParameterInfo

__all__ = ["PlainConversion", "PlainRuntimeParam", "plain_runtime_param"]

#: Whole numbers as a person types them; anything else (``+5``, ``007``, ``1_0``) goes to
#: Typer, which has its own opinion of them.
_WHOLE = re.compile(r"-?(0|[1-9][0-9]{0,17})")
_DECIMAL = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?")


class _NotPlain(Exception):
    """The value is not plainly valid: Typer converts it (and words the error)."""


def _within(number: float, info: ParameterInfo) -> bool:
    low, high = info.min, info.max
    return (low is None or number >= low) and (high is None or number <= high)


def _number(value: Any, kind: type[int] | type[float], info: ParameterInfo) -> Any:
    if info.clamp:
        raise _NotPlain
    if isinstance(value, str) and (_WHOLE if kind is int else _DECIMAL).fullmatch(value):
        value = kind(value)
    if type(value) is not kind or not _within(value, info):
        raise _NotPlain
    return value


def _leaf(value: Any, annotation: Any, info: ParameterInfo, param: Any, ctx: Any) -> Any:
    """``value`` as ``annotation``, as Typer's adapter for it would give it."""
    if info.parser is not None:
        return info.parser(value)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return coerce_cli_choice(
            value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=ctx
        )
    if annotation in (int, float):
        return _number(value, annotation, info)
    if annotation is str and isinstance(value, str):
        return value
    if annotation is bool and isinstance(value, bool):
        return value
    if annotation is Path and routes_to_path(annotation, info):
        return coerce_cli_path(value, info, path_type=info.path_type or Path, param=param, ctx=ctx)
    raise _NotPlain


class PlainRuntimeParam(RuntimeParam):
    """A parameter's conversion: the plain cases here, the rest by Typer."""

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Context) -> Any:
        annotation: Any = self.annotation
        try:
            if get_origin(annotation) is list:
                (item,) = get_args(annotation)
                if not isinstance(value, list | tuple):
                    raise _NotPlain
                return [_leaf(v, item, self.parameter_info, param, ctx) for v in value]
            return _leaf(value, annotation, self.parameter_info, param, ctx)
        except Exception:  # not plainly valid: Typer converts it, or says what is wrong
            typer_param = build_runtime_param(param.type_descriptor)
            return typer_param._coerce_value(value, param=param, ctx=ctx)


def plain_runtime_param(descriptor: TypeDescriptor) -> RuntimeParam:
    """The conversion for a parameter: Typer's own for files (which it opens), else ours."""
    if descriptor.file_annotation is not None:
        return build_runtime_param(descriptor)
    return PlainRuntimeParam(
        annotation=descriptor.annotation, parameter_info=descriptor.parameter_info
    )


class PlainConversion(_TyperParameter):
    """A parameter converted by :func:`plain_runtime_param` (mixed into the classes
    ``_help`` gives every parameter of the tree)."""

    def get_runtime_param(self) -> RuntimeParam:
        if self._runtime_param is None:
            self._runtime_param = plain_runtime_param(self.type_descriptor)
        return self._runtime_param
