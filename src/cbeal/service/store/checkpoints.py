"""Model checkpoints: the stream's model saved after an event, the last two kept."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, and_, delete, insert, select

from cbeal.service.store.events import now
from cbeal.service.store.tables import checkpoints

__all__ = ["latest_checkpoint", "save_checkpoint"]


def latest_checkpoint(conn: Connection, stream_id: int) -> Any:
    return conn.execute(
        select(checkpoints.c.seq, checkpoints.c.model)
        .where(checkpoints.c.stream_id == stream_id)
        .order_by(checkpoints.c.seq.desc())
        .limit(1)
    ).first()


def save_checkpoint(conn: Connection, stream_id: int, seq: int, data: bytes) -> None:
    """Store the model after event `seq`; keep this one and the one before it."""
    conn.execute(
        insert(checkpoints).values(stream_id=stream_id, seq=seq, model=data, created_at=now())
    )
    keep = conn.execute(
        select(checkpoints.c.seq)
        .where(checkpoints.c.stream_id == stream_id)
        .order_by(checkpoints.c.seq.desc())
        .limit(2)
    ).all()
    oldest_kept = min(r.seq for r in keep)
    conn.execute(
        delete(checkpoints).where(
            and_(checkpoints.c.stream_id == stream_id, checkpoints.c.seq < oldest_kept)
        )
    )
