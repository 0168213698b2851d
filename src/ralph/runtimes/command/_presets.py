"""The agent CLIs Ralph knows by name (``[agent] preset``): for each, the command line
that runs one headless turn with the prompt on standard input, the format it prints,
and the narrowest permissions of its own that let a phase work.

A phase whose tools include Bash (implement: it runs the tests and commits) gets the
CLI's shell; any other (research, plan, review: they write one document) only its file
edits. Everything runs inside Ralph's own sandbox as well (``ralph.sandbox``).

- Codex: ``codex exec --json`` with its ``workspace-write`` sandbox and approvals never
  asked (there is nobody to ask); a shell phase may also write what ``git commit`` in its
  worktree writes (``--add-dir``), as Ralph's sandbox allows. Codex's sandbox is
  bubblewrap too, and needs a user namespace: inside Ralph's sandbox that is refused to
  root (``ralph.sandbox.nests``), and there Codex runs ``danger-full-access``, which its
  documentation means for runs "in environments that are externally sandboxed": Ralph's
  sandbox is that one (writes only to the worktree and git's files for a commit, the
  person's credentials hidden).
- Gemini CLI: ``--approval-mode auto_edit`` (edits without asking; anything else is not
  offered), plus ``run_shell_command`` for a shell phase. ``--skip-trust`` trusts the
  working directory Ralph chose, for this run only.
- opencode: ``opencode run --format json`` with a permission table (``OPENCODE_PERMISSION``):
  edits allowed, the shell only for a shell phase, no web fetches, nothing outside the
  working directory.

Tested with the versions in ``tests/agents/package.json``, each against a fake of its
model API (``tests/fakes/``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ralph._agents import AgentCli, find_agent_cli
from ralph.runtimes._model import AgentBrief
from ralph.sandbox import git_commit_paths

__all__ = ["MODEL_APIS", "PRESETS", "Preset", "find_program"]

#: The model APIs agent CLIs call: what an agent's egress proxy allows by default
#: (one of a known CLI's, all of them for any other command).
MODEL_APIS = {
    "anthropic": ("api.anthropic.com:443",),
    "openai": ("api.openai.com:443",),
    "gemini": ("generativelanguage.googleapis.com:443",),
    "openrouter": ("openrouter.ai:443",),
}

#: What a phase must hold to get the CLI's shell.
SHELL_TOOL = "Bash"
#: Codex's tools no phase uses (images, goals, questions to a person nobody answers) and
#: its skills' guide, turned off (web search too, unless research may use it): about a
#: quarter of each request's tokens.
_CODEX_NARROWED = tuple(
    word
    for setting in (
        "skills.include_instructions=false",
        "features.view_image=false",
        "features.image_generation=false",
        "features.goals=false",
        "tools.experimental_request_user_input.enabled=false",
    )
    for word in ("--config", setting)
)


@dataclass(frozen=True, kw_only=True)
class Preset:
    """One agent CLI, run headless: ``name`` is its record in ``ralph._agents``, which
    says its title and output format."""

    name: str
    program: str
    #: The npm package that installs it.
    package: str
    #: The command line's options (``program`` first); ``--model={model}`` is left out
    #: when no model is set.
    options: tuple[str, ...]
    #: Options for a phase with a shell.
    shell_options: tuple[str, ...] = ()
    #: Options for a phase that may search the web (research with ``research_web``),
    #: and for every other.
    web_options: tuple[str, ...] = ()
    no_web_options: tuple[str, ...] = ()
    #: Words after the options (a positional argument).
    tail: tuple[str, ...] = ()
    #: Environment variables for every run, and for a phase with a shell.
    environ: Mapping[str, str] = field(default_factory=dict)
    shell_environ: Mapping[str, str] = field(default_factory=dict)
    #: The CLI's own sandbox, and what replaces it where that cannot start (inside
    #: Ralph's, run as root; or with no bubblewrap at all).
    own_sandbox: tuple[str, ...] = ()
    outside_sandbox: tuple[str, ...] = ()
    #: Whether a shell phase in the CLI's own sandbox may write git's files for a commit
    #: (``--add-dir``).
    commits_with_add_dir: bool = False
    #: The hosts (``host:port``) its model's API is on (``MODEL_APIS``).
    hosts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if find_agent_cli(self.name) is None:
            raise ValueError(f"preset {self.name!r} is no agent CLI of ralph._agents")

    @property
    def cli(self) -> AgentCli:
        found = find_agent_cli(self.name)
        assert found is not None  # checked when made
        return found

    @property
    def title(self) -> str:
        """How reports name it."""
        return self.cli.title

    @property
    def output(self) -> str:
        """The output format (a parser of ``PARSERS``)."""
        return self.cli.output

    def words(self, brief: AgentBrief, *, own_sandbox: bool = True) -> list[str]:
        """The command line for ``brief`` (placeholders not yet filled); ``own_sandbox``:
        whether the CLI's own sandbox can start where it runs."""
        words = [*self.options, *(self.own_sandbox if own_sandbox else self.outside_sandbox)]
        words += self.web_options if brief.web else self.no_web_options
        if has_shell(brief):
            words += self.shell_options
            if self.commits_with_add_dir and own_sandbox:
                for path in git_commit_paths(brief.workdir):
                    words += ["--add-dir", str(path)]
        return [*words, *self.tail]

    def environment(self, brief: AgentBrief) -> dict[str, str]:
        return {**self.environ, **(self.shell_environ if has_shell(brief) else {})}


def has_shell(brief: AgentBrief) -> bool:
    return SHELL_TOOL in brief.tools


def _permission(bash: str) -> str:
    return json.dumps(
        {
            "edit": "allow",
            "bash": bash,
            "webfetch": "deny",
            "websearch": "deny",
            "external_directory": "deny",
        }
    )


PRESETS: Mapping[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="codex",
            program="codex",
            package="@openai/codex",
            options=(
                "codex",
                "exec",
                "--json",
                "--config",
                "approval_policy=never",
                # Only the tools a phase uses: every definition (and the skills' guide)
                # is sent with every request. A shell and apply_patch remain.
                *_CODEX_NARROWED,
                # Ralph picks the directory (always its checkout or a worktree of it).
                "--skip-git-repo-check",
                "--color",
                "never",
                "--model={model}",
            ),
            tail=("-",),  # the prompt on standard input
            # Its web search runs at OpenAI, through the model's API.
            web_options=("--config", 'web_search="live"'),
            no_web_options=("--config", 'web_search="disabled"'),
            own_sandbox=("--sandbox", "workspace-write"),
            outside_sandbox=("--sandbox", "danger-full-access"),
            commits_with_add_dir=True,
            hosts=MODEL_APIS["openai"],
        ),
        Preset(
            name="gemini",
            program="gemini",
            package="@google/gemini-cli",
            options=(
                "gemini",
                "--output-format",
                "stream-json",
                "--approval-mode",
                "auto_edit",
                "--skip-trust",
                "--model={model}",
            ),
            shell_options=("--allowed-tools", "run_shell_command"),
            # The prompt comes on standard input; --prompt (headless mode) adds a line.
            tail=("--prompt", "Do the task above."),
            hosts=MODEL_APIS["gemini"],
        ),
        Preset(
            name="opencode",
            program="opencode",
            package="opencode-ai",
            # Its errors on stderr: a provider's limit it retries shows there (and
            # nowhere else) while it waits.
            options=(
                "opencode",
                "run",
                "--format",
                "json",
                "--print-logs",
                "--log-level",
                "ERROR",
                "--model={model}",
            ),
            environ={
                "OPENCODE_PERMISSION": _permission("deny"),
                "OPENCODE_DISABLE_AUTOUPDATE": "1",
                # Not the worktree's opencode.json: an agent writes it, and it could
                # point a "local" model at a paid API (priced free) or widen tools.
                "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
            },
            shell_environ={"OPENCODE_PERMISSION": _permission("allow")},
            # Any provider's: opencode works with them all. It installs a provider's
            # client package from npm on first use, and reads models from models.dev.
            hosts=(
                *(host for hosts in MODEL_APIS.values() for host in hosts),
                "registry.npmjs.org:443",
                "models.dev:443",
            ),
        ),
    )
}


def find_program(
    program: str, *, environ: Mapping[str, str] | None = None, roots: Sequence[Path] = ()
) -> Path | None:
    """Where ``program`` is: on the PATH, else in a project's ``node_modules/.bin``
    (an ``npm install`` without ``-g``) under one of ``roots``."""
    environ = os.environ if environ is None else environ
    found = shutil.which(program, path=environ.get("PATH"))
    if found is not None:
        return Path(found)
    for root in roots:
        local = root / "node_modules" / ".bin" / program
        if os.access(local, os.X_OK):
            return local
    return None
