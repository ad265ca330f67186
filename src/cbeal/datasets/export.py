"""Write a bundled dataset as a CSV a plant would export from its historian: one row per
part with an id, a time, the sensor values and the quality verdict."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cbeal.core.exceptions import ParameterError
from cbeal.datasets._dataset import import_pandas
from cbeal.datasets.ai4i import load_ai4i2020
from cbeal.datasets.secom import load_secom

__all__ = ["EXPORTABLE", "export_csv"]

EXPORTABLE = ("secom", "ai4i")


def export_csv(name: str, path: str | Path) -> Path:
    """Write dataset `name` (``secom`` or ``ai4i``) to `path`; columns ``part``, ``time``,
    the features, and ``quality`` (the class name, e.g. ``pass``/``fail``).

    >>> import tempfile, pandas as pd
    >>> with tempfile.TemporaryDirectory() as d:
    ...     frame = pd.read_csv(export_csv("ai4i", f"{d}/ai4i.csv"))
    >>> frame.shape, list(frame.columns[:3]), frame["quality"].value_counts().to_dict()
    ((10000, 9), ['part', 'time', 'Type'], {'no failure': 9661, 'failure': 339})
    """
    if name not in EXPORTABLE:
        raise ParameterError(f"unknown dataset {name!r}; choose one of {', '.join(EXPORTABLE)}")
    pd = import_pandas()
    data = load_secom() if name == "secom" else load_ai4i2020()
    frame = pd.DataFrame(data.X, columns=list(data.feature_names))
    frame.insert(0, "part", [f"{name}-{i:05d}" for i in range(data.n_samples)])
    time = data.time if data.time is not None else np.arange(data.n_samples)
    frame.insert(1, "time", time.astype(str))
    frame["quality"] = np.asarray(data.class_names, dtype=object)[data.y]
    path = Path(path)
    frame.to_csv(path, index=False)
    return path
