"""A reason for a person on one line: what failed, never a line ending at its colon;
the output behind it fenced so no line of it can close the block."""

from __future__ import annotations

from ralph._reason import fenced, one_line, split_reason
from ralph.tracker import Comment, escalation_of

UNITTEST = (
    "the tests fail in the worktree (`python3 -m unittest`):\nF\n" + "=" * 70 + "\n"
    "FAIL: test_add (tests.test_add.T.test_add)\n" + "-" * 70 + "\n"
    "Traceback (most recent call last):\n"
    '  File "tests/test_add.py", line 5, in test_add\n'
    "    self.assertEqual(add(1, 2), 3)\nAssertionError: -1 != 3\n\n" + "-" * 70 + "\n"
    "Ran 1 test in 0.000s\n\nFAILED (failures=1)\n"
)
PYTEST = (
    "the tests fail in the worktree (`pytest -q`):\nF\n"
    "    def test_add():\n>       assert add(1, 2) == 3\nE       assert -1 == 3\n"
    "FAILED tests/test_add.py::test_add - assert -1 == 3\n1 failed in 0.01s\n"
)


def test_a_reason_introducing_output_says_on_its_line_what_failed():
    assert one_line(UNITTEST) == (
        "the tests fail in the worktree (`python3 -m unittest`): AssertionError: -1 != 3"
    )
    assert one_line(PYTEST).endswith("(`pytest -q`): E       assert -1 == 3")
    assert one_line("make failed:\n\nexit 2\n") == "make failed: exit 2"
    assert one_line("a reason of one line") == "a reason of one line"


def test_the_output_is_what_follows_the_first_line():
    headline, output = split_reason(UNITTEST)
    assert headline.endswith("(`python3 -m unittest`):")
    assert output.startswith("F\n=====")
    assert output.endswith("FAILED (failures=1)")


def test_a_fence_is_longer_than_any_backtick_run_in_the_output():
    assert fenced("plain") == "```text\nplain\n```"
    assert fenced("a ```` b") == "`````text\na ```` b\n`````"


def test_an_escalation_comment_from_before_the_fence_still_gives_its_output():
    legacy = Comment(
        id=1,
        author="ralph",
        body=f"Escalation: {UNITTEST}\nPhase `implement` stopped and needs a person. "
        "Resolve the problem, then move the issue back (`ralph issue move 3 STATE`) and "
        "run the phase again.",
        created_at=0.0,
    )
    found = escalation_of([legacy])
    assert found is not None
    assert found[0].endswith("AssertionError: -1 != 3")
    assert found[1].startswith("F\n")
    assert found[1].endswith("FAILED (failures=1)")
