"""``python -m ralph.jira.fake``: a fake Jira Cloud site on 127.0.0.1 to try Ralph's Jira
tracker without an account (``make fake-jira`` from a clone). It has one project whose
workflow has a status for each of Ralph's states and moves any to any, a story points
field, and one account with an API token; it keeps everything in memory until Ctrl-C.
It checks requests against a copy of Jira's published OpenAPI document: ``--openapi``
or ``$RALPH_JIRA_OPENAPI``."""

from __future__ import annotations

import argparse
import signal
import sys

from ralph.errors import ConfigError
from ralph.jira.fake._jira import FakeJira
from ralph.jira.fake._model import ralph_statuses

#: Not a secret: it opens only this process's fake.
OFFLINE_TOKEN = "fake-jira-offline-token"
OFFLINE_EMAIL = "ada@example.com"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ralph.jira.fake", description=__doc__)
    parser.add_argument("--project", default="PROJ", help="the project's key (default PROJ)")
    parser.add_argument("--port", type=int, default=8767, help="0 for any free port")
    parser.add_argument(
        "--openapi",
        metavar="PATH",
        help="a copy of Jira's published OpenAPI document (default $RALPH_JIRA_OPENAPI)",
    )
    args = parser.parse_args(argv)
    # Ctrl-C and SIGTERM are waited for, not raised: blocked here, before the server's
    # thread starts (it inherits the mask), they stay pending until ``sigwait`` takes one.
    stopping = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stopping)
    try:
        fake = FakeJira(openapi=args.openapi)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    fake.add_account(OFFLINE_EMAIL, OFFLINE_TOKEN, "Ada Lovelace")
    project = args.project.upper()
    fake.add_project(project, "Project", ralph_statuses())
    try:
        with fake.serve(args.port) as url:
            print(f"A fake Jira serves project {project} at {url}", end=" ")
            print("(Ctrl-C stops it; it keeps nothing).")
            print("In another terminal, in your project:")
            print(f"  export RALPH_JIRA_TOKEN={OFFLINE_TOKEN}")
            print(f"  ralph init --jira {project} --jira-url {url} --jira-email {OFFLINE_EMAIL}")
            sys.stdout.flush()
            signal.sigwait(stopping)
    except OSError as exc:
        print(
            f"cannot serve on port {args.port}: {exc.strerror}; pick another with --port",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
