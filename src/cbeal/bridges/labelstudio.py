"""A Label Studio bridge, for plants that already label there.

``push`` leases open cbeal tasks and imports them into a Label Studio project as tasks
with a table view of the part, the model's prediction as a pre-annotation (score = its
certainty, model version = cbeal's) and the question in words. Label Studio then calls
cbeal's webhook endpoint (``POST /api/v1/integrations/label-studio/webhook``, set up in the
project's webhook settings with an ``Authorization: Bearer <annotate token>`` header) when
an annotation is created or updated, and cbeal takes the label: a created annotation
labels the task, an updated one replaces the label while the undo window is open, a
cancelled (skipped) one skips the task.

Tested against the request and response shapes of Label Studio's documented API
(``/api/projects/{id}/import``, webhook events ``ANNOTATION_CREATED`` /
``ANNOTATION_UPDATED``), not against a running Label Studio: it is a large Django
application that does not fit the project's CI time.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import quoteattr

__all__ = ["CONTROL", "label_config", "push", "task_payload"]

CONTROL = "quality"


def label_config(classes: list[Any]) -> str:
    """The labelling configuration (XML) of a Label Studio project for a cbeal stream."""
    choices = "".join(f"<Choice value={quoteattr(str(c))}/>" for c in classes)
    return (
        "<View>"
        '<Header value="Part $sample_id"/>'
        '<Text name="why" value="$question"/>'
        '<Table name="part" value="$part"/>'
        f'<Choices name="{CONTROL}" toName="part" choice="single" showInLine="true">'
        f"{choices}</Choices></View>"
    )


def task_payload(task: dict[str, Any], features: list[str]) -> dict[str, Any]:
    """A cbeal task (as ``GET /api/v1/tasks/{id}`` shows it) as a Label Studio task."""
    part = {
        name: ("missing" if v is None else v) for name, v in zip(features, task["x"], strict=True)
    }
    payload: dict[str, Any] = {
        "data": {
            "part": part,
            "sample_id": task["sample_id"],
            "question": task["explanation"],
            "cbeal_task": task["task_id"],
            "cbeal_stream": task["stream"],
        }
    }
    decision = task["decision"]
    if decision.get("y_pred") is not None:
        payload["predictions"] = [
            {
                "model_version": f"cbeal v{decision['learner_version']}",
                "score": decision["certainty"],
                "result": [
                    {
                        "from_name": CONTROL,
                        "to_name": "part",
                        "type": "choices",
                        "value": {"choices": [str(decision["y_pred"])]},
                    }
                ],
            }
        ]
    return payload


def push(
    cbeal: Any,
    label_studio: Any,
    *,
    stream: str,
    project: int,
    limit: int = 100,
    lease_seconds: float = 7 * 86400,
) -> list[int]:
    """Lease up to `limit` open tasks of `stream` and import them into `project`.

    `cbeal` is a :class:`~cbeal.bridges.Client` of the service, `label_studio` an
    ``httpx.Client`` whose base URL and ``Authorization: Token …`` header reach Label
    Studio. The tasks stay leased to Label Studio for `lease_seconds`. Returns their ids.
    """
    config = cbeal.call("GET", f"/api/v1/streams/{stream}/config")
    taken: list[dict[str, Any]] = []
    seen: set[int] = set()
    while len(taken) < limit:
        task = cbeal.call(
            "GET",
            f"/api/v1/streams/{stream}/tasks/next",
            params={"lease_seconds": lease_seconds, "held": "false"},
        )
        if task is None or task["task_id"] in seen:
            break
        seen.add(task["task_id"])
        taken.append(task)
    if taken:
        r = label_studio.post(
            f"/api/projects/{project}/import",
            json=[task_payload(t, config["features"]) for t in taken],
        )
        r.raise_for_status()
    return [t["task_id"] for t in taken]
