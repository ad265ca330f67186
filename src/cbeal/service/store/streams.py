"""Stream rows: creating a stream (with its initial labelled set) and finding it again."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.exc import IntegrityError

from cbeal.service.store.events import now
from cbeal.service.store.tables import samples, streams, tasks

__all__ = [
    "StreamExists",
    "decisions_after",
    "insert_initial",
    "insert_stream",
    "stream_exists",
    "stream_name",
    "stream_names",
    "stream_row",
    "update_config",
]


class StreamExists(FileExistsError):
    """A stream of that name exists already (perhaps created a moment ago by another process)."""


def stream_exists(conn: Connection, name: str) -> bool:
    return conn.execute(select(streams.c.id).where(streams.c.name == name)).first() is not None


def insert_stream(
    conn: Connection, *, name: str, config: dict[str, Any], owner: str, lease_seconds: float
) -> int:
    """A new stream row, leased to `owner`; returns its id."""
    t = now()
    try:
        res = conn.execute(
            insert(streams).values(
                name=name,
                config=config,
                created_at=t,
                last_seq=0,
                owner=owner,
                lease_until=t + lease_seconds,
            )
        )
    except IntegrityError:  # the unique name: another process created it since the check
        raise StreamExists(f"a stream named {name!r} exists already") from None
    return int(res.inserted_primary_key[0])  # type: ignore[index]


def stream_row(conn: Connection, name: str) -> Any:
    return conn.execute(select(streams).where(streams.c.name == name)).first()


def update_config(conn: Connection, stream_id: int, changes: dict[str, Any]) -> None:
    """Set keys of the stream's stored configuration."""
    row = conn.execute(select(streams.c.config).where(streams.c.id == stream_id)).one()
    conn.execute(
        update(streams).where(streams.c.id == stream_id).values(config={**row.config, **changes})
    )


def stream_names(conn: Connection) -> list[str]:
    return [r.name for r in conn.execute(select(streams.c.name).order_by(streams.c.id))]


def stream_name(conn: Connection, stream_id: int) -> str | None:
    row = conn.execute(select(streams.c.name).where(streams.c.id == stream_id)).first()
    return None if row is None else str(row.name)


def decisions_after(conn: Connection, stream_id: int, seq: int) -> dict[str, Any]:
    """The stored decisions of the samples after event `seq`, by sample id (for a replay)."""
    return {
        r.sample_id: r
        for r in conn.execute(
            select(samples.c.sample_id, samples.c.decision_id, samples.c.acquire).where(
                samples.c.stream_id == stream_id, samples.c.seq > seq
            )
        )
    }


def insert_initial(
    conn: Connection,
    stream_id: int,
    ids: list[str],
    rows: list[list[float | None]],
    labels: list[Any],
    decision: dict[str, Any],
) -> None:
    """Keep D0 with the samples (seq 0, not asked, labelled): exports show it, and its ids
    sent again are duplicates."""
    t = now()
    made = conn.execute(
        insert(samples).returning(samples.c.id, sort_by_parameter_order=True),
        [
            {
                "stream_id": stream_id,
                "sample_id": sid,
                "seq": 0,
                "x": x,
                "received_at": t,
                "decision_id": None,
                "acquire": False,
                "p_acquire": 0.0,
                "prediction": None,
                "certainty": None,
                "model_version": 0,
                "decision": decision,
            }
            for sid, x in zip(ids, rows, strict=True)
        ],
    ).all()
    conn.execute(
        insert(tasks),
        [
            {
                "stream_id": stream_id,
                "sample_pk": r.id,
                "decision_id": "initial",
                "status": "initial",
                "created_at": t,
                "skips": 0,
                "label": y,
                "labelled_at": t,
            }
            for r, y in zip(made, labels, strict=True)
        ],
    )
