"""Every shell block of README.md, docs/getting-started.md and docs/by-hand.md runs as
printed, in order, in a throwaway directory, with this virtual environment's ``ralph`` on
the PATH: a block that exits non-zero, or prints something other than the output block
after it, fails the test. Blocks that cannot run here carry ``<!-- not run: REASON -->``
(see _blocks)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.sandbox import probe

from ..conftest import git, ralph_environment
from ._blocks import Block, MarkerError, blocks

ROOT = Path(__file__).resolve().parents[3]

#: Seconds one block may take; the getting-started walk takes about 15 in all.
BLOCK_TIMEOUT = 60


class Page:
    """A shell session over a page's blocks: the working directory and the exported
    variables carry from one block to the next, as in the terminal of a person who
    types them in order."""

    def __init__(self, path: Path, start: Path, home: Path) -> None:
        self.path = path
        self.state = home / "session.sh"
        self.state.write_text(f"cd {shlex.quote(str(start))}\n")
        bin_dir = str(Path(sys.executable).parent)
        settings = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
        if not probe().available:
            # No bubblewrap on this machine: the page tells such a person to allow it.
            settings["RALPH_ALLOW_UNSANDBOXED"] = "true"
        environment = ralph_environment(settings)
        environment["PATH"] = f"{bin_dir}:{environment.get('PATH', '')}"
        self.environment = environment
        self.output: str | None = None

    def _bash(
        self, script: str, *arguments: str, stdin: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        prologue = f"source {shlex.quote(str(self.state))}\nset -eo pipefail\n"
        return subprocess.run(
            ["bash", "-c", prologue + script, "bash", *arguments],
            env=self.environment,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT,
            check=False,
        )

    def where(self, block: Block) -> str:
        return f"{self.path.relative_to(ROOT)} line {block.line}"

    def run(self, block: Block) -> None:
        keep = f'\n{{ export -p; printf "cd %q\\n" "$PWD"; }} > {shlex.quote(str(self.state))}\n'
        result = self._bash(block.text + keep)
        assert result.returncode == 0, (
            f"{self.where(block)} exited {result.returncode}:\n{block.text}\n"
            f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
        self.output = result.stdout

    def write(self, block: Block) -> None:
        result = self._bash('cat > "$1"', block.argument, stdin=block.text)
        assert result.returncode == 0, f"{self.where(block)}: {result.stderr}"

    def compare(self, block: Block) -> None:
        assert self.output is not None, f"{self.where(block)}: an output block after no run"
        printed = iter(self.output.splitlines())
        for expected in filter(None, (line.rstrip() for line in block.text.splitlines())):
            assert any(expected in line for line in printed), (
                f"{self.where(block)}: {expected!r} is not in what the block before printed "
                f"(in order):\n{self.output}"
            )

    def follow(self) -> None:
        for block in blocks(self.path.read_text(encoding="utf-8")):
            if block.kind == "run":
                self.run(block)
            elif block.kind == "file":
                self.write(block)
            elif block.kind == "output":
                self.compare(block)

    def directory(self) -> Path:
        """Where the person stands after the last block."""
        last = self.state.read_text().splitlines()[-1]
        return Path(shlex.split(last)[1])


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n[init]\n\tdefaultBranch = main\n"
    )
    return home


@pytest.mark.slow
@pytest.mark.timeout(300)  # about 20 ralph processes; minutes on a loaded 2-core machine
@pytest.mark.usefixtures("persons_environment")
def test_getting_started_reaches_merged_changes_on_main(tmp_path: Path, home: Path) -> None:
    start = tmp_path / "work"
    start.mkdir()
    page = Page(ROOT / "docs" / "getting-started.md", start, home)
    page.follow()
    merges = git(page.directory(), "log", "--merges", "--format=%s", "main").splitlines()
    assert len(merges) == 3, merges
    assert all(subject.startswith("Merge pull request") for subject in merges)


@pytest.mark.slow
@pytest.mark.usefixtures("persons_environment")
@pytest.mark.timeout(300)  # about 15 ralph processes; minutes on a loaded 2-core machine
def test_by_hand_takes_an_idea_it_files_to_a_merged_change(tmp_path: Path, home: Path) -> None:
    start = tmp_path / "work"
    start.mkdir()
    page = Page(ROOT / "docs" / "by-hand.md", start, home)
    page.follow()
    project = page.directory()
    merges = git(project, "log", "--merges", "--format=%s", "main").splitlines()
    assert merges == ["Merge pull request #2 from feature/GH-1"]
    assert "def test_farewell" in git(project, "show", "main:tests/test_greet.py")


@pytest.mark.slow
@pytest.mark.usefixtures("persons_environment")
def test_readme_runs_in_a_throwaway_clone_of_a_git_repository(tmp_path: Path, home: Path) -> None:
    """The README's try runs in a clone beside the person's repository, which keeps its
    history: the simulated commits land on the clone's ``main`` only."""
    repository = tmp_path / "project"
    repository.mkdir()
    environment = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(["git", *args], cwd=repository, env=environment, check=True, timeout=30)
    page = Page(ROOT / "README.md", repository, home)
    page.follow()
    clone = page.directory()
    assert clone == tmp_path / "try-ralph"
    merges = git(clone, "log", "--merges", "--format=%s", "main").splitlines()
    assert merges == ["Merge pull request #2 from feature/GH-1"]
    assert git(repository, "log", "--format=%s", "main").splitlines() == ["start"]
    assert git(repository, "status", "--porcelain", "--ignored") == ""


@pytest.mark.slow
def test_the_linear_page_runs_on_the_fake_linear_it_shows(tmp_path: Path, home: Path) -> None:
    """docs/linear.md's offline try, with the exports ``make fake-linear`` prints set."""
    from ralph.linear.fake import FakeLinear
    from ralph.linear.fake.__main__ import OFFLINE_KEY

    repository = tmp_path / "project"
    repository.mkdir()
    environment = {"HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run(["git", *args], cwd=repository, env=environment, check=True, timeout=30)
    fake = FakeLinear()
    fake.add_token(OFFLINE_KEY, "Ada Lovelace")
    fake.add_team("ENG", "Engineering")
    with fake.serve() as url:
        page = Page(ROOT / "docs" / "linear.md", repository, home)
        page.environment.update(RALPH_LINEAR_API_URL=url, RALPH_LINEAR_TOKEN=OFFLINE_KEY)
        page.follow()
    (issue,) = fake.workspace.team("ENG").issue_list
    assert issue.state.name == "Done"
    merges = git(repository, "log", "--merges", "--format=%s", "main").splitlines()
    assert merges == ["Merge pull request #1 from feature/GH-1"]


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md", "docs/by-hand.md"])
def test_a_page_runs_most_of_its_shell_blocks(page: str) -> None:
    shell = [
        b
        for b in blocks((ROOT / page).read_text(encoding="utf-8"))
        if b.language in ("sh", "bash", "shell")
    ]
    skipped = [b for b in shell if b.kind == "not run"]
    assert shell
    assert len(skipped) <= 7, [b.line for b in skipped]


def test_a_skipped_block_must_say_why() -> None:
    with pytest.raises(MarkerError, match=r"line 2: <!-- not run: \.\.\. --> needs a reason"):
        blocks("<!-- not run -->\n```sh\nmake demo\n```\n")


def test_a_skip_marker_before_a_block_that_never_runs_is_refused() -> None:
    with pytest.raises(MarkerError, match="before a 'toml' block"):
        blocks("<!-- not run: nothing -->\n```toml\na = 1\n```\n")


def test_markers_say_what_happens_to_the_next_block() -> None:
    page = (
        "```sh\nls\n```\n<!-- output -->\n```text\na\n```\n"
        "<!-- file: x.md -->\n````markdown\n```diff\n+a\n```\n````\n"
        "<!-- not run: needs a key -->\n```bash\nexport KEY=1\n```\n```toml\nk = 1\n```\n"
    )
    found = [(b.kind, b.language, b.argument, b.text) for b in blocks(page)]
    assert found == [
        ("run", "sh", "", "ls\n"),
        ("output", "text", "", "a\n"),
        ("file", "markdown", "x.md", "```diff\n+a\n```\n"),
        ("not run", "bash", "needs a key", "export KEY=1\n"),
        ("text", "toml", "", "k = 1\n"),
    ]
