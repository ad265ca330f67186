"""UCI AI4I 2020 Predictive Maintenance: synthetic milling-machine data with failure labels."""

from __future__ import annotations

import numpy as np

from cbeal.datasets._dataset import Dataset, description, import_pandas
from cbeal.datasets._files import DataIntegrityError, cached, frozen, read_text

__all__ = ["load_ai4i2020"]

_N_ROWS = 10_000
_HEADER = (
    "UDI",
    "Product ID",
    "Type",
    "Air temperature [K]",
    "Process temperature [K]",
    "Rotational speed [rpm]",
    "Torque [Nm]",
    "Tool wear [min]",
    "Machine failure",
    "TWF",
    "HDF",
    "PWF",
    "OSF",
    "RNF",
)
#: Ordinal code of the product quality variant (low, medium, high).
TYPE_CODES: dict[str, int] = {"L": 0, "M": 1, "H": 2}
FEATURE_NAMES: tuple[str, ...] = _HEADER[2:8]
TARGET = "Machine failure"
TIME = "UDI"
#: The failure-mode flags. They are not features, because they leak the label.
FAILURE_MODES: tuple[str, ...] = _HEADER[9:]

CREDIT = (
    "Matzka, S. (2020). AI4I 2020 Predictive Maintenance Dataset [Dataset]. UCI Machine "
    "Learning Repository. https://doi.org/10.24432/C5HS5C"
)
_DESCRIPTION = description(
    "AI4I 2020 Predictive Maintenance (UCI dataset 601)",
    "Synthetic data modelled on real predictive maintenance: 10,000 milling operations, "
    "6 features (product Type as ordinal L=0, M=1, H=2, and 5 process measurements), label "
    "1 = machine failure (339 rows, 3.39%). No timestamps: the UDI order is a simulated time "
    "axis. The failure-mode flags TWF, HDF, PWF, OSF, RNF leak the label and are not "
    "features (they are in the frame only).",
    CREDIT,
)


@cached
def _raw() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Parse and verify the CSV once.

    Returns read-only ``(X, y, udi, product_id, modes)`` in UDI order.
    """
    lines = read_text("ai4i2020.csv.gz", encoding="utf-8-sig").splitlines()
    header = tuple(lines[0].split(","))
    cells = np.array([line.split(",") for line in lines[1:]], dtype=str)
    if header != _HEADER or cells.shape != (_N_ROWS, len(_HEADER)):
        raise DataIntegrityError(  # pragma: no cover - the hash check already guards this
            f"ai4i2020.csv has an unexpected layout: header {header}, shape {cells.shape}"
        )
    udi = cells[:, 0].astype(np.int64)
    order = np.argsort(udi, kind="stable")  # the file is already in UDI order 1..10000
    cells, udi = cells[order], udi[order]
    X = np.empty((_N_ROWS, len(FEATURE_NAMES)), dtype=np.float64)
    types = cells[:, 2]
    X[:, 0] = np.select([types == k for k in TYPE_CODES], list(TYPE_CODES.values()), np.nan)
    X[:, 1:] = cells[:, 3:8].astype(np.float64)
    y = cells[:, 8].astype(np.int64)
    modes = cells[:, 9:].astype(np.int64)
    product_id = cells[:, 1].astype(object)
    frozen(X, y, udi, product_id, modes)
    return X, y, udi, product_id, modes


def load_ai4i2020(*, as_frame: bool = False) -> Dataset:
    """Load UCI AI4I 2020 Predictive Maintenance in UDI (simulated time) order.

    The dataset is synthetic and reflects real predictive maintenance data from a milling
    process. There are 10,000 rows and no timestamps. The row number ``UDI`` serves as a
    simulated time axis: tool wear rises and resets at tool changes, and the failure rate
    drifts. The features are the product quality variant ``Type``, encoded as the ordinal
    L=0, M=1, H=2, and the five process measurements. The label is ``Machine failure``.
    The failure-mode flags ``TWF``, ``HDF``, ``PWF``, ``OSF`` and ``RNF`` leak the label,
    so they are **not** features. They are only in ``frame``, next to ``Product ID``.

    Parameters
    ----------
    as_frame : bool, default False
        Also build ``Dataset.frame``, a :class:`pandas.DataFrame` with the 6 features (as in
        ``X``), ``Machine failure``, ``UDI``, ``Product ID`` and the 5 failure-mode flags.
        This needs pandas.

    Returns
    -------
    Dataset
        ``X`` float64 of shape (10000, 6), ``y`` int64 with 1 = failure (339) and 0 = no
        failure (9661), and ``time`` as the int64 UDI (1 … 10000). The arrays are fresh
        copies.

    Raises
    ------
    DataIntegrityError
        If the bundled file is missing or corrupted.
    ImportError
        If ``as_frame=True`` and pandas is not installed.

    Notes
    -----
    Matzka, S. (2020). AI4I 2020 Predictive Maintenance Dataset [Dataset]. UCI Machine
    Learning Repository. https://doi.org/10.24432/C5HS5C. Licence: CC BY 4.0. The data has
    known quirks: 9 failures have no failure-mode flag, and 18 rows have a flag (mostly RNF)
    but no failure.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.datasets import load_ai4i2020
    >>> ds = load_ai4i2020()
    >>> ds.X.shape
    (10000, 6)
    >>> np.bincount(ds.y)
    array([9661,  339])
    >>> ds.feature_names
    ('Type', 'Air temperature [K]', 'Process temperature [K]', 'Rotational speed [rpm]',
     'Torque [Nm]', 'Tool wear [min]')
    >>> np.bincount(ds.X[:, 0].astype(int))  # L, M, H
    array([6000, 2997, 1003])
    >>> ds.time[:3], ds.time.dtype
    (array([1, 2, 3]), dtype('int64'))
    >>> list(load_ai4i2020(as_frame=True).frame.columns[6:])
    ['Machine failure', 'UDI', 'Product ID', 'TWF', 'HDF', 'PWF', 'OSF', 'RNF']
    """
    X, y, udi, product_id, modes = (a.copy() for a in _raw())
    frame = None
    if as_frame:
        pd = import_pandas()
        frame = pd.DataFrame(X, columns=list(FEATURE_NAMES), copy=True)
        extra = {TARGET: y.copy(), TIME: udi.copy(), "Product ID": product_id}
        extra.update({name: modes[:, k] for k, name in enumerate(FAILURE_MODES)})
        frame = frame.assign(**extra)
    return Dataset(
        X=X,
        y=y,
        feature_names=FEATURE_NAMES,
        time=udi,
        target_name=TARGET,
        description=_DESCRIPTION,
        frame=frame,
        class_names=("no failure", "failure"),
    )
