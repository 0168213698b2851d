"""The bubblewrap command line for a profile: everything read-only, /tmp private, the
writable paths bound read-write, credentials hidden, the network cut unless allowed."""

from __future__ import annotations

from pathlib import Path

from ralph.sandbox import SandboxProfile, confine
from ralph.sandbox._seccomp import unix_socket_filter


def pairs(line: list[str], flag: str) -> list[str]:
    """The first argument of every ``flag`` in ``line``."""
    return [line[i + 1] for i, word in enumerate(line) if word == flag]


def test_the_base_is_read_only_with_a_private_tmp_and_the_command_last():
    line = confine(["pytest", "-q"], SandboxProfile())
    # A shell hands bubblewrap its seccomp filter on descriptor 3, then becomes it.
    assert line[:3] == ["/bin/sh", "-c", 'exec "$@" 3<"$0"']
    assert Path(line[3]).read_bytes() == unix_socket_filter()
    assert pairs(line, "--seccomp") == ["3"]
    line = line[4:]
    assert line[:10] == [
        "bwrap",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
    ]
    assert line[-3:] == ["--", "pytest", "-q"]
    assert pairs(line, "--setenv") == ["TMPDIR"]
    assert line[line.index("--setenv") + 2] == "/tmp"
    for flag in ("--unshare-pid", "--die-with-parent", "--new-session"):
        assert flag in line
    assert pairs(line, "--cap-drop") == ["ALL"]  # root keeps none: it could remount /
    assert pairs(line, "--bind") == []


def test_the_profiles_variables_are_set_inside():
    line = confine(["true"], SandboxProfile(setenv=(("XDG_CACHE_HOME", "/tmp/.cache"),)))
    assert pairs(line, "--setenv") == ["TMPDIR", "XDG_CACHE_HOME"]
    assert line[line.index("XDG_CACHE_HOME") + 1] == "/tmp/.cache"


def test_the_network_is_cut_unless_the_profile_allows_it():
    assert "--unshare-net" in confine(["true"], SandboxProfile(network=False))
    assert "--unshare-net" not in confine(["true"], SandboxProfile(network=True))


def test_writable_paths_are_bound_read_write_after_the_readable_ones(tmp_path):
    repo, work = tmp_path / "repo", tmp_path / "repo" / "worktrees" / "GH-1"
    line = confine(["true"], SandboxProfile(writable=(work,), readable=(repo,)))
    assert line[line.index("--bind") : line.index("--bind") + 3] == ["--bind", str(work), str(work)]
    assert pairs(line, "--ro-bind") == ["/", str(repo)]
    # Later mounts win: the worktree must come after the read-only repository.
    assert line.index(str(repo)) < line.index("--bind")


def test_protected_paths_are_read_only_again_after_the_writable_ones(tmp_path):
    git = tmp_path / ".git"
    line = confine(["true"], SandboxProfile(writable=(tmp_path,), protected=(git,)))
    assert line.index("--bind") < line.index(str(git))
    assert line[line.index(str(git)) - 1] == "--ro-bind"


def test_hidden_directories_get_an_empty_tmpfs_and_hidden_files_dev_null(tmp_path):
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".netrc").write_text("machine x password y\n")
    hidden = (tmp_path / ".ssh", tmp_path / ".netrc", tmp_path / ".aws")
    line = confine(["true"], SandboxProfile(hidden=hidden, writable=(tmp_path / "w",)))
    assert pairs(line, "--tmpfs") == ["/tmp", "/run", str(tmp_path / ".ssh")]
    assert pairs(line, "--remount-ro") == [str(tmp_path / ".ssh")]
    at = line.index(str(tmp_path / ".netrc"))
    assert line[at - 2 : at + 1] == ["--dev-bind", "/dev/null", str(tmp_path / ".netrc")]
    assert str(tmp_path / ".aws") not in line  # absent: nothing to hide
    assert line.index("--bind") < line.index(str(tmp_path / ".ssh"))  # hiding wins


def test_paths_are_passed_as_single_arguments(tmp_path):
    odd = Path(tmp_path / "a dir; rm -rf ~")
    line = confine(["true"], SandboxProfile(writable=(odd,)))
    assert pairs(line, "--bind") == [str(odd)]


def test_run_and_the_home_are_shown_empty_or_as_the_runs_own_home(tmp_path):
    home, own, other = tmp_path / "home", tmp_path / "own", tmp_path / "other-homes"
    for path in (home, own, other):
        path.mkdir()
    line = confine(["true"], SandboxProfile(home=home, emptied=(other,)))
    assert pairs(line, "--tmpfs") == ["/tmp", "/run", str(other), str(home)]
    line = confine(["true"], SandboxProfile(home=home, own_home=own, writable=(home / "w",)))
    assert line[line.index("--bind") : line.index("--bind") + 3] == ["--bind", str(own), str(home)]
    assert pairs(line, "--bind") == [str(own), str(home / "w")]  # what is under it comes after
