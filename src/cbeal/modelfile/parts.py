"""A model file's parts, read within its :class:`~cbeal.modelfile.limits.Limits`.

Each zip member's declared size is checked (against the limits, and its compression
ratio) before it is inflated, and :mod:`zipfile` never returns more than a member declares.
Arrays are read from ``.npy`` members by hand: the header's shape and dtype are checked
against the limits and against the member's size before the array is allocated, and
object arrays (which need pickle) are refused.
"""

from __future__ import annotations

import io
import math
import zipfile
from typing import IO, Any

import numpy as np

from cbeal.core.exceptions import ModelFileError
from cbeal.modelfile.limits import Limits, Meter, fmt_size, refused

__all__ = ["check_skops", "open_zip", "read_npz", "read_part"]

_CHUNK = 1 << 20


def open_zip(data: bytes, meter: Meter, what: str) -> zipfile.ZipFile:
    """The archive `data`, refused if it has more members than ``max_parts``."""
    zf = zipfile.ZipFile(io.BytesIO(data))
    n = len(zf.infolist())
    if n > meter.limits.max_parts:
        raise meter.refuse(f"{what} has {n:,} parts", "max_parts")
    return zf


def read_part(
    zf: zipfile.ZipFile, name: str, meter: Meter, what: str, cap: str | None = None
) -> bytes:
    """Member `name`, inflated after its declared size passed the limits."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise ModelFileError(f"{what} is missing from the model file") from None
    meter.part(info.file_size, info.compress_size, what, cap)
    with zf.open(info) as fh:
        data = fh.read(info.file_size + 1)  # zipfile stops at the declared size anyway
    if len(data) != info.file_size:
        raise ModelFileError(f"{what} is shorter than it declares (truncated)")
    return data


def _npy_header(
    fh: IO[bytes], info: zipfile.ZipInfo, limits: Limits, what: str
) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """``(shape, fortran_order, dtype, count)`` of an ``.npy`` member, checked."""
    fmt = np.lib.format
    version = fmt.read_magic(fh)
    if version == (1, 0):
        shape, fortran, dtype = fmt.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, fortran, dtype = fmt.read_array_header_2_0(fh)
    else:
        raise ModelFileError(f"{what} is in .npy format {version}, which cbeal does not write")
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    if max(count, nbytes) > limits.max_array_bytes:
        raise refused(
            limits,
            f"{what} declares shape {shape} of {dtype} ({fmt_size(nbytes)})",
            "max_array_bytes",
        )
    if nbytes != info.file_size - fh.tell():
        raise ModelFileError(
            f"{what} declares shape {shape} of {dtype}, which does not match its size "
            f"({info.file_size:,} bytes with the header): the file is corrupt"
        )
    return shape, fortran, dtype, count


def _read_npy(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: Limits, what: str) -> Any:
    with zf.open(info) as fh:
        shape, fortran, dtype, count = _npy_header(fh, info, limits, what)
        if dtype.hasobject:
            raise ModelFileError(
                f"{what} holds Python objects, which only pickle can read; cbeal never "
                "writes such arrays and never reads pickle: the file is corrupt or crafted"
            )
        arr = np.empty(count, dtype=dtype)
        flat = arr.view(np.uint8) if arr.nbytes else np.empty(0, dtype=np.uint8)
        for start in range(0, flat.size, _CHUNK):
            want = min(_CHUNK, flat.size - start)
            data = fh.read(want)
            if len(data) != want:
                raise ModelFileError(f"{what} is shorter than it declares (truncated)")
            flat[start : start + want] = np.frombuffer(data, dtype=np.uint8)
        fh.read(1)  # at the end: zipfile checks the member's CRC
    if fortran:
        return arr.reshape(shape[::-1]).transpose()
    return arr.reshape(shape)


def read_npz(data: bytes, meter: Meter) -> dict[str, Any]:
    """Every array of ``arrays.npz`` by key, each checked before it is allocated."""
    zf = open_zip(data, meter, "arrays.npz")
    out: dict[str, Any] = {}
    for info in zf.infolist():
        key, ext = info.filename[:-4], info.filename[-4:]
        what = f"array {key!r}"
        if ext != ".npy":
            raise ModelFileError(f"arrays.npz holds {info.filename!r}, which is not an array")
        meter.part(info.file_size, info.compress_size, what)
        out[key] = _read_npy(zf, info, meter.limits, what)
    return out


def check_skops(blob: bytes, meter: Meter, what: str) -> None:
    """Check a skops blob's declared parts (and its arrays' headers) before skops reads it."""
    zf = open_zip(blob, meter, what)
    for info in zf.infolist():
        part = f"{what}/{info.filename}"
        cap = "max_json_bytes" if info.filename.endswith(".json") else None
        meter.part(info.file_size, info.compress_size, part, cap)
        if info.filename.endswith(".npy"):
            with zf.open(info) as fh:
                _npy_header(fh, info, meter.limits, part)
