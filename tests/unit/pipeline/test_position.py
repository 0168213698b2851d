"""Pipeline position: the conformance cases of docs/compatibility.md.

Where Ralph deliberately differs (In Review is COMPLETE with the merge remaining, and
remaining phases end with "pr", "merge"), the case says so.
"""

from __future__ import annotations

import pytest

from ralph.pipeline import IssueState, Stage, detect_position


def I(number, state, est="S", subs=0):  # noqa: E743 - the reference's notation
    return IssueState(number, f"Issue {number}", state, est, subs)


def single(issue):
    return detect_position([issue], is_group=False, group_primary=issue.number)


def group(*issues):
    return detect_position(list(issues), is_group=True, group_primary=issues[0].number)


FULL = ["split", "triage", "research", "plan", "review", "implement", "pr", "merge"]


class TestSingleIssue:
    def test_pd1_backlog_is_triage(self):
        assert single(I(1, "Backlog")).phase is Stage.TRIAGE

    @pytest.mark.parametrize("estimate", ["M", "L"])
    def test_pd2_oversized_backlog_is_split(self, estimate):
        assert single(I(1, "Backlog", estimate)).phase is Stage.SPLIT

    def test_pd3_oversized_research_needed_is_split(self):
        assert single(I(1, "Research Needed", "XL")).phase is Stage.SPLIT

    @pytest.mark.parametrize("state", ["Research Needed", "Research in Progress"])
    def test_pd4_research_states_are_research(self, state):
        assert single(I(1, state)).phase is Stage.RESEARCH

    def test_pd5_ready_for_plan_is_plan_and_converged(self):
        position = single(I(1, "Ready for Plan"))
        assert position.phase is Stage.PLAN
        assert position.convergence.met

    def test_pd6_plan_in_progress_is_review(self):
        assert single(I(1, "Plan in Progress")).phase is Stage.REVIEW

    def test_pd7_plan_in_review_is_the_human_gate_with_nothing_remaining(self):
        position = single(I(1, "Plan in Review"))
        assert position.phase is Stage.HUMAN_GATE
        assert position.remaining_phases == ()

    def test_pd8_in_progress_is_implement_then_pr_then_merge(self):
        position = single(I(1, "In Progress"))
        assert position.phase is Stage.IMPLEMENT
        assert list(position.remaining_phases) == ["implement", "pr", "merge"]

    def test_pd9_in_review_is_complete_with_the_merge_remaining__ralph(self):
        position = single(I(1, "In Review"))
        assert position.phase is Stage.COMPLETE
        assert list(position.remaining_phases) == ["merge"]

    @pytest.mark.parametrize("state", ["Done", "Human Needed"])
    def test_pd9_done_and_human_needed_are_terminal(self, state):
        position = single(I(1, state))
        assert position.phase is Stage.TERMINAL
        assert position.remaining_phases == ()

    @pytest.mark.parametrize("state", ["unknown", "", None])
    def test_pd10_no_state_is_triage(self, state):
        assert single(I(1, state)).phase is Stage.TRIAGE

    @pytest.mark.parametrize("estimate", [None, "XS"])
    def test_pd11_small_or_unestimated_backlog_is_triage(self, estimate):
        assert single(I(1, "Backlog", estimate)).phase is Stage.TRIAGE

    @pytest.mark.parametrize(("estimate", "subs"), [("M", 3), ("L", 2), ("XL", 1), ("S", 5)])
    def test_pd12_issues_already_split_are_not_split_again(self, estimate, subs):
        assert single(I(1, "Backlog", estimate, subs)).phase is Stage.TRIAGE

    def test_pd13_no_issues_is_triage(self):
        position = detect_position([], is_group=False, group_primary=None)
        assert position.phase is Stage.TRIAGE
        assert "No issues" in position.reason

    def test_pd26_single_issue_metadata(self):
        position = single(I(42, "Backlog"))
        assert position.is_group is False
        assert position.group_primary == 42

    def test_pd_d9_canceled_is_terminal(self):
        assert single(I(1, "Canceled")).phase is Stage.TERMINAL

    def test_pd_d11_roster_for_a_single_plan(self):
        roster = single(I(1, "Ready for Plan")).suggested_roster
        assert roster.to_dict() == {"analyst": 0, "builder": 1, "validator": 1, "integrator": 1}

    def test_pd_d16_a_state_outside_the_eleven_defaults_to_triage(self):
        position = single(I(1, "Weird"))
        assert position.phase is Stage.TRIAGE
        assert position.reason == "Mixed states, defaulting to triage"


class TestGroup:
    def test_pd14_research_blocks_convergence_research_needed_first(self):
        position = group(
            I(1, "Research Needed"), I(2, "Ready for Plan"), I(3, "Research in Progress")
        )
        assert position.phase is Stage.RESEARCH
        assert position.convergence.required is True
        assert position.convergence.met is False
        assert [b.number for b in position.convergence.blocking] == [1, 3]

    def test_pd15_all_ready_for_plan_converged(self):
        position = group(*(I(n, "Ready for Plan") for n in (1, 2, 3)))
        assert position.phase is Stage.PLAN
        assert position.convergence.met is True
        assert position.convergence.blocking == ()

    def test_pd16_plan_in_progress_and_in_review_is_review(self):
        assert group(I(1, "Plan in Progress"), I(2, "Plan in Review")).phase is Stage.REVIEW

    def test_pd17_all_plans_in_review_is_the_human_gate(self):
        assert group(*(I(n, "Plan in Review") for n in (1, 2, 3))).phase is Stage.HUMAN_GATE

    def test_pd18_all_in_progress_is_implement(self):
        assert group(I(1, "In Progress"), I(2, "In Progress")).phase is Stage.IMPLEMENT

    def test_pd19_in_review_with_done_is_complete__ralph(self):
        position = group(I(1, "In Review"), I(2, "Done"), I(3, "In Review"))
        assert position.phase is Stage.COMPLETE
        assert position.reason == "2 issue(s) in review, awaiting merge"

    def test_pd19_done_and_canceled_is_terminal(self):
        assert group(I(1, "Done"), I(2, "Canceled")).phase is Stage.TERMINAL

    def test_pd20_one_oversized_member_makes_the_group_split(self):
        position = group(I(1, "Research Needed", "S"), I(2, "Research Needed", "M"))
        assert position.phase is Stage.SPLIT
        assert "#2=M" in position.reason

    def test_pd21_in_progress_outranks_human_needed(self):
        assert group(I(1, "In Progress"), I(2, "Human Needed")).phase is Stage.IMPLEMENT

    def test_pd22_all_human_needed_is_terminal(self):
        assert group(I(1, "Human Needed"), I(2, "Human Needed")).phase is Stage.TERMINAL

    def test_pd23_in_progress_outranks_ready_for_plan(self):
        assert group(I(1, "Ready for Plan"), I(2, "In Progress")).phase is Stage.IMPLEMENT

    def test_pd24_only_unsplit_oversized_issues_are_named(self):
        position = group(I(1, "Backlog", "M", 3), I(2, "Backlog", "M", 0))
        assert position.phase is Stage.SPLIT
        assert "#2=M" in position.reason
        assert "#1=M" not in position.reason

    def test_pd25_oversized_issues_with_sub_issues_are_triage(self):
        assert group(I(1, "Backlog", "M", 3), I(2, "Backlog", "L", 2)).phase is Stage.TRIAGE

    def test_pd27_group_metadata_and_issues_echoed_in_order(self):
        position = group(I(10, "Research Needed"), I(20, "Research Needed"))
        assert position.is_group is True
        assert position.group_primary == 10
        assert [i.number for i in position.issues] == [10, 20]

    def test_pd28_remaining_phases(self):
        assert list(group(I(1, "Backlog", "L")).remaining_phases) == FULL
        assert list(group(I(1, "Research Needed")).remaining_phases) == FULL[2:]
        assert list(group(I(1, "Ready for Plan")).remaining_phases) == FULL[3:]


class TestDerivedFromCode:
    def test_pd_d1_ready_for_plan_with_done_waits(self):
        position = group(I(1, "Ready for Plan"), I(2, "Done"))
        assert position.phase is Stage.PLAN
        assert position.convergence.to_dict() == {
            "required": True,
            "met": False,
            "blocking": [{"number": 2, "state": "Done"}],
            "recommendation": "wait",
        }

    def test_pd_d2_human_needed_stops_a_plan(self):
        position = group(I(1, "Ready for Plan"), I(2, "Human Needed"))
        assert position.phase is Stage.TERMINAL
        assert position.reason == "1 issue(s) need human intervention"

    def test_pd_d3_review_outranks_implement(self):
        position = group(I(1, "Plan in Review"), I(2, "In Progress"))
        assert position.phase is Stage.REVIEW
        assert position.reason == "1 plan(s) in review"

    def test_pd_d4_backlog_with_ready_for_plan_is_triage(self):
        assert group(I(1, "Backlog"), I(2, "Ready for Plan")).phase is Stage.TRIAGE

    def test_pd_d5_research_ignores_human_needed_in_blocking(self):
        position = group(I(1, "Research Needed"), I(2, "Human Needed"))
        assert position.phase is Stage.RESEARCH
        assert [b.to_dict() for b in position.convergence.blocking] == [
            {"number": 1, "state": "Research Needed"}
        ]
        assert position.convergence.recommendation == "wait"

    def test_pd_d6_ready_for_plan_with_plan_in_review_is_review(self):
        assert group(I(1, "Ready for Plan"), I(2, "Plan in Review")).phase is Stage.REVIEW

    def test_pd_d7_split_precedes_triage(self):
        assert group(I(1, "Backlog", "M", 0), I(2, "unknown")).phase is Stage.SPLIT

    def test_pd_d8_mixed_states_with_ready_for_plan_block_on_the_others(self):
        position = group(I(1, "In Review"), I(2, "Done"), I(3, "Ready for Plan"))
        assert position.phase is Stage.PLAN
        assert position.convergence.met is False
        assert [b.number for b in position.convergence.blocking] == [1, 2]

    def test_pd_d10_done_with_backlog_is_triage(self):
        assert group(I(1, "Done"), I(2, "Backlog")).phase is Stage.TRIAGE

    def test_pd_d12_three_researching_issues_want_two_analysts(self):
        position = group(*(I(n, "Research Needed") for n in (1, 2, 3)))
        assert position.phase is Stage.RESEARCH
        assert position.suggested_roster.analyst == 2

    def test_pd_d13_six_researching_issues_want_three_analysts(self):
        position = group(*(I(n, "Research Needed") for n in range(1, 7)))
        assert position.suggested_roster.analyst == 3

    def test_pd_d14_five_oversized_issues_want_two_builders(self):
        position = group(*(I(n, "Backlog", "M", 0) for n in range(1, 6)))
        assert position.phase is Stage.SPLIT
        assert position.suggested_roster.analyst == 1
        assert position.suggested_roster.builder == 2

    def test_pd_d15_builders_count_estimates_even_when_split(self):
        position = group(*(I(n, "In Progress", "M", 2) for n in range(1, 6)))
        assert position.phase is Stage.IMPLEMENT
        assert position.suggested_roster.analyst == 0
        assert position.suggested_roster.builder == 2

    def test_five_open_issues_want_a_second_validator_and_integrator(self):
        four = group(*(I(n, "In Review", "XS") for n in range(1, 5))).suggested_roster
        five = group(*(I(n, "In Review", "XS") for n in range(1, 6))).suggested_roster
        assert (four.validator, four.integrator) == (1, 1)
        assert (five.validator, five.integrator) == (2, 2)

    def test_thirty_open_issues_want_three_validators_and_still_two_integrators(self):
        roster = group(*(I(n, "In Progress", "XS") for n in range(1, 31))).suggested_roster
        assert (roster.validator, roster.integrator) == (3, 2)

    def test_finished_issues_do_not_grow_the_team(self):
        issues = [I(n, "Done", "XS") for n in range(1, 9)] + [I(9, "In Review", "XS")]
        roster = group(*issues).suggested_roster
        assert (roster.validator, roster.integrator) == (1, 1)


def test_escalate_is_recommended_when_a_blocker_needs_a_human():
    from ralph.pipeline import BlockingIssue, Convergence

    convergence = Convergence(
        required=True, met=False, blocking=(BlockingIssue(1, "Human Needed"),)
    )
    assert convergence.recommendation == "escalate"


def test_to_dict_has_the_originals_camel_case_shape():
    data = group(I(10, "Research Needed"), I(20, "Ready for Plan")).to_dict()
    assert list(data) == [
        "phase",
        "reason",
        "remainingPhases",
        "issues",
        "convergence",
        "isGroup",
        "groupPrimary",
        "suggestedRoster",
    ]
    assert data["issues"][0] == {
        "number": 10,
        "title": "Issue 10",
        "workflowState": "Research Needed",
        "estimate": "S",
        "subIssueCount": 0,
    }
    assert data["suggestedRoster"] == {"analyst": 1, "builder": 1, "validator": 1, "integrator": 1}
    assert data["convergence"]["blocking"] == [{"number": 10, "state": "Research Needed"}]


def test_issue_state_from_dict_accepts_camel_and_snake_case():
    camel = IssueState.from_dict(
        {"number": 7, "title": "t", "workflowState": "Backlog", "estimate": "M", "subIssueCount": 2}
    )
    snake = IssueState.from_dict(
        {
            "number": 7,
            "title": "t",
            "workflow_state": "Backlog",
            "estimate": "M",
            "sub_issue_count": 2,
        }
    )
    assert camel == snake == IssueState(7, "t", "Backlog", "M", 2)
    assert IssueState.from_dict({"number": 3}) == IssueState(3)


def test_detect_position_accepts_the_originals_json_objects():
    position = detect_position(
        [{"number": 1, "workflowState": "Plan in Review", "estimate": "S", "subIssueCount": 0}],
        is_group=False,
        group_primary=1,
    )
    assert position.phase is Stage.HUMAN_GATE
