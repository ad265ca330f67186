"""The expert's tasks: the next one, what it shows, and the answers to it."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response

from cbeal.service.api.routing import StrictRoute
from cbeal.service.api.streams import StreamName
from cbeal.service.deps import Annotate, Answer, Review, ServiceDep, TaskId
from cbeal.service.engine.insight import sample_context
from cbeal.service.engine.tasks import Actor
from cbeal.service.engine.tokens import Principal
from cbeal.service.schemas.common import errors
from cbeal.service.schemas.tasks import AnswerIn, ContextOut, LabelIn, TaskOut

__all__ = ["actor", "router"]

LABEL_STUDIO = "label-studio:"  # the lease keys of Label Studio's pushes begin so

router = APIRouter(tags=["tasks"], route_class=StrictRoute)


def actor(who: Principal, via: str | None = None) -> Actor:
    """The caller as the task queue sees it: its leases are held under its token (name and
    id); `via` ``label-studio`` acts for Label Studio, which answers every task a Label
    Studio push leased."""
    key = f"{who.name}#{who.token_id}"
    admin, labeller, reviewer = who.role == "admin", who.may("annotate"), who.may("review")
    if via == "label-studio":
        name = f"{LABEL_STUDIO}{who.name}"
        return Actor(name, LABEL_STUDIO + key, admin, LABEL_STUDIO, labeller, reviewer)
    return Actor(who.name, key, admin, labeller=labeller, reviewer=reviewer)


@router.get(
    "/api/v1/streams/{name}/tasks/next",
    response_model=TaskOut,
    responses={204: {"description": "no task is waiting"}, **errors(404, 409, 422)},
)
def next_task(
    name: StreamName,
    who: Annotate,
    service: ServiceDep,
    lease_seconds: Annotated[float | None, Query(gt=0, le=30 * 86400)] = None,
    held: bool = True,
    via: Annotated[
        Literal["label-studio"] | None,
        Query(description="label-studio: lease for Label Studio (its webhook answers it)"),
    ] = None,
) -> Any:
    """Lease the next task of the stream to the caller (the same one again on a reload).

    A lease lasts `lease_seconds` (the service's default when absent, at most its maximum);
    a token holds a limited number of leases at a time (409 beyond).
    """
    task = service.tasks.lease_next(name, actor(who, via).key, lease_seconds, held)
    if task is None:
        return Response(status_code=204)
    return task


@router.get("/api/v1/tasks/{task_id}", response_model=TaskOut, responses=errors(404, 422))
def get_task(task_id: TaskId, who: Answer, service: ServiceDep) -> dict[str, Any]:
    return service.tasks.view(task_id)


@router.get(
    "/api/v1/tasks/{task_id}/context",
    response_model=ContextOut,
    responses=errors(404, 409, 422),
)
def task_context(
    task_id: TaskId,
    who: Answer,
    service: ServiceDep,
    top: Annotated[int, Query(ge=1, le=50)] = 8,
) -> dict[str, Any]:
    """The part against the labelled pool: each feature's percentile and z-score."""
    return sample_context(service.streams, service.tasks.view(task_id), top)


@router.post(
    "/api/v1/tasks/{task_id}/label", response_model=TaskOut, responses=errors(404, 409, 413, 422)
)
def label(task_id: TaskId, body: LabelIn, who: Answer, service: ServiceDep) -> dict[str, Any]:
    """Label the task (idempotent by request_id); the model learns it after the undo window.

    A part that needs several answers learns the label its labellers agree on; a disputed
    part is settled by a reviewer's label (role review or admin)."""
    out = service.tasks.label(task_id, body.label, body.request_id, actor(who))
    service.metrics.labels.labels(out["stream"]).inc()
    return out


@router.post(
    "/api/v1/tasks/{task_id}/skip", response_model=TaskOut, responses=errors(404, 409, 413, 422)
)
def skip(task_id: TaskId, body: AnswerIn, who: Annotate, service: ServiceDep) -> dict[str, Any]:
    """Not now: the task goes back to the queue, behind the tasks never skipped."""
    return service.tasks.skip(task_id, actor(who))


@router.post(
    "/api/v1/tasks/{task_id}/release",
    response_model=TaskOut,
    responses=errors(404, 409, 413, 422),
)
def release(task_id: TaskId, body: AnswerIn, who: Answer, service: ServiceDep) -> dict[str, Any]:
    """Give the task's lease back: it is free for the next expert at once."""
    return service.tasks.release(task_id, actor(who))


@router.post(
    "/api/v1/tasks/{task_id}/cannot-tell",
    response_model=TaskOut,
    responses=errors(404, 409, 413, 422),
)
def cannot_tell(
    task_id: TaskId, body: AnswerIn, who: Answer, service: ServiceDep
) -> dict[str, Any]:
    """Close the task without a label; the label stays spent (a part that needs several
    answers: your abstention; it closes when as many experts abstained as it needs)."""
    return service.tasks.cannot_tell(task_id, body.request_id, actor(who))


@router.post(
    "/api/v1/tasks/{task_id}/undo", response_model=TaskOut, responses=errors(404, 409, 413, 422)
)
def undo(task_id: TaskId, body: AnswerIn, who: Answer, service: ServiceDep) -> dict[str, Any]:
    """Withdraw your label within the undo window: the task is open again, leased to you."""
    return service.tasks.undo(task_id, actor(who))


@router.get(
    "/api/v1/streams/{name}/reviews/next",
    response_model=TaskOut,
    responses={204: {"description": "no part waits for review"}, **errors(403, 404, 409, 422)},
)
def next_review(
    name: StreamName,
    who: Review,
    service: ServiceDep,
    lease_seconds: Annotated[float | None, Query(gt=0, le=30 * 86400)] = None,
) -> Any:
    """Lease the next disputed part (its labellers' answers differ) to the reviewer, with
    every answer and who gave it; settle it with POST /api/v1/tasks/{id}/label."""
    task = service.tasks.lease_review(name, actor(who), lease_seconds)
    if task is None:
        return Response(status_code=204)
    return task
