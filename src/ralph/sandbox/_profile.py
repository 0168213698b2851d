"""What a confined process may see and write, and the bubblewrap command line for it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph.sandbox._kept import kept_file
from ralph.sandbox._seccomp import unix_socket_filter

__all__ = ["PROXY_PORT", "SandboxProfile", "confine"]

#: Where the egress proxy answers inside the sandbox's own loopback.
PROXY_PORT = 3128
_BRIDGE = Path(__file__).with_name("_bridge.py")
_PROXY_URL = f"http://127.0.0.1:{PROXY_PORT}"
#: Where the host's daemons keep their sockets (a database's, Docker's, D-Bus's, the
#: session's): shown empty, always.
_RUN = (Path("/run"), Path("/var/run"))
_RESOLV = Path("/etc/resolv.conf")
#: What HTTP clients (curl, Python, Node, Rust's reqwest, Go) read for their proxy; no
#: host is exempt from it.
_PROXY_VARIABLES = (
    *(
        (name, _PROXY_URL)
        for base in ("HTTPS", "HTTP", "ALL")
        for name in (f"{base}_PROXY", f"{base.lower()}_proxy")
    ),
    ("NO_PROXY", ""),
    ("no_proxy", ""),
)


@dataclass(frozen=True)
class SandboxProfile:
    """Everything is read-only, ``/tmp`` is private and empty, ``/run`` empty, and no
    Unix socket can be opened (a seccomp filter), except:"""

    #: The person's home: shown as ``own_home`` (bound read-write: a folder of the run's
    #: own), or empty when that is None. Nothing of it shows unless named below.
    home: Path | None = None
    own_home: Path | None = None
    #: Shown empty as well: other homes, the session's runtime folder.
    emptied: tuple[Path, ...] = ()

    #: Bound read-write (each must exist).
    writable: tuple[Path, ...] = ()
    #: Shown read-only again above the private ``/tmp`` (a repository kept under ``/tmp``).
    readable: tuple[Path, ...] = ()
    #: Bound read-only again inside a writable path (a main checkout's ``.git``).
    protected: tuple[Path, ...] = ()
    #: ``(copy, path)``: a copy shown read-only in place of a file (a git config without
    #: its credentials).
    replaced: tuple[tuple[Path, Path], ...] = ()
    #: Hidden: an empty directory over a directory, ``/dev/null`` over a file (those
    #: that do not exist are left out).
    hidden: tuple[Path, ...] = ()
    network: bool = False
    #: The egress proxy's unix socket (``_proxy``): the sandbox gets a network of its own
    #: whose one way out is that proxy (``network`` is then ignored).
    proxy: Path | None = None
    #: Variables set inside (``TMPDIR=/tmp`` always is).
    setenv: tuple[tuple[str, str], ...] = ()


def confine(argv: Sequence[str], profile: SandboxProfile) -> list[str]:
    """The ``bwrap`` command line that runs ``argv`` under ``profile`` (through ``sh``,
    which hands bwrap its seccomp filter). Bubblewrap applies its mounts in order, so
    each later one wins: the emptied folders and the home, then readable, writable,
    protected, replaced, hidden."""
    line = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    line += _emptied(profile)
    for path in profile.readable:
        line += ["--ro-bind", str(path), str(path)]
    for path in profile.writable:
        line += ["--bind", str(path), str(path)]
    for path in profile.protected:
        line += ["--ro-bind", str(path), str(path)]
    for copy, path in profile.replaced:
        line += ["--ro-bind", str(copy), str(path)]
    for path in profile.hidden:
        # Read-only and empty: a credential file reads as nothing, and nothing an agent
        # writes there could be mistaken for one later. (A device needs --dev-bind.)
        if path.is_dir():
            line += ["--tmpfs", str(path), "--remount-ro", str(path)]
        elif path.exists():
            line += ["--dev-bind", "/dev/null", str(path)]
    # A new session: no TIOCSTI into the person's terminal. The pid namespace and
    # --die-with-parent end every process of the agent when bwrap is killed. Run as root,
    # bwrap keeps every capability unless told: with CAP_SYS_ADMIN one `mount -o
    # remount,rw /` would undo the whole sandbox.
    line += ["--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    setenv = (("TMPDIR", "/tmp"), *profile.setenv)
    seccomp = unix_socket_filter()
    if profile.proxy is not None:
        # Only its own loopback, where the bridge listens before the command starts. The
        # bridge reaches the proxy over a Unix socket: it installs the filter itself,
        # after starting its forwarder and before the command.
        line += ["--unshare-net", "--bind", str(profile.proxy), str(profile.proxy)]
        setenv += _PROXY_VARIABLES
        sealed = seccomp.hex() if seccomp is not None else "-"
        bridge = [sys.executable, "-I", "-S", str(_BRIDGE), str(PROXY_PORT), str(profile.proxy)]
        argv = [*bridge, sealed, *argv]
        seccomp = None
    elif not profile.network:
        line.append("--unshare-net")
    for name, value in setenv:
        line += ["--setenv", name, value]
    if seccomp is not None:
        line += ["--seccomp", "3"]
    line += ["--", *argv]
    if seccomp is None:
        return line
    # bwrap reads its filter from a descriptor: the shell opens it, then becomes bwrap.
    return ["/bin/sh", "-c", 'exec "$@" 3<"$0"', str(kept_file(seccomp)), *line]


def _emptied(profile: SandboxProfile) -> list[str]:
    """The mounts that show ``/run``, the profile's emptied folders and its home empty
    (or as the run's own home)."""
    line: list[str] = []
    for path in dict.fromkeys([*_RUN, *profile.emptied]):
        if path.is_dir() and not path.is_symlink():
            line += ["--tmpfs", str(path)]
    # A resolver address kept under /run (systemd-resolved's): shown again, alone.
    resolver = _RESOLV.resolve()
    if resolver != _RESOLV and any(resolver.is_relative_to(run) for run in _RUN):
        line += ["--ro-bind-try", str(resolver), str(resolver)]
    home = profile.home
    if home is not None and home != Path("/") and home.is_dir():
        if profile.own_home is not None:
            line += ["--bind", str(profile.own_home), str(home)]
        else:
            line += ["--tmpfs", str(home)]
    return line
