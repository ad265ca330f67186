"""Reading a user's table file: CSV, TSV, text or Parquet, in the dialect it was written in.

Spreadsheets set to a European locale save CSV files with a semicolon between fields and a
comma as the decimal mark (``1,25;3,7;ok``). :func:`read_file` finds the separator from the
header line, and :func:`decimal_commas` turns columns whose every value is a number written
with a decimal comma into numbers; a column that mixes decimal commas and points (such as
thousands separators, ``1.234,5``) is refused with a message rather than read wrongly or
dropped as text. Reading needs pandas (``pip install -e '.[pandas]'``, with pyarrow for
Parquet).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cbeal.core.exceptions import InvalidInputError

__all__ = ["SUPPORTED_EXTENSIONS", "Dialect", "decimal_commas", "read_file", "read_frame"]

SUPPORTED_EXTENSIONS = (".csv", ".tsv", ".txt", ".parquet", ".pq")
SEPARATORS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}

_DECIMAL_COMMA = re.compile(r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?")
_WHOLE = re.compile(r"[+-]?\d+")
_NUMBERISH = re.compile(r"[+-]?[\d.,]*\d[\d.,]*(?:[eE][+-]?\d+)?")


@dataclass(frozen=True)
class Dialect:
    """How a file was read: its field separator (None for Parquet) and the columns whose
    decimal commas were read as decimal points.

    >>> Dialect(separator=";", decimal_comma=("x", "y")).describe()
    'semicolon-separated, decimal commas in 2 columns (x, y)'
    >>> Dialect(separator=",").describe() is None
    True
    """

    separator: str | None = None
    decimal_comma: tuple[str, ...] = ()

    def describe(self) -> str | None:
        """In words, when the file is not a plain comma-separated CSV or Parquet."""
        parts = []
        if self.separator not in (None, ","):
            parts.append(f"{SEPARATORS.get(self.separator, repr(self.separator))}-separated")
        if self.decimal_comma:
            n = len(self.decimal_comma)
            shown = ", ".join(self.decimal_comma[:10]) + (", …" if n > 10 else "")
            parts.append(f"decimal commas in {n} column{'s' if n > 1 else ''} ({shown})")
        return ", ".join(parts) or None

    def to_dict(self) -> dict[str, Any]:
        return {"separator": self.separator, "decimal_comma_columns": list(self.decimal_comma)}


def pandas() -> Any:
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "reading a data file needs pandas (and pyarrow for Parquet): pip install -e '.[pandas]'"
        ) from exc
    return pd


def names(columns: Sequence[str]) -> str:
    """Column names for a message (the first 30)."""
    shown = ", ".join(repr(c) for c in list(columns)[:30])
    return shown + (f", … ({len(columns)} in all)" if len(columns) > 30 else "")


def read_frame(path: str | Path) -> Any:
    """The table of a CSV/TSV/TXT/Parquet file as a pandas DataFrame with string column
    names (see :func:`read_file`)."""
    return read_file(path)[0]


def read_file(path: str | Path) -> tuple[Any, Dialect]:
    """Read a table file; returns the DataFrame (string column names) and its dialect.

    Raises :class:`~cbeal.core.InvalidInputError` for a missing file, an unsupported
    extension, an unreadable or empty file, a repeated column name or a file without data
    rows. Decimal commas are left as text here: see :func:`decimal_commas`.
    """
    path = Path(path)
    ext = path.suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise InvalidInputError(
            f"cannot read {path.name!r}: unsupported file type {ext or '(none)'!r}; save the "
            f"table as one of {', '.join(SUPPORTED_EXTENSIONS)} (CSV with a header row, or "
            "Parquet)"
        )
    if not path.is_file():
        where = f"; files here: {_nearby(path)}" if path.parent.is_dir() else ""
        raise InvalidInputError(f"data file {str(path)!r} not found{where}. Check the path.")
    sep = None if ext in (".parquet", ".pq") else _separator(path, ext)
    frame = _read(path, ext, sep)
    frame.columns = [str(c) for c in frame.columns]
    renamed = [
        c
        for c in frame.columns
        if "." in c and c.rsplit(".", 1)[0] in frame.columns and c.rsplit(".", 1)[1].isdigit()
    ]
    if renamed:  # pandas renames a repeated header "x" to "x.1"
        raise InvalidInputError(
            f"{path.name} repeats the column name(s) "
            f"{names([c.rsplit('.', 1)[0] for c in renamed])}; give every column a unique "
            "name in the header row."
        )
    if frame.shape[0] == 0:
        raise InvalidInputError(
            f"{path.name} has no data rows (columns: {names(frame.columns)}); it needs a "
            "header row followed by one row per sample."
        )
    return frame, Dialect(separator=sep)


def _read(path: Path, ext: str, sep: str | None) -> Any:
    pd = pandas()
    try:
        if sep is None:
            return pd.read_parquet(path)
        return pd.read_csv(path, sep=sep, encoding="utf-8-sig")
    except pd.errors.EmptyDataError as exc:
        raise InvalidInputError(
            f"{path.name} is empty; it needs a header row followed by one row per sample."
        ) from exc
    except (ValueError, OSError) as exc:  # parser errors, bad Parquet, bad encoding
        raise InvalidInputError(
            f"could not read {path.name}: {exc}. Check that it is a valid "
            f"{ext.lstrip('.').upper()} file (UTF-8 text with a header row, or Parquet)."
        ) from exc


def _separator(path: Path, ext: str) -> str:
    """Tab for .tsv. For .csv a comma, else a semicolon or a tab when the header has those
    only; for .txt the separator the header line holds most of (a comma if none).

    The header decides because it holds no numbers: the data rows of a semicolon file
    with decimal commas hold more commas than semicolons.
    """
    if ext == ".tsv":
        return "\t"
    with path.open(encoding="utf-8-sig", errors="replace") as fh:
        header = fh.readline()
    if ext == ".txt":
        counts = {s: header.count(s) for s in SEPARATORS}
        best = max(counts, key=lambda s: counts[s])
        return best if counts[best] else ","
    return next((s for s in (",", ";", "\t") if s in header), ",")


def decimal_commas(frame: Any, *, skip: Iterable[str] = ()) -> tuple[Any, tuple[str, ...]]:
    """Read numbers written with a decimal comma (``-0,25``) in the text columns of `frame`.

    A text column is converted when every value is a number and at least one has a decimal
    comma (whole numbers may be among them); a column that also holds a number with a point
    (``1.234,5``, ``0.5``) is refused with a message, since the point could be a decimal
    mark or a thousands separator. Columns in `skip` (ids) stay text. Returns the frame
    (converted columns replaced) and the names of the converted columns.

    >>> import pandas as pd
    >>> frame, cols = decimal_commas(pd.DataFrame({"a": ["1,5", "-0,25", "3"], "y": ["ok"] * 3}))
    >>> frame["a"].tolist(), cols
    ([1.5, -0.25, 3.0], ('a',))
    """
    pd = pandas()
    done: dict[str, Any] = {}
    skipped = set(skip)
    for name in frame.columns:
        col = frame[name]
        if name in skipped or pd.api.types.is_numeric_dtype(col) or col.isna().all():
            continue
        text = col.dropna().astype(str).str.strip()
        if not (text.str.contains(",", regex=False).any() and text.str.fullmatch(_NUMBERISH).all()):
            continue
        if not (text.str.fullmatch(_DECIMAL_COMMA) | text.str.fullmatch(_WHOLE)).all():
            example = text[text.str.contains(".", regex=False)].iloc[0]
            raise InvalidInputError(
                f"column {name!r} holds numbers with a decimal comma and numbers with a point "
                f"(e.g. {example!r}); cbeal does not guess whether a point is a decimal mark or "
                "a thousands separator. Save the file with one decimal mark and no thousands "
                "separators (e.g. 1234,5 or 1234.5)."
            )
        points = col.astype("string").str.strip().str.replace(",", ".", regex=False)
        done[name] = pd.to_numeric(points).astype("float64")
    if not done:
        return frame, ()
    return frame.assign(**done), tuple(done)


def _nearby(path: Path) -> str:
    found = sorted(
        p.name for p in path.parent.iterdir() if p.suffix.lower() in SUPPORTED_EXTENSIONS
    )
    return ", ".join(found[:10]) or "no data files"
