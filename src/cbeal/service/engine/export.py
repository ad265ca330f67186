"""Every sample of a stream with its decision and its label, as CSV or Parquet."""

from __future__ import annotations

import io
from typing import Any

from cbeal.service.store.reads import export_query

__all__ = ["export_table"]

_MEDIA = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet"}


def export_table(service: Any, name: str, fmt: str) -> tuple[bytes, str]:
    """The stream's samples in arrival order: features, decision, task and label columns."""
    import pandas as pd

    runtime = service.streams.get(name)
    features = runtime.config.features
    query = export_query(runtime.stream_id)
    with service.engine.connect() as conn:
        rows = conn.execute(query).all()
    frame = pd.DataFrame([r._asdict() for r in rows])
    if frame.empty:
        frame = pd.DataFrame(columns=[c.name for c in query.selected_columns])
    values = (
        pd.DataFrame([list(r.x) for r in rows], columns=features, dtype=float)
        if rows
        else pd.DataFrame(columns=features, dtype=float)
    )
    frame["reason"] = [r.decision.get("reason") for r in rows]
    frame = frame.drop(columns=["x", "decision"])
    for col in ("received_at", "labelled_at", "learned_at"):
        frame[col] = pd.to_datetime(frame[col], unit="s", utc=True)
    for col in ("prediction", "label"):  # labels may be text or numbers: keep them as text
        frame[col] = frame[col].map(lambda v: None if v is None else str(v))
    out = pd.concat([frame.iloc[:, :3], values, frame.iloc[:, 3:]], axis=1)
    buf = io.BytesIO()
    if fmt == "parquet":
        out.to_parquet(buf, index=False)
    else:
        out.to_csv(buf, index=False)
    return buf.getvalue(), _MEDIA[fmt]
