"""The agent CLIs Ralph knows by name, one record each: what ralph.toml's ``preset``
and ``--agent`` take, the format each prints, the state each keeps in the home and how
each authenticates.

Pure data, importable from every layer: settings check names against it without
loading a runtime (``ralph.config``), the sandbox makes and opens each CLI's state
folders (``ralph.sandbox``), and ``ralph.runtimes`` asks it which runtime runs a name
and where its key or login would be.
How a CLI is run and read (its command line, its parser) is ``ralph.runtimes``' code,
keyed by the names here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "AGENT_CLIS",
    "AGENT_NAMES",
    "HOME_CACHE",
    "OUTPUT_FORMATS",
    "PLAIN",
    "RUNTIMES",
    "AgentCli",
    "Login",
    "find_agent_cli",
    "is_command_preset",
]

#: The runtimes (``[agent] runtime``): Claude Code through its SDK, any command of the
#: person's own (``[agent] command``), and the scripted agents that try Ralph offline.
RUNTIMES = ("claude", "command", "scripted")
#: The command runtime's format for a command that prints its answer as text.
PLAIN = "plain"
#: The caches under the home, made empty in every agent's home: the CLIs' own
#: (opencode's) and those of the tools they run (npm, node).
HOME_CACHE = ".cache"


@dataclass(frozen=True, kw_only=True)
class Login:
    """The ways one agent CLI authenticates: a key in the environment, or its own login."""

    #: Variables any one of which is enough; the first ``suggested`` are the ones to
    #: suggest.
    keys: tuple[str, ...]
    suggested: int
    #: Its login file: in the folder ``folder_variable`` names, else in ``folder`` of the
    #: home.
    file: str
    folder_variable: str
    folder: str
    #: How a person logs in (with the CLI's own command); "": Claude Code's, found where
    #: it is installed.
    how: str


@dataclass(frozen=True, kw_only=True)
class AgentCli:
    """One agent CLI, as ``preset = NAME`` or ``--agent NAME`` names it."""

    name: str
    #: How reports name it.
    title: str
    #: The format it prints run headless (a parser of ``ralph.runtimes.command``'s
    #: ``PARSERS``, which ``[agent] format`` may name too).
    output: str
    #: The runtime that runs it: Claude Code its own SDK runtime (``claude``); every
    #: other one the command runtime, from its preset (``runtimes/command/_presets.py``).
    runtime: str = "command"
    #: Where under the home it keeps its sessions, logins and caches: copied into the
    #: home of each of its runs (``ralph.sandbox``), folders made there when missing.
    home_folders: tuple[str, ...] = ()
    home_files: tuple[str, ...] = ()
    login: Login

    def __post_init__(self) -> None:
        if self.runtime not in RUNTIMES:
            raise ValueError(f"agent CLI {self.name!r} names no runtime: {self.runtime!r}")


#: Every agent CLI Ralph knows by name, Claude Code first.
AGENT_CLIS: tuple[AgentCli, ...] = (
    AgentCli(
        name="claude",
        title="Claude Code",
        output="claude",
        runtime="claude",
        home_folders=(".claude",),
        home_files=(".claude.json",),
        login=Login(
            # Bedrock and Vertex: the cloud's own credentials, which Claude Code reads.
            keys=(
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_AUTH_TOKEN",
                "CLAUDE_CODE_OAUTH_TOKEN",
                "CLAUDE_CODE_USE_BEDROCK",
                "CLAUDE_CODE_USE_VERTEX",
            ),
            suggested=1,
            file=".credentials.json",
            folder_variable="CLAUDE_CONFIG_DIR",
            folder=".claude",
            how="",
        ),
    ),
    AgentCli(
        name="codex",
        title="Codex",
        output="codex",
        home_folders=(".codex",),
        login=Login(
            keys=("OPENAI_API_KEY", "CODEX_API_KEY"),
            suggested=2,
            file="auth.json",
            folder_variable="CODEX_HOME",
            folder=".codex",
            how="log in with `codex login`",
        ),
    ),
    AgentCli(
        name="gemini",
        title="Gemini CLI",
        output="gemini",
        home_folders=(".gemini",),
        login=Login(
            keys=("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"),
            suggested=2,
            file="oauth_creds.json",
            folder_variable="",
            folder=".gemini",
            how="run `gemini` once and choose Login with Google",
        ),
    ),
    AgentCli(
        name="opencode",
        title="opencode",
        output="opencode",
        home_folders=(
            ".config/opencode",
            ".local/share/opencode",
            ".local/state/opencode",
            f"{HOME_CACHE}/opencode",
        ),
        login=Login(
            # opencode reaches any provider whose key is set.
            keys=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"),
            suggested=4,
            file="opencode/auth.json",
            folder_variable="XDG_DATA_HOME",
            folder=".local/share",
            how="log in with `opencode auth login`",
        ),
    ),
)

_BY_NAME: Mapping[str, AgentCli] = {cli.name: cli for cli in AGENT_CLIS}
#: Every name ``--agent`` takes: the agent CLIs, then the runtimes that are none of them.
AGENT_NAMES: tuple[str, ...] = tuple(dict.fromkeys((*_BY_NAME, *RUNTIMES)))
#: The formats the command runtime reads (``[agent] format``): plain text, or a known
#: CLI's.
OUTPUT_FORMATS: tuple[str, ...] = (PLAIN, *dict.fromkeys(cli.output for cli in AGENT_CLIS))


def find_agent_cli(name: str) -> AgentCli | None:
    """The agent CLI called ``name``, or None (a runtime such as ``command``, or no
    agent at all)."""
    return _BY_NAME.get(name)


def is_command_preset(name: str) -> bool:
    """Whether ``name`` is an agent CLI the command runtime runs from its preset."""
    cli = _BY_NAME.get(name)
    return cli is not None and cli.runtime == "command"
