"""Safe model files: JSON, numeric arrays and skops, never pickle (see :mod:`.archive`)."""

from cbeal.modelfile.archive import (
    FORMAT,
    FORMAT_VERSION,
    dumps_model,
    load_model,
    loads_model,
    save_model,
)
from cbeal.modelfile.limits import Limits

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Limits",
    "dumps_model",
    "load_model",
    "loads_model",
    "save_model",
]
