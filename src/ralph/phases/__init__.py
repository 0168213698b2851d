"""The phases: triage, split, research, plan, review, implement, pr, merge, and on
demand the pull request's code review and the builder's address round.

A phase is code around at most one agent call. The runner does every mechanical step
(preflight, locks, context, validation, documents, comments, state moves) and the agent
only produces content.

The workflows a person drives by hand build on them: ideas formed into issues, a plan
written (the plan phase with the person as its agent) or revised by a person, a plan
rejected, an implementation done one plan phase at a time, and a pull request reviewed,
checked or merged by a person.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ralph._lazy import lazy_exports

if TYPE_CHECKING:
    from ralph.phases._attempt import remove_attempt_branches
    from ralph.phases._best_of_score import AttemptRecord, Selection, rank_attempts, select_attempt
    from ralph.phases._by_hand import Draft
    from ralph.phases._context import PhaseContext
    from ralph.phases._control_hold import ControlFilesHeld, accept_control_files
    from ralph.phases._effective_prompt import effective_prompt, prompted_phase
    from ralph.phases._fallback import CONTINUED_ON
    from ralph.phases._fast_track import FAST_TRACKED
    from ralph.phases._ideas import Formed, form_idea, idea_path, new_idea, similar_issues
    from ralph.phases._merge_look import MergeLooks, judge_merged, merge_on_base
    from ralph.phases._merged import finish_merged
    from ralph.phases._ownership import ForeignBranch, adopt_branch
    from ralph.phases._phase import (
        AlreadyDone,
        Busy,
        NeedsHuman,
        Phase,
        PhaseRefused,
        ProviderLimited,
        Waiting,
    )
    from ralph.phases._plan_by_hand import draft_plan, iterate_plan, submit_plan
    from ralph.phases._pr_by_hand import allowed_methods, merge_by_hand, person_name, review_by_hand
    from ralph.phases._prompts import PromptOverride, load_overrides, override_problems
    from ralph.phases._registry import PHASES, get_phase
    from ralph.phases._required_check import RequiredCheck, required_check_of, run_required_check
    from ralph.phases._research_by_hand import draft_research, submit_research
    from ralph.phases._retry import RETRY_FROM, retry_escalated
    from ralph.phases._review import approve, reject
    from ralph.phases._runner import AttemptOutcome, PhaseOutcome, PhaseRunner, PhaseStatus
    from ralph.phases._stepwise import Progress, StepDone, next_step, step_done
    from ralph.phases._sync import Synced, sync_board, sync_issue, sync_pull_request
    from ralph.phases._worktree_hooks import HookFailed
else:
    # Loaded on first use (ralph._lazy), from the imports above: a command imports only
    # what it uses.
    __getattr__, __dir__ = lazy_exports(globals())

__all__ = [
    "CONTINUED_ON",
    "FAST_TRACKED",
    "PHASES",
    "RETRY_FROM",
    "AlreadyDone",
    "AttemptOutcome",
    "AttemptRecord",
    "Busy",
    "ControlFilesHeld",
    "Draft",
    "ForeignBranch",
    "Formed",
    "HookFailed",
    "MergeLooks",
    "NeedsHuman",
    "Phase",
    "PhaseContext",
    "PhaseOutcome",
    "PhaseRefused",
    "PhaseRunner",
    "PhaseStatus",
    "Progress",
    "PromptOverride",
    "ProviderLimited",
    "RequiredCheck",
    "Selection",
    "StepDone",
    "Synced",
    "Waiting",
    "accept_control_files",
    "adopt_branch",
    "allowed_methods",
    "approve",
    "draft_plan",
    "draft_research",
    "effective_prompt",
    "finish_merged",
    "form_idea",
    "get_phase",
    "idea_path",
    "iterate_plan",
    "judge_merged",
    "load_overrides",
    "merge_by_hand",
    "merge_on_base",
    "new_idea",
    "next_step",
    "override_problems",
    "person_name",
    "prompted_phase",
    "rank_attempts",
    "reject",
    "remove_attempt_branches",
    "required_check_of",
    "retry_escalated",
    "review_by_hand",
    "run_required_check",
    "select_attempt",
    "similar_issues",
    "step_done",
    "submit_plan",
    "submit_research",
    "sync_board",
    "sync_issue",
    "sync_pull_request",
]
