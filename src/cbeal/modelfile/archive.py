"""The model file: a zip archive of JSON, numeric arrays and skops blobs, written atomically.

Layout (format 1)::

    cbeal.json        manifest (format, format_version, cbeal version, class) and state tree
    arrays.npz        every numeric array, read back with allow_pickle=False
    blobs/<key>.skops scikit-learn objects (estimator, fitted learner, preprocessor)
    (zip comment)     the seal: SHA-256 of every byte before it (see :mod:`.seal`)

Nothing in the file is ever executed: there is no pickle anywhere in it, and classes are
looked up by name among cbeal's own and the ones the caller trusts. Loading is bounded by
:class:`~cbeal.modelfile.Limits` (sizes, compression ratios, nesting, arrays, seeds), each
checked before it is spent, and every failure is a :class:`~cbeal.ModelFileError`.
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
from cbeal.modelfile.limits import Limits, Meter, as_limits, check_depth, refused
from cbeal.modelfile.parts import check_skops, open_zip, read_npz, read_part
from cbeal.modelfile.seal import PLACEHOLDER, seal, unseal

__all__ = ["FORMAT", "FORMAT_VERSION", "dumps_model", "load_model", "loads_model", "save_model"]

FORMAT = "cbeal-model"
FORMAT_VERSION = 1
T = TypeVar("T")
_CHUNK = 1 << 20  # bytes read from a model file at a time
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
        zf.comment = PLACEHOLDER
    return seal(out.getvalue())


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


def load_model(
    path: str | os.PathLike[str], cls: type[T], *, trusted: Any = (), limits: Any = None
) -> T:
    """Read a model file written by :func:`save_model` (see :func:`loads_model`)."""
    bounds = as_limits(limits)
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > bounds.max_bytes:
                raise refused(bounds, f"{path} has {size:,} bytes", "max_bytes")
            data = _read_at_most(fh, bounds.max_bytes)
        if len(data) > bounds.max_bytes:  # it grew while it was read
            raise refused(bounds, f"{path} has over {bounds.max_bytes:,} bytes", "max_bytes")
    except MemoryError:
        raise ModelFileError(
            f"{path} needs more memory than is available to read it; free memory or check "
            "where the file comes from"
        ) from None
    except FileNotFoundError:
        raise ModelFileError(f"no model file at {path}") from None
    except IsADirectoryError:
        raise ModelFileError(f"{path} is a folder, not a model file") from None
    except OSError as exc:
        raise ModelFileError(f"cannot read the model file {path}: {exc}") from None
    return loads_model(data, cls, trusted=trusted, name=str(path), limits=bounds)


def _read_at_most(fh: Any, limit: int) -> bytes:
    """The file's bytes, up to one past `limit`, read in chunks: a buffer as large as the
    file, never one as large as the limit (a 73 KB file must load where 1 GiB cannot)."""
    chunks, total = [], 0
    while total <= limit and (chunk := fh.read(min(_CHUNK, limit + 1 - total))):
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def loads_model(
    data: bytes, cls: type[T], *, trusted: Any = (), name: str = "data", limits: Any = None
) -> T:
    """The model a model file's bytes hold; a typed error for a foreign, unsafe or newer file.

    Whatever goes wrong, the error is a :class:`~cbeal.ModelFileError` that names the
    cause. `limits` (a :class:`~cbeal.modelfile.Limits`; None: the defaults) bounds what
    the file may inflate, allocate and compute; each is checked before it is spent.
    """
    bounds = as_limits(limits)
    try:
        model = _load(bytes(data), trusted, name, bounds)
    except ModelFileError as exc:
        if str(exc).startswith(name):
            raise
        raise ModelFileError(f"{name}: {exc}") from None
    except RecursionError:
        raise ModelFileError(
            f"{name} is nested too deeply to read (Python's recursion limit); refused"
        ) from None
    except MemoryError:
        raise ModelFileError(
            f"{name} needs more memory than is available to load; free memory or check "
            "where the file comes from"
        ) from None
    except Exception as exc:  # every other failure names its cause: corrupt or truncated
        raise ModelFileError(
            f"{name} is not a readable cbeal model file (corrupt or truncated: "
            f"{type(exc).__name__}: {exc}); save the model again."
        ) from exc
    if not isinstance(model, cls):
        raise ModelFileError(f"{name} holds a {type(model).__name__}, not a {cls.__name__}")
    return model


def _load(data: bytes, trusted: Any, name: str, limits: Limits) -> Any:
    if data[:1] in _PICKLE_MAGIC:
        raise ModelFileError(
            f"{name} is a pickle (a model file of cbeal 0.1 or a foreign file). cbeal no longer "
            "reads pickles, because loading one can run any code it contains. Re-create the "
            "model, or load it with cbeal 0.1 in a trusted environment and save it again."
        )
    meter = Meter(limits)
    meter.take(len(data), "the file")
    sealed = unseal(data, name)
    zf = open_zip(data, meter, "the file")
    if zf.comment and not sealed:
        raise ModelFileError(f"{name} is corrupt: its checksum (SHA-256) is damaged")
    if "cbeal.json" not in zf.namelist():
        raise ModelFileError(f"{name} is not a cbeal model file (no cbeal.json inside)")
    text = read_part(zf, "cbeal.json", meter, "the state cbeal.json", "max_json_bytes")
    manifest = json.loads(text)
    check_depth(manifest, limits, "the state cbeal.json")
    _check_manifest(manifest, name)
    arrays = read_npz(read_part(zf, "arrays.npz", meter, "arrays.npz"), meter)
    blobs: dict[str, bytes] = {}
    for n in zf.namelist():
        if n.startswith("blobs/") and n.endswith(".skops"):
            blob = read_part(zf, n, meter, n)
            check_skops(blob, meter, n)
            blobs[n[len("blobs/") : -len(".skops")]] = blob
    classes, skops_names = resolve_trusted(trusted)
    decoder = Decoder(arrays, blobs, classes, _skops_trusted(skops_names), limits)
    return decoder.decode(manifest["state"])


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
        "cbeal.learners.regression.QuantilePairRegressor",
        "numpy.dtype",
        *extra,
    ]
