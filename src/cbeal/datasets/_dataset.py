"""The :class:`Dataset` result type and the lazy pandas import used by ``as_frame=True``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Dataset", "import_pandas"]


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A bundled dataset as numpy arrays, in stream (time) order.

    Parameters
    ----------
    X : numpy.ndarray of float64, shape (n_samples, n_features)
        Features. Missing values stay NaN. Imputation is a job for the experiment's
        preprocessing.
    y : numpy.ndarray of int64, shape (n_samples,)
        Labels. For binary targets, 1 means failure/fault and 0 means pass.
    feature_names : tuple of str
        One name per column of ``X``.
    time : numpy.ndarray or None
        The time axis of the rows: ``datetime64[s]`` for SECOM, the ``int64`` UDI order for
        AI4I 2020, and ``None`` for Steel Plates, which has no time order.
    target_name : str
        The name of the label (the label column of ``frame``).
    description : str
        A short description with source, licence and the credit line.
    frame : pandas.DataFrame or None
        Features, label, time and any extra raw columns. Only set when loaded with
        ``as_frame=True``.
    class_names : tuple of str
        The meaning of each label value: ``class_names[k]`` names ``y == k``.

    Examples
    --------
    >>> from cbeal.datasets import load_steel_plates
    >>> ds = load_steel_plates()
    >>> ds
    Dataset('Steel Plates Faults', X=1941x27, y: 55/1941 positive 'Dirtiness', time=None)
    >>> ds.n_samples, ds.n_features, ds.class_names
    (1941, 27, ('rest', 'Dirtiness'))
    >>> print(ds.description.splitlines()[0])
    Steel Plates Faults (UCI dataset 198)
    """

    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    time: np.ndarray | None
    target_name: str
    description: str
    frame: pd.DataFrame | None = None
    class_names: tuple[str, ...] = ()

    @property
    def n_samples(self) -> int:
        """Number of rows."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    def __repr__(self) -> str:
        title = self.description.split("\n", 1)[0].split(" (UCI", 1)[0]
        shape = f"{self.n_samples}x{self.n_features}"
        if len(self.class_names) == 2:
            labels = f"{int(self.y.sum())}/{self.n_samples} positive {self.target_name!r}"
        else:
            labels = f"{len(self.class_names)} classes {self.target_name!r}"
        time = "None" if self.time is None else str(self.time.dtype)
        frame = "" if self.frame is None else ", frame"
        return f"Dataset({title!r}, X={shape}, y: {labels}, time={time}{frame})"


def import_pandas() -> Any:
    """Import pandas for ``as_frame=True``, or raise an :class:`ImportError` that says what to do.

    Examples
    --------
    >>> import_pandas().__name__
    'pandas'
    """
    try:
        import pandas
    except ImportError as exc:
        raise ImportError(
            "as_frame=True needs pandas, which is not installed. Install it with "
            "`pip install -e '.[pandas]'` (or `pip install pandas`), or load the dataset "
            "with as_frame=False to get numpy arrays."
        ) from exc
    return pandas


def description(title: str, summary: str, credit: str) -> str:
    """Build the ``Dataset.description`` text: title line, summary, licence and credit."""
    return (
        f"{title}\n\n{summary}\n\n"
        f"Licence: CC BY 4.0 (UCI Machine Learning Repository).\nCredit: {credit}"
    )
