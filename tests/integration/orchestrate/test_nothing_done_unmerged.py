"""Nothing Done that is not merged, end to end on the demo project (local tracker, real
git, the scripted agents): a Done whose change never reached main is found by the next
look (a session's start, a loop's read of the board) and merged, never left as Done."""

from __future__ import annotations

from ralph.orchestrate import RootSessions, SessionOptions, run_loop
from ralph.runtimes.scripted import ScriptedRuntime
from ralph.tracker import PullRequestState
from ralph.workflow import WorkflowState

from .conftest import Demo

S = WorkflowState
BEFORE_MERGE = frozenset({"research", "plan", "review", "implement", "pr"})


def _farewell_on_main(demo: Demo) -> bool:
    return "def farewell" in demo.on_main("greet/core.py")


def test_a_merge_the_base_lost_is_merged_again_when_a_session_starts_on_it(demo: Demo):
    number = demo.issue("farewell")
    before = demo.project.git.resolve("refs/heads/main")
    first = demo.hero(number)
    assert demo.state(number) is S.DONE, first
    assert _farewell_on_main(demo)
    # A person force-pushes main back to before the merge.
    demo.project.git.git("update-ref", "refs/heads/main", before, what="force-push main")
    assert not _farewell_on_main(demo)

    again = demo.hero(number)
    assert demo.state(number) is S.DONE, again
    assert _farewell_on_main(demo)
    comments = [c.body for c in demo.project.tracker.get_issue(number).comments]
    assert any("is not on main any more" in c for c in comments)
    assert demo.duplicate_comments(number) == []


def test_a_done_whose_pull_request_is_open_is_merged_by_the_next_loop(demo: Demo):
    number = demo.issue("farewell")
    built = demo.hero(number, phases=BEFORE_MERGE)
    assert demo.state(number) is S.IN_REVIEW, built
    (pr,) = demo.project.code_host.list_pull_requests(issue=number)
    # A person moves it to Done by hand; nothing merged it.
    demo.project.tracker.set_state(number, S.DONE.value)
    assert not _farewell_on_main(demo)

    options = SessionOptions.from_config(demo.project.config, mode="hero")
    run_loop(demo.project, ScriptedRuntime(env={}), options)
    assert demo.state(number) is S.DONE
    assert demo.project.code_host.get_pull_request(pr.number).state is PullRequestState.MERGED
    assert _farewell_on_main(demo)
    comments = [c.body for c in demo.project.tracker.get_issue(number).comments]
    assert any(f"pull request #{pr.number} is open, not merged" in c for c in comments)


def test_the_services_read_of_the_board_says_what_it_sent_back(demo: Demo):
    number = demo.issue("farewell")
    demo.hero(number, phases=BEFORE_MERGE)
    demo.project.tracker.set_state(number, S.DONE.value)
    said: list[str] = []
    options = SessionOptions.from_config(demo.project.config, mode="hero")
    sessions = RootSessions(demo.project, ScriptedRuntime(env={}), options, on_note=said.append)
    board = sessions.board()
    assert [line.split(" (")[0] for line in said] == [f"#{number}: Done -> In Review"]
    assert number in [root.root for root in board.roots]
    assert sessions.board() is not None
    assert len(said) == 1
