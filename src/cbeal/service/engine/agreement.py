"""Several experts on one part: how many answers a part needs, whether they agree, and the
stream's agreement report (Krippendorff's α, the parts, each labeller).

A part the model was less sure of than ``second_opinion_below`` needs
``max(2, labels_per_part)`` answers, the others ``labels_per_part``. Classes agree when
every answer is the same class; measured values when they all lie within the stream's
tolerance of each other, and the model learns their mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cbeal.service.engine.krippendorff import alpha
from cbeal.service.store.answers import stream_answers

__all__ = ["agree", "needed", "report", "same", "stream_agreement"]

#: at most this many points of α over time in the report
MAX_POINTS = 100


def needed(config: Any, certainty: float | None) -> int:
    """How many answers a part asked with `certainty` needs under the stream's settings.

    >>> from types import SimpleNamespace as S
    >>> cfg = S(labels_per_part=1, second_opinion_below=0.7)
    >>> needed(cfg, 0.55), needed(cfg, 0.9), needed(cfg, None)
    (2, 1, 1)
    """
    per_part = int(getattr(config, "labels_per_part", 1) or 1)
    below = getattr(config, "second_opinion_below", None)
    if below is not None and certainty is not None and certainty < below:
        return max(2, per_part)
    return per_part


def _regression(config: Any) -> bool:
    return getattr(config, "task", "classification") == "regression"


def agree(labels: Sequence[Any], config: Any) -> tuple[bool, Any]:
    """Whether `labels` (one per expert) agree, and the label the model learns if they do:
    the common class, or the mean of measured values within the tolerance of each other.

    >>> from types import SimpleNamespace as S
    >>> agree(["ok", "ok"], S(task="classification"))
    (True, 'ok')
    >>> agree([10.0, 10.4], S(task="regression", tolerance=0.5)), agree([10.0, 11.0],
    ...     S(task="regression", tolerance=0.5))[0]
    ((True, 10.2), False)
    """
    if _regression(config):
        values = [float(v) for v in labels]
        if max(values) - min(values) <= float(config.tolerance):
            return True, sum(values) / len(values)
        return False, None
    first = labels[0]
    if all(same(v, first, config) for v in labels):
        return True, first
    return False, None


def same(a: Any, b: Any, config: Any) -> bool:
    """One answer equals another: the same class (with its JSON type), or measured values
    within the tolerance."""
    if a is None or b is None:
        return False
    if _regression(config):
        return abs(float(a) - float(b)) <= float(config.tolerance)
    return type(a) is type(b) and a == b


def report(rows: Sequence[Any], config: Any) -> dict[str, Any]:
    """The agreement report from every answer of a stream (oldest first; see
    ``store.answers.stream_answers``)."""
    by_task: dict[int, list[Any]] = {}
    for r in rows:
        by_task.setdefault(int(r.task_id), []).append(r)
    level = "interval" if _regression(config) else "nominal"
    units: list[tuple[float, list[Any]]] = []  # (when the part's last answer came, labels)
    agreed = disputed = settled = 0
    for answers in by_task.values():
        labels = [a for a in answers if a.kind == "label"]
        status = answers[0].status
        reviewed = any(a.kind == "settle" for a in answers)
        if len(labels) >= 2:
            units.append((max(a.answered_at for a in labels), [a.label for a in labels]))
        if status == "disputed":
            disputed += 1
        elif reviewed and status in ("labelled", "learned"):
            settled += 1
        elif len(labels) >= 2 and status in ("labelled", "learned"):
            agreed += 1
    units.sort(key=lambda u: u[0])
    people: dict[str, list[int]] = {}
    for r in rows:
        if r.kind != "label":
            continue
        given = people.setdefault(r.answered_by, [0, 0, 0])  # answers, judged, right
        given[0] += 1
        if r.status in ("labelled", "learned") and r.final_label is not None:
            given[1] += 1
            given[2] += same(r.label, r.final_label, config)
    return {
        "alpha": _alpha(units, level),
        "level": level,
        "parts": {"agreed": agreed, "disputed": disputed, "settled": settled},
        "multiply_answered": len(units),
        "labellers": [
            {
                "name": name,
                "answers": n,
                "agreement": None if not judged else round(right / judged, 4),
            }
            for name, (n, judged, right) in sorted(people.items())
        ],
        "history": _history(units, level),
    }


def _alpha(units: list[tuple[float, list[Any]]], level: Any) -> float | None:
    found = alpha([u for _, u in units], level)
    return None if found is None else round(found, 4)


def _history(units: list[tuple[float, list[Any]]], level: Any) -> list[dict[str, Any]]:
    """α over time: after each of at most ``MAX_POINTS`` evenly spaced parts."""
    if len(units) < 2:
        return []
    step = max(1, len(units) // MAX_POINTS)
    ends = list(range(2, len(units) + 1, step))
    if ends[-1] != len(units):
        ends.append(len(units))
    return [
        {"t": units[end - 1][0], "parts": end, "alpha": _alpha(units[:end], level)} for end in ends
    ]


def stream_agreement(streams: Any, name: str) -> dict[str, Any]:
    """The agreement report of stream `name` (``GET /api/v1/streams/{name}/agreement``)."""
    runtime = streams.get(name)
    with streams.engine.connect() as conn:
        rows = stream_answers(conn, runtime.stream_id)
    return report(rows, runtime.config)
