"""Every ``ralph`` command, found in the Typer app (a new command or option is covered
without a line here), called in-process on a real project (local tracker, SQLite) with
one bad value at a time, every other argument valid: the command refuses it before
anything moves.

The convention it holds the CLI to (``ralph.cli``): input a person has to fix exits 2,
whether click refuses it (its usage lines and the error box) or Ralph does (one line,
``ralph: error: ...``, and nothing on stdout); an issue, run or task that does not exist
is such input too (exit 1 means work failed, never a mistyped argument). No traceback,
and the store's tables and both repositories' files and refs are as they were.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.core import TyperArgument

from ralph.cli import app, main
from ralph.cli._lazy_root import whole_tree
from ralph.config import load_config
from ralph.demo import create_demo_project
from ralph.project import open_project, record_settings
from ralph.workflow import WorkflowState

from .snapshots import files, refs, tables

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).parents[2] / "examples" / "auth-epic.json"


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, command in sorted(group.commands.items()):
        if hasattr(command, "commands"):
            # A group that is a command too (``ralph report``) has options of its own.
            if command.invoke_without_command and command.params:
                yield (*path, name), command
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


ROOT = whole_tree(app)
COMMANDS = dict(_commands(ROOT))
ROOT_STORE = next(p for p in ROOT.params if p.name == "store")

#: Commands that never open the store: ``--store`` before them is not theirs to check
#: (init finds an existing ralph.toml and changes nothing; doctor checks the agent and
#: the tracker; demo builds its own project in a scratch folder; pipeline reads files;
#: idea new writes a file of the person's; plugin path prints a folder, install and check
#: work on Claude Code's settings; debug stats reads the debug log's files; the hook
#: commands answer Claude Code and never block a person's session, so a tracker they
#: cannot reach is a warning, and their context lives in a file).
NO_STORE = {
    ("init",),
    ("doctor",),
    ("demo",),
    ("idea", "new"),
    ("plugin", "path"),
    ("plugin", "install"),
    ("plugin", "check"),
    ("login",),  # hands the terminal to Claude Code's login; it opens no store
    ("notify", "test"),  # sends to ralph.toml's [notify] targets; it opens no store
    ("version",),  # prints the installed version
    ("debug", "stats"),
} | {p for p in COMMANDS if p[0] in ("pipeline", "hook")}
#: Optional arguments always given: init's folder defaults to the working directory,
#: the demo project, whose ralph.toml init never rewrites whatever it is told.
ALWAYS_GIVEN = {"path"}


# -- the project every call runs in ---------------------------------------------------


@dataclass(frozen=True)
class Place:
    repo: Path  # the demo project: issue #1 (Backlog), #2 (Backlog), an open pull request
    fresh: Path  # a git repository without ralph.toml, for ``ralph init``
    scratch: Path  # files and folders bad paths point at
    pull_request: int  # open, from feature/fuzz into main


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    return make_place(tmp_path_factory.mktemp("fuzz"))


def make_place(root: Path) -> Place:
    repo, _ = create_demo_project(root / "demo")
    with open_project(load_config(repo)) as project:
        project.tracker.create_issue("Child", state=WorkflowState.BACKLOG)
        project.git.git("branch", "feature/fuzz", "main", what="make a branch")
        pr = project.code_host.create_pull_request(head="feature/fuzz", base="main", title="Fuzz")
        # A person's first run records the guarded settings they start from (trust on
        # first use): done here, so "nothing written" means nothing of the bad command's.
        record_settings(project.config, project.store, project.settings)
    fresh = root / "fresh"
    fresh.mkdir()
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(
            ["git", "-c", "user.name=T", "-c", "user.email=t@localhost", *args],
            cwd=fresh,
            check=True,
            capture_output=True,
        )
    scratch = root / "scratch"
    scratch.mkdir()
    (scratch / "bad.json").write_text("{not json")
    (scratch / "full").mkdir()
    (scratch / "full" / "file.txt").write_text("x")
    return Place(repo, fresh, scratch, pr.number)


def snapshot(place: Place) -> tuple[Any, ...]:
    return (
        tables(place.repo / ".ralph" / "ralph.db"),
        files(place.repo),
        refs(place.repo),
        files(place.fresh),
        refs(place.fresh),
        files(place.scratch),
    )


#: Each place's snapshot before its first command. Every test asserts that its command
#: left the place as it found it, so until one fails the state before any command is
#: the state before the first: taken once, not again for every example.
_AS_IT_WAS: dict[Path, tuple[Any, ...]] = {}


def as_it_was(place: Place) -> tuple[Any, ...]:
    if place.repo not in _AS_IT_WAS:
        _AS_IT_WAS[place.repo] = snapshot(place)
    return _AS_IT_WAS[place.repo]


# -- bad values, by what a parameter means --------------------------------------------

JUNK_NUMBERS = ["1.5", "nan", "inf", "", "abc", "\x00", "1\n2", "0x10", "١"]
HUGE = st.integers(min_value=2**63).map(str) | st.integers(max_value=-(2**63) - 1).map(str)
NEGATIVE = st.integers(min_value=-(2**62), max_value=-1).map(str)
BAD_NUMBER = st.sampled_from(JUNK_NUMBERS) | HUGE | NEGATIVE | st.just("0")
BAD_FLOAT = st.sampled_from(["nan", "inf", "-inf", "-1", "1e400", "", "abc", "\x00", "-0.5"])
BLANK = st.sampled_from(["", "   ", "\x00", "a\x00b"])
ONE_LINE = BLANK | st.sampled_from(["a\nb", "a\rb", "tab\x07bell", "\x1b[2Jclear"])


def unknown(*known: str) -> st.SearchStrategy[str]:
    """Names no ``known`` one could be (however leniently parsed), and blanks."""
    made_up = st.text(min_size=1, max_size=20).map(lambda t: f"no such {t}")
    return BLANK | made_up | st.sampled_from([f"{k}{k}" for k in known] or ["zz"])


def paths(place: Place) -> dict[str, st.SearchStrategy[str]]:
    missing = str(place.scratch / "missing" / "deeper")
    return {
        "input": st.sampled_from(
            [missing, str(place.scratch), str(place.scratch / "bad.json"), "", "a\x00b"]
        ),
        "repository": st.sampled_from(
            [missing, str(place.scratch / "bad.json"), "a\x00b", str(place.scratch)]
        ),
        "new folder": st.sampled_from(
            [str(place.scratch / "full"), str(place.scratch / "bad.json"), "a\x00b"]
        ),
        "store": st.sampled_from(
            ["nosuch://x", f"sqlite:///{missing}/x.db", "postgresql://", "sqlite://", "a\x00b"]
        ),
    }


def bad_values(place: Place, path: tuple[str, ...], param: Any) -> st.SearchStrategy[str] | None:
    """Values ``param`` of the command at ``path`` must refuse; None for one that takes
    any value (a flag, search text)."""
    name = param.name
    annotation = param.type_descriptor.annotation
    kind = _bare(annotation)
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return None
    if isinstance(kind, type) and issubclass(kind, Enum):
        return unknown(*(member.value for member in kind))
    if kind is bool:
        return None
    if kind is int:
        if name == "port":  # 0 is a port too (any free one): past 65535 is not
            return st.sampled_from(JUNK_NUMBERS) | HUGE | NEGATIVE | st.just("65536")
        if name == "limit":  # 0 is every one
            return st.sampled_from(JUNK_NUMBERS) | HUGE | NEGATIVE
        if name in ("concurrency",):  # workers in this process: a bounded number
            return BAD_NUMBER | st.integers(min_value=10**4, max_value=2**62).map(str)
        if name in ("number", "parent", "child", "by", "run", "task_id"):  # must exist
            return BAD_NUMBER | st.integers(min_value=10**6, max_value=2**62).map(str)
        return BAD_NUMBER
    if kind is float:
        return BAD_FLOAT
    by_name = {
        "state": unknown("Backlog", "Done"),
        "estimate": unknown("XS", "XL"),
        "max_estimate": unknown("XS", "XL"),
        "priority": unknown("P0", "P3"),
        "phase": unknown("triage", "research"),
        "agent": unknown("claude", "scripted"),
        "command": unknown("ralph_research", "ralph_human"),
        "role": unknown("analyst", "builder"),
        "roles": unknown("analyst", "builder") | st.just(",") | st.just("analyst,nosuch"),
        "only": unknown("triage", "research") | st.just(",") | st.just("triage,nosuch"),
        "workers": st.sampled_from(
            [
                "garbage",
                "analyst",
                "analyst=-1",
                "analyst=1e3",
                "builder=x",
                "nosuch=1",
                "analyst=99999999999999999999",
                "builder=100000",
                "analyst=1,\x00=1",
            ]
        ),
        "title": ONE_LINE | st.text(min_size=300, max_size=400).map(lambda t: f"long\n{t}"),
        "body": BLANK if path == ("issue", "comment") else st.just("a\x00b"),
        # a person's review: its text is never blank, its line is a file of the diff's
        "request_changes": BLANK | st.just("tab\x07bell"),
        "comment": BLANK | st.just("\x1b[2Jclear"),
        "label": ONE_LINE,
        "add": ONE_LINE,
        "remove": ONE_LINE,
        "actor": ONE_LINE,
        "author": ONE_LINE,
        "github": st.sampled_from(
            ["", "noslash", "a/b/c", "/", "/repo", "owner/", "a b/c", "a\x00/b"]
        ),
        "test_command": st.sampled_from(["'unclosed", "a\x00b", '"']),
        "adopt": st.sampled_from(["", "..", "a\x00b", "no-such-branch", "main", "-x", "a b"]),
        # db migrate makes the store a URL names, folders and all: only a bad URL is bad
        "store": paths(place)["store"].filter(lambda u: "missing" not in u)
        if path == ("db", "migrate")
        else paths(place)["store"],
        "file": st.sampled_from(["", "a\x00b", "../outside", "/etc/passwd", "no/such/file"])
        if path == ("pr", "review")
        else paths(place)["input"],
        "path": paths(place)["repository"],
        "keep": paths(place)["new folder"],
        "status_file": st.sampled_from(
            [str(place.scratch), str(place.scratch / "missing" / "status.json"), "", "a\x00b"]
        ),
        # board numbers, comma-separated
        "projects": st.sampled_from(
            ["", ",", "0", "-1", "abc", "1.5", "3,x", "3,,5", "99999999999999999999", "a\x00b"]
        ),
        # a span back from now or a past moment: junk, nothing, the future, the far past
        "since": st.sampled_from(
            ["", "0d", "-1d", "7", "1.5d", "99999d", "2099-01-01", "0001-01-01", "١d", "a\x00b"]
        ),
        # ralph web: an address that is none, or one other machines reach without a token
        "host": st.sampled_from(["", " ", "a\x00b", "a b", "0.0.0.0", "192.0.2.1", "::"]),
        "token": BLANK | st.sampled_from(["short", "with a space in it!", "semi;colon;0123456789"]),
        "text": None,  # search text: any text is a search (one matching nothing finds nothing)
    }
    if name in by_name:
        return by_name[name]
    return st.just("a\x00b")  # a new text parameter: at least no NUL byte gets through


def _bare(annotation: Any) -> Any:
    """``int | None`` -> int, ``list[str] | None`` -> str."""
    if typing.get_origin(annotation) in (list, typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _bare(inner[0]) if inner else str
    return annotation


# -- valid values for the other arguments ---------------------------------------------


def valid_value(place: Place, param: Any, path: tuple[str, ...] = ()) -> str:
    """A value the required ``param`` takes, so that only the bad one can be refused:
    issue #1 (Backlog) moved or triaged as a person would, the open pull request."""
    if path[:1] == ("pr",) and param.name == "number":
        return str(place.pull_request)
    valid = {
        "number": "1",
        "parent": "1",
        "child": "2",
        "by": "2",
        "run": "1",
        "task_id": "1",
        "phase": "triage",
        "state": "Research Needed",
        "estimate": "XS",
        "priority": "P1",
        "title": "A title",
        "body": "A comment",
        "file": str(EXAMPLE),
        "path": str(place.fresh),
        "text": "An idea",
    }
    if param.name not in valid:
        raise AssertionError(f"no valid value for the required {param.name!r}; add one here")
    return valid[param.name]


def _option(param: Any) -> str:
    option: str = max(param.opts, key=len)
    return option


def arguments(place: Place, path: tuple[str, ...], target: Any, value: str) -> list[str]:
    """The command line: options first, then ``--`` and the positional arguments (so
    ``-1`` reaches the command as a number, not as an unknown option)."""
    if target is ROOT_STORE:
        head: list[str] = ["--store", value, *path]
        target = None
    else:
        head = list(path)
    options: list[str] = []
    positional: list[str] = []
    for param in COMMANDS[path].params:
        if param is target:
            given = value
        elif param.required or param.name in ALWAYS_GIVEN:
            given = valid_value(place, param, path)
        else:
            continue
        if isinstance(param, TyperArgument):
            positional.append(given)
        else:
            options += [_option(param), given]
    return [*head, *options, "--", *positional] if positional else [*head, *options]


def targets() -> list[tuple[tuple[str, ...], str]]:
    """(command, parameter name) for every parameter that can be given a bad value,
    ``--store`` included for every command that opens the store."""
    found = []
    for path, command in COMMANDS.items():
        for param in command.params:
            if getattr(param, "is_flag", False) or getattr(param, "count", False):
                continue
            if _bare(param.type_descriptor.annotation) is bool or param.name == "text":
                continue
            found.append((path, param.name))
        if path not in NO_STORE:
            found.append((path, "--store"))
    return found


# -- the test ---------------------------------------------------------------------------


def ralph(repo: Path, args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(repo), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(args)
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(("path", "name"), targets(), ids=[" ".join((*p, n)) for p, n in targets()])
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_bad_value_is_refused_in_one_line_with_exit_2_and_nothing_written(
    place: Place, path: tuple[str, ...], name: str, data: st.DataObject
) -> None:
    if name == "--store":
        param, name = ROOT_STORE, "store"
    else:
        param = next(p for p in COMMANDS[path].params if p.name == name)
    strategy = bad_values(place, path, param)
    assert strategy is not None
    args = arguments(place, path, param, data.draw(strategy, label=name))
    before = as_it_was(place)
    code, out, err = ralph(place.repo, args)
    shown = f"ralph {args!r} -> {code}\n{out}{err}"
    assert "Traceback" not in out + err, shown
    assert code == 2, shown
    if err.startswith("Usage:"):  # click refused it: its usage lines and error box
        assert "Error" in err, shown
    else:
        assert out == "", shown
        assert err.startswith("ralph: error: "), shown
        assert err.count("\n") == 1, shown
    assert snapshot(place) == before, shown


# -- text as written --------------------------------------------------------------------

#: Rich markup, a stray closing tag, a terminal hyperlink and an emoji code: text like any
#: other, which a command takes or refuses as it would any text, and shows as written.
MARKED = "[wip] Fix [/] the [bold]thing [link=javascript:alert(1)]x[/link] :warning:"
#: What reading it as markup drops or changes.
PIECES = ("[wip]", "[/]", "[bold]thing", "[link=javascript:alert(1)]x[/link]", ":warning:")
#: ralph serve with a status file it can write serves until it is stopped.
SERVES = {(("serve",), "status_file")}


def text_targets() -> list[tuple[tuple[str, ...], str]]:
    """(command, parameter name) for every parameter that takes text, and ``--store``
    once."""
    found: list[tuple[tuple[str, ...], str]] = [(("issue", "list"), "--store")]
    for path, name in targets():
        if name == "--store" or (path, name) in SERVES:
            continue
        param = next(p for p in COMMANDS[path].params if p.name == name)
        if _bare(param.type_descriptor.annotation) is str:
            found.append((path, name))
    return found


@pytest.fixture(scope="module")
def marked_place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    """A place of its own: text with markup is often good input, and changes things."""
    return make_place(tmp_path_factory.mktemp("marked"))


@pytest.mark.parametrize(
    ("path", "name"), text_targets(), ids=[" ".join((*p, n)) for p, n in text_targets()]
)
def test_text_with_markup_is_taken_or_refused_as_any_text_and_shown_as_written(
    marked_place: Place, path: tuple[str, ...], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # nothing wrapped: a line is shown whole
    if name == "--store":
        param, name = ROOT_STORE, "store"
    else:
        param = next(p for p in COMMANDS[path].params if p.name == name)
    args = arguments(marked_place, path, param, MARKED)
    code, out, err = ralph(marked_place.repo, args)
    shown = f"ralph {args!r} -> {code}\n{out}{err}"
    assert "Traceback" not in out + err, shown
    assert code in (0, 1, 2), shown
    assert "\x1b" not in out + err, shown  # no style, and no hyperlink to javascript:
    if "Fix" in out + err:  # said back, in a line or an error: as it was given
        for piece in PIECES:
            assert piece in out + err, shown


# -- bounds: every number and text has an upper one -------------------------------------


def _float_targets() -> list[tuple[tuple[str, ...], str]]:
    return [
        (path, param.name)
        for path, command in COMMANDS.items()
        for param in command.params
        if _bare(param.type_descriptor.annotation) is float
    ]


@pytest.mark.parametrize(
    ("path", "name"), _float_targets(), ids=[" ".join((*p, n)) for p, n in _float_targets()]
)
def test_a_number_past_its_bound_is_refused_in_one_line_naming_the_bound(
    place: Place, path: tuple[str, ...], name: str
) -> None:
    param = next(p for p in COMMANDS[path].params if p.name == name)
    args = arguments(place, path, param, "1e23")
    before = as_it_was(place)
    code, out, err = ralph(place.repo, args)
    shown = f"ralph {args!r} -> {code}\n{out}{err}"
    assert code == 2, shown
    assert "Traceback" not in out + err, shown
    if not err.startswith("Usage:"):  # click's range check names the range itself
        assert err.startswith("ralph: error: "), shown
        assert err.count("\n") == 1, shown
        assert "at most" in err or "outside" in err, shown
    assert snapshot(place) == before, shown


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["issue", "new", "x" * 100_000], "100,000 characters long; at most 256"),
        (["issue", "new", "Title", "--body", "x" * 70_000], "at most 65,536"),
        (["issue", "comment", "1", "x" * 70_000], "at most 65,536"),
    ],
    ids=["title", "body", "comment"],
)
def test_a_title_or_body_past_githubs_limits_is_refused_in_one_line(
    place: Place, args: list[str], said: str
) -> None:
    before = as_it_was(place)
    code, out, err = ralph(place.repo, args)
    assert code == 2, err[:300]
    assert out == ""
    assert err.startswith("ralph: error: ")
    assert err.count("\n") == 1
    assert said in err
    assert snapshot(place) == before
