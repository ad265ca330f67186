"""Public manufacturing-quality datasets bundled with cbeal (UCI, CC BY 4.0).

The data files are part of the package, so nothing is downloaded. Each loader returns a
:class:`Dataset` of numpy arrays in stream (time) order, with NaN kept as NaN. The first
load in a process reads the packaged files, checks the SHA-256 of their content and caches
the parsed arrays. Every call returns fresh copies. Pass ``as_frame=True`` to also get a
pandas DataFrame (``pip install -e '.[pandas]'``).

============================  ============  =========  =============================
loader                        shape         positives  time axis
============================  ============  =========  =============================
:func:`load_secom`            1567 x 590    104 fail   timestamps (datetime64[s])
:func:`load_ai4i2020`         10000 x 6     339        UDI (simulated, int64)
:func:`load_steel_plates`     1941 x 27     55 (*)     none (arbitrary file order)
============================  ============  =========  =============================

(*) With the default ``target="Dirtiness"``.

Credits: McCann & Johnston (2008), SECOM, https://doi.org/10.24432/C54305. Matzka (2020),
AI4I 2020 Predictive Maintenance Dataset, https://doi.org/10.24432/C5HS5C. Buscema, Terzi &
Tastle (2010), Steel Plates Faults, https://doi.org/10.24432/C5J88N. All three are from the
UCI Machine Learning Repository. See ``cbeal/datasets/data/PROVENANCE.md``.

Examples
--------
>>> from cbeal.datasets import load_ai4i2020, load_secom, load_steel_plates
>>> [load().X.shape for load in (load_secom, load_ai4i2020, load_steel_plates)]
[(1567, 590), (10000, 6), (1941, 27)]
"""

from cbeal.datasets._dataset import Dataset
from cbeal.datasets._files import DataIntegrityError, clear_cache
from cbeal.datasets.ai4i import load_ai4i2020
from cbeal.datasets.secom import load_secom
from cbeal.datasets.steel import FAULTS, load_steel_plates

__all__ = [
    "FAULTS",
    "DataIntegrityError",
    "Dataset",
    "clear_cache",
    "load_ai4i2020",
    "load_secom",
    "load_steel_plates",
]
