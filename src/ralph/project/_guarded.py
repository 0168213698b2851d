"""ralph.toml's guarded settings (``ralph.workflow.GUARDED_SETTINGS``: what runs on the
host, widens what agents get or bounds what they spend) are taken from what a person
committed, never from a merge Ralph made without a person.

The store keeps the accepted values and Ralph's own merges (each with the base before
it). When ralph.toml's values differ from the accepted ones, where the file came from
decides: the same as the base branch's, whose last change there (on its first-parent
line) is one of Ralph's merges made without a person, refuses them (the accepted values
stay in force); anything else (a person's commit, their own edit, a merge they made or
accepted) is theirs and accepted. ``RALPH_*`` variables are the person's too. Either way
the change is said: a run's first lines, ``ralph doctor``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ralph.config import CONFIG_FILE, Config, load_config
from ralph.git import GitRepo
from ralph.project._guarded_values import guarded_values, with_values
from ralph.workflow import SettingsVerdict, judge_settings

if TYPE_CHECKING:
    from ralph.tasks import TaskStore

__all__ = ["record_ralph_merge", "record_settings", "settle_settings"]

#: Keys in the store's key-value table (its checkpoints).
_ACCEPTED = "guarded-settings:{repo}"
_MERGES = "ralph-merges:{repo}"
#: Ralph's merges remembered: the last change to ralph.toml is among the recent ones.
_MERGES_KEPT = 500


def _from_ralph_merge(config: Config, store: TaskStore, git: GitRepo) -> bool:
    """Whether ralph.toml as read is the base branch's, last changed by a merge Ralph
    made without a person."""
    base = f"refs/heads/{config.base_branch}"
    read = git.run("hash-object", CONFIG_FILE)
    committed = git.run("rev-parse", "--verify", "--quiet", f"{base}:./{CONFIG_FILE}")
    if read.returncode != 0 or committed.returncode != 0:
        return False
    if read.stdout.strip() != committed.stdout.strip():
        return False  # the person's own edit, or a branch of theirs
    last = git.run("log", "--first-parent", "-1", "--format=%H", base, "--", CONFIG_FILE)
    commit = last.stdout.strip()
    if last.returncode != 0 or not commit:
        return False
    merges = (store.load_checkpoint(_MERGES.format(repo=config.repo)) or {}).get("merges", [])
    for merge in merges:
        if merge.get("by_person"):
            continue
        if commit == merge["commit"]:
            return True
        # A rebase merge lands several commits: every one after the base it started from.
        before = merge.get("before") or ""
        if (
            before
            and commit != before
            and git.is_ancestor(before, commit)
            and git.is_ancestor(commit, merge["commit"])
        ):
            return True
    return False


def settle_settings(
    config: Config, store: TaskStore, git: GitRepo, env: Mapping[str, str] | None = None
) -> tuple[Config, SettingsVerdict]:
    """``config`` with the guarded settings in force, and the verdict (what to record,
    what to say). The verdict judges ralph.toml's own values; where ``config`` differs
    from them (a ``RALPH_*`` variable, a command-line option) the person's value is used
    and nothing is recorded."""
    env = os.environ if env is None else env
    given = guarded_values(config)
    from_file = given  # settings made in code (a library caller's) have no file
    if (config.root / CONFIG_FILE).is_file():
        own = {name: value for name, value in env.items() if not name.startswith("RALPH_")}
        from_file = guarded_values(load_config(config.root, own))
    accepted = store.load_checkpoint(_ACCEPTED.format(repo=config.repo))
    changed = accepted is not None and any(
        name not in accepted or from_file[name] != accepted[name] for name in from_file
    )
    verdict = judge_settings(
        accepted, from_file, from_ralph_merge=changed and _from_ralph_merge(config, store, git)
    )
    in_force = {
        name: given[name] if given[name] != from_file[name] else verdict.in_force[name]
        for name in given
    }
    return with_values(config, in_force), verdict


def record_settings(config: Config, store: TaskStore, verdict: SettingsVerdict) -> None:
    """Keep what ``verdict`` accepted as the values a later change is compared with."""
    if verdict.to_record is not None:
        store.save_checkpoint(_ACCEPTED.format(repo=config.repo), verdict.to_record)


def record_ralph_merge(
    config: Config, store: TaskStore, commit: str, *, before: str, by_person: bool
) -> None:
    """Ralph merged (``commit``, the base at ``before`` until then); ``by_person``: a
    person accepted what it changes of the control files."""
    key = _MERGES.format(repo=config.repo)
    merges = list((store.load_checkpoint(key) or {}).get("merges", []))
    merges.append({"commit": commit, "before": before, "by_person": by_person})
    store.save_checkpoint(key, {"merges": merges[-_MERGES_KEPT:]})
