"""Nothing of the host beyond the worktree reaches an agent or the test command: no Unix
socket (PostgreSQL's and MariaDB's on this machine, one listening in the home, one in a
folder no mount hides), no credential file of the person's, no writable CLI state of
theirs, no git credential from an included file or a value continued over lines. The
review's reproductions, on a person's machine in miniature: a fake home with all of it
planted, a real ``ralph run`` with a command agent, and the test command."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.git import GitRepo, Worktrees
from ralph.phases._branches import run_tests
from ralph.project import open_project
from ralph.runtimes import AgentStatus
from ralph.runtimes.command import CommandRuntime
from ralph.sandbox import probe
from ralph.workflow import Estimate, WorkflowState

from ..conftest import GitProject, ralph_process
from .conftest import implement_brief

pytestmark = pytest.mark.skipif(not probe().available, reason=probe().reason)

PLANTED = "PLANTEDSECRET0042"
#: Credential files of the person's, relative to the home.
CREDENTIAL_FILES = (
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".config/git/credentials",
    ".gnupg/private-keys-v1.d/k.key",
    ".claude/.credentials.json",
    ".codex/auth.json",
)
HOST_SOCKETS = ("/var/run/postgresql/.s.PGSQL.5432", "/run/mysqld/mysqld.sock")

#: Tries every way out it is told of and some it finds itself; prints (or, given a
#: result file, escalates with) one line of JSON saying what it reached, never a secret.
PROBE = r"""
import json, os, socket, stat, subprocess, sys
home = os.path.expanduser("~")
targets = json.loads(os.environ.get("PROBE_TARGETS") or open("probe-targets.json").read())

def connect(path):
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(3)
            s.connect(path)
            return "connected"
    except OSError as exc:
        return exc.strerror

def sockets(top):
    try:
        entries = list(os.scandir(top))
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink() or entry.path in ("/proc", "/sys"):
            continue
        if entry.is_dir(follow_symlinks=False):
            yield from sockets(entry.path)
        elif not entry.is_file(follow_symlinks=False):
            try:
                if stat.S_ISSOCK(os.lstat(entry.path).st_mode):
                    yield entry.path
            except OSError:
                pass

def read(path):
    try:
        return "secret" if "PLANTED" in open(path, errors="replace").read() else "no secret"
    except OSError as exc:
        return exc.strerror

def append(path):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a") as f:
            f.write('{"hooks": "planted"}')
        return "written"
    except OSError as exc:
        return exc.strerror

psql = subprocess.run(
    ["psql", "-h", "/var/run/postgresql", "-U", "postgres", "-d", "test", "-Atc", "select 1"],
    capture_output=True, text=True, timeout=20,
)
found = sorted(sockets("/"))
git = subprocess.run(["git", "config", "-l", "--show-origin"], capture_output=True, text=True)
report = {
    "psql": psql.returncode,
    "named": {path: connect(path) for path in targets["sockets"]},
    "found": [path for path in found if path.startswith(("/run/", "/var/run/", home))],
    "connectable": [path for path in found if connect(path) == "connected"],
    "reads": {name: read(os.path.join(home, name)) for name in targets["reads"]},
    "writes": {name: append(os.path.join(home, name)) for name in targets["writes"]},
    "git": [git.returncode, "PLANTED" in git.stdout, "incl" in git.stdout],
    "socketpair": len(socket.socketpair()),
}
line = "PROBE " + json.dumps(report)
if len(sys.argv) > 1:
    json.dump({"escalate": line}, open(sys.argv[1], "w"))
else:
    print(line)
"""


@dataclass(frozen=True)
class Person:
    home: Path
    #: Listening: one under the home, one in a folder of /var/tmp no mount hides.
    sockets: tuple[Path, ...]
    repo: Path
    issue: int

    def targets(self) -> dict[str, list[str]]:
        return {
            "sockets": [*HOST_SOCKETS, *map(str, self.sockets)],
            "reads": list(CREDENTIAL_FILES),
            "writes": [".claude/settings.json", ".claude/WROTE_BY_AGENT", ".codex/auth.json"],
        }

    def own_files(self) -> dict[str, str]:
        return {
            str(path.relative_to(self.home)): path.read_text(errors="replace")
            for path in sorted(self.home.rglob("*"))
            if path.is_file()
        }


def listening(path: Path) -> socket.socket:
    path.parent.mkdir(parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    return server


@pytest.fixture
def person(tmp_path: Path) -> Iterator[Person]:
    home = tmp_path / "home"
    for name in CREDENTIAL_FILES:
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(f"_authToken={PLANTED}\n")
    included = home / ".gitconfig-included"
    included.write_text(f'[remote "incl"]\n\turl = https://incuser:{PLANTED}@127.0.0.1:9/x.git\n')
    repo, _ = create_demo_project(tmp_path / "project")
    with (repo / ".git" / "config").open("a") as config:
        config.write(f"[include]\n\tpath = {included}\n")
        config.write(f'[remote "o"]\n\tpushurl = https://u:{PLANTED}\\\n0004@127.0.0.1:9/x.git\n')
    command = f"{shlex.quote(sys.executable)} probe.py {{result_file}}"
    toml = (repo / "ralph.toml").read_text()
    toml = toml.replace(
        'runtime = "scripted"', f'runtime = "command"\ncommand = "{command}"\nformat = "plain"'
    )
    (repo / "ralph.toml").write_text(toml)
    (repo / "probe.py").write_text(PROBE)
    outside = Path(tempfile.mkdtemp(prefix="ralph-socket-test-", dir="/var/tmp"))
    servers = [listening(home / ".gnupg" / "S.gpg-agent"), listening(outside / "S.planted")]
    person = Person(home, (home / ".gnupg" / "S.gpg-agent", outside / "S.planted"), repo, 0)
    (repo / "probe-targets.json").write_text(json.dumps(person.targets()))
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, timeout=30)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "probe"], check=True, timeout=30)
    with open_project(load_config(repo)) as project:
        issue = project.tracker.create_issue(
            "Research me", body="x", state=WorkflowState.RESEARCH_NEEDED, estimate=Estimate.XS
        )
    try:
        yield Person(home, person.sockets, repo, issue.number)
    finally:
        for server in servers:
            server.close()
        shutil.rmtree(outside, ignore_errors=True)


def report_of(text: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(text.split("PROBE ", 1)[1].splitlines()[0])
    return found


def assert_nothing_reached(report: dict[str, Any], person: Person) -> None:
    assert report["psql"] != 0  # psql over the Unix socket: refused
    assert set(report["named"].values()) == {"Operation not permitted"}, report["named"]
    assert report["found"] == []  # /run, /var/run and the home's sockets are not there
    assert report["connectable"] == []  # nor can any socket that is be connected to
    assert set(report["reads"].values()) <= {"No such file or directory"}, report["reads"]
    assert report["git"] == [0, False, True], report["git"]  # read, without the credential
    assert report["socketpair"] == 2  # a pair of its own still works


def test_a_command_agent_run_by_ralph_reaches_no_socket_credential_or_state_of_the_host(person):
    before = person.own_files()
    done = ralph_process(
        "run", "research", str(person.issue), cwd=person.repo, env={"HOME": str(person.home)}
    )
    assert "Escalated" in done.stdout, done.stdout + done.stderr
    shown = subprocess.run(
        [sys.executable, "-m", "ralph", "issue", "show", str(person.issue), "--json"],
        cwd=person.repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    bodies = [comment["body"] for comment in json.loads(shown)["comments"]]
    report = report_of(next(body for body in bodies if "PROBE " in body))
    assert_nothing_reached(report, person)
    # Its own CLI state is a copy: writable, and gone with the run.
    assert set(report["writes"].values()) == {"written"}, report["writes"]
    assert person.own_files() == before


def test_the_test_command_reaches_no_socket_credential_or_state_of_the_host(person, monkeypatch):
    monkeypatch.setenv("HOME", str(person.home))
    before = person.own_files()
    command = f"{shlex.quote(sys.executable)} probe.py"
    run = run_tests(command, person.repo)
    assert run.passed, run.output
    report = report_of(run.output)
    assert_nothing_reached(report, person)
    assert set(report["writes"].values()) == {"written"}  # to an empty home of its own
    assert person.own_files() == before


def test_a_repository_kept_under_the_home_is_still_there_to_work_and_commit_in(tmp_path):
    home = tmp_path / "home"
    (home / ".npmrc").parent.mkdir(parents=True)
    (home / ".npmrc").write_text(f"_authToken={PLANTED}\n")
    repo = GitProject(home / "src" / "app")
    worktree = Worktrees(GitRepo(repo.path)).ensure("GH-1", "feature/GH-1", "main").path
    work = (
        "import json, os, subprocess, sys\n"
        "open('work.txt', 'w').write('done')\n"
        "subprocess.run(['git', 'add', 'work.txt'], check=True)\n"
        "subprocess.run(['git', 'commit', '-qm', 'work'], check=True)\n"
        "npmrc = os.path.exists(os.path.expanduser('~/.npmrc'))\n"
        "json.dump(dict(npmrc=npmrc), open(sys.argv[1], 'w'))\n"
    )
    runtime = CommandRuntime(
        shlex.join([sys.executable, "-c", work]) + " {result_file}",
        environ={**os.environ, "HOME": str(home)},
        sandbox=True,
    )
    result = runtime.run(implement_brief(worktree))
    assert result.status is AgentStatus.OK, result.error
    assert result.result == {"npmrc": False}
    assert repo.show("feature/GH-1", "work.txt") == "done"
    tests = run_tests("git log --oneline -1 && ls ~ && cat work.txt", worktree)
    assert tests.passed, tests.output
    assert tests.output.splitlines()[0].endswith("work")
    assert ".npmrc" not in tests.output
