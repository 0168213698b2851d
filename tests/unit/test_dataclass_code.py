"""A dataclass made with the compiled-code cache installed is the class Python makes
without it, and the functions ``@dataclass`` writes are compiled once: a later process
reads them from the file beside Ralph's bytecode, which follows Python's rules for
bytecode (its prefix; nothing written when told not to)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(60)

#: A few kinds of dataclass, in a module of their own: the cache keeps each module's.
_SHAPES = """
import dataclasses

@dataclasses.dataclass(frozen=True, kw_only=True)
class Point:
    x: int
    tags: "list[str]" = dataclasses.field(default_factory=list, hash=False)

@dataclasses.dataclass(order=True)
class Version:
    major: int
    minor: int = 0
"""

#: What they do: the same with the cache or not.
_CLASSES = """
import dataclasses, sys
sys.path.insert(0, sys.argv[1])
{setup}
from shapes import Point, Version

point = Point(x=1)
try:
    point.x = 2
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
print(repr(point), point == Point(x=1), hash(point) == hash(Point(x=1)), frozen)
print(Point.__init__.__annotations__, Version.__init__.__annotations__)
print(sorted([Version(2), Version(1, 5)]), Version(1) < Version(1, 1))
{report}
"""

_INSTALL = "from ralph import _dataclass_code; _dataclass_code.install()"
_REPORT = """
import shapes
compiled = any(m.compiled for m in _dataclass_code._modules.values())
print('compiled' if compiled else 'read', _dataclass_code.cache_file(shapes.__file__))
"""


def _python(code: str, prefix: Path, *, write: bool = True) -> list[str]:
    """``code`` in a fresh interpreter, bytecode kept under ``prefix``, with the module of
    shapes in ``prefix/src``."""
    shapes = prefix / "src" / "shapes.py"
    shapes.parent.mkdir(parents=True, exist_ok=True)
    if not shapes.exists():
        shapes.write_text(_SHAPES)
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ["PYTHONPYCACHEPREFIX"] = str(prefix / "bytecode")
    if not write:
        environ["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", code, str(shapes.parent)],
        env=environ,
        capture_output=True,
        text=True,
        timeout=50,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_class_is_the_same_whether_its_code_is_compiled_or_read_from_the_cache(
    tmp_path: Path,
) -> None:
    plain = _python(_CLASSES.format(setup="", report=""), tmp_path / "none")
    first = _python(_CLASSES.format(setup=_INSTALL, report=_REPORT), tmp_path)
    second = _python(_CLASSES.format(setup=_INSTALL, report=_REPORT), tmp_path)
    assert first[:-1] == plain
    assert second[:-1] == plain
    # Annotations as Python's own (not strings: none of the cache's futures leaked in).
    assert "<class 'int'>" in plain[1]
    assert first[-1].startswith("compiled ")
    assert second[-1].startswith("read ")
    cache = Path(first[-1].split(" ", 1)[1])
    assert cache.is_file()
    assert cache.is_relative_to(tmp_path)  # beside the bytecode, under its prefix


def test_nothing_is_written_where_bytecode_may_not_be(tmp_path: Path) -> None:
    for _ in range(2):
        told = _python(_CLASSES.format(setup=_INSTALL, report=_REPORT), tmp_path, write=False)
        assert told[-1].startswith("compiled ")
    assert not Path(told[-1].split(" ", 1)[1]).exists()


@pytest.mark.parametrize("content", [b"", b"not marshal", b"\xfb\x00\x00\x00", b"N"])
def test_a_damaged_cache_is_no_cache_and_is_written_again(tmp_path: Path, content: bytes) -> None:
    first = _python(_CLASSES.format(setup=_INSTALL, report=_REPORT), tmp_path)
    cache = Path(first[-1].split(" ", 1)[1])
    cache.write_bytes(content)
    damaged = _python(_CLASSES.format(setup=_INSTALL, report=_REPORT), tmp_path)
    assert damaged == first
    assert _python(_CLASSES.format(setup=_INSTALL, report=_REPORT), tmp_path)[-1].startswith(
        "read "
    )


def test_an_entry_that_is_not_code_is_compiled_again(tmp_path: Path) -> None:
    first = _python(_CLASSES.format(setup=_INSTALL, report=_REPORT), tmp_path)
    cache = Path(first[-1].split(" ", 1)[1])
    damaged = _python(
        f"""
import marshal
from pathlib import Path
path = Path({str(cache)!r})
kept = marshal.loads(path.read_bytes())
path.write_bytes(marshal.dumps({{text: marshal.dumps("print('not code')") for text in kept}}))
"""
        + _CLASSES.format(setup=_INSTALL, report=_REPORT),
        tmp_path,
    )
    assert damaged == first


def test_a_modules_file_keeps_only_the_code_its_classes_use_now(tmp_path: Path) -> None:
    import marshal

    first = _python(_CLASSES.format(setup=_INSTALL, report=_REPORT), tmp_path)
    cache = Path(first[-1].split(" ", 1)[1])
    assert any("minor" in text for text in marshal.loads(cache.read_bytes()))
    shapes = tmp_path / "src" / "shapes.py"
    shapes.write_text(_SHAPES.replace("minor", "patchlevel"))  # a new size: bytecode stale
    edited = _python(
        _CLASSES.replace("Version(1, 5)", "Version(1, patchlevel=5)").format(
            setup=_INSTALL, report=_REPORT
        ),
        tmp_path,
    )
    assert edited[-1].startswith("compiled ")
    kept = marshal.loads(cache.read_bytes())
    assert kept
    assert not any("minor" in text for text in kept)  # the edited-away class's code went


def test_a_class_made_where_no_module_file_is_known_is_the_same_too(tmp_path: Path) -> None:
    """Made from a string run in globals without ``__file__`` (no cache for it): its
    functions are still compiled as ``dataclasses`` compiles them."""
    made = """
{setup}
source = "from dataclasses import dataclass\\n@dataclass\\nclass P:\\n    x: int\\n"
ns = {{"__name__": "nowhere"}}
exec(source, ns)
print(ns["P"].__init__.__annotations__)
"""
    without = _python(made.format(setup=""), tmp_path)
    assert _python(made.format(setup=_INSTALL), tmp_path) == without
    assert without == ["{'x': <class 'int'>, 'return': None}"]
