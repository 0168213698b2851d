"""The generated documents: ``docs/cli.md`` from the command tree itself and
``docs/configuration.md`` from the settings, so neither can drift (``make docs`` writes
them with ``python -m ralph.cli._reference``; a test compares)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path
from typing import Any

import typer

from ralph.cli._echo import echo
from ralph.cli._lazy_root import whole_tree

__all__ = ["cli_reference", "generated_documents"]

_EXITS = """\
## Exit codes

| code | meaning |
|---|---|
| 0 | done |
| 1 | the operation failed (a phase escalated, a check failed), or a run did not succeed: \
it needs a person (a plan to approve, an escalation), failed, was canceled or ran out of budget |
| 2 | the input or the configuration must change: the one line on stderr says what |
| 130 | a run (`hero`, `team`, `loop`, `worker`) interrupted; `serve` after a 2nd signal |
"""


def _param(param: Any) -> str:
    names = ", ".join(f"`{name}`" for name in [*param.opts, *param.secondary_opts])
    if param.param_type_name == "argument":
        names = f"`{(param.metavar or param.name).upper()}`"
    help_text = " ".join((getattr(param, "help", None) or "").split())
    extra = []
    envvar = getattr(param, "envvar", None)
    if envvar:
        extra.append(f"env `{envvar}`")
    if param.required and param.param_type_name == "argument":
        extra.append("required")
    suffix = f" ({'; '.join(extra)})" if extra else ""
    return f"- {names}: {help_text}{suffix}".rstrip(": ")


def _command(command: Any, path: str, lines: list[str]) -> None:
    subcommands = getattr(command, "commands", None)
    if command.hidden:
        return
    heading = "##" if path.count(" ") <= 1 else "###"
    lines += [f"{heading} `{path}`", ""]
    help_text = inspect.cleandoc(command.help or "")
    if help_text:
        lines += [help_text, ""]
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    if params:
        lines += [_param(p) for p in params] + [""]
    for name, subcommand in sorted((subcommands or {}).items()):
        _command(subcommand, f"{path} {name}", lines)


def cli_reference(app: typer.Typer) -> str:
    """Every command of ``app``, its help and its options, as Markdown."""
    root = whole_tree(app)
    lines = [
        "# Command line reference",
        "",
        "Generated from the command tree by `make docs`; `ralph COMMAND --help` says the same.",
        "",
    ]
    _command(root, "ralph", lines)
    return "\n".join(lines).rstrip() + "\n\n" + _EXITS


def generated_documents() -> dict[str, str]:
    """Each generated document's path in the repository, with its text."""
    from ralph.cli import app
    from ralph.config import configuration_reference

    return {"docs/cli.md": cli_reference(app), "docs/configuration.md": configuration_reference()}


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    for name, text in generated_documents().items():
        (root / name).write_text(text)
        echo(f"wrote {name}")
