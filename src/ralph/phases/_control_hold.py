"""The hold on an agent's change to Ralph's control files (``ralph.workflow``'s
``CONTROL_FILES``): a branch that changes one against the base is never merged without a
person. Implement and address hold it as they end, the merge phase before any merge.

A person lets it through in one of two ways: they merge the pull request themselves
(``ralph pr merge``, or on the code host), or ``ralph issue retry N --accept-control-files``
records the control files as the branch has them now (their blobs) as accepted, so the
pipeline goes on; a later change to one of them is held again."""

from __future__ import annotations

from ralph.git import GitRepo
from ralph.phases._context import PhaseContext
from ralph.phases._phase import NeedsHuman, PhaseRefused
from ralph.project import Project
from ralph.workflow import ControlChange, control_changes, hold_reason

__all__ = ["ControlFilesHeld", "accept_control_files", "hold_control_changes"]

#: Keys in the store's key-value table (its checkpoints).
_HELD = "control-files-held:{repo}:{number}"
_ACCEPTED = "control-files-accepted:{repo}:{branch}"


class ControlFilesHeld(NeedsHuman):
    """An agent's branch changes a control file: only a person lets it through."""

    falls_back = False  # another pipeline would build the same change


def _changes(git: GitRepo, base: str, head: str, prompts_dir: str) -> list[ControlChange]:
    # Renames show both names: moving ralph.toml away is a change to it too.
    listed = git.git(
        "diff",
        "--name-only",
        "--no-renames",
        "-z",
        f"refs/heads/{base}...{head}",
        what=f"list the files {head} changes",
    )
    return control_changes([p for p in listed.split("\0") if p], prompts_dir)


def _blobs(git: GitRepo, head: str, changes: list[ControlChange]) -> dict[str, str]:
    """Each changed control file's content at ``head`` ("" where it deleted it)."""
    found = {}
    for change in changes:
        done = git.run("rev-parse", "--verify", "--quiet", f"{head}:{change.path}")
        found[change.path] = done.stdout.strip() if done.returncode == 0 else ""
    return found


def hold_control_changes(
    ctx: PhaseContext, branch: str, number: int, *, head: str = "", pr: int | None = None
) -> bool:
    """Raise ControlFilesHeld when ``branch`` (at commit ``head``, its tip by default)
    changes a control file against the base that a person has not accepted as it is
    now; ``pr``: the pull request it is, named in the reason with the person's own merge
    as a way through. True: it changes some, as a person accepted."""
    project = ctx.project
    head = head or f"refs/heads/{branch}"
    changes = _changes(project.git, ctx.base, head, project.config.prompts_dir)
    if not changes:
        return False
    repo = project.config.repo
    blobs = _blobs(project.git, head, changes)
    accepted = project.store.load_checkpoint(_ACCEPTED.format(repo=repo, branch=branch))
    if accepted is not None and all(accepted.get(p) == b for p, b in blobs.items()):
        ctx.say(f"{branch} changes {', '.join(blobs)}, as a person accepted.")
        return True
    project.store.save_checkpoint(
        _HELD.format(repo=repo, number=number), {"branch": branch, "files": blobs}
    )
    go_on = f"lets Ralph go on with `ralph issue retry {number} --accept-control-files`"
    if pr is not None:
        way = f"merges it themselves (`ralph pr merge {pr}`) or {go_on}"
    else:
        way = f"{go_on} (the change: `git diff {ctx.base}...{branch}`)"
    what = f"pull request #{pr}" if pr is not None else branch
    raise ControlFilesHeld(hold_reason(changes, what=what, way_through=way))


def accept_control_files(project: Project, number: int) -> list[str]:
    """A person's acceptance of the control-file changes held for issue ``number``: the
    files as the branch had them when held. Returns their paths; PhaseRefused when
    nothing is held for it."""
    repo = project.config.repo
    held = project.store.load_checkpoint(_HELD.format(repo=repo, number=number))
    if held is None:
        raise PhaseRefused(
            f"no change to a control file is held for #{number}; retry it without "
            "--accept-control-files"
        )
    branch, files = str(held["branch"]), dict(held["files"])
    project.store.save_checkpoint(_ACCEPTED.format(repo=repo, branch=branch), files)
    project.store.clear_checkpoint(_HELD.format(repo=repo, number=number))
    return sorted(files)
