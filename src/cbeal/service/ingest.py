"""Samples in, decisions out: one transaction per request, idempotent by sample id.

For each new sample the stream's model decides; the sample, its decision and, if it was
acquired, its task are committed together with the sample's event, and the reply is read
back from the committed rows. A sample id seen before returns the stored decision
(``duplicate: true``) and changes nothing.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select

from cbeal.core import InvalidInputError
from cbeal.service import store
from cbeal.service.explain import explain
from cbeal.service.schema import samples, tasks
from cbeal.service.streams import Streams

__all__ = ["ingest"]


def ingest(streams: Streams, name: str, items: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Decide on `items` (sample id, raw row) of stream `name`; one reply per item, in order."""
    while True:
        runtime = streams.get(name)
        with runtime.lock:
            if streams.owned().get(name) is not runtime:
                continue  # dropped while we waited: load it again
            ids = [sid for sid, _ in items]
            known = _stored(streams, runtime.stream_id, set(ids))
            fresh: dict[str, list[float | None]] = {}
            for sid, x in items:
                if sid not in known and sid not in fresh:
                    fresh[sid] = runtime.row(x)  # a bad row refuses the request, changes nothing
            committed = _decide_and_commit(streams, name, runtime, fresh) if fresh else {}
            break
    out = []
    for sid in ids:
        if sid in committed:
            out.append({**committed.pop(sid), "duplicate": False})
        else:  # seen before this request, or earlier in it
            row = known.get(sid) or next(r for r in out if r["sample_id"] == sid)
            out.append({**row, "duplicate": True})
    return out


_COLUMNS = (
    samples.c.id,
    samples.c.sample_id,
    samples.c.seq,
    samples.c.decision,
    samples.c.model_version,
)


def _stored(streams: Streams, stream_id: int, ids: set[str]) -> dict[str, dict[str, Any]]:
    """Replies for the sample ids among `ids` that are stored already."""
    query = (
        select(*_COLUMNS, tasks.c.id.label("task_id"))
        .select_from(samples.outerjoin(tasks, tasks.c.sample_pk == samples.c.id))
        .where(samples.c.stream_id == stream_id, samples.c.sample_id.in_(ids))
    )
    with streams.engine.connect() as conn:
        return {r.sample_id: _reply(r, r.task_id) for r in conn.execute(query)}


def _decide_and_commit(
    streams: Streams, name: str, runtime: Any, fresh: dict[str, list[float | None]]
) -> dict[str, dict[str, Any]]:
    first = runtime.seq + 1
    try:
        decisions = runtime.decide(list(fresh.values()), first)  # validates all rows first
    except InvalidInputError:
        raise  # refused before any change
    except BaseException:
        streams.drop(name, runtime)
        raise
    try:
        t = store.now()
        with streams.engine.begin() as conn:
            store.append_events(
                conn,
                runtime.stream_id,
                streams.owner,
                runtime.seq,
                [
                    (
                        "sample",
                        {
                            "sample_id": sid,
                            "x": row,
                            "batch": first,
                            "decision_id": d["id"],
                            "acquire": d["acquire"],
                        },
                    )
                    for (sid, row), d in zip(fresh.items(), decisions, strict=True)
                ],
                streams.lease_seconds,
            )
            # the database assigns the ids; the rest of each reply is what was inserted
            new_rows = insert(samples).returning(
                samples.c.id, samples.c.sample_id, sort_by_parameter_order=True
            )
            inserted = conn.execute(
                new_rows,
                [
                    {
                        "stream_id": runtime.stream_id,
                        "sample_id": sid,
                        "seq": first + i,
                        "x": row,
                        "received_at": t,
                        "decision_id": d["id"],
                        "acquire": d["acquire"],
                        "p_acquire": d["p_acquire"],
                        "prediction": d["y_pred"],
                        "certainty": d["certainty"],
                        "model_version": d["learner_version"],
                        "decision": d,
                    }
                    for i, ((sid, row), d) in enumerate(zip(fresh.items(), decisions, strict=True))
                ],
            ).all()
            pks = [r.id for r in inserted]
            asked = [
                {
                    "stream_id": runtime.stream_id,
                    "sample_pk": pk,
                    "decision_id": d["id"],
                    "status": "open",
                    "created_at": t,
                    "skips": 0,
                }
                for pk, d in zip(pks, decisions, strict=True)
                if d["acquire"]
            ]
            task_ids: dict[int, int] = {}
            if asked:
                made = conn.execute(
                    insert(tasks).returning(
                        tasks.c.id, tasks.c.sample_pk, sort_by_parameter_order=True
                    ),
                    asked,
                )
                task_ids = {r.sample_pk: r.id for r in made}
        runtime.seq = first + len(fresh) - 1
    except BaseException:
        streams.drop(name, runtime)  # memory is ahead of the database: rebuild on next use
        raise
    # replies only after the commit, with the ids the database gave the committed rows
    return {
        sid: _reply_from(sid, first + i, d, task_ids.get(pk))
        for i, (sid, d, pk) in enumerate(zip(fresh, decisions, pks, strict=True))
    }


def _reply(r: Any, task_id: int | None) -> dict[str, Any]:
    return _reply_from(r.sample_id, r.seq, r.decision, task_id)


def _reply_from(sample_id: str, seq: int, d: dict[str, Any], task_id: int | None) -> dict[str, Any]:
    return {
        "sample_id": sample_id,
        "acquire": d["acquire"],
        "task_id": task_id,
        "decision_id": d["id"],
        "prediction": d["y_pred"],
        "certainty": d["certainty"],
        "p_acquire": d["p_acquire"],
        "model_version": d["learner_version"],
        "reason": d["reason"],
        "explanation": explain(d),
        "seq": seq,
    }
