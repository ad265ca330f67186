"""Samples in, decisions out: one transaction per request, idempotent by sample id.

For each new sample the stream's model decides; the sample, its decision and, if it was
acquired, its task are committed together with the sample's event, and the reply is read
back from the committed rows. A sample id seen before returns the stored decision
(``duplicate: true``) and changes nothing.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, select

from cbeal.core import InvalidInputError
from cbeal.service import store
from cbeal.service.explain import explain
from cbeal.service.schema import samples, tasks
from cbeal.service.streams import Streams

__all__ = ["ingest"]


def ingest(streams: Streams, name: str, items: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Decide on `items` (sample id, raw row) of stream `name`; one reply per item, in order."""
    ids = [sid for sid, _ in items]
    while True:
        runtime = streams.get(name)
        with runtime.lock:
            if streams.owned().get(name) is not runtime:
                continue  # dropped while we waited: load it again
            known, committed = _ingest_locked(streams, name, runtime, items)
            break
    out = []
    for sid in ids:
        if sid in committed:
            out.append({**committed.pop(sid), "duplicate": False})
        else:  # seen before this request, or earlier in it
            row = known.get(sid) or next(r for r in out if r["sample_id"] == sid)
            out.append({**row, "duplicate": True})
    return out


# built once: every request runs them
_STORED = (
    select(
        samples.c.id,
        samples.c.sample_id,
        samples.c.seq,
        samples.c.decision,
        samples.c.model_version,
        tasks.c.id.label("task_id"),
    )
    .select_from(samples.outerjoin(tasks, tasks.c.sample_pk == samples.c.id))
    .where(
        samples.c.stream_id == bindparam("b_stream"),
        samples.c.sample_id.in_(bindparam("b_ids", expanding=True)),
    )
)
_NEW_SAMPLES = insert(samples).returning(
    samples.c.id, samples.c.sample_id, sort_by_parameter_order=True
)
_NEW_TASKS = insert(tasks).returning(tasks.c.id, tasks.c.sample_pk, sort_by_parameter_order=True)


def _ingest_locked(
    streams: Streams, name: str, runtime: Any, items: list[tuple[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Replies of the stored samples among `items`, and of the new ones, decided and committed.

    One connection and one transaction: the duplicate check, then the writes.
    """
    first = runtime.seq + 1
    touched = False  # once the model may have changed, a failure must drop it
    try:
        with streams.engine.begin() as conn:
            known = {
                r.sample_id: _reply(r, r.task_id)
                for r in conn.execute(
                    _STORED, {"b_stream": runtime.stream_id, "b_ids": list({s for s, _ in items})}
                )
            }
            fresh: dict[str, list[float | None]] = {}
            for sid, x in items:
                if sid not in known and sid not in fresh:
                    fresh[sid] = runtime.row(x)  # a bad row refuses the request, changes nothing
            if not fresh:
                return known, {}
            touched = True
            decisions = runtime.decide(list(fresh.values()), first)  # validates all rows first
            task_ids, pks = _write(conn, streams, runtime, first, fresh, decisions)
        runtime.seq = first + len(fresh) - 1
    except InvalidInputError:
        raise  # refused before any change (decide validates every row before it decides)
    except BaseException:
        if touched:
            streams.drop(name, runtime)  # memory is ahead of the database: rebuild on next use
        raise
    # replies only after the commit, with the ids the database gave the committed rows
    return known, {
        sid: _reply_from(sid, first + i, d, task_ids.get(pk))
        for i, (sid, d, pk) in enumerate(zip(fresh, decisions, pks, strict=True))
    }


def _write(
    conn: Any,
    streams: Streams,
    runtime: Any,
    first: int,
    fresh: dict[str, list[float | None]],
    decisions: list[dict[str, Any]],
) -> tuple[dict[int, int], list[int]]:
    """The events, samples and tasks of the new decisions; task ids by sample key, keys."""
    t = store.now()
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
    inserted = conn.execute(
        _NEW_SAMPLES,
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
    if not asked:
        return {}, pks
    return {r.sample_pk: r.id for r in conn.execute(_NEW_TASKS, asked)}, pks


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
