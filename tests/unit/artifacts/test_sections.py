"""The document parts phases act on: file lists, plan phases and checkboxes, diffs."""

from __future__ import annotations

from ralph.artifacts import diff_blocks, files_under, plan_steps, step_files, tick_step

PLAN = """---
status: draft
---
# Greeting - Atomic Implementation Plan

## Overview

## Phase 1: GH-2 Add the helper

### Changes Required

```diff
--- a/greet.py
+++ b/greet.py
@@ -1 +1 @@
-x
+y
```

### Success Criteria

#### Automated Verification
- [x] Tests pass: `pytest`
- [x] Lint passes

#### Manual Verification
- [ ] Read it

## Phase 2: GH-0003 Use the helper

### Success Criteria

#### Automated Verification:
- [ ] Tests pass: `pytest`

#### Manual Verification
- [ ] Try it

## Integration Testing
- [ ] not a phase box
"""


def test_plan_steps_are_read_with_their_issue_and_checkboxes():
    phases = plan_steps(PLAN)
    assert [(p.number, p.issue, p.done) for p in phases] == [(1, 2, True), (2, 3, False)]
    assert [box.text for box in phases[0].automated] == ["Tests pass: `pytest`", "Lint passes"]
    assert [box.checked for box in phases[0].manual] == [False]
    assert "Integration Testing" not in phases[1].body


def test_ticking_a_phase_ticks_only_its_automated_boxes():
    ticked = tick_step(PLAN, 2)
    phases = plan_steps(ticked)
    assert phases[1].done
    assert not any(box.checked for box in phases[1].manual)
    assert "- [ ] not a phase box" in ticked
    assert tick_step(ticked, 2) == ticked


def test_a_phase_without_automated_boxes_is_not_done():
    assert not plan_steps("## Phase 1: GH-1 x\n\nno criteria\n")[0].done


def test_diff_blocks_are_extracted_in_order():
    assert diff_blocks(PLAN) == ["--- a/greet.py\n+++ b/greet.py\n@@ -1 +1 @@\n-x\n+y\n"]


def test_files_under_a_heading_are_the_backticked_paths_of_its_list():
    research = """## Files Affected
### Will Modify
- `src/a.py` - the parser
- `src/b.py` - and `not/this.py`
### Will Read (Dependencies)
- `src/c.py` - read only
"""
    assert files_under(research, "### Will Modify") == ["src/a.py", "src/b.py"]
    assert files_under(research, "Will Read (Dependencies)") == ["src/c.py"]
    assert files_under(research, "### Nowhere") == []


def test_a_plan_step_names_its_files_by_file_lines_and_by_its_diffs():
    step = """
### Changes Required

#### 1. The helper
**File**: `greet/core.py`
**Changes**: add it.

#### 2. Its test
**File**: `tests/test_greet.py`

```diff
--- a/greet/core.py
+++ b/greet/core.py
@@ -1 +1 @@
-x
+y
--- /dev/null
+++ b/greet/new.py
@@ -0,0 +1 @@
+z
```
"""
    (first, second) = plan_steps(f"## Phase 1: GH-2 Helper\n{step}\n## Phase 2: GH-3 Use\n")
    assert step_files(first) == ["greet/core.py", "tests/test_greet.py", "greet/new.py"]
    assert step_files(second) == []
    assert step_files(plan_steps(PLAN)[0]) == ["greet.py"]
