"""How a confinement breach reads: reverted control files and the person's files apart,
and a long list cut short."""

from __future__ import annotations

from ralph.git import Breach


def test_reverted_files_and_the_persons_files_read_as_separate_problems():
    breach = Breach(checkout=(".env",), reverted=(".git/config",))
    assert breach.problems() == [
        "the agent wrote outside its working directory: .git/config (reverted)",
        "the agent wrote outside its working directory: .env",
    ]
    assert not Breach()


def test_a_long_list_of_files_names_the_first_ten_and_counts_the_rest():
    breach = Breach(checkout=tuple(f"build/{i:02}.o" for i in range(25)))
    (line,) = breach.problems()
    assert line.endswith("build/09.o and 15 more")
    assert "build/10.o" not in line


def test_files_the_agent_did_not_write_are_a_warning_and_no_breach():
    breach = Breach(noticed=("run.log",))
    assert not breach
    assert breach.problems() == []
    assert breach.warnings() == [
        "your checkout changed while the agent ran: run.log (not held against it: it runs "
        "unsandboxed, so Ralph cannot tell who wrote)"
    ]
    assert Breach(checkout=(".env",)).warnings() == []
