"""``python -m ralph.linear.fake``: a fake Linear on 127.0.0.1 to try Ralph's Linear
tracker without an account (``make fake-linear`` from a clone). It has one team with
Linear's default states and T-shirt estimates, one API key, and Linear's real request
and complexity budgets; it keeps everything in memory until Ctrl-C. It executes requests
against a copy of Linear's published schema: ``--schema`` or ``$RALPH_LINEAR_SCHEMA``."""

from __future__ import annotations

import argparse
import signal
import sys

from ralph.errors import ConfigError
from ralph.linear.fake._linear import FakeLinear

#: Not a secret: it opens only this process's fake.
OFFLINE_KEY = "lin_api_fake_linear_offline_key"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ralph.linear.fake", description=__doc__)
    parser.add_argument("--team", default="ENG", help="the team's key (default ENG)")
    parser.add_argument("--port", type=int, default=8766, help="0 for any free port")
    parser.add_argument(
        "--schema",
        metavar="PATH",
        help="a copy of Linear's published schema.graphql (default $RALPH_LINEAR_SCHEMA)",
    )
    args = parser.parse_args(argv)
    # Ctrl-C and SIGTERM are waited for, not raised: blocked here, before the server's
    # thread starts (it inherits the mask), they stay pending until ``sigwait`` takes one.
    stopping = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stopping)
    try:
        fake = FakeLinear(schema=args.schema)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    fake.add_token(OFFLINE_KEY, "Ada Lovelace")
    team = args.team.upper()
    fake.add_team(team, "Engineering")
    try:
        with fake.serve(args.port) as url:
            print(f"A fake Linear serves team {team} at {url} (Ctrl-C stops it; it keeps nothing).")
            print("In another terminal, in your project:")
            print(f"  export RALPH_LINEAR_API_URL={url}")
            print(f"  export RALPH_LINEAR_TOKEN={OFFLINE_KEY}")
            print(f"  ralph init --linear {team}")
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
