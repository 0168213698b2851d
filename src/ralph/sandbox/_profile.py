"""What a confined process may see and write, and the bubblewrap command line for it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PROXY_PORT", "SandboxProfile", "confine"]

#: Where the egress proxy answers inside the sandbox's own loopback.
PROXY_PORT = 3128
_BRIDGE = Path(__file__).with_name("_bridge.py")
_PROXY_URL = f"http://127.0.0.1:{PROXY_PORT}"
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
    """Everything is read-only and ``/tmp`` is private and empty, except:"""

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
    """The ``bwrap`` command line that runs ``argv`` under ``profile``. Bubblewrap applies
    its mounts in order, so each later one wins: readable, then writable, then protected,
    then replaced, then hidden."""
    line = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
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
    if profile.proxy is not None:
        # Only its own loopback, where the bridge listens before the command starts.
        line += ["--unshare-net", "--bind", str(profile.proxy), str(profile.proxy)]
        setenv += _PROXY_VARIABLES
        bridge = [sys.executable, "-I", "-S", str(_BRIDGE), str(PROXY_PORT), str(profile.proxy)]
        argv = [*bridge, *argv]
    elif not profile.network:
        line.append("--unshare-net")
    for name, value in setenv:
        line += ["--setenv", name, value]
    line += ["--", *argv]
    return line
