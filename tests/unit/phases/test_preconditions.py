"""What a phase takes before it starts: the states of its command contract (or its own
lock state, to resume), never Human Needed, and only estimates it can do in one go."""

from __future__ import annotations

import pytest

from ralph.phases import PHASES, PhaseRefused
from ralph.phases._phase import Impasse
from ralph.tracker import Issue
from ralph.workflow import Estimate, WorkflowState

S = WorkflowState

#: phase -> the states it starts from or resumes in.
TAKES = {
    "triage": {S.BACKLOG},
    "split": {S.BACKLOG, S.RESEARCH_NEEDED},
    "research": {S.RESEARCH_NEEDED, S.RESEARCH_IN_PROGRESS},
    "plan": {S.READY_FOR_PLAN, S.PLAN_IN_PROGRESS},
    "review": {S.PLAN_IN_REVIEW},
    "implement": {S.PLAN_IN_REVIEW, S.IN_PROGRESS},
    "pr": {S.IN_PROGRESS},
    "code_review": {S.IN_REVIEW},
    "address": {S.IN_REVIEW},
    "merge": {S.IN_REVIEW},
}


def test_every_phase_is_in_the_table():
    assert set(TAKES) == set(PHASES)


@pytest.mark.parametrize("name", TAKES)
@pytest.mark.parametrize("state", [s for s in S if s is not S.HUMAN_NEEDED])
def test_a_phase_takes_its_states_and_refuses_the_others_naming_them(name, state):
    phase = PHASES[name]
    issue = Issue(number=5, title="t", workflow_state=state)
    if state in TAKES[name]:
        phase.check_state(issue)
        return
    with pytest.raises(PhaseRefused) as refused:
        phase.check_state(issue)
    assert not isinstance(refused.value, Impasse)
    assert str(refused.value).startswith(f"{name} takes issues in ")
    assert str(refused.value).endswith(f"#5 is {state.value}")


@pytest.mark.parametrize("name", TAKES)
def test_an_issue_off_the_board_is_refused(name):
    with pytest.raises(PhaseRefused, match="#5 is not on the board"):
        PHASES[name].check_state(Issue(number=5, title="t"))


@pytest.mark.parametrize("name", TAKES)
def test_human_needed_is_an_impasse_that_says_how_a_person_lifts_it(name):
    with pytest.raises(Impasse, match=r"ralph issue move 5 STATE\) before " + name):
        PHASES[name].check_state(Issue(number=5, title="t", workflow_state=S.HUMAN_NEEDED))


SMALL = {Estimate.XS, Estimate.S}
#: phase -> the estimates it takes (every phase takes an unestimated issue).
SIZES = {
    "triage": set(Estimate),
    "split": {Estimate.M, Estimate.L, Estimate.XL},
    "research": SMALL,
    "plan": SMALL,
    "review": SMALL,
    "implement": SMALL,
    "pr": SMALL,
    "merge": set(Estimate),
}


@pytest.mark.parametrize("name", SIZES)
@pytest.mark.parametrize("estimate", [*Estimate, None])
def test_a_phase_takes_only_the_sizes_it_can_do_and_says_to_split_big_ones(name, estimate):
    phase = PHASES[name]
    issue = Issue(number=5, title="t", estimate=estimate)
    if estimate is None or estimate in SIZES[name]:
        phase.check_estimate(issue)
    elif estimate in (Estimate.M, Estimate.L, Estimate.XL):
        with pytest.raises(
            PhaseRefused, match=r"estimated .*: split it first \(ralph run split 5\)"
        ):
            phase.check_estimate(issue)
    else:
        with pytest.raises(PhaseRefused, match=f"#5 has estimate {estimate.value}$"):
            phase.check_estimate(issue)
