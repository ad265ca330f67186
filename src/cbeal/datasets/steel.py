"""UCI Steel Plates Faults: 27 geometric/luminosity features, 7 one-hot fault types."""

from __future__ import annotations

import io

import numpy as np

from cbeal.core.exceptions import InvalidInputError
from cbeal.datasets._dataset import Dataset, description, import_pandas
from cbeal.datasets._files import DataIntegrityError, cached, frozen, read_text

__all__ = ["FAULTS", "load_steel_plates"]

_N_ROWS = 1941
_N_FEATURES = 27
#: The seven fault types, in the order of the one-hot columns (spelled as in the data).
FAULTS: tuple[str, ...] = (
    "Pastry",
    "Z_Scratch",
    "K_Scatch",
    "Stains",
    "Dirtiness",
    "Bumps",
    "Other_Faults",
)
MULTICLASS = "multiclass"
MULTICLASS_TARGET = "fault"

CREDIT = (
    "Buscema, M., Terzi, S., & Tastle, W. (2010). Steel Plates Faults [Dataset]. UCI Machine "
    "Learning Repository. https://doi.org/10.24432/C5J88N"
)
_DESCRIPTION = description(
    "Steel Plates Faults (UCI dataset 198)",
    "Steel plate surface faults (Semeion Research Center, Rome): 1941 plates, 27 features, "
    "7 fault types (Pastry 158, Z_Scratch 190, K_Scatch 391, Stains 72, Dirtiness 55, "
    "Bumps 402, Other_Faults 673). No time order: the file order (or a seeded permutation) "
    "is an arbitrary stream order.",
    CREDIT,
)


@cached
def _raw() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Parse and verify the files once; return read-only ``(X, onehot, feature_names)``."""
    names = tuple(read_text("Faults27x7_var").split())
    table = np.loadtxt(
        io.StringIO(read_text("Faults.NNA.gz")), dtype=np.float64, delimiter="\t", ndmin=2
    )
    onehot = table[:, _N_FEATURES:].astype(np.int64)
    if (
        table.shape != (_N_ROWS, _N_FEATURES + len(FAULTS))
        or names[_N_FEATURES:] != FAULTS
        or not np.all(onehot.sum(axis=1) == 1)
    ):
        raise DataIntegrityError(  # pragma: no cover - the hash check already guards this
            f"Steel Plates files have an unexpected layout: shape {table.shape}, names {names}"
        )
    X = np.ascontiguousarray(table[:, :_N_FEATURES])
    frozen(X, onehot)
    return X, onehot, names[:_N_FEATURES]


def load_steel_plates(*, target: str = "Dirtiness", as_frame: bool = False) -> Dataset:
    """Load UCI Steel Plates Faults as a one-vs-rest binary task or as 7 classes.

    Each of the 1941 plates has 27 features: geometry, luminosity, steel type, thickness
    and shape indices. It also has exactly one of seven fault types. By default the task is
    ``Dirtiness`` against the rest (55 positives, 2.8%). The dataset has no timestamps, so
    the rows come in file order, which is arbitrary. Shuffle them with a seed if the stream
    order matters. Note that ``TypeOfSteel_A300`` and ``TypeOfSteel_A400`` are
    complementary.

    Parameters
    ----------
    target : str, default "Dirtiness"
        One fault type from :data:`FAULTS` (``"Pastry"``, ``"Z_Scratch"``, ``"K_Scatch"``,
        ``"Stains"``, ``"Dirtiness"``, ``"Bumps"``, ``"Other_Faults"``) for a binary target
        with 1 = that fault. Or ``"multiclass"`` for ``y`` in 0 … 6, indexing
        :data:`FAULTS`. In that case ``target_name`` is ``"fault"``.
    as_frame : bool, default False
        Also build ``Dataset.frame``, a :class:`pandas.DataFrame` with the 27 features and
        the 7 one-hot fault columns, plus a ``"fault"`` code column when
        ``target="multiclass"``. This needs pandas.

    Returns
    -------
    Dataset
        ``X`` float64 of shape (1941, 27), ``y`` int64, and ``time=None``. ``class_names``
        is ``("rest", target)``, or :data:`FAULTS` for multiclass. The arrays are fresh
        copies.

    Raises
    ------
    InvalidInputError
        If ``target`` is not a fault type and not ``"multiclass"``.
    DataIntegrityError
        If a bundled file is missing or corrupted.
    ImportError
        If ``as_frame=True`` and pandas is not installed.

    Notes
    -----
    Buscema, M., Terzi, S., & Tastle, W. (2010). Steel Plates Faults [Dataset]. UCI Machine
    Learning Repository. https://doi.org/10.24432/C5J88N. Licence: CC BY 4.0.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.datasets import load_steel_plates
    >>> ds = load_steel_plates()
    >>> ds.X.shape, ds.target_name, np.bincount(ds.y)
    ((1941, 27), 'Dirtiness', array([1886,   55]))
    >>> int(load_steel_plates(target="Stains").y.sum())
    72
    >>> mc = load_steel_plates(target="multiclass")
    >>> dict(zip(mc.class_names, np.bincount(mc.y).tolist()))
    {'Pastry': 158, 'Z_Scratch': 190, 'K_Scatch': 391, 'Stains': 72, 'Dirtiness': 55,
     'Bumps': 402, 'Other_Faults': 673}
    >>> load_steel_plates(as_frame=True).frame.shape
    (1941, 34)
    """
    if target == MULTICLASS:
        target_name, class_names = MULTICLASS_TARGET, FAULTS
    elif target in FAULTS:
        target_name, class_names = target, ("rest", target)
    else:
        raise InvalidInputError(
            f"target={target!r} is not a Steel Plates fault type. Use one of {list(FAULTS)} "
            f"for a one-vs-rest binary label, or {MULTICLASS!r} for the 7-class label."
        )
    X_raw, onehot_raw, feature_names = _raw()
    X, onehot = X_raw.copy(), onehot_raw.copy()
    if target == MULTICLASS:
        y = np.argmax(onehot, axis=1).astype(np.int64)
    else:
        y = onehot[:, FAULTS.index(target)].copy()
    frame = None
    if as_frame:
        pd = import_pandas()
        frame = pd.DataFrame(X, columns=list(feature_names), copy=True)
        extra = {name: onehot[:, k] for k, name in enumerate(FAULTS)}
        if target == MULTICLASS:
            extra[MULTICLASS_TARGET] = y.copy()
        frame = frame.assign(**extra)
    return Dataset(
        X=X,
        y=y,
        feature_names=feature_names,
        time=None,
        target_name=target_name,
        description=_DESCRIPTION,
        frame=frame,
        class_names=class_names,
    )
