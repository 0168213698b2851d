"""The table of phases (``ralph.workflow.TASK_SPECS``) is the one list of phases: every
other list is derived from it or, where a phase needs code, keyed by its names, and a
phase added to the table without its code fails here, naming what is missing. Its facts
(prompt variables, default model, whether it works in a worktree) are on its record."""

from __future__ import annotations

import dataclasses
from importlib import resources
from string import Template

import pytest

from ralph.config._agent import PHASE_NAMES
from ralph.graph import ROLE_OF_KIND, TYPICAL_EFFORT, Role, TaskKind
from ralph.graph._chain import CHAIN_KINDS, PRE_PLAN_KINDS
from ralph.orchestrate._execute import PHASE_OF_KIND
from ralph.phases import PHASES, get_phase
from ralph.phases._prompts import packaged_prompt
from ralph.pipeline import REMAINING_PHASES, Stage
from ralph.runtimes.scripted import _runtime
from ralph.workflow import COMMANDS, PHASE_SPECS, TASK_SPECS, PhaseSpec, find_phase

NAMES = [s.name for s in PHASE_SPECS]
AGENT_PHASES = [s.name for s in PHASE_SPECS if s.uses_agent]


def _ids(spec: PhaseSpec) -> str:
    return spec.name


def test_the_phases_and_the_persons_gate():
    assert NAMES == [
        "triage",
        "split",
        "research",
        "plan",
        "review",
        "implement",
        "pr",
        "code_review",
        "address",
        "merge",
    ]
    assert [s.name for s in TASK_SPECS if s.by_person] == ["human_gate"]
    assert [s.name for s in TASK_SPECS if s.on_demand] == ["code_review", "address"]


def test_names_kinds_and_command_names_are_unique():
    assert len(set(NAMES)) == len(NAMES)
    assert len({s.kind for s in TASK_SPECS}) == len(TASK_SPECS)
    assert len({s.command for s in PHASE_SPECS}) == len(PHASE_SPECS)


@pytest.mark.parametrize("spec", TASK_SPECS, ids=_ids)
def test_every_phase_names_a_command_contract_a_role_and_titles_with_a_subject(spec):
    assert spec.command in COMMANDS
    assert Role(spec.role)
    assert spec.title.count("{}") == spec.doing.count("{}") == 1


def test_the_graph_has_a_task_kind_for_every_phase_and_the_gate():
    assert [k.value for k in TaskKind] == [s.kind for s in TASK_SPECS]
    assert set(ROLE_OF_KIND) == set(TYPICAL_EFFORT) == set(TaskKind)


def test_every_kind_is_done_before_the_plan_or_in_its_chain():
    assert set(PRE_PLAN_KINDS) | set(CHAIN_KINDS) == set(TaskKind)
    assert not set(PRE_PLAN_KINDS) & set(CHAIN_KINDS)


def test_an_orchestrated_task_runs_the_phase_of_its_kind():
    assert {kind.value: phase for kind, phase in PHASE_OF_KIND.items()} == {
        s.kind: s.name for s in PHASE_SPECS
    }


def test_the_registry_has_the_code_of_every_phase_in_the_tables_order():
    assert list(PHASES) == NAMES
    for spec in PHASE_SPECS:
        assert PHASES[spec.name].spec is spec


@pytest.mark.parametrize("spec", PHASE_SPECS, ids=_ids)
def test_a_phase_is_found_by_its_name_and_its_commands(spec):
    for name in (spec.name, f"ralph_{spec.name}", spec.command, spec.command_name):
        assert find_phase(name) is spec
        assert get_phase(name).spec is spec


def test_the_original_command_names_stay():
    assert find_phase("impl") is find_phase("implement")
    assert find_phase("human_gate") is None
    assert find_phase("ralph_human") is None


def test_settings_may_name_every_phase():
    assert list(PHASE_NAMES) == NAMES


def test_a_pipeline_from_its_first_stage_has_every_phase_ahead_but_those_on_demand():
    ahead = REMAINING_PHASES[Stage.SPLIT]
    assert sorted(ahead) == sorted(s.name for s in PHASE_SPECS if not s.on_demand)
    assert set(REMAINING_PHASES) == set(Stage)


def test_every_agent_phase_has_a_prompt_and_none_other_has():
    prompts = resources.files("ralph.phases").joinpath("prompts")
    found = sorted(p.name for p in prompts.iterdir() if p.name.endswith(".md"))
    assert found == sorted(f"{name}.md" for name in AGENT_PHASES)


@pytest.mark.parametrize("spec", PHASE_SPECS, ids=_ids)
def test_an_agent_phase_asks_for_a_result_by_schema_and_gets_tools(spec):
    phase = PHASES[spec.name]
    if spec.uses_agent:
        assert phase.result_schema["required"]
        assert "escalate" in phase.result_schema["properties"]
        assert set(spec.tools) >= {"Read", "Glob", "Grep"}
    else:
        assert not phase.result_schema
        assert not spec.tools


def test_the_scripted_runtime_has_an_agent_for_every_agent_phase():
    assert list(_runtime._AGENTS) == AGENT_PHASES


@pytest.mark.parametrize("spec", PHASE_SPECS, ids=_ids)
def test_an_agent_phases_prompt_uses_only_its_variables_and_names_a_default_model(spec):
    if spec.uses_agent:
        prompt = Template(packaged_prompt(spec.name))
        assert set(prompt.get_identifiers()) <= set(spec.prompt_variables)
        assert {"issue", "subject"} <= set(spec.prompt_variables)
        assert spec.default_model
    else:
        assert spec.prompt_variables == ()
        assert spec.default_model == ""


def test_only_the_phases_that_change_code_work_in_a_worktree():
    in_worktree = [s for s in PHASE_SPECS if s.in_worktree]
    assert [s.name for s in in_worktree] == ["implement", "address"]
    # Code is edited and tested there; the phases that write one document do it in the
    # checkout's thoughts/ folder.
    assert all({"Write", "Edit", "Bash"} <= set(s.tools) for s in in_worktree)
    assert [s for s in PHASE_SPECS if "Edit" in s.tools] == in_worktree


def test_a_phase_without_an_agent_may_not_name_a_model_and_one_with_must():
    pr, triage = PHASES["pr"].spec, PHASES["triage"].spec
    with pytest.raises(ValueError, match="no agent"):
        dataclasses.replace(pr, default_model="sonnet")
    with pytest.raises(ValueError, match="no default model"):
        dataclasses.replace(triage, default_model="")
    with pytest.raises(ValueError, match="writes no file"):
        dataclasses.replace(triage, in_worktree=True)
