"""The sample project the demo and the tests drive: a tiny greeting library with tests,
and an M-sized epic whose body the scripted analyst splits into three sub-issues, each
carrying the diff the scripted builder applies. A second, L-sized epic splits into three
independent sub-issues that each change a file of their own: three work streams."""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = [
    "EPIC_BODY",
    "EPIC_TITLE",
    "SAMPLE_FILES",
    "STREAMS_EPIC_BODY",
    "STREAMS_EPIC_TITLE",
    "commit_everything",
    "create_sample_repository",
]

CORE = 'def greet(name):\n    return f"Hello, {name}!"\n'
INIT = "from greet.core import greet\n"
TESTS = """import unittest

import greet


class GreetTest(unittest.TestCase):
    def test_greet(self):
        self.assertEqual(greet.greet("Ada"), "Hello, Ada!")
"""

FAREWELL = """```diff
--- a/greet/core.py
+++ b/greet/core.py
@@ -1,2 +1,6 @@
 def greet(name):
     return f"Hello, {name}!"
+
+
+def farewell(name):
+    return f"Goodbye, {name}!"
```"""

EXPORT = """```diff
--- a/greet/__init__.py
+++ b/greet/__init__.py
@@ -1 +1 @@
-from greet.core import greet
+from greet.core import farewell, greet
```"""

TEST_FAREWELL = """```diff
--- a/tests/test_greet.py
+++ b/tests/test_greet.py
@@ -6,3 +6,6 @@ import greet
 class GreetTest(unittest.TestCase):
     def test_greet(self):
         self.assertEqual(greet.greet("Ada"), "Hello, Ada!")
+
+    def test_farewell(self):
+        self.assertEqual(greet.farewell("Ada"), "Goodbye, Ada!")
```"""

EPIC_BODY = f"""The greeting library should say goodbye too.

## Split

### XS: Add a farewell function
Add `farewell(name)` next to `greet` in the core module.

{FAREWELL}

### XS: Export farewell from the package (after 1)
Make `greet.farewell` importable.

{EXPORT}

### S: Test the farewell (after 2)
Cover `farewell` in the test suite.

{TEST_FAREWELL}
"""

EPIC_TITLE = "Say goodbye"

SHOUT = """```diff
--- /dev/null
+++ b/greet/shout.py
@@ -0,0 +1,2 @@
+def shout(name):
+    return f"HELLO, {name.upper()}!"
```"""

WHISPER = """```diff
--- /dev/null
+++ b/greet/whisper.py
@@ -0,0 +1,2 @@
+def whisper(name):
+    return f"hello, {name.lower()}..."
```"""

STREAMS_EPIC_BODY = f"""The greeting library should say more than hello.

Estimate: L

## Split

### XS: Add a farewell function
Add `farewell(name)` next to `greet` in the core module.

{FAREWELL}

### XS: Add a shout helper
A module of its own that shouts the greeting.

{SHOUT}

### XS: Add a whisper helper
A module of its own that whispers the greeting.

{WHISPER}
"""

STREAMS_EPIC_TITLE = "Say more"

SAMPLE_FILES = {
    # Python's caches: the tests write them in a worktree (nothing keeps Python from it in
    # their environment), and a pull request is made only from a clean one.
    ".gitignore": "__pycache__/\n",
    "greet/__init__.py": INIT,
    "greet/core.py": CORE,
    "tests/__init__.py": "",
    "tests/test_greet.py": TESTS,
}


def commit_everything(repo: Path, message: str) -> None:
    """Commit every file of ``repo`` as the demo's author."""
    for args in (
        ["add", "-A"],
        ["-c", "user.name=Ralph demo", "-c", "user.email=demo@localhost", "commit", "-qm", message],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, timeout=60)


def create_sample_repository(path: Path) -> Path:
    """A git repository at ``path`` with the sample files committed on ``main``."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["git", "init", "-q", "-b", "main"], cwd=path, check=True, capture_output=True, timeout=60
    )
    for name, text in SAMPLE_FILES.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    commit_everything(path, "The greeting library")
    return path
