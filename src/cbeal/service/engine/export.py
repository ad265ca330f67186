"""Every sample of a stream with its decision and its label, as CSV or Parquet.

The CSV is safe to open in a spreadsheet: a text cell (a sample id, a label, a feature's
name…) that starts with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return or a line feed
gets a leading ``'``, so the spreadsheet shows it as text instead of running it as a formula
(OWASP's rule against CSV injection). A cell that is a plain number (``-1``, ``+2.5e3``)
stays as it is: it is no formula. Rows end in CRLF and a cell holding a quote, a comma, a
CR or an LF is quoted (RFC 4180), so a line break inside a sample id never starts a row.
Parquet keeps every value exactly (typed columns, no formulas).
"""

from __future__ import annotations

import io
import re
from typing import Any

from cbeal.service.store.answers import stream_answers
from cbeal.service.store.reads import export_query

__all__ = ["csv_bytes", "export_answers", "export_table", "spreadsheet_safe"]

_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def spreadsheet_safe(cell: Any) -> Any:
    """`cell` as a spreadsheet shows it as text: OWASP's escape of formula-like cells.

    >>> spreadsheet_safe("=HYPERLINK('http://x')"), spreadsheet_safe("@SUM(1)")
    ("'=HYPERLINK('http://x')", "'@SUM(1)")
    >>> [spreadsheet_safe(c) for c in ("+1+1", "-1", "part-7", 3.5, "\\n=1")]
    ["'+1+1", '-1', 'part-7', 3.5, "'\\n=1"]
    """
    if isinstance(cell, str) and cell.startswith(_FORMULA) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


_MEDIA = {"csv": "text/csv", "parquet": "application/vnd.apache.parquet"}


def export_table(service: Any, name: str, fmt: str, *, archive: bool = False) -> tuple[bytes, str]:
    """The stream's samples in arrival order: features, decision, task and label columns;
    with `archive`, the archived samples first (no task: they were never asked)."""
    import pandas as pd

    runtime = service.streams.get(name)
    features = runtime.config.features
    query = export_query(runtime.stream_id)
    with service.engine.connect() as conn:
        rows: list[Any] = [r._asdict() for r in conn.execute(query)]
    if archive and service.archiver is not None:
        rows = _archived(service.archiver.folder, name, query) + rows
        rows.sort(key=lambda r: r["seq"])
    frame = pd.DataFrame(rows)
    if frame.empty:
        frame = pd.DataFrame(columns=[c.name for c in query.selected_columns])
    values = (
        pd.DataFrame([list(r["x"]) for r in rows], columns=features, dtype=float)
        if rows
        else pd.DataFrame(columns=features, dtype=float)
    )
    frame["reason"] = [r["decision"].get("reason") for r in rows]
    frame = frame.drop(columns=["x", "decision"])
    for col in ("received_at", "labelled_at", "learned_at"):
        frame[col] = pd.to_datetime(frame[col], unit="s", utc=True)
    for col in ("prediction", "label"):  # labels may be text or numbers: keep them as text
        frame[col] = frame[col].map(lambda v: None if v is None or v != v else str(v))  # NaN
    out = pd.concat([frame.iloc[:, :3], values, frame.iloc[:, 3:]], axis=1)
    if fmt == "csv":
        return csv_bytes(out), _MEDIA[fmt]
    buf = io.BytesIO()
    out.to_parquet(buf, index=False)
    return buf.getvalue(), _MEDIA[fmt]


ANSWER_COLUMNS = [
    "task_id",
    "sample_id",
    "kind",
    "label",
    "by",
    "answered_at",
    "final_label",
    "status",
]


def export_answers(service: Any, name: str, fmt: str) -> tuple[bytes, str]:
    """One row per expert's answer (and per review's settlement), in the order given: the
    task, the part, the kind (label, cannot_tell, settle), the label, who, when, and the
    part's final label and state."""
    import pandas as pd

    runtime = service.streams.get(name)
    with service.engine.connect() as conn:
        rows = stream_answers(conn, runtime.stream_id)
    frame = pd.DataFrame(
        [
            [
                r.task_id,
                r.sample_id,
                r.kind,
                None if r.label is None else str(r.label),
                r.answered_by,
                r.answered_at,
                None if r.final_label is None else str(r.final_label),
                r.status,
            ]
            for r in rows
        ],
        columns=ANSWER_COLUMNS,
    )
    frame["answered_at"] = pd.to_datetime(frame["answered_at"], unit="s", utc=True)
    if fmt == "csv":
        return csv_bytes(frame), _MEDIA[fmt]
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue(), _MEDIA[fmt]


def _archived(folder: Any, name: str, query: Any) -> list[dict[str, Any]]:
    """The archived samples of stream `name` as export rows."""
    import orjson

    from cbeal.service.engine.archive import read_archive

    columns = [c.name for c in query.selected_columns]
    out = []
    for r in read_archive(folder, name).to_dict("records"):
        row = dict.fromkeys(columns)
        row.update(r, seq=int(r["seq"]), x=list(r["x"]))
        row["prediction"] = None if r["prediction"] is None else orjson.loads(r["prediction"])
        row["decision"] = orjson.loads(r["decision"])
        out.append(row)
    return out


def csv_bytes(frame: Any) -> bytes:
    """The service's one CSV writer: `frame` (a pandas DataFrame) as RFC 4180 CSV whose text
    cells and header are :func:`spreadsheet_safe`.

    >>> import pandas as pd
    >>> csv_bytes(pd.DataFrame({"id": ["\\r=1+1", "a,b"], "x": [1.5, None]}))
    b'id,x\\r\\n"\\'\\r=1+1",1.5\\r\\n"a,b",\\r\\n'
    """
    import pandas as pd

    out = frame.copy()
    out.columns = [spreadsheet_safe(str(c)) for c in out.columns]
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(spreadsheet_safe)
    buf = io.BytesIO()
    # CRLF ends a row (RFC 4180); the csv writer quotes any cell holding CR or LF with it
    out.to_csv(buf, index=False, lineterminator="\r\n")
    return buf.getvalue()
