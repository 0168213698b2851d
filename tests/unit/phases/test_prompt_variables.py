"""The variables an override may use are the ones its phase's prompt is filled with."""

from __future__ import annotations

from pathlib import Path
from string import Template

import pytest

from ralph.phases import PHASES
from ralph.phases._prompts import PROMPTED_PHASES, PromptOverride, fill_prompt, packaged_prompt


def test_every_phase_with_an_agent_has_a_prompt_and_its_variables():
    assert list(PROMPTED_PHASES) == [name for name, p in PHASES.items() if p.uses_agent]


@pytest.mark.parametrize("phase", list(PROMPTED_PHASES))
def test_every_variable_of_a_packaged_prompt_is_one_an_override_may_use(phase: str):
    template = Template(packaged_prompt(phase))
    assert template.is_valid()
    assert set(template.get_identifiers()) <= set(PROMPTED_PHASES[phase].prompt_variables)


def test_packaged_text_is_included_filled_and_not_substituted_twice():
    values = {"issue": "#7", "date": "2026-01-02", "document": "$issue.md"}
    mine = PromptOverride("research", Path("research.md"), "Before.\n$packaged\nAfter $issue.")
    text = fill_prompt("research", values, mine)
    assert text.startswith("Before.\n# Research issue #7")
    assert "`$issue.md` (and nowhere else)" in text  # a value is never read as a template
    assert text.endswith("After #7.")
    assert mine.extends
