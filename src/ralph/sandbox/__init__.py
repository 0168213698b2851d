"""The OS sandbox (bubblewrap) agent-written code runs in: agent CLIs and the project's
test command see the machine read-only, write only to their worktree (and what git
needs to commit there), never see the person's home, credentials or any Unix socket of
the host, and the tests get no network unless ralph.toml says so. Where bubblewrap
cannot start, Ralph refuses to run them unless ``allow_unsandboxed = true``."""

from __future__ import annotations

from ralph.sandbox._git_config import flattened_git_configs
from ralph.sandbox._home import TOOLCHAINS
from ralph.sandbox._platform import PlatformPath, platform_path
from ralph.sandbox._policy import (
    ALLOW_UNSANDBOXED,
    should_confine,
    skip_unconfined_warning,
    unconfined_warning,
)
from ralph.sandbox._probe import SandboxStatus, nests, probe
from ralph.sandbox._profile import SandboxProfile, confine
from ralph.sandbox._profiles import (
    CREDENTIALS,
    agent_profile,
    git_commit_paths,
    profile_for_tests,
)
from ralph.sandbox._proxy import EgressProxy, allow_hint, host_port
from ralph.sandbox._shell import confined_shell

__all__ = [
    "ALLOW_UNSANDBOXED",
    "CREDENTIALS",
    "TOOLCHAINS",
    "EgressProxy",
    "PlatformPath",
    "SandboxProfile",
    "SandboxStatus",
    "agent_profile",
    "allow_hint",
    "confine",
    "confined_shell",
    "flattened_git_configs",
    "git_commit_paths",
    "host_port",
    "nests",
    "platform_path",
    "probe",
    "profile_for_tests",
    "should_confine",
    "skip_unconfined_warning",
    "unconfined_warning",
]
