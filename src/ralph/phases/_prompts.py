"""A project's own prompts: ``PHASE.md`` in ``prompts_dir`` (``.ralph/prompts`` by
default) replaces the phase's packaged prompt, or extends it where it writes
``$packaged``. Overrides use the packaged prompts' syntax (``string.Template``) and their
variables; an unknown variable, a malformed ``$`` or a file named after no phase is a
ConfigError when the override is loaded (before the phase locks anything), never an
agent run with a broken brief.

Overrides are read from the person's checkout (the folder of ralph.toml), never from a
worktree or a branch an agent works on: an agent cannot rewrite its own instructions.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from ralph.config import Config
from ralph.errors import ConfigError
from ralph.workflow import PHASE_SPECS, PhaseSpec

__all__ = [
    "PACKAGED",
    "PROMPTED_PHASES",
    "PromptOverride",
    "fill_prompt",
    "load_override",
    "load_overrides",
    "override_problems",
    "packaged_prompt",
]

#: The variable an override writes to include the packaged prompt, filled in.
PACKAGED = "packaged"

#: The phases whose agent gets a prompt (``prompts/NAME.md``), in the table's order; each
#: prompt is filled with its phase's ``prompt_variables``.
PROMPTED_PHASES: Mapping[str, PhaseSpec] = {s.name: s for s in PHASE_SPECS if s.uses_agent}


def packaged_prompt(phase: str) -> str:
    """The phase's packaged prompt template, unfilled."""
    return resources.files("ralph.phases").joinpath(f"prompts/{phase}.md").read_text()


@dataclass(frozen=True)
class PromptOverride:
    phase: str
    path: Path
    text: str

    @property
    def extends(self) -> bool:
        """Whether it includes the packaged prompt (``$packaged``) rather than replacing it."""
        return PACKAGED in Template(self.text).get_identifiers()


def fill_prompt(phase: str, values: Mapping[str, str], override: PromptOverride | None) -> str:
    """The phase's prompt with ``values``: the override's, else the packaged one. A
    variable without a value stays as written (``$document`` before a run decides it)."""
    packaged = Template(packaged_prompt(phase)).safe_substitute(values)
    if override is None:
        return packaged
    return Template(override.text).safe_substitute({**values, PACKAGED: packaged})


def _folder(config: Config) -> Path:
    return config.root / config.prompts_dir


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _checked(phase: str, path: Path) -> PromptOverride:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text; save the prompt as UTF-8") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    if not text.strip():  # would send the agent no instructions at all
        raise ConfigError(
            f"{path} is empty; write the prompt (with $packaged to extend Ralph's), or delete "
            "the file to use Ralph's own"
        )
    control = next(
        (i for i, c in enumerate(text) if c not in "\n\t\r" and unicodedata.category(c) == "Cc"),
        -1,
    )
    if control >= 0:
        raise ConfigError(
            f"{path}:{_line_of(text, control)}: a control character "
            f"(U+{ord(text[control]):04X}); remove it"
        )
    template = Template(text)
    for match in template.pattern.finditer(text):
        if match.group("invalid") is not None:
            raise ConfigError(
                f"{path}:{_line_of(text, match.start('invalid'))}: a $ that starts no "
                "variable; write $$ for a dollar sign, $name or ${name} for a variable"
            )
    known = (*PROMPTED_PHASES[phase].prompt_variables, PACKAGED)
    unknown = [name for name in template.get_identifiers() if name not in known]
    if unknown:
        where = text.find(f"${unknown[0]}")
        if where < 0:
            where = text.find(f"${{{unknown[0]}}}")
        raise ConfigError(
            f"{path}:{_line_of(text, where)}: unknown variable ${unknown[0]}; the {phase} "
            f"prompt has {', '.join('$' + name for name in known)}"
        )
    return PromptOverride(phase, path, text)


def _stray(config: Config) -> list[Path]:
    """Files in the prompts folder named after no phase with a prompt."""
    folder = _folder(config)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.md") if p.stem not in PROMPTED_PHASES)


def _unknown_phase(path: Path) -> ConfigError:
    return ConfigError(
        f"{path}: no phase {path.stem!r} has a prompt; name the file after one of "
        f"{', '.join(PROMPTED_PHASES)} (PHASE.md)"
    )


def load_override(config: Config, phase: str) -> PromptOverride | None:
    """The project's override of ``phase``'s prompt, checked; None when it has none.
    ConfigError (one line, naming the file) for a malformed one, or for a file in the
    prompts folder that names no phase (a misspelt name would otherwise never apply)."""
    stray = _stray(config)
    if stray:
        raise _unknown_phase(stray[0])
    if phase not in PROMPTED_PHASES:
        return None
    path = _folder(config) / f"{phase}.md"
    return _checked(phase, path) if path.is_file() else None


def load_overrides(config: Config) -> dict[str, PromptOverride]:
    """Every override the project has, checked: ConfigError for the first malformed one
    (what a run checks before it starts anything)."""
    found = {phase: load_override(config, phase) for phase in PROMPTED_PHASES}
    return {phase: override for phase, override in found.items() if override is not None}


def override_problems(config: Config) -> list[tuple[Path, str]]:
    """Every override of the project and what is wrong with it ("" when nothing is),
    for ``ralph doctor``."""
    found: list[tuple[Path, str]] = [(path, str(_unknown_phase(path))) for path in _stray(config)]
    for phase in PROMPTED_PHASES:
        path = _folder(config) / f"{phase}.md"
        if path.is_file():
            try:
                _checked(phase, path)
            except ConfigError as problem:
                found.append((path, str(problem)))
            else:
                found.append((path, ""))
    return sorted(found)
