"""Safe model files: JSON, numeric arrays and skops, never pickle (see :mod:`.archive`)."""

from cbeal.modelfile.archive import (
    FORMAT,
    FORMAT_VERSION,
    dumps_model,
    load_model,
    loads_model,
    save_model,
)

__all__ = ["FORMAT", "FORMAT_VERSION", "dumps_model", "load_model", "loads_model", "save_model"]
