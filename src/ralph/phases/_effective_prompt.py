"""The prompt a phase's agent gets, as ``ralph prompts show`` prints it: the project's
override (or the packaged prompt) filled with what is known before the phase runs."""

from __future__ import annotations

from datetime import date

from ralph.config import Config
from ralph.errors import InvalidInput
from ralph.phases._context import PhaseContext
from ralph.phases._phase import test_phrases
from ralph.phases._prompts import PROMPTED_PHASES, fill_prompt, load_override
from ralph.phases._registry import get_phase
from ralph.project import Project

__all__ = ["effective_prompt", "prompted_phase"]


def prompted_phase(name: str) -> str:
    """The phase ``name`` means, when its agent gets a prompt; InvalidInput otherwise."""
    phase = get_phase(name)
    if phase.name not in PROMPTED_PHASES:
        raise InvalidInput(
            f"{phase.name} runs no agent, so it has no prompt; phases with one: "
            f"{', '.join(PROMPTED_PHASES)}"
        )
    return phase.name


def effective_prompt(
    config: Config, phase_name: str, project: Project | None = None, number: int | None = None
) -> str:
    """The phase's prompt, its override checked (ConfigError when malformed), filled with
    the project's values and, given ``number``, the issue's. What only a run decides
    (the document's path, the worktree) stays as its ``$variable``."""
    name = prompted_phase(phase_name)
    override = load_override(config, name)
    values: dict[str, str] = {"base_branch": config.base_branch}
    if "test_command" in PROMPTED_PHASES[name].prompt_variables:
        values |= test_phrases(config.test_command)
    if project is not None and number is not None:
        ctx = PhaseContext(project, date.today())
        # The issue alone: finding a group phase's other members may heal links, and
        # showing a prompt writes nothing.
        values |= get_phase(name).prompt_values(ctx, [project.tracker.get_issue(number)])
    return fill_prompt(name, values, override)
