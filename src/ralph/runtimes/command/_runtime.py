"""The command runtime: any headless agent CLI, from a command template.

The template is split like a shell line, then each word has its placeholders filled:
``{prompt_file}`` (the brief as Markdown), ``{prompt}`` (the same text, as one
argument), ``{workdir}``, ``{schema_file}`` (the result's JSON schema),
``{result_file}`` (where a plain agent writes its JSON result), ``{model}``,
``{max_turns}``, ``{max_usd}``. No shell runs it. A word that is an option with an
empty placeholder for its value (``--model={model}`` with no model set) is left out.
When the template names neither prompt placeholder, the prompt goes to standard input.
``CommandRuntime.preset("codex")`` takes a known CLI's command line instead
(``_presets``).

The process runs in the phase's working directory, with only the variables it needs to
run, its CLI's own settings and model credential, and those ralph.toml's ``sandbox_env``
names, confined by bubblewrap (``ralph.sandbox``: it writes only to its working
directory, what git needs to commit there and a home of its run's own holding a copy of
its CLI's state; the person's home and every Unix socket are out of reach; its network
is a namespace of its own whose one way out is an egress proxy allowing its model's API:
the preset's hosts, the endpoints its CLI's own configuration names (``_endpoints``),
any ``*_BASE_URL`` of its environment and ralph.toml's ``agent_hosts``; a run that fails
after a refusal says which host and how to allow it), in its own process group: the
wall-clock timeout and the stall timeout (no output for a while) kill the whole group,
and so does an output line that says the agent cannot work here at all (Claude Code
retrying a refused key), a line that says it sits out (or keeps retrying) its
provider's limit (``_limit_watch``: the run ends rate limited), and a stop Ralph asks
for (``AgentBrief.stop``: a person took the agent's issue away).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import ConfigError
from ralph.runtimes._environment import agent_environment
from ralph.runtimes._limit_watch import LimitWatch
from ralph.runtimes._model import AgentBrief, AgentResult, AgentStatus
from ralph.runtimes._prices import Pricing
from ralph.runtimes._prompt import render_brief, render_result_request
from ralph.runtimes._provider_limits import ProviderLimit, from_text
from ralph.runtimes._runtime import AgentRuntime
from ralph.runtimes.command._charged import Charged, charged
from ralph.runtimes.command._cli_files import configured_model
from ralph.runtimes.command._endpoints import configured_endpoints, serves_locally
from ralph.runtimes.command._live import LineReader, live_reader
from ralph.runtimes.command._parsers import PARSERS, SETUP_PROBLEMS, Parsed
from ralph.runtimes.command._presets import MODEL_APIS, PRESETS, Preset, find_program
from ralph.sandbox import (
    EgressProxy,
    agent_profile,
    allow_hint,
    confine,
    host_port,
    nests,
    probe,
)

__all__ = ["PLACEHOLDERS", "CommandRuntime"]

logger = logging.getLogger(__name__)

PLACEHOLDERS = (
    "prompt_file",
    "prompt",
    "workdir",
    "schema_file",
    "result_file",
    "model",
    "max_turns",
    "max_usd",
)
_TICK_SECONDS = 0.05
#: ``--option={placeholder}``: left out when the placeholder is empty.
_OPTION_WORD = re.compile(r"(-[\w-]+)=\{(\w+)\}")


@dataclass(frozen=True)
class _Ran:
    """How the agent process ended."""

    exit_code: int | None
    output: str
    stderr: str
    #: Why Ralph stopped it ("" when it ended by itself).
    stopped: str = ""
    #: Stopped because its output said it cannot work here (else: a timeout).
    misconfigured: bool = False
    #: Stopped because the brief's stop signal asked for it.
    on_request: bool = False
    #: The hosts its egress proxy refused (``host:port``), in order.
    refused: tuple[str, ...] = ()
    #: Stopped because it was sitting out (or retrying) its provider's limit.
    limit: ProviderLimit | None = None


#: The lines at the end of a CLI's stderr read for its provider's limit.
_LAST_WORDS = 5


class CommandRuntime(AgentRuntime):
    name = "command"

    def __init__(
        self,
        template: str,
        *,
        output: str = "plain",
        model: str = "",
        environ: Mapping[str, str] | None = None,
        sandbox: bool | None = None,
        sandbox_env: Sequence[str] = (),
        hosts: Sequence[str] = (),
        pricing: Pricing | None = None,
    ) -> None:
        """``sandbox``: True confines every run, False none (ralph.toml allowed that);
        None confines when bubblewrap can start here. ``environ``: the environment the
        agent's is made from (``agent_environment``); the process's by default.
        ``sandbox_env``: the names of other variables the agent gets. ``hosts``: the
        ``host:port`` its egress proxy allows besides its model's API. ``pricing``: what
        a run costs when the CLI reports tokens but no cost (Ralph's price table by
        default; ralph.toml's ``[prices]`` over it)."""
        self._preset: Preset | None = None
        try:
            self.words = shlex.split(template)
        except ValueError as exc:
            raise ConfigError(f"agent command {template!r} cannot be split: {exc}") from None
        if not self.words:
            raise ConfigError("the agent command is empty; set [agent] command in ralph.toml")
        for word in self.words:
            try:
                word.format(**dict.fromkeys(PLACEHOLDERS, ""))
            except (KeyError, IndexError, ValueError) as exc:
                raise ConfigError(
                    f"agent command word {word!r} has an unknown placeholder {exc}; "
                    f"known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)}"
                ) from None
        if output not in PARSERS:
            raise ConfigError(f"agent output format {output!r}; use one of {', '.join(PARSERS)}")
        self.output = output
        self.model = model
        self.environ = environ
        self.sandbox_env = tuple(sandbox_env)
        self.hosts = tuple(hosts)
        self.pricing = Pricing() if pricing is None else pricing
        self.sandbox = probe().available if sandbox is None else sandbox
        self.description = f"{Path(self.words[0]).name} (command)"

    def sandboxed(self, phase: str) -> bool:
        return self.sandbox

    @classmethod
    def preset(
        cls,
        name: str,
        *,
        model: str = "",
        environ: Mapping[str, str] | None = None,
        sandbox: bool | None = None,
        sandbox_env: Sequence[str] = (),
        hosts: Sequence[str] = (),
        roots: tuple[Path, ...] = (),
        pricing: Pricing | None = None,
    ) -> CommandRuntime:
        """The agent CLI called ``name`` (``PRESETS``), found on the PATH or in a
        ``node_modules/.bin`` under ``roots``. ConfigError, saying how to install it,
        when it is in neither."""
        preset = PRESETS.get(name)
        if preset is None:
            raise ConfigError(f"unknown agent CLI {name!r}; known: {', '.join(PRESETS)}")
        program = find_program(preset.program, environ=environ, roots=roots)
        if program is None:
            raise ConfigError(
                f"the {name} agent needs the {preset.title} CLI ({preset.program}): "
                f"npm install -g {preset.package}, or npm install {preset.package} in the "
                "project"
            )
        runtime = cls(
            shlex.quote(str(program)),
            output=preset.output,
            model=model,
            environ=environ,
            sandbox=sandbox,
            sandbox_env=sandbox_env,
            hosts=hosts,
            pricing=pricing,
        )
        runtime._preset = preset
        runtime.name = name
        runtime.description = preset.title
        return runtime

    def _words(self, brief: AgentBrief) -> tuple[list[str], dict[str, str]]:
        """The command line (placeholders not yet filled) and the variables laid over
        the agent's environment."""
        if self._preset is None:
            return list(self.words), {}
        # The CLI's own sandbox where it can start: inside Ralph's, when bubblewrap nests.
        own = nests() if self.sandbox else probe().available
        words = self._preset.words(brief, own_sandbox=own)
        return [self.words[0], *words[1:]], self._preset.environment(brief)

    def run(self, brief: AgentBrief) -> AgentResult:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="ralph-agent-") as scratch:
            files = Path(scratch)
            result_file = files / "result.json"
            if self.output == "plain":  # the result file's path differs from run to run
                request = render_result_request(brief.result_schema, str(result_file))
                prompt = render_brief(brief) + "\n" + request
            else:  # the same for every issue of the phase: first, for the prompt caches
                prompt = render_brief(brief, lead=render_result_request(brief.result_schema))
            (files / "prompt.md").write_text(prompt)
            (files / "schema.json").write_text(json.dumps(brief.result_schema, indent=2))
            values = {
                "prompt_file": str(files / "prompt.md"),
                "prompt": prompt,
                "workdir": str(brief.workdir),
                "schema_file": str(files / "schema.json"),
                "result_file": str(result_file),
                "model": brief.model or self.model,
                "max_turns": str(brief.limits.max_turns),
                "max_usd": f"{brief.limits.max_usd:g}",
            }
            words, extra = self._words(brief)
            argv = [word.format(**values) for word in words if not _unset(word, values)]
            on_stdin = not any("{prompt_file}" in word or "{prompt}" in word for word in words)
            environ = os.environ if self.environ is None else self.environ
            env = {**agent_environment(environ, self.sandbox_env), **extra}
            pricing = self.pricing.with_model(values["model"] or self._configured_model(env))
            if self._preset is not None:  # an open model on this machine is free
                local = serves_locally(self._preset.name, environ, values["model"])
                pricing = pricing.with_local(local)
            with contextlib.ExitStack() as stack:
                proxy: EgressProxy | None = None
                if self.sandbox:
                    allowed = self._allowed(env, environ)
                    proxy = EgressProxy(files / "proxy.sock", allowed, public=brief.web)
                    stack.enter_context(proxy)
                    argv = self._confined(argv, brief, files, proxy.socket_path)
                ran = self._execute(argv, brief, prompt, on_stdin, env, pricing)
                if proxy is not None and proxy.refused:
                    ran = dataclasses.replace(ran, refused=tuple(proxy.refused))
            parsed = PARSERS[self.output](ran.output)
            if self.output == "plain" and result_file.is_file():
                parsed = _with_result_file(parsed, result_file)
            # Confined, the CLI kept its records (Codex's session) in its run's own home.
            records = {**env, "HOME": str(files / "home")} if self.sandbox else env
            paid = charged(parsed, pricing, output=self.output, env=records, named=values["model"])
        result = self._result(brief, paid, ran, time.monotonic() - started)
        if brief.transcripts is not None and ran.output:
            kept = _keep_output(brief.transcripts, ran.output, plain=self.output == "plain")
            result = dataclasses.replace(result, transcript=str(kept))
        return result

    def _configured_model(self, env: Mapping[str, str]) -> str:
        """The model the preset's CLI config names, for a CLI that does not say it."""
        return configured_model(self._preset.name, env) if self._preset is not None else ""

    def _allowed(self, env: Mapping[str, str], environ: Mapping[str, str]) -> set[tuple[str, int]]:
        """The hosts the agent's egress proxy lets it reach: its model's API (the
        preset's, or every known one for another command), the endpoints its CLI's own
        configuration names in the person's environment ``environ`` (a gateway, a local
        model server), where its ``*_BASE_URL`` variables point, and ``hosts``."""
        known = [host for hosts in MODEL_APIS.values() for host in hosts]
        names = [*(self._preset.hosts if self._preset is not None else known), *self.hosts]
        if self._preset is not None:
            names += configured_endpoints(self._preset.name, environ)
        names += [value for name, value in env.items() if name.endswith("_BASE_URL")]
        return {found for name in names if (found := host_port(name)) is not None}

    def _confined(self, argv: list[str], brief: AgentBrief, files: Path, proxy: Path) -> list[str]:
        environ = os.environ if self.environ is None else self.environ
        home = Path(environ.get("HOME") or Path.home())
        # Found here, as the process would find it: inside, bwrap could only say it failed.
        found: str | None
        if "/" in argv[0]:
            path = str(brief.workdir / argv[0])
            found = path if os.access(path, os.X_OK) else None
        else:
            found = shutil.which(argv[0], path=environ.get("PATH"))
        if found is None:
            raise ConfigError(
                f"cannot start the agent command {argv[0]!r}: not found, or not executable"
            )
        profile = agent_profile(
            brief.workdir,
            home=home,
            scratch=[files],
            program=Path(found),
            arguments=argv[1:],
            proxy=proxy,
            own_home=files / "home",
        )
        return confine(argv, profile)

    def _execute(
        self,
        argv: list[str],
        brief: AgentBrief,
        prompt: str,
        on_stdin: bool,
        env: Mapping[str, str],
        pricing: Pricing,
    ) -> _Ran:
        try:
            process = subprocess.Popen(
                argv,
                cwd=brief.workdir,
                env=env,
                stdin=subprocess.PIPE if on_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
        except OSError as exc:
            raise ConfigError(
                f"cannot start the agent command {argv[0]!r}: {exc.strerror}"
            ) from None
        out: list[str] = []
        err: list[str] = []
        last = [time.monotonic()]
        misconfigured: list[str] = []
        check = SETUP_PROBLEMS.get(self.output)
        live = live_reader(self.output, brief.activity, brief.workdir, pricing)
        # Each format's limit is read from one stream only: one thread feeds the watch.
        watch = LimitWatch(self.output)

        def pump(stream: object, into: list[str]) -> None:
            for line in stream:  # type: ignore[attr-defined]
                into.append(line)
                last[0] = time.monotonic()
                watch.line(line, stderr=into is err)
                if into is out:
                    if check is not None and (problem := check(line)):
                        misconfigured.append(problem)
                    _show(live, line)

        readers = [
            threading.Thread(target=pump, args=(process.stdout, out), daemon=True),
            threading.Thread(target=pump, args=(process.stderr, err), daemon=True),
        ]
        for reader in readers:
            reader.start()
        if on_stdin and process.stdin is not None:
            try:
                process.stdin.write(prompt)
                process.stdin.close()
            except BrokenPipeError:
                pass
        started = time.monotonic()
        stopped = ""
        while True:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=_TICK_SECONDS)  # returns the moment it exits
                break
            now = time.monotonic()
            if brief.stop.stopped:
                stopped = brief.stop.reason or "stopped"
            elif misconfigured:
                stopped = misconfigured[0]
            elif watch.limit is not None:
                stopped = watch.limit.said
            elif now - started > brief.limits.timeout_seconds:
                stopped = f"no result within {brief.limits.timeout_seconds:g}s"
            elif now - last[0] > brief.limits.stall_seconds:
                stopped = f"stalled: no output for {brief.limits.stall_seconds:g}s"
            if stopped:
                _kill_group(process)
                break
        process.wait()
        for reader in readers:
            reader.join(timeout=5)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        return _Ran(
            process.returncode,
            "".join(out),
            "".join(err),
            stopped,
            misconfigured=bool(misconfigured) and not brief.stop.stopped,
            on_request=brief.stop.stopped and bool(stopped),
            limit=watch.limit if stopped and watch.limit is not None else None,
        )

    def _result(self, brief: AgentBrief, paid: Charged, ran: _Ran, seconds: float) -> AgentResult:
        parsed, cost = paid.parsed, paid.cost_usd
        status, error, resets_at = parsed.status, parsed.error, parsed.resets_at
        if ran.on_request:
            status, error = AgentStatus.STOPPED, ran.stopped
        elif ran.limit is not None and not ran.misconfigured:
            status, error, resets_at = AgentStatus.RATE_LIMITED, ran.limit.said, ran.limit.resets_at
        elif ran.stopped:
            status = AgentStatus.MISCONFIGURED if ran.misconfigured else AgentStatus.TIMEOUT
            error = ran.stopped
        elif status is None:
            if ran.exit_code == 0:
                status = AgentStatus.OK
            else:
                tail = " | ".join(ran.stderr.strip().splitlines()[-3:])
                status = AgentStatus.FAILED
                error = f"exited with {ran.exit_code}: {tail}".rstrip(": ")
                # The CLI's last words only: what came before (a test's output naming a
                # rate limit, say) is not its provider talking.
                last = "\n".join(ran.stderr.strip().splitlines()[-_LAST_WORDS:])
                if (limit := from_text(last, time.time())) is not None:
                    status, error, resets_at = AgentStatus.RATE_LIMITED, limit.said, limit.resets_at
        if status is AgentStatus.OK and 0 < brief.limits.max_usd < cost:
            status = AgentStatus.BUDGET_EXCEEDED
            error = f"spent ${cost:.2f} of ${brief.limits.max_usd:.2f}"
        if status is AgentStatus.FAILED and ran.refused:
            error = _with_refusal(error, ran.refused)
        return AgentResult(
            status=status,
            result=parsed.result if status is AgentStatus.OK else None,
            cost_usd=cost,
            unpriced_model=paid.unpriced_model,
            input_tokens=parsed.input_tokens,
            output_tokens=parsed.output_tokens,
            cache_read_tokens=parsed.cache_read_tokens,
            cache_write_tokens=parsed.cache_write_tokens,
            turns=parsed.turns,
            duration_seconds=seconds,
            transcript=f"session {parsed.session_id}" if parsed.session_id else None,
            error=error,
            agent=self.description,
            resets_at=resets_at if status is AgentStatus.RATE_LIMITED else 0.0,
        )


def _show(live: LineReader, line: str) -> None:
    """``line`` into the activity; a reader that trips on it must not stop this pump
    (the agent would block on a full pipe)."""
    try:
        live(line)
    except Exception as exc:
        logger.debug("activity line not read", extra={"error": f"{type(exc).__name__}: {exc}"})


def _with_refusal(error: str | None, refused: Sequence[str]) -> str:
    """``error`` with the hosts the egress proxy refused and the setting that allows
    them, unless it names them already (Codex prints the proxy's answer, which says
    both): another CLI's error seldom says where it was going."""
    hosts = list(dict.fromkeys(refused))
    if error and any(host in error for host in hosts):
        return error
    note = f"its egress proxy refused {', '.join(hosts)}: {allow_hint(hosts)}"
    return f"{error}; {note}" if error else note


def _unset(word: str, values: Mapping[str, str]) -> bool:
    """Whether ``word`` is an option whose value would come out empty."""
    option = _OPTION_WORD.fullmatch(word)
    return option is not None and not values.get(option.group(2))


def _with_result_file(parsed: Parsed, path: Path) -> Parsed:
    try:
        value = json.loads(path.read_text())
    except ValueError:
        return Parsed(**{**parsed.__dict__, "result": None})
    return Parsed(**{**parsed.__dict__, "result": value if isinstance(value, dict) else None})


def _kill_group(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _keep_output(folder: Path, output: str, *, plain: bool) -> Path:
    """The agent's output (its JSON event stream, or plain text) in a new file of
    ``folder``: the transcript of an agent CLI that keeps none of its own."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{uuid.uuid4()}{'.txt' if plain else '.jsonl'}"
    path.write_text(output)
    return path
