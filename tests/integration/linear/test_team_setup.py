"""Setting up a Linear team for Ralph against FakeLinear: the missing states made with
their types, nothing twice (a second run, a run killed half-way, a lost answer), a team
off the t-shirt scale refused before anything is written; and what doctor reports."""

from __future__ import annotations

import pytest

from ralph.linear import HttpTransport, LinearClient, LinearInvalid, LinearNotFound
from ralph.linear.fake import FakeLinear, ScriptedFault
from ralph.tracker.linear import STATE_TYPES, check_team, read_team, set_up_team
from ralph.workflow import WorkflowState

from .conftest import KEY

pytestmark = pytest.mark.timeout(60)

RALPH_STATES = [s.value for s in WorkflowState]


def states_of(fake: FakeLinear, key: str = "ENG") -> list[tuple[str, str]]:
    team = fake.workspace.team(key)
    return [(s.name, s.type) for s in team.state_list]


def creates(fake: FakeLinear) -> int:
    return sum(r.name == "CreateWorkflowState" for r in fake.requests)


def test_a_fresh_team_gets_every_missing_state_with_its_type(fake, client):
    setup = set_up_team(client, "eng")
    # Linear's defaults already hold Backlog, In Progress, In Review, Done and Canceled.
    assert setup.created_states == (
        "Research Needed",
        "Research in Progress",
        "Ready for Plan",
        "Plan in Progress",
        "Plan in Review",
        "Human Needed",
    )
    held = dict(states_of(fake))
    assert {name: held[name] for name in RALPH_STATES} == {
        s.value: kind for s, kind in STATE_TYPES.items()
    }
    assert set(RALPH_STATES) <= set(setup.team.states)
    assert setup.team.state_id(WorkflowState.PLAN_IN_REVIEW) == next(
        s.id for s in fake.workspace.team("ENG").state_list if s.name == "Plan in Review"
    )


def test_a_second_run_changes_nothing(fake, client):
    set_up_team(client, "ENG")
    before, made = states_of(fake), creates(fake)
    again = set_up_team(client, "ENG")
    assert again.created_states == ()
    assert (states_of(fake), creates(fake)) == (before, made)


def test_a_half_set_up_team_gets_only_what_it_lacks(fake, client):
    fake.add_team(
        "OPS",
        "Operations",
        states=(("Backlog", "backlog"), ("Research Needed", "unstarted"), ("Done", "completed")),
    )
    setup = set_up_team(client, "OPS")
    assert "Research Needed" not in setup.created_states
    assert len(setup.created_states) == 8
    names = [name for name, _ in states_of(fake, "OPS")]
    assert sorted(names) == sorted(RALPH_STATES)


class Killed(Exception):
    """The process dying half-way (here: before the second state is created)."""


class DiesAfterOneState:
    """A transport that lets one state be created, then dies."""

    def __init__(self, fake: FakeLinear) -> None:
        self.fake = fake

    def post(self, payload, token):
        if "CreateWorkflowState" in str(payload["query"]) and creates(self.fake) >= 1:
            raise Killed
        return self.fake.post(payload, token)

    def close(self) -> None:
        pass


def test_a_run_killed_after_the_first_state_then_rerun_leaves_no_duplicate(fake, client, clock):
    dying = LinearClient(DiesAfterOneState(fake), KEY, clock=clock, sleep=clock.advance)
    with pytest.raises(Killed):
        set_up_team(dying, "ENG")
    assert [name for name, _ in states_of(fake)].count("Research Needed") == 1
    set_up_team(client, "ENG")
    names = [name for name, _ in states_of(fake)]
    assert all(names.count(name) == 1 for name in RALPH_STATES)
    assert creates(fake) == 6  # one of each, the killed run's included


def test_a_lost_answer_to_a_state_create_is_found_not_made_again(fake, client):
    fake.script(ScriptedFault.dropped_after_write("CreateWorkflowState"))
    setup = set_up_team(client, "ENG")
    assert len(setup.created_states) == 6
    names = [name for name, _ in states_of(fake)]
    assert all(names.count(name) == 1 for name in RALPH_STATES)
    assert creates(fake) == 6


def test_a_state_create_lost_before_it_ran_is_sent_again(fake, client):
    fake.script(ScriptedFault.dropped("CreateWorkflowState"))
    set_up_team(client, "ENG")
    names = [name for name, _ in states_of(fake)]
    assert all(names.count(name) == 1 for name in RALPH_STATES)


@pytest.mark.parametrize("scale", ["fibonacci", "notUsed"])
def test_a_team_off_the_t_shirt_scale_is_refused_before_anything_is_written(fake, client, scale):
    fake.add_team("OPS", "Operations", estimates=scale)
    before = states_of(fake, "OPS")
    with pytest.raises(LinearInvalid, match="Team settings → General → Estimates → T-Shirt"):
        set_up_team(client, "OPS")
    assert states_of(fake, "OPS") == before
    assert creates(fake) == 0


def test_a_done_state_that_is_not_completed_is_refused(fake, client):
    fake.add_team("OPS", "Operations", states=(("Backlog", "backlog"), ("Done", "started")))
    with pytest.raises(LinearInvalid, match='"Done" state is started, Ralph needs completed'):
        set_up_team(client, "OPS")
    assert creates(fake) == 0


def test_an_unknown_team_names_the_setting_to_check(client):
    with pytest.raises(LinearNotFound, match=r"no Linear team with the key NOPE.*linear\.team"):
        read_team(client, "NOPE")


def _by_name(checks):
    return {c.name: c for c in checks}


def test_doctor_passes_a_set_up_team(client):
    set_up_team(client, "ENG")
    checks = check_team(client, "ENG")
    assert [c for c in checks if not c.ok] == []
    found = _by_name(checks)
    assert found["Linear API key"].detail.startswith("authenticated as Ada Lovelace")
    assert found["team"].detail == "ENG Engineering"
    assert found["state Plan in Review"].detail == "started"
    assert len([c for c in checks if c.name.startswith("state ")]) == 11


def test_doctor_names_each_missing_state_and_the_command_that_makes_it(client):
    found = _by_name(check_team(client, "ENG"))
    missing = found["state Research Needed"]
    assert not missing.ok
    assert "ralph init --linear ENG" in missing.detail
    assert found["state Done"].ok


def test_doctor_refuses_a_fibonacci_team_with_the_setting_to_change(fake, client):
    fake.add_team("OPS", "Operations", estimates="fibonacci")
    estimates = _by_name(check_team(client, "OPS"))["estimates"]
    assert not estimates.ok
    assert estimates.detail == (
        "team OPS's estimates are on the fibonacci scale; Ralph's are t-shirt sizes: "
        "choose Team settings → General → Estimates → T-Shirt"
    )


def test_doctor_stops_at_a_refused_key(fake, clock):
    client = LinearClient(fake, "lin_api_unknown", clock=clock, sleep=clock.advance)
    checks = check_team(client, "ENG")
    assert [(c.name, c.ok) for c in checks] == [("Linear API key", False)]
    assert "set RALPH_LINEAR_TOKEN" in checks[0].detail


def test_doctor_stops_at_an_unknown_team(client):
    checks = check_team(client, "NOPE")
    assert [(c.name, c.ok) for c in checks] == [("Linear API key", True), ("team", False)]


def test_setup_and_doctor_work_over_http_as_a_ralph_process_speaks():
    # On the wall clock: the budgets' reset times are real ones over HTTP.
    fake = FakeLinear()
    fake.add_token(KEY, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    with fake.serve() as url:
        client = LinearClient(HttpTransport(url, timeout=10.0), KEY)
        try:
            assert len(set_up_team(client, "ENG").created_states) == 6
            assert all(c.ok for c in check_team(client, "ENG"))
        finally:
            client.close()
