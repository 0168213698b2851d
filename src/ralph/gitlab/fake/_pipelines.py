"""The fake GitLab's pipelines: a merge request's pipelines on its head commits and their
jobs (docs.gitlab.com/api/pipelines, /jobs), which the code host reads as the checks.
The fake runs no CI: a test says what a job did with ``MergeRequestLevers.job``, as
GitLab's runners would report it, and the pipeline's status follows from its jobs.
``MergeRequestLevers`` also sets a project's merge settings and a reviewer's state
(what a person does on GitLab's page)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ralph.gitlab.fake._mr_model import Job, MergeRequest, MergeRequests, Pipeline, of, when
from ralph.gitlab.fake._routes import Call, Fault, Routes, paginate

if TYPE_CHECKING:
    from ralph.gitlab.fake._fake import FakeGitLab

__all__ = ["MergeRequestLevers", "pipeline_json", "register"]

P = "/api/v4/projects/{id}"
#: Every status GitLab gives a job.
_JOB_STATUSES = frozenset(
    {
        "created",
        "waiting_for_resource",
        "preparing",
        "pending",
        "running",
        "success",
        "failed",
        "canceled",
        "skipped",
        "manual",
        "scheduled",
    }
)


def register(routes: Routes) -> None:
    routes.add("GET", P + "/merge_requests/{merge_request_iid}/pipelines", _mr_pipelines)
    routes.add("GET", P + "/pipelines/{pipeline_id}", _pipeline)
    routes.add("GET", P + "/pipelines/{pipeline_id}/jobs", _jobs)


def pipeline_json(call: Call, pipeline: Pipeline) -> dict[str, Any]:
    project = call.project()
    return {
        "id": pipeline.id,
        "iid": pipeline.iid,
        "project_id": project.id,
        "sha": pipeline.sha,
        "ref": pipeline.ref,
        "status": pipeline.status,
        "source": "merge_request_event",
        "created_at": when(pipeline.created_at),
        "updated_at": when(pipeline.created_at),
        "web_url": f"{call.fake.base_url}/{project.path_with_namespace}/-/pipelines/{pipeline.id}",
    }


def _job_json(call: Call, pipeline: Pipeline, job: Job) -> dict[str, Any]:
    project = call.project()
    done = job.status in ("success", "failed", "canceled", "skipped")
    return {
        "id": job.id,
        "status": job.status,
        "stage": job.stage,
        "name": job.name,
        "ref": pipeline.ref,
        "tag": False,
        "allow_failure": job.allow_failure,
        "created_at": when(job.created_at),
        "started_at": when(job.created_at) if job.status not in ("created", "pending") else None,
        "finished_at": when(job.created_at) if done else None,
        "failure_reason": job.failure_reason,
        "pipeline": {"id": pipeline.id, "sha": pipeline.sha, "ref": pipeline.ref},
        "web_url": f"{call.fake.base_url}/{project.path_with_namespace}/-/jobs/{job.id}",
        "retried": job is not next(j for j in pipeline.latest_jobs() if j.name == job.name),
    }


def _find(call: Call) -> tuple[MergeRequests, Pipeline]:
    store = of(call.project())
    wanted = call.integer("pipeline_id")
    found = next((p for p in store.pipelines if p.id == wanted), None)
    if found is None:
        raise Fault.not_found()
    return store, found


def _mr_pipelines(call: Call) -> Any:
    from ralph.gitlab.fake._merge_requests import merge_request

    store, mr = merge_request(call)
    ref = f"refs/merge-requests/{mr.iid}/head"
    found = sorted((p for p in store.pipelines if p.ref == ref), key=lambda p: -p.id)
    return [pipeline_json(call, p) for p in paginate(call, found)]


def _pipeline(call: Call) -> Any:
    return pipeline_json(call, _find(call)[1])


def _jobs(call: Call) -> Any:
    _store, pipeline = _find(call)
    retried = call.query("include_retried") == "true"
    jobs = pipeline.jobs if retried else pipeline.latest_jobs()
    scope = set(call.query_list("scope"))
    found = [j for j in jobs if not scope or j.status in scope]
    return [_job_json(call, pipeline, j) for j in paginate(call, sorted(found, key=lambda j: j.id))]


class MergeRequestLevers:
    """What happens on a fake GitLab besides the API: CI reporting jobs, a person
    changing the project's settings or their review state on GitLab's page."""

    def __init__(self, fake: FakeGitLab) -> None:
        self.fake = fake

    def _mr(self, project: str, iid: int) -> tuple[MergeRequests, MergeRequest]:
        found = self.fake.state.project(project)
        if found is None:
            raise KeyError(f"no project {project}")
        store = of(found)
        return store, store.items[iid]

    def job(
        self,
        project: str,
        iid: int,
        name: str,
        status: str,
        *,
        allow_failure: bool = False,
        failure_reason: str | None = None,
    ) -> None:
        """Job ``name`` of the merge request's pipeline on its current head reports
        ``status`` (a new run of it when it ran there before); the pipeline is made on
        the first job."""
        if status not in _JOB_STATUSES:
            raise ValueError(f"GitLab has no job status {status!r}")
        with self.fake.state.lock:
            store, mr = self._mr(project, iid)
            sha = store.sha(mr)
            pipeline = store.head_pipeline(mr)
            now = self.fake.state.clock()
            if pipeline is None:
                pipeline = Pipeline(
                    self.fake.state.new_id(),
                    store.next_pipeline_iid,
                    sha,
                    f"refs/merge-requests/{mr.iid}/head",
                    now,
                )
                store.next_pipeline_iid += 1
                store.pipelines.append(pipeline)
            pipeline.jobs.append(
                Job(
                    self.fake.state.new_id(),
                    name,
                    status,
                    allow_failure=allow_failure,
                    failure_reason=failure_reason if status == "failed" else None,
                    created_at=now,
                )
            )

    def settings(self, project: str, **values: Any) -> None:
        """Change the project's merge settings (GitLab's names: ``merge_method="ff"``,
        ``only_allow_merge_if_pipeline_succeeds=True``, ``approvals_before_merge=1``)."""
        with self.fake.state.lock:
            found = self.fake.state.project(project)
            if found is None:
                raise KeyError(f"no project {project}")
            store = of(found)
            unknown = set(values) - set(store.settings)
            if unknown:
                raise KeyError(f"the fake keeps no setting {sorted(unknown)}")
            store.settings.update(values)

    def reviewer_state(self, project: str, iid: int, username: str, state: str) -> None:
        """``username`` sets their review state on GitLab's page (``requested_changes``,
        ``reviewed``...), becoming a reviewer if they were not one."""
        with self.fake.state.lock:
            _store, mr = self._mr(project, iid)
            user = next(u for u in self.fake.state.users if u.username == username)
            if user not in mr.reviewers:
                mr.reviewers.append(user)
            mr.reviewer_states[username] = state
