"""A Label Studio bridge, for plants that already label there.

* :func:`label_config` is the labelling configuration of a project for a stream (a table
  of the part, the question in words, one choice per class; for a regression stream a
  number box for the measured value, see :mod:`cbeal.bridges.labelstudio_number`).
* :func:`push` leases open cbeal tasks and imports them into the project, each with the
  model's prediction as a pre-annotation (score = its certainty, model version = cbeal's;
  a regression task carries its prediction and interval in its data instead). A task
  already in the project is not imported twice.
* Label Studio then calls cbeal's webhook (``POST /api/v1/integrations/label-studio/webhook``,
  set up in the project's webhook settings with an ``Authorization: Bearer <annotate
  token>`` header) for every annotation created, updated or deleted; cbeal takes the label
  (what each does: docs/SERVICE.md, "Label Studio").
* :func:`pull` reads the project's annotations through Label Studio's API and sends cbeal
  those it has not got, through the same webhook: the two paths together give each
  annotation to cbeal once (its request id is derived from the annotation's id and
  version), so pull catches up on what a webhook missed while cbeal was down.

Tested against a running Label Studio (tests/bridges/test_labelstudio_live.py) and against the
webhook bodies Label Studio 1.23 sends (recorded in tests/data/labelstudio_webhooks.json).
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from xml.sax.saxutils import quoteattr

from cbeal.bridges.labelstudio_number import number_config, number_data

__all__ = [
    "CONTROL",
    "WEBHOOK",
    "connect",
    "label_config",
    "project_tasks",
    "pull",
    "push",
    "task_payload",
]

CONTROL = "quality"
WEBHOOK = "/api/v1/integrations/label-studio/webhook"


def label_config(
    classes: list[Any] | None, *, tolerance: float | None = None, unit: str | None = None
) -> str:
    """The labelling configuration (XML) of a Label Studio project for a cbeal stream:
    one choice per class, or (no `classes`: a regression stream) a number box for the
    measured value, its `unit` and `tolerance` in the header.

    Examples
    --------
    >>> print(label_config(["ok", "fail"]))  # doctest: +ELLIPSIS
    <View>...<Choices name="quality" ...><Choice value="ok"/><Choice value="fail"/></Choices></View>
    >>> print(label_config(None, tolerance=2.5, unit="Nm"))  # doctest: +ELLIPSIS
    <View>...<Number name="quality" toName="part" required="true"/></View>
    """
    if classes is None:
        return number_config(CONTROL, tolerance=tolerance, unit=unit)
    choices = "".join(f"<Choice value={quoteattr(str(c))}/>" for c in classes)
    return (
        "<View>"
        '<Header value="Part $sample_id"/>'
        '<Text name="why" value="$question"/>'
        '<Table name="part" value="$part"/>'
        f'<Choices name="{CONTROL}" toName="part" choice="single" showInLine="true">'
        f"{choices}</Choices></View>"
    )


def task_payload(
    task: dict[str, Any], features: list[str], *, measured: bool = False
) -> dict[str, Any]:
    """A cbeal task (as ``GET /api/v1/tasks/{id}`` shows it) as a Label Studio task;
    `measured`: a regression stream's task (its prediction goes in the data)."""
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
    if measured:  # no pre-annotation: see cbeal.bridges.labelstudio_number
        payload["data"].update(number_data(decision))
    elif decision.get("y_pred") is not None:
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


def connect(url: str, token: str, *, timeout: float = 60.0, transport: Any = None) -> Any:
    """An ``httpx.Client`` of Label Studio at `url` with `token`, either kind Label Studio has.

    A personal access token (a JWT, Label Studio's default since 1.17) is a refresh token:
    the client exchanges it for a short-lived access token at ``/api/token/refresh/``, and
    again when Label Studio says the access token expired. A legacy token (enabled per
    organisation) is sent as ``Authorization: Token …``. `transport` is httpx's (a test's
    mock).
    """
    import httpx

    if token.count(".") != 2:  # a legacy token: 40 hex digits
        return httpx.Client(
            base_url=url,
            timeout=timeout,
            headers={"Authorization": f"Token {token}"},
            transport=transport,
        )
    refresh_url = url.rstrip("/") + "/api/token/refresh/"

    class PersonalToken(httpx.Auth):
        requires_response_body = True  # the refresh answer is read in the flow
        access = ""  # none yet

        def _refresh(self) -> Any:
            return httpx.Request("POST", refresh_url, json={"refresh": token})

        def _take(self, answer: Any) -> None:
            # refused: an access token Label Studio will refuse too, so the caller sees 401
            ok = answer.status_code == 200
            self.access = str(answer.json().get("access") or "refused") if ok else "refused"

        def auth_flow(self, request: Any) -> Any:
            if not self.access:
                self._take((yield self._refresh()))
            request.headers["Authorization"] = f"Bearer {self.access}"
            response = yield request
            if response.status_code == 401:  # expired: once more with a fresh access token
                self._take((yield self._refresh()))
                request.headers["Authorization"] = f"Bearer {self.access}"
                yield request

    return httpx.Client(base_url=url, timeout=timeout, auth=PersonalToken(), transport=transport)


def project_tasks(label_studio: Any, project: int, *, annotated: bool) -> list[dict[str, Any]]:
    """The project's tasks with their annotations (Label Studio's JSON export); only the
    annotated ones if `annotated`."""
    r = label_studio.get(
        f"/api/projects/{project}/export",
        params={"exportType": "JSON", "download_all_tasks": "false" if annotated else "true"},
    )
    r.raise_for_status()
    found: list[dict[str, Any]] = r.json()
    return found


def _cbeal_task(ls_task: dict[str, Any], stream: str) -> int | None:
    data = ls_task.get("data") or {}
    if data.get("cbeal_stream") != stream or type(data.get("cbeal_task")) is not int:
        return None
    return int(data["cbeal_task"])


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
    Studio. The tasks stay leased to Label Studio for `lease_seconds`; one that is in the
    project already (skipped there, its annotation deleted, its lease run out) is leased
    again but not imported twice. Returns the ids of the tasks imported.
    """
    config = cbeal.call("GET", f"/api/v1/streams/{stream}/config")
    there = {
        t
        for t in (
            _cbeal_task(x, stream) for x in project_tasks(label_studio, project, annotated=False)
        )
        if t
    }
    taken: list[dict[str, Any]] = []
    seen: set[int] = set()
    while len(taken) < limit:
        task = cbeal.call(
            "GET",
            f"/api/v1/streams/{stream}/tasks/next",
            # leased for Label Studio: its webhook (any token) answers these tasks
            params={"lease_seconds": lease_seconds, "held": "false", "via": "label-studio"},
        )
        if task is None or task["task_id"] in seen:
            break
        seen.add(task["task_id"])
        if task["task_id"] not in there:
            taken.append(task)
    if taken:
        r = label_studio.post(
            f"/api/projects/{project}/import",
            json=[
                task_payload(t, config["features"], measured=config.get("classes") is None)
                for t in taken
            ],
        )
        r.raise_for_status()
    return [t["task_id"] for t in taken]


def pull(
    cbeal: Any, label_studio: Any, *, stream: str, project: int, batch: int = 100
) -> dict[str, Any]:
    """Give cbeal the annotations of `project` (tasks of `stream`) it has not got yet.

    Each annotation goes through cbeal's webhook as Label Studio would send it, so what
    the webhook took already is ``unchanged``, a newer version of an annotation replaces
    the label while the undo window is open, and nothing is labelled twice. Skips
    (cancelled annotations) are not sent: a skip only says "not now", and sending it again
    at every pull would push the task further back each time.

    Returns ``{"outcomes": {outcome: count}, "refused": [result, ...]}``, where a refused
    result says why (a task labelled already by another answer, a label the model has
    learned and Label Studio changed since, a choice that is not a class, a number that
    is not a plausible measured value).
    """
    items: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for ls_task in project_tasks(label_studio, project, annotated=True):
        task_id = _cbeal_task(ls_task, stream)
        if task_id is None:
            continue
        slim = {"id": ls_task["id"], "data": {"cbeal_task": task_id}}
        for a in sorted(ls_task.get("annotations") or [], key=lambda a: a["id"]):
            if a.get("was_cancelled"):
                continue
            items.append(
                (
                    {
                        "id": a["id"],
                        "task": ls_task["id"],
                        "result": a.get("result") or [],
                        "updated_at": a.get("updated_at"),
                    },
                    slim,
                )
            )
    outcomes: Counter[str] = Counter()
    refused: list[dict[str, Any]] = []
    for start in range(0, len(items), batch):
        chunk = items[start : start + batch]
        event = {
            "action": "ANNOTATIONS_CREATED",
            "annotation": [a for a, _ in chunk],
            "task": list({t["id"]: t for _, t in chunk}.values()),
        }
        for result in cbeal.call("POST", WEBHOOK, json=event)["results"]:
            outcomes[result["outcome"]] += 1
            if result["outcome"] == "refused":
                refused.append(result)
    return {"outcomes": dict(outcomes), "refused": refused}
