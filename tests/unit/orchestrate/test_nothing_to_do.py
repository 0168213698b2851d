"""Why a root has nothing to do, in a person's words: who has to move what, or that it
is done; never the pipeline's stage names."""

from __future__ import annotations

from ralph.orchestrate._lead import nothing_to_do
from ralph.pipeline import IssueState, detect_position


def _position(*issues: tuple[int, str]):
    states = [IssueState(n, workflow_state=state, estimate="M") for n, state in issues]
    return detect_position(states, is_group=len(states) > 1, group_primary=None)


def test_a_finished_root_is_said_to_be_done():
    said = nothing_to_do(2, _position((2, "Done")))
    assert said == "#2: nothing to do; it is done"


def test_an_escalated_root_names_what_a_person_has_to_move():
    said = nothing_to_do(1, _position((1, "Human Needed"), (3, "Done")))
    assert said == "#1: nothing to do until a person resolves it and runs `ralph issue retry 1`"
