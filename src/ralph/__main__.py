"""``python -m ralph`` runs the command line."""

from __future__ import annotations

from ralph.cli import main

main()
