"""The ``ralph`` command with its merge phase waiting while a file exists, as if a pull
request waited for a review (a person's wait): for tests that kill a process during a
wait.

    python waiting_ralph.py FILE ralph-args...
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from waiting_gate import WaitGate  # type: ignore[import-not-found]

from ralph.phases import get_phase


def main() -> None:
    gate_file, *args = sys.argv[1:]
    WaitGate("review", for_person=True, file=Path(gate_file)).install(type(get_phase("merge")))
    from ralph.cli import main as ralph

    ralph(args)


if __name__ == "__main__":
    main()
