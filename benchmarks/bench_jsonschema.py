"""Ralph's own JSON Schema checker (``ralph._jsonschema``) against the ``jsonschema``
package (installed with ``mcp``): import time, time per check of an MCP tool's arguments
and of a phase's result, valid and invalid. Prints medians; not a test.

Why Ralph keeps its own checker: JSON's types strictly (a bool
is no integer, 1.0 no integer, NaN no number), integers within 64 bits, a blank string
as empty, and one sentence per problem naming the field, which ``jsonschema`` would
need a custom type checker, a custom ``minLength`` and a translation of every message
to give; and this prints what the package would cost. Measured (2 cores, loaded): the
import adds ~390 ms to a ``ralph`` command that checks anything, and a check takes 3-6
times as long (e.g. 13 µs against 44 µs for an MCP tool's arguments).

    .venv/bin/python benchmarks/bench_jsonschema.py
"""

from __future__ import annotations

import functools
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Run as a script, so the repository root is put on the path for the quick mode.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._quick import pick
from ralph._jsonschema import schema_errors

REPEATS = pick(2000, 5)
IMPORTS = pick(15, 1)

#: An MCP tool's arguments (the shapes the tools declare) and a phase's result.
ARGUMENTS: dict[str, Any] = {
    "type": "object",
    "required": ["number"],
    "properties": {
        "number": {"type": "integer"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500},
        "parent": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "labels": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
    },
}
RESULT: dict[str, Any] = {
    "type": "object",
    "required": ["verdict", "issues"],
    "additionalProperties": False,
    "properties": {
        "verdict": {"enum": ["APPROVED", "NEEDS_ITERATION"]},
        "issues": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "phases": {"type": "integer", "minimum": 1},
    },
}
CASES = {
    "arguments, valid": (ARGUMENTS, {"number": 7, "limit": 20, "parent": None, "labels": ["a"]}),
    "arguments, invalid": (ARGUMENTS, {"number": True, "labels": ["a", 1]}),
    "result, valid": (RESULT, {"verdict": "APPROVED", "issues": ["x"] * 20, "phases": 2}),
    "result, invalid": (RESULT, {"verdict": "MAYBE", "issues": [""], "extra": 1}),
}


def median_us(action: Callable[[], object], repeats: int = REPEATS) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        samples.append((time.perf_counter() - start) * 1e6)
    return statistics.median(samples)


def import_ms(module: str) -> float:
    """Median time a fresh interpreter that has imported ``ralph`` takes to import
    ``module`` (neither ``ralph`` nor ``ralph.mcp`` imports jsonschema)."""
    code = (
        "import time, ralph; start = time.perf_counter(); "
        f"import {module}; print(time.perf_counter() - start)"
    )
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        for _ in range(IMPORTS)
    ]
    return statistics.median(float(run.stdout) * 1000 for run in runs)


def _errors(validator: Any, value: Any) -> list[Any]:
    return list(validator.iter_errors(value))


def main() -> None:
    from jsonschema import Draft202012Validator

    print(f"import ralph._jsonschema   {import_ms('ralph._jsonschema'):7.1f} ms")
    print(f"import jsonschema          {import_ms('jsonschema'):7.1f} ms")
    print(f"\n{'check (median µs)':22} {'ralph':>8} {'jsonschema':>11} {'reused':>9}")
    for name, (schema, value) in CASES.items():
        compiled = Draft202012Validator(schema)
        ours = median_us(functools.partial(schema_errors, value, schema))
        theirs = median_us(functools.partial(_errors, Draft202012Validator(schema), value))
        theirs += median_us(functools.partial(Draft202012Validator, schema))
        reused = median_us(functools.partial(_errors, compiled, value))
        print(f"{name:22} {ours:8.1f} {theirs:11.1f} {reused:9.1f}")
    print("\nMessages for the invalid result:")
    schema, value = CASES["result, invalid"]
    print("  ralph:      ", schema_errors(value, schema))
    print("  jsonschema: ", [e.message for e in Draft202012Validator(schema).iter_errors(value)])


if __name__ == "__main__":
    main()
