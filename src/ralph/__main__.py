"""``python -m ralph`` and the ``ralph`` command. ``ralph hook EVENT``, which Claude Code
runs on every tool call of a session with the plugin, and ``ralph --version``, which
install scripts run, are answered without loading the command line; everything else goes
to :mod:`ralph.cli`, in a process tuned for a command (:mod:`ralph._command_process`)."""

from __future__ import annotations

import sys


def main() -> None:
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "hook":
        from ralph.plugin import HOOK_EVENTS, run_hook

        if args[1] in HOOK_EVENTS:
            sys.exit(run_hook(args[1], sys.stdin, sys.stdout))
    if args in (["--version"], ["-V"], ["version"]):
        from ralph._distribution import version_line

        sys.stdout.write(version_line() + "\n")
        return
    from ralph import _command_process, _dataclass_code

    _command_process.collect_less()
    _dataclass_code.install()  # before the command line's modules make their classes
    from ralph.cli import main as cli_main

    _command_process.run_then_end(cli_main)


if __name__ == "__main__":
    main()
