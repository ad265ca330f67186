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

__all__ = ["ingest", "sample_rows"]


def ingest(streams: Streams, name: str, items: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    """Decide on `items` (sample id, raw row) of stream `name`; one reply per item, in order."""
    while True:
        runtime = streams.get(name)
        with runtime.lock:
            if streams.owned().get(name) is not runtime:
                continue  # dropped while we waited: load it again
            ids = [sid for sid, _ in items]
            with streams.engine.connect() as conn:
                known = {r.sample_id for r in conn.execute(
                    select(samples.c.sample_id).where(samples.c.stream_id == runtime.stream_id,
                                                      samples.c.sample_id.in_(set(ids))))}
            fresh: dict[str, list[float | None]] = {}
            for sid, x in items:
                if sid not in known and sid not in fresh:
                    fresh[sid] = runtime.row(x)  # a bad row refuses the request, changes nothing
            if fresh:
                _decide_and_commit(streams, name, runtime, fresh)
            break
    rows = sample_rows(streams, runtime.stream_id, ids)
    out = []
    first: set[str] = set()
    for sid in ids:
        reply = dict(rows[sid])
        reply["duplicate"] = sid in known or sid in first
        first.add(sid)
        out.append(reply)
    return out


def _decide_and_commit(streams: Streams, name: str, runtime: Any,
                       fresh: dict[str, list[float | None]]) -> None:
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
            store.append_events(conn, runtime.stream_id, streams.owner, runtime.seq, [
                ("sample", {"sample_id": sid, "x": row, "batch": first,
                            "decision_id": d["id"], "acquire": d["acquire"]})
                for (sid, row), d in zip(fresh.items(), decisions, strict=True)
            ], streams.lease_seconds)
            inserted = conn.execute(insert(samples).returning(samples.c.id, samples.c.sample_id), [
                {"stream_id": runtime.stream_id, "sample_id": sid, "seq": first + i, "x": row,
                 "received_at": t, "decision_id": d["id"], "acquire": d["acquire"],
                 "p_acquire": d["p_acquire"], "prediction": d["y_pred"],
                 "certainty": d["certainty"], "model_version": d["learner_version"],
                 "decision": d}
                for i, ((sid, row), d) in enumerate(zip(fresh.items(), decisions, strict=True))
            ]).all()
            pk = {r.sample_id: r.id for r in inserted}
            asked = [{"stream_id": runtime.stream_id, "sample_pk": pk[sid],
                      "decision_id": d["id"], "status": "open", "created_at": t, "skips": 0}
                     for sid, d in zip(fresh, decisions, strict=True) if d["acquire"]]
            if asked:
                conn.execute(insert(tasks), asked)
        runtime.seq = first + len(fresh) - 1
    except BaseException:
        streams.drop(name, runtime)  # memory is ahead of the database: rebuild on next use
        raise


def sample_rows(streams: Streams, stream_id: int, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The committed samples `ids` with their decisions and tasks, as API replies."""
    query = (
        select(samples.c.sample_id, samples.c.seq, samples.c.decision, samples.c.model_version,
               tasks.c.id.label("task_id"))
        .select_from(samples.outerjoin(tasks, tasks.c.sample_pk == samples.c.id))
        .where(samples.c.stream_id == stream_id, samples.c.sample_id.in_(set(ids)))
    )
    with streams.engine.connect() as conn:
        rows = conn.execute(query).all()
    out = {}
    for r in rows:
        d = r.decision
        out[r.sample_id] = {
            "sample_id": r.sample_id, "acquire": d["acquire"], "task_id": r.task_id,
            "decision_id": d["id"], "prediction": d["y_pred"], "certainty": d["certainty"],
            "p_acquire": d["p_acquire"], "model_version": r.model_version,
            "reason": d["reason"], "explanation": explain(d), "seq": r.seq,
        }
    return out
