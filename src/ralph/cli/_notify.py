"""``ralph notify test``, and the doctor's lines about ``[notify]``: thin over
:mod:`ralph.notify`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.text import Text

from ralph.cli._console import Console
from ralph.cli._project import guarded_config, project_config
from ralph.errors import ConfigError

if TYPE_CHECKING:
    from ralph.config import Config

__all__ = ["notify_app", "print_notify_checks"]

notify_app = typer.Typer(
    name="notify",
    help="The word Ralph sends when a person is needed, a run ends or a budget stops "
    "work ([notify] in ralph.toml: a command and/or a webhook).",
    no_args_is_help=True,
)


@notify_app.command("test")
def notify_test_command() -> None:
    """Send a sample event to the [notify] command and webhook of ralph.toml and say
    what each answered; exits 1 when one of them failed."""
    from ralph.config import CONFIG_FILE
    from ralph.notify import deliver, sample_event
    from ralph.project import notify_sandbox

    config, _ = guarded_config(project_config())  # a Ralph merge's command never runs
    settings = config.notify
    if not settings.configured:
        raise ConfigError(
            f"nothing to notify: [notify] in {config.root / CONFIG_FILE} sets no command "
            'or webhook; add command = "..." or webhook = "https://..." '
            "(or RALPH_NOTIFY_COMMAND / RALPH_NOTIFY_WEBHOOK)"
        )
    console = Console(highlight=False, soft_wrap=True)
    sandbox = notify_sandbox(config)
    sent = deliver(settings, sample_event(config.repo), cwd=config.root, sandbox=sandbox)
    for delivery in sent:
        mark = ("✓", "green") if delivery.ok else ("✗", "red")
        console.print(Text.assemble(mark, " ", delivery.line()))
    if not all(delivery.ok for delivery in sent):
        raise typer.Exit(1)


def print_notify_checks(console: Console, config: Config) -> bool:
    """The doctor's lines about [notify]; False when a target cannot work. Sends nothing."""
    from ralph.notify import check_notify

    checks = check_notify(config.notify, config.root)
    if not checks:
        console.print(
            Text.assemble(
                "· notify: none set ([notify] command or webhook tells you when a person is needed)"
            )
        )
        return True
    for check in checks:
        mark = ("✓", "green") if check.ok else ("✗", "red")
        console.print(Text.assemble(mark, " ", f"notify {check.target}: {check.detail}"))
    return all(check.ok for check in checks)
