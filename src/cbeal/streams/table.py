"""A user's own table (CSV, TSV, text or Parquet) as a labelled stream, for ``cbeal run``.

:func:`load_table` reads the file (in its dialect: separator and decimal commas, see
:mod:`cbeal.streams.tablefile`), checks everything a run needs (the label, time and feature
columns exist, features are numeric, every row has a label, there are two classes) and
returns a :class:`Table` of numpy arrays in stream order: sorted by the time column
(stable, so ties keep file order) or else in file order. Labels keep their type (booleans,
whole numbers, text). Every problem raises an :class:`~cbeal.core.InvalidInputError` whose
message says what to do. Reading needs pandas (``pip install -e '.[pandas]'``, which
includes pyarrow for Parquet).
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.core.exceptions import InvalidInputError
from cbeal.streams.tablefile import (
    SUPPORTED_EXTENSIONS,
    Dialect,
    decimal_commas,
    read_file,
    read_frame,
)
from cbeal.streams.tablefile import names as _names
from cbeal.streams.tablefile import pandas as _pandas

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "Dialect",
    "Table",
    "load_table",
    "read_class_labels",
    "read_frame",
    "read_labels",
    "read_measurements",
]


@dataclass(frozen=True, eq=False)
class Table:
    """A validated table in stream order (rows sorted by time, or file order).

    Attributes
    ----------
    X : float64 array (n_rows, n_features)
        Raw feature values, NaN where missing (imputation is the preprocessing's job).
    y : array (n_rows,)
        Labels of the type the file holds: booleans, whole numbers (``1.0`` is 1) or text.
    row : int64 array (n_rows,)
        Position of each row in the file (0 = first data row, header not counted).
    time : array of str or None
        The time column's values as text, in stream order; None without a time column.
    time_value : array of datetime64 or float, or None
        The same times as sortable values (dates in UTC), for plotting against time.
    ids : dict of column name to array
        The id columns (``ids``) in stream order, as text; never features.
    feature_names, ignored
        The feature columns, and the non-numeric columns left out by default.
    label, time_column
        Column names; ``time_column`` is None when rows keep file order.
    path, sha256, shape
        The file, the SHA-256 of its bytes and its (rows, columns) shape.
    dialect : Dialect
        How the file was read: its separator and the columns read with decimal commas.
    """

    X: np.ndarray
    y: np.ndarray
    row: np.ndarray
    time: np.ndarray | None
    feature_names: tuple[str, ...]
    ignored: tuple[str, ...]
    label: str
    time_column: str | None
    path: Path
    sha256: str
    shape: tuple[int, int]
    time_value: np.ndarray | None = None
    ids: dict[str, np.ndarray] = field(default_factory=dict)
    dialect: Dialect = field(default_factory=Dialect)

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    def class_counts(self, stop: int | None = None) -> dict[str, int]:
        """Rows per class among the first `stop` rows (all rows by default)."""
        labels, counts = np.unique(self.y[:stop], return_counts=True)
        return {str(k): int(v) for k, v in zip(labels, counts, strict=True)}


MAX_CLASSES = 50  # more distinct labels than this is almost surely not a class label


def check_column(name: str, columns: Sequence[str], *, role: str, option: str) -> None:
    """Raise a helpful error unless `name` is one of `columns` (suggests the closest name).

    >>> check_column("tme", ["time", "y"], role="time", option="`time`")
    Traceback (most recent call last):
    ...
    cbeal.core.exceptions.InvalidInputError: no time column 'tme'; did you mean 'time'? ...
    """
    if name in columns:
        return
    close = difflib.get_close_matches(name, list(columns), n=1, cutoff=0.5)
    if not close:  # also catch case-only differences such as 'Label' vs 'label'
        close = [c for c in columns if c.lower() == name.lower()][:1]
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise InvalidInputError(
        f"no {role} column {name!r}; {hint}Pass one of the columns with {option}: {_names(columns)}"
    )


def _split_names(text: str | Sequence[str] | None) -> list[str]:
    if text is None:
        return []
    items = text.split(",") if isinstance(text, str) else list(text)
    return [s.strip() for s in items if s.strip()]


def _check_filled(col: Any, label: str) -> None:
    missing = np.flatnonzero(col.isna().to_numpy())
    if missing.size:
        rows = ", ".join(str(i) for i in missing[:8]) + (", …" if missing.size > 8 else "")
        raise InvalidInputError(
            f"{missing.size} of {len(col)} rows have no label in column {label!r} (rows "
            f"{rows}, counted from 0 after the header); drop those rows or fill in their "
            "labels before running."
        )


#: Measured values with at most this many distinct whole numbers look like classes (a 0/1
#: flag); more are counts, measured values too.
FEW_VALUES = 2

_CLASSIFY = "leave out `tolerance` to classify them"


def read_measurements(frame: Any, label: str) -> np.ndarray:
    """The label column `label` of `frame` as measured values (floats), for a regression run
    with a tolerance (``cbeal run``, the replay bridge).

    Every row must have a finite numeric value, with at least two distinct values; a column
    of True/False, of text or of a few whole numbers holds class labels, and is refused
    with an :class:`~cbeal.core.InvalidInputError` that says so.
    """
    pd = _pandas()
    col = frame[label]
    _check_filled(col, label)
    if pd.api.types.is_bool_dtype(col):
        raise InvalidInputError(
            f"the label column {label!r} holds True/False, class labels rather than measured "
            f"values; {_CLASSIFY}, or choose a column of measured values as `label`."
        )
    if not pd.api.types.is_numeric_dtype(col):
        raise InvalidInputError(
            f"the label column {label!r} is not numeric (e.g. {str(col.iloc[0])!r}); a "
            "`tolerance` needs measured values such as 0.051 (a decimal comma is read too). "
            f"Choose a numeric `label`, or {_CLASSIFY}."
        )
    y = np.asarray(col.to_numpy(dtype=np.float64))
    if not np.isfinite(y).all():
        raise InvalidInputError(
            f"the label column {label!r} holds infinite values; replace or drop those rows."
        )
    values = np.unique(y)
    if values.size < 2:
        raise InvalidInputError(
            f"the label column {label!r} holds one value only ({values[0]:g} in all {y.size} "
            "rows); there is nothing to predict. Check `label`."
        )
    if values.size <= FEW_VALUES and np.all(np.mod(values, 1) == 0):
        shown = ", ".join(f"{v:g}" for v in values)
        raise InvalidInputError(
            f"the label column {label!r} holds only the whole numbers {shown}: class labels "
            f"rather than measured values; {_CLASSIFY}, or choose a column of measured values "
            "as `label`."
        )
    return y


def read_labels(frame: Any, label: str) -> np.ndarray:
    """The label column `label` of `frame` as class labels, however many classes it holds.

    Labels keep their type: True/False stay booleans, text stays text, whole numbers become
    integers (0.0/1.0 are the classes 0 and 1). Every row must have a label; non-whole
    numbers are measured values and are refused with an
    :class:`~cbeal.core.InvalidInputError` that points to a `tolerance`. A stream that
    continues (the replay bridge's labels) needs no class count;
    :func:`read_class_labels` checks one for a new run.
    """
    pd = _pandas()
    col = frame[label]
    _check_filled(col, label)
    if pd.api.types.is_bool_dtype(col):  # True/False stay booleans: predictions compare equal
        return np.asarray(col.to_numpy(dtype=bool))
    if not pd.api.types.is_numeric_dtype(col):
        return np.array([str(v) for v in col], dtype=str)
    y = col.to_numpy()
    if y.dtype.kind == "f":
        if not np.all(np.mod(y, 1) == 0):
            raise InvalidInputError(
                f"the label column {label!r} holds non-whole numbers, measured values (e.g. "
                f"{float(y[np.mod(y, 1) != 0][0])!r}): give the `tolerance` of the "
                "measurement (the half-width of the band around the true value, in the "
                "column's unit, e.g. 0.05) to predict them by regression, or give class "
                "labels such as 0/1 or pass/fail to classify."
            )
        y = y.astype(np.int64)  # 0.0/1.0 labels are the classes 0 and 1
    return y


def read_class_labels(frame: Any, label: str) -> np.ndarray:
    """The label column `label` of `frame` as the class labels of a classification run:
    :func:`read_labels`, with two classes or more and at most :data:`MAX_CLASSES`."""
    y = read_labels(frame, label)
    if np.unique(y).size < 2:
        raise InvalidInputError(
            f"the label column {label!r} holds one class only ({y.tolist()[0]!r} in all {y.size} "
            "rows); active learning needs at least two classes. Check `label`."
        )
    n_classes = np.unique(y).size
    if n_classes > MAX_CLASSES:
        raise InvalidInputError(
            f"the label column {label!r} has {n_classes} distinct values; that looks like a "
            f"measurement or an id, not a class label (cbeal allows up to {MAX_CLASSES} "
            "classes). For a measurement give its `tolerance` (the band's half-width, in the "
            "column's unit) to predict it by regression; else check `label`, or bin the "
            "values into classes."
        )
    return y


def _time_order(frame: Any, time: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A stable sort order of the rows by the time column, its values as text and as keys."""
    pd = _pandas()
    col = frame[time]
    missing = int(col.isna().sum())
    if missing:
        raise InvalidInputError(
            f"{missing} rows have no value in the time column {time!r}; fill or drop them, "
            "or leave out `time` to keep the file order."
        )
    keys = _time_keys(pd, col, time)
    return np.argsort(keys, kind="stable"), col.astype(str).to_numpy(dtype=object), keys


def _time_keys(pd: Any, col: Any, time: str) -> np.ndarray:
    if pd.api.types.is_datetime64_any_dtype(col):
        return _datetime_keys(pd, col)
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        return np.asarray(col.to_numpy(dtype=np.float64))
    numbers = pd.to_numeric(col, errors="coerce")
    if not numbers.isna().any():
        return np.asarray(numbers.to_numpy(dtype=np.float64))
    return _datetime_keys(pd, _parse_dates(pd, col.astype(str).str.strip(), time))


def _parse_dates(pd: Any, text: Any, time: str) -> Any:
    """Dates in one format for the whole column; ISO 8601 first, as it is unambiguous.

    Other formats are read month-first and day-first; if both readings succeed and differ
    (every day ≤ 12), the order of the rows is ambiguous and we refuse rather than guess.
    """
    try:
        return pd.to_datetime(text, format="ISO8601", utc=True)
    except (ValueError, TypeError, OverflowError):
        pass
    readings = {}
    for dayfirst in (False, True):
        try:
            readings[dayfirst] = pd.to_datetime(text, dayfirst=dayfirst, utc=True)
        except (ValueError, TypeError, OverflowError):
            continue
    if not readings:
        raise InvalidInputError(
            f"cannot read the time column {time!r} as dates or numbers (first value "
            f"{text.iloc[0]!r}); use ISO dates such as 2024-05-01 13:45:00, numbers, or leave "
            "out `time` to keep the file order."
        )
    if len(readings) == 2 and not readings[False].equals(readings[True]):
        raise InvalidInputError(
            f"the dates in the time column {time!r} (e.g. {text.iloc[0]!r}) can be read "
            "day-first or month-first, which orders the rows differently; rewrite them as ISO "
            "dates (2024-05-01 13:45:00) or numbers."
        )
    return next(iter(readings.values()))


def _datetime_keys(pd: Any, col: Any) -> np.ndarray:
    if getattr(col.dt, "tz", None) is not None:  # compare instants, not wall-clock times
        col = col.dt.tz_convert("UTC").dt.tz_localize(None)
    return np.asarray(col.to_numpy(dtype="datetime64[ns]"))


def _feature_columns(
    frame: Any,
    *,
    label: str,
    time: str | None,
    ids: list[str],
    features: list[str],
    drop: list[str],
) -> tuple[list[str], list[str]]:
    """(features, ignored non-numeric columns); explicit `features` must all be numeric."""
    pd = _pandas()
    columns = list(frame.columns)
    reserved = {label, *ids} | ({time} if time else set())
    if features:
        for name in features:
            check_column(name, columns, role="feature", option="`features`")
        clash = [f for f in features if f in reserved]
        if clash:
            raise InvalidInputError(
                f"{clash[0]!r} is the label, time or an id column and cannot also be a "
                "feature; remove it from `features`."
            )
        chosen, ignored = features, []
    else:
        for name in drop:
            check_column(name, columns, role="`drop`", option="`drop`")
        chosen = [c for c in columns if c not in reserved and c not in drop]
        ignored = [c for c in chosen if not pd.api.types.is_numeric_dtype(frame[c])]
        chosen = [c for c in chosen if c not in ignored]
        if not chosen:
            raise InvalidInputError(
                f"no numeric feature columns left (non-numeric: {_names(ignored) or 'none'}); "
                "encode those columns as numbers, or choose columns with `features`."
            )
    bad = [c for c in chosen if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        raise InvalidInputError(
            f"feature columns {_names(bad)} are not numeric; encode them as numbers (e.g. "
            "L/M/H as 0/1/2) or leave them out with `features` or `drop`."
        )
    return chosen, ignored


def _features(frame: Any, names: list[str]) -> np.ndarray:
    X = frame[names].astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)
    inf = [n for j, n in enumerate(names) if np.isinf(X[:, j]).any()]
    if inf:
        raise InvalidInputError(
            f"feature columns {_names(inf)} hold infinite values; replace them by a number "
            "or leave them empty (missing values are imputed)."
        )
    return np.asarray(X)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_table(
    path: str | Path,
    *,
    label: str,
    time: str | None = None,
    features: str | Sequence[str] | None = None,
    drop: str | Sequence[str] | None = None,
    ids: str | Sequence[str] | None = None,
    measured: bool = False,
) -> Table:
    """Read and validate a labelled table; rows in time order (stable) or file order.

    Parameters
    ----------
    path
        A ``.csv``, ``.tsv``, ``.txt`` or ``.parquet``/``.pq`` file; the separator and
        decimal commas are detected (:attr:`Table.dialect`).
    label
        The label column; every row needs a label and there must be two classes or more.
    time
        Optional column to order the rows by: numbers or dates (parsed).
    features, drop
        Feature columns (comma-separated or a list), or columns to leave out; by default
        every numeric column except the label, time and id columns.
    ids
        Columns that identify a part or batch (comma-separated or a list): carried along
        in stream order (:attr:`Table.ids`), never used as features.
    measured
        The label column holds measured values (floats, for a regression run with a
        tolerance) rather than class labels; True/False, text and a few whole numbers
        are refused as class labels.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "line.csv"
    >>> _ = f.write_text("t,x,y\\n3,0.5,ok\\n1,0.1,ok\\n2,,fail\\n")
    >>> tab = load_table(f, label="y", time="t")
    >>> tab.row.tolist(), tab.y.tolist(), tab.feature_names
    ([1, 2, 0], ['ok', 'fail', 'ok'], ('x',))
    >>> tab.X[:, 0]
    array([0.1, nan, 0.5])
    """
    frame, dialect = read_file(path)
    columns = list(frame.columns)
    check_column(label, columns, role="label", option="`label`")
    if time is not None:
        check_column(time, columns, role="time", option="`time`")
        if time == label:
            raise InvalidInputError(
                f"{label!r} cannot be both the label and the time column; "
                "pass another column with `time`, or leave it out."
            )
    id_names = _split_names(ids)
    frame, commas = decimal_commas(frame, skip=[n for n in id_names if n in columns])
    for name in id_names:
        check_column(name, columns, role="id", option="`ids`")
        if name == label:
            raise InvalidInputError(
                f"{label!r} is the label column and cannot also be an id "
                "column; remove it from `ids`."
            )
    names, ignored = _feature_columns(
        frame,
        label=label,
        time=time,
        ids=id_names,
        features=_split_names(features),
        drop=_split_names(drop),
    )
    y = read_measurements(frame, label) if measured else read_class_labels(frame, label)
    X = _features(frame, names)
    row = np.arange(len(frame), dtype=np.int64)
    carried = {n: frame[n].astype(str).to_numpy(dtype=object) for n in id_names}
    stamps = values = None
    if time is not None:
        order, text, keys = _time_order(frame, time)
        X, y, row, stamps, values = X[order], y[order], row[order], text[order], keys[order]
        carried = {n: v[order] for n, v in carried.items()}
    return Table(
        X=X,
        y=y,
        row=row,
        time=stamps,
        feature_names=tuple(names),
        ignored=tuple(ignored),
        label=label,
        time_column=time,
        path=Path(path),
        sha256=_sha256(Path(path)),
        shape=(int(frame.shape[0]), int(frame.shape[1])),
        time_value=values,
        ids=carried,
        dialect=replace(dialect, decimal_comma=commas),
    )
