"""Samples in, decisions out: one transaction per request, idempotent by sample id.

For each new sample the stream's model decides; the sample, its decision and, if it was
acquired, its task are committed together with the sample's event, and the reply is built
from the decisions and the ids the committed inserts returned. A sample id seen before
returns the stored decision (``duplicate: true``) and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cbeal.core import InvalidInputError
from cbeal.service.engine.explain import explain
from cbeal.service.engine.runtime import Runtime
from cbeal.service.engine.streams import Streams
from cbeal.service.store import events
from cbeal.service.store import samples as stored
from cbeal.service.store.db import Connection

__all__ = ["ingest"]


Guard = Callable[[Connection], None] | None


def ingest(
    streams: Streams, name: str, items: list[tuple[str, Any]], *, guard: Guard = None
) -> list[dict[str, Any]]:
    """Decide on `items` (sample id, raw row) of stream `name`; one reply per item, in order.

    `guard(conn)` runs first in the transaction and may refuse the request by raising (the
    route re-checks its token there: a revocation committed before is seen).
    """
    ids = [sid for sid, _ in items]
    while True:
        runtime = streams.get(name)
        with runtime.lock:
            if streams.owned().get(name) is not runtime:
                continue  # dropped while we waited: load it again
            known, committed = _ingest_locked(streams, name, runtime, items, guard)
            break
    out = []
    for sid in ids:
        if sid in committed:
            out.append({**committed.pop(sid), "duplicate": False})
        else:  # seen before this request, or earlier in it
            row = known.get(sid) or next(r for r in out if r["sample_id"] == sid)
            out.append({**row, "duplicate": True})
    return out


def _ingest_locked(
    streams: Streams, name: str, runtime: Runtime, items: list[tuple[str, Any]], guard: Guard
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Replies of the stored samples among `items`, and of the new ones, decided and committed.

    One connection and one transaction: the guard, the duplicate check, then the writes.
    """
    first = runtime.seq + 1
    touched = False  # once the model may have changed, a failure must drop it
    try:
        with streams.engine.begin() as conn:
            if guard is not None:
                guard(conn)
            ids = list({s for s, _ in items})
            known = {
                r.sample_id: _reply(r.sample_id, r.seq, r.decision, r.task_id)
                for r in stored.stored_samples(conn, runtime.stream_id, ids)
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
        sid: _reply(sid, first + i, d, task_ids.get(pk))
        for i, (sid, d, pk) in enumerate(zip(fresh, decisions, pks, strict=True))
    }


def _write(
    conn: Connection,
    streams: Streams,
    runtime: Runtime,
    first: int,
    fresh: dict[str, list[float | None]],
    decisions: list[dict[str, Any]],
) -> tuple[dict[int, int], list[int]]:
    """The events, samples and tasks of the new decisions; task ids by sample key, keys."""
    t = events.now()
    events.append_events(
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
    items = [(sid, row, d) for (sid, row), d in zip(fresh.items(), decisions, strict=True)]
    pks = stored.insert_samples(conn, runtime.stream_id, first, t, items)
    asked = [(pk, d["id"]) for pk, d in zip(pks, decisions, strict=True) if d["acquire"]]
    return stored.insert_tasks(conn, runtime.stream_id, t, asked), pks


def _reply(sample_id: str, seq: int, d: dict[str, Any], task_id: int | None) -> dict[str, Any]:
    """One sample's reply: its decision as ``Decision.to_dict()`` gives it, the task that
    asks for its label (if any), and the decision in words; ``acquire`` is repeated at the
    top for the line's machines."""
    return {
        "sample_id": sample_id,
        "seq": seq,
        "acquire": d["acquire"],
        "task_id": task_id,
        "explanation": explain(d),
        "decision": d,
    }
