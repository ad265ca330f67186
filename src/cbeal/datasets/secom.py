"""UCI SECOM: semiconductor manufacturing runs with pass/fail labels and timestamps."""

from __future__ import annotations

import io

import numpy as np

from cbeal.datasets._dataset import Dataset, description, import_pandas
from cbeal.datasets._files import DataIntegrityError, cached, frozen, read_text

__all__ = ["load_secom"]

_N_ROWS = 1567
_N_FEATURES = 590
FEATURE_NAMES: tuple[str, ...] = tuple(f"f{j:03d}" for j in range(_N_FEATURES))
TARGET = "fail"
TIME = "time"

CREDIT = (
    "McCann, M. & Johnston, A. (2008). SECOM [Dataset]. UCI Machine Learning Repository. "
    "https://doi.org/10.24432/C54305"
)
_DESCRIPTION = description(
    "SECOM (UCI dataset 179)",
    "Semiconductor manufacturing: 1567 production runs, 590 sensor features (41,951 missing "
    "cells kept as NaN; 116 features are constant), label 1 = fail (104 runs, 6.64%). Rows "
    "are in timestamp order (2008-07-19 to 2008-10-17; 33 ties keep file order).",
    CREDIT,
)


def _parse_time(stamp: str) -> str:
    """``'19/07/2008 11:55:00'`` -> ``'2008-07-19T11:55:00'`` (ISO 8601 for numpy)."""
    date, clock = stamp.split(" ")
    day, month, year = date.split("/")
    return f"{year}-{month}-{day}T{clock}"


@cached
def _raw() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parse and verify both SECOM files once; return read-only ``(X, y, time)`` in time order."""
    X = np.loadtxt(io.StringIO(read_text("secom.data.gz")), dtype=np.float64, ndmin=2)
    lines = read_text("secom_labels.data.gz").splitlines()
    if X.shape != (_N_ROWS, _N_FEATURES) or len(lines) != _N_ROWS:
        raise DataIntegrityError(  # pragma: no cover - the hash check already guards this
            f"SECOM files have an unexpected shape {X.shape} / {len(lines)} label lines"
        )
    labels = np.empty(_N_ROWS, dtype=np.int64)
    stamps = []
    for i, line in enumerate(lines):
        label, stamp = line.split(" ", 1)
        labels[i] = int(label)
        stamps.append(_parse_time(stamp.strip('"')))
    time = np.array(stamps, dtype="datetime64[s]")
    y = (labels == 1).astype(np.int64)  # -1 = pass -> 0, 1 = fail -> 1
    order = np.argsort(time, kind="stable")  # the file is already non-decreasing
    if not np.array_equal(order, np.arange(_N_ROWS)):  # pragma: no cover
        X, y, time = X[order], y[order], time[order]
    X = np.ascontiguousarray(X)
    frozen(X, y, time)
    return X, y, time


def load_secom(*, as_frame: bool = False) -> Dataset:
    """Load UCI SECOM (semiconductor manufacturing) in time order.

    SECOM records 1567 runs of a semiconductor production line. Each run has 590 sensor
    features and a pass/fail label from in-line testing. Every run carries a timestamp, so
    the rows make a real stream. They are returned sorted by timestamp with a stable sort.
    The file is already non-decreasing, so this is its own order, and the 33 tied
    timestamps keep their file order. Missing values stay NaN. Nothing is imputed or
    dropped, and the 116 constant features are kept.

    Parameters
    ----------
    as_frame : bool, default False
        Also build ``Dataset.frame``, a :class:`pandas.DataFrame` with the 590 features, the
        label ``"fail"`` and the timestamp ``"time"``. This needs pandas.

    Returns
    -------
    Dataset
        ``X`` float64 of shape (1567, 590), ``y`` int64 with 1 = fail (104) and 0 = pass
        (1463), ``feature_names`` ``f000`` … ``f589``, and ``time`` as ``datetime64[s]``.
        The arrays are fresh copies.

    Raises
    ------
    DataIntegrityError
        If a bundled file is missing or corrupted.
    ImportError
        If ``as_frame=True`` and pandas is not installed.

    Notes
    -----
    McCann, M. & Johnston, A. (2008). SECOM [Dataset]. UCI Machine Learning Repository.
    https://doi.org/10.24432/C54305. Licence: CC BY 4.0.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.datasets import load_secom
    >>> ds = load_secom()
    >>> ds.X.shape, ds.X.dtype
    ((1567, 590), dtype('float64'))
    >>> np.bincount(ds.y)
    array([1463,  104])
    >>> int(np.isnan(ds.X).sum())
    41951
    >>> ds.feature_names[:3], ds.target_name
    (('f000', 'f001', 'f002'), 'fail')
    >>> ds.time[[0, -1]]
    array(['2008-07-19T11:55:00', '2008-10-17T06:07:00'], dtype='datetime64[s]')
    >>> bool(np.all(np.diff(ds.time) >= np.timedelta64(0, "s")))
    True
    >>> load_secom(as_frame=True).frame.shape
    (1567, 592)
    """
    X, y, time = (a.copy() for a in _raw())
    frame = None
    if as_frame:
        pd = import_pandas()
        frame = pd.DataFrame(X, columns=list(FEATURE_NAMES), copy=True)
        frame = frame.assign(**{TARGET: y.copy(), TIME: time.copy()})
    return Dataset(
        X=X,
        y=y,
        feature_names=FEATURE_NAMES,
        time=time,
        target_name=TARGET,
        description=_DESCRIPTION,
        frame=frame,
        class_names=("pass", "fail"),
    )
