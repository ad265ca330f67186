"""The model file: a zip archive of JSON, numeric arrays and skops blobs, written atomically.

Layout (format 1)::

    cbeal.json        manifest (format, format_version, cbeal version, class) and state tree
    arrays.npz        every numeric array, read back with allow_pickle=False
    blobs/<key>.skops scikit-learn objects (estimator, fitted learner, preprocessor)

Nothing in the file is ever executed: there is no pickle anywhere in it, and classes are
looked up by name among cbeal's own and the ones the caller trusts.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from cbeal._version import __version__
from cbeal.core.exceptions import ModelFileError
from cbeal.modelfile.codec import Decoder, Encoder, resolve_trusted

__all__ = ["FORMAT", "FORMAT_VERSION", "dumps_model", "load_model", "loads_model", "save_model"]

FORMAT = "cbeal-model"
FORMAT_VERSION = 1
T = TypeVar("T")
_PICKLE_MAGIC = (b"\x80",)  # every pickle of protocol 2 or later starts with PROTO


def dumps_model(model: Any) -> bytes:
    """The model file's bytes (for a database column or a network reply)."""
    enc = Encoder()
    state = enc.encode(model)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "cbeal_version": __version__,
        "class": f"{type(model).__module__}.{type(model).__qualname__}",
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "state": state,
    }
    arrays = io.BytesIO()
    np.savez(arrays, **enc.arrays)  # type: ignore[arg-type]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("cbeal.json", json.dumps(manifest, allow_nan=False))
        zf.writestr("arrays.npz", arrays.getvalue())
        for key, data in enc.blobs.items():
            zf.writestr(f"blobs/{key}.skops", data)
    return out.getvalue()


def save_model(model: Any, path: str | os.PathLike[str]) -> Path:
    """Write `model` to `path` atomically: a temporary file in the same folder, then a rename."""
    path = Path(path)
    data = dumps_model(model)  # any encoding error happens before a file exists
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_model(path: str | os.PathLike[str], cls: type[T], *, trusted: Any = ()) -> T:
    """Read a model file written by :func:`save_model` (see :func:`loads_model`)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ModelFileError(f"no model file at {path}") from None
    except IsADirectoryError:
        raise ModelFileError(f"{path} is a folder, not a model file") from None
    return loads_model(data, cls, trusted=trusted, name=str(path))


def loads_model(data: bytes, cls: type[T], *, trusted: Any = (), name: str = "data") -> T:
    """The model a model file's bytes hold; a typed error for a foreign, unsafe or newer file."""
    if data[:1] in _PICKLE_MAGIC:
        raise ModelFileError(
            f"{name} is a pickle (a model file of cbeal 0.1 or a foreign file). cbeal no longer "
            "reads pickles, because loading one can run any code it contains. Re-create the "
            "model, or load it with cbeal 0.1 in a trusted environment and save it again."
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
            if "cbeal.json" not in names:
                raise ModelFileError(f"{name} is not a cbeal model file (no cbeal.json inside)")
            manifest = json.loads(zf.read("cbeal.json"))
            _check_manifest(manifest, name)
            arrays = np.load(io.BytesIO(zf.read("arrays.npz")), allow_pickle=False)
            blobs = {n[len("blobs/") : -len(".skops")]: zf.read(n)
                     for n in names if n.startswith("blobs/") and n.endswith(".skops")}  # fmt: skip
            classes, skops_names = resolve_trusted(trusted)
            decoder = Decoder(arrays, blobs, classes, _skops_trusted(skops_names))
            model = decoder.decode(manifest["state"])
    except ModelFileError:
        raise
    except (zipfile.BadZipFile, EOFError, KeyError, ValueError, TypeError, OSError) as exc:
        raise ModelFileError(
            f"{name} is not a readable cbeal model file (corrupt or truncated: "
            f"{type(exc).__name__}: {exc}); save the model again."
        ) from None
    if not isinstance(model, cls):
        raise ModelFileError(f"{name} holds a {type(model).__name__}, not a {cls.__name__}")
    return model


def _check_manifest(manifest: Any, name: str) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelFileError(f"{name} is not a cbeal model file")
    version = manifest.get("format_version")
    if not isinstance(version, int):
        raise ModelFileError(f"{name} has no valid format version; it is not a cbeal model file")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{name} was written by cbeal {manifest.get('cbeal_version', '?')} in model-file "
            f"format {version}; this cbeal ({__version__}) reads formats up to "
            f"{FORMAT_VERSION}. Upgrade cbeal to load it."
        )


def _skops_trusted(extra: list[str]) -> list[str]:
    """Types skops may build besides its defaults: cbeal's scikit-learn estimators, and
    the ones the caller trusts."""
    return [
        "cbeal.learners.platt_svm.PlattSVC",
        "cbeal.learners.regression.BootstrapRegressor",
        "numpy.dtype",
        *extra,
    ]
