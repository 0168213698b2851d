"""``python -m ralph.gitlab.fake``: a fake GitLab on 127.0.0.1 to try Ralph's GitLab
tracker without an account (``make fake-gitlab`` from a clone). It has one project, one
access token and GitLab.com's API rate limit; it keeps everything in memory until
Ctrl-C. It checks requests against a copy of GitLab's published OpenAPI document:
``--openapi`` or ``$RALPH_GITLAB_OPENAPI``."""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from ralph.errors import ConfigError
from ralph.gitlab.fake._fake import FakeGitLab

#: Not a secret: it opens only this process's fake.
OFFLINE_TOKEN = "glpat-fake-gitlab-offline-token"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ralph.gitlab.fake", description=__doc__)
    parser.add_argument("--project", default="acme/app", help="the project's path (acme/app)")
    parser.add_argument("--port", type=int, default=8767, help="0 for any free port")
    parser.add_argument(
        "--openapi",
        metavar="PATH",
        help="a copy of GitLab's gitlab-openapi.yaml (default $RALPH_GITLAB_OPENAPI)",
    )
    parser.add_argument(
        "--repository",
        metavar="PATH",
        help="the git repository the project's merge requests merge in (default: none, "
        "merge requests then move no branch)",
    )
    parser.add_argument("--free", action="store_true", help="the Free tier (no weights...)")
    args = parser.parse_args(argv)
    repository = _repository(args.repository)
    if args.repository and repository is None:
        print(
            f"{args.repository} is not a git work tree; name one with --repository", file=sys.stderr
        )
        return 2
    # Ctrl-C and SIGTERM are waited for, not raised: blocked here, before the server's
    # thread starts (it inherits the mask), they stay pending until ``sigwait`` takes one.
    stopping = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stopping)
    try:
        fake = FakeGitLab(openapi=args.openapi, premium=not args.free)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    fake.add_token(OFFLINE_TOKEN, "ada")
    project = args.project.strip("/")
    fake.add_project(project, repository=repository)
    try:
        with fake.serve(args.port) as url:
            print(f"A fake GitLab serves {project} at {url} (Ctrl-C stops it; it keeps nothing).")
            print("In another terminal, in your project:")
            print(f"  export RALPH_GITLAB_TOKEN={OFFLINE_TOKEN}")
            print(f"  ralph init --gitlab {project} --gitlab-url {url}")
            sys.stdout.flush()
            signal.sigwait(stopping)
    except OSError as exc:
        print(
            f"cannot serve on port {args.port}: {exc.strerror}; pick another with --port",
            file=sys.stderr,
        )
        return 2
    return 0


def _repository(given: str | None) -> Path | None:
    """The work tree ``given`` names, None if none is named or it is not one. Never the
    current directory by default: ``make fake-gitlab`` runs in Ralph's own clone."""
    if not given:
        return None
    where = Path(given).expanduser().resolve()
    return where if (where / ".git").exists() else None


if __name__ == "__main__":
    sys.exit(main())
