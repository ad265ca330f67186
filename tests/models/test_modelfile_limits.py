"""Model files are bounded: bombs, deep nesting, costly seeds and corruption all end in a
ModelFileError, refused before the cost is paid (issue 21, item 4).

The costly cases run in a fresh process with a deadline (a regression fails, it does not
hang the suite) that also reports the peak memory the load traced.
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import cbeal
from cbeal import CbeAL, ModelFileError, SimulatedStream, simulate
from cbeal.modelfile import Limits
from cbeal.modelfile.seal import PLACEHOLDER, seal

GIB = 1 << 30
PROBE = Path(__file__).with_name("modelfile_probe.py")


@pytest.fixture(scope="module")
def good(stream: SimulatedStream) -> bytes:
    model = CbeAL.from_preset(
        "CBEAL-6", estimator=LogisticRegression(), budget=40, random_state=0
    ).fit(stream.X0, stream.y0)
    simulate(model, stream.X_stream[:150], stream.y_stream[:150], delay=5)
    return model.to_bytes()


# ---------------------------------------------------------------- crafting files
def deflated(head: bytes, fill: bytes = b"", times: int = 0) -> tuple[bytes, int, int]:
    """``head + fill * times`` as raw deflate, its CRC-32 and size, without building it:
    after a full flush the compressor starts afresh, so each `fill` deflates alike."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    out = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(head)
    if times:
        seg = c.compress(fill) + c.flush(zlib.Z_FULL_FLUSH)
        assert c.compress(fill) + c.flush(zlib.Z_FULL_FLUSH) == seg
        out += seg * times
        for _ in range(times):
            crc = zlib.crc32(fill, crc)
    return out + c.flush(zlib.Z_FINISH), crc, len(head) + len(fill) * times


def zip_of(
    members: list[tuple[str, tuple[bytes, int, int]]], *, declare: int | None = None
) -> bytes:
    """A sealed zip of deflated `members`; `declare` overrides the last one's declared size."""
    body, central = b"", b""
    for i, (name, (raw, crc, size)) in enumerate(members):
        if declare is not None and i == len(members) - 1:
            size = declare
        n = name.encode()
        fields = (8, 0, 0x21, crc, len(raw), size, len(n))  # deflate, 1980-01-01
        entry = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, *fields, 0, 0, 0, 0, 0, 0)
        central += entry[:-4] + struct.pack("<I", len(body)) + n  # the local header's offset
        body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, *fields, 0) + n + raw
    n_members, comment = len(members), len(PLACEHOLDER)
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, n_members, n_members, len(central), len(body), comment
    )
    return seal(body + central + end + PLACEHOLDER)


def parts(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def repack(data: bytes, replace: dict[str, bytes]) -> bytes:
    """The model file `data` with some parts replaced, sealed."""
    members = {**parts(data), **replace}
    return zip_of([(n, deflated(v)) for n, v in members.items()])


def with_state(data: bytes, change: Any) -> bytes:
    manifest = json.loads(parts(data)["cbeal.json"])
    change(manifest["state"]["attrs"])
    return repack(data, {"cbeal.json": json.dumps(manifest).encode()})


def probe(
    tmp_path: Path, files: dict[str, bytes], limits: dict[str, Any] | None = None, prelude: str = ""
) -> dict[str, dict[str, Any]]:
    """Load each file in one fresh process with a deadline: outcome, time and peak memory."""
    paths = []
    for name, data in files.items():
        paths.append(str(tmp_path / f"{name}.cbeal"))
        Path(paths[-1]).write_bytes(data)
    program = f"import runpy\n{prelude}\nrunpy.run_path({str(PROBE)!r}, run_name='__main__')"
    src = str(Path(cbeal.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    args = [sys.executable, "-c", program, json.dumps(limits), *paths]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, check=True)
    lines = done.stdout.strip().splitlines()[-len(files) :]
    return {name: json.loads(line) for name, line in zip(files, lines, strict=True)}


# ---------------------------------------------------------------- the audit's files
SEED = {"__dict__": [["entropy", 1], ["spawn_key", {"__tuple__": []}],
                     ["pool_size", 400_000_000], ["n_children_spawned", 0]]}  # fmt: skip


def test_the_200_byte_seed_entry_is_refused_at_once(good: bytes, tmp_path: Path) -> None:
    entry = {"__seedseq__": SEED, "id": 10**6}
    assert len(json.dumps(entry)) < 200

    def plant(attrs: dict[str, Any]) -> None:
        attrs["random_state"] = entry

    out = probe(tmp_path, {"seed": with_state(good, plant)})["seed"]  # a hang fails (deadline)
    assert out["outcome"] == "ModelFileError", out
    assert "pool of 400,000,000" in out["message"] and "max_seed_pool" in out["message"]


def test_a_seed_within_raised_limits_loads(good: bytes) -> None:
    seed = np.random.SeedSequence(12345, pool_size=128)

    def plant(attrs: dict[str, Any]) -> None:
        state = {"entropy": 12345, "spawn_key": {"__tuple__": []}, "pool_size": 128,
                 "n_children_spawned": 0}  # fmt: skip
        attrs["random_state"] = {"__seedseq__": {"__dict__": [[k, v] for k, v in state.items()]},
                                 "id": 10**6}  # fmt: skip

    data = with_state(good, plant)
    with pytest.raises(ModelFileError, match="max_seed_pool=64"):
        CbeAL.from_bytes(data)
    model = CbeAL.from_bytes(data, limits=Limits(max_seed_pool=128))
    assert model.random_state.generate_state(4).tolist() == seed.generate_state(4).tolist()


def npy_header(n: int) -> bytes:
    """The ``.npy`` header of a float64 vector of `n` values."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (n,)}
    )
    return header.getvalue()


def npy_bomb(n_bytes: int) -> bytes:
    """``arrays.npz`` whose one array ``a0`` inflates to `n_bytes` of zeros."""
    zeros = bytes(1 << 20)
    return zip_of([("a0.npy", deflated(npy_header(n_bytes // 8), zeros, n_bytes >> 20))])


def test_bombs_are_refused_before_they_inflate(good: bytes, tmp_path: Path) -> None:
    npz = npy_bomb(GIB)
    manifest = parts(good)["cbeal.json"]
    nested = zip_of([(n, deflated(v)) for n, v in parts(good).items() if n != "arrays.npz"]
                    + [("arrays.npz", deflated(npz))])  # fmt: skip
    flat_json = zip_of(
        [(n, deflated(v)) for n, v in parts(good).items() if n != "cbeal.json"]
        + [("cbeal.json", deflated(manifest, b" " * (1 << 20), 1024))]  # 1 GiB of JSON
    )
    liar = zip_of(  # declares 10 kB, holds 1 GiB: zipfile stops at the declared size
        [(n, deflated(v)) for n, v in parts(good).items() if n != "cbeal.json"]
        + [("cbeal.json", deflated(manifest, b" " * (1 << 20), 1024))],
        declare=10_000,
    )
    assert len(nested) < 100_000 and len(flat_json) * 500 < GIB  # small files, huge insides
    outs = probe(tmp_path, {"honest": good, "nested": nested, "json": flat_json, "liar": liar})
    honest = outs.pop("honest")
    assert honest["outcome"] == "loaded", honest
    for name, out in outs.items():
        assert out["outcome"] == "ModelFileError", (name, out)
        assert out["peak"] < 2 * honest["peak"], (name, out["peak"], honest["peak"])
    assert "max_ratio" in outs["nested"]["message"]
    assert "max_json_bytes" in outs["json"]["message"]
    assert "corrupt" in outs["liar"]["message"]
    print({"honest": honest, **outs})
    # each layer holds on its own: the array's ratio, then the total, then its size
    for raised, limit in [
        ({"max_ratio": 500}, "array 'a0' inflates 1,0..-fold.*max_ratio"),
        ({"max_ratio": 2000}, "array 'a0' would take 1,024.0 MiB.*max_bytes"),
        ({"max_ratio": 2000, "max_bytes": 4 * GIB}, "array 'a0' declares shape.*max_array_bytes"),
    ]:
        with pytest.raises(ModelFileError, match=limit):
            CbeAL.from_bytes(nested, limits=Limits(**raised))


def test_running_out_of_memory_is_a_model_file_error(good: bytes, tmp_path: Path) -> None:
    # the caller raised the limits, and the array does not fit in the memory left
    data = repack(good, {"arrays.npz": npy_bomb(GIB // 2)})
    cap = (  # after the imports, the address space is capped 256 MiB above its size
        "import resource, skops.io, cbeal.modelfile.codec as c; c.cbeal_classes(); "
        "vm = next(int(l.split()[1]) << 10 for l in open('/proc/self/status') "
        "if l.startswith('VmSize')); "
        "resource.setrlimit(resource.RLIMIT_AS, (vm + 2**28, vm + 2**28))"
    )
    raised = {"max_ratio": 10_000, "max_array_bytes": GIB, "max_bytes": 2 * GIB}
    out = probe(tmp_path, {"oom": data}, raised, prelude=cap)["oom"]
    assert out["outcome"] == "ModelFileError", out
    assert "more memory" in out["message"]


# ---------------------------------------------------------------- nesting, arrays, parts
@pytest.mark.parametrize("depth", [150, 1_000, 100_000])
def test_deep_nesting_is_refused(good: bytes, depth: int) -> None:
    def plant(attrs: dict[str, Any]) -> None:
        attrs["n_labels_"] = "DEEP"

    manifest = parts(with_state(good, plant))["cbeal.json"]
    deep = manifest.replace(b'"DEEP"', b"[" * depth + b"]" * depth)
    data = repack(good, {"cbeal.json": deep})
    with pytest.raises(ModelFileError, match="nested"):
        CbeAL.from_bytes(data)
    if depth >= 1_000:  # raised past what Python's stack can read: still a ModelFileError
        with pytest.raises(ModelFileError, match="nested too deeply"):
            CbeAL.from_bytes(data, limits=Limits(max_depth=10**6))


def test_arrays_are_checked_before_they_are_allocated(good: bytes) -> None:
    arrays = parts(good)["arrays.npz"]
    with zipfile.ZipFile(io.BytesIO(arrays)) as zf:
        first = zf.namelist()[0]
        npy = zf.read(first)
    assert len(npy_header(1)) == 128
    for n, match in [(2**40, "max_array_bytes"), (10**6, "does not match its size")]:
        npz = zip_of([(first, deflated(npy_header(n) + npy[128:]))])  # a header that lies
        with pytest.raises(ModelFileError, match=match):
            CbeAL.from_bytes(repack(good, {"arrays.npz": npz}))
    with pytest.raises(ModelFileError, match="max_bytes"):
        CbeAL.from_bytes(good, limits=Limits(max_bytes=len(good) + 1000))
    with pytest.raises(ModelFileError, match="max_parts"):
        CbeAL.from_bytes(good, limits=Limits(max_parts=50))


def test_limits_are_checked_themselves() -> None:
    with pytest.raises(cbeal.ParameterError, match="max_ratio"):
        Limits(max_ratio=0.5)
    with pytest.raises(cbeal.ParameterError, match="Limits"):
        CbeAL.from_bytes(b"", limits={"max_bytes": 1})


# ---------------------------------------------------------------- corruption
def corrupt(data: bytes, rng: np.random.Generator) -> bytes:
    buf = bytearray(data)
    kind = rng.integers(4)
    i = int(rng.integers(len(buf)))
    if kind == 0:  # one byte changed
        buf[i] = (buf[i] + int(rng.integers(1, 256))) % 256
    elif kind == 1:  # truncated
        del buf[i:]
    elif kind == 2:  # a run of bytes zeroed (a bad disk block)
        j = min(len(buf), i + int(rng.integers(1, 4096)))
        buf[i:j] = bytes(j - i)
    else:  # bytes inserted
        buf[i:i] = rng.bytes(int(rng.integers(1, 64)))
    return bytes(buf) if bytes(buf) != data else data[:-1]


def outcomes(files: Any) -> dict[str, int]:
    """How loading each file ended: ``loaded``, or the ModelFileError's underlying cause;
    any other exception escapes (and fails the test)."""
    out: dict[str, int] = {}
    for data in files:
        try:
            CbeAL.from_bytes(data)
            key = "loaded"
        except ModelFileError as exc:
            text = str(exc)
            key = "seal" if "SHA-256" in text else text.split("(corrupt or truncated: ")[-1][:24]
        out[key] = out.get(key, 0) + 1
    return out


def test_a_hundred_random_corruptions_are_refused(good: bytes) -> None:
    rng = np.random.default_rng(2126)
    corrupted = [corrupt(good, rng) for _ in range(100)]
    tally = outcomes(corrupted)
    assert "loaded" not in tally, tally
    # a file written before seals existed (no zip comment): no check of the whole, and
    # zlib, zipfile, JSON and numpy errors surface, each as a ModelFileError, or it loads
    legacy = good[: -len(PLACEHOLDER) - 2] + b"\0\0"
    assert type(CbeAL.from_bytes(legacy)) is CbeAL
    rng = np.random.default_rng(2126)
    tally = outcomes(corrupt(legacy, rng) for _ in range(100))
    assert sum(n for k, n in tally.items() if k != "loaded") >= 90, tally
    print(tally)


def test_corrupt_parts_behind_a_valid_seal_never_escape(good: bytes) -> None:
    """Corruption inside the parts, resealed: whatever fails is a ModelFileError."""
    rng = np.random.default_rng(2127)
    members = parts(good)
    files = []
    for _ in range(100):
        name = ["cbeal.json", "arrays.npz", "blobs/b0.skops"][int(rng.integers(3))]
        files.append(zip_of([(n, deflated(corrupt(v, rng) if n == name else v))
                             for n, v in members.items()]))  # fmt: skip
    tally = outcomes(files)
    assert sum(n for k, n in tally.items() if k != "loaded") > 0, tally
    print(tally)


# ---------------------------------------------------------------- reading the file
_LOAD_CAPPED = """
import resource, sys
import skops.io, cbeal.modelfile.codec as c
from cbeal import CbeAL
c.cbeal_classes()
vm = next(int(l.split()[1]) << 10 for l in open('/proc/self/status') if l.startswith('VmSize'))
room = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (vm + room, vm + room))
try:
    CbeAL.load(sys.argv[1])
    print("loaded")
except BaseException as exc:
    print(type(exc).__name__, exc)
"""


def _load_capped(path: Path, room: int) -> str:
    """Load `path` in a fresh process whose address space is capped `room` bytes above
    its size after the imports: what the load did."""
    out = subprocess.run(
        [sys.executable, "-c", _LOAD_CAPPED, str(path), str(room)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return out.stdout.strip() or out.stderr.strip().splitlines()[-1]


def test_a_small_file_loads_where_a_buffer_of_the_limit_would_not_fit(
    good: bytes, tmp_path: Path
) -> None:
    # issue 28 N10: CbeAL.load asked for a buffer of max_bytes (1 GiB) to read a 73 KB file
    path = tmp_path / "small.cbeal"
    path.write_bytes(good)
    assert len(good) < 1 << 20
    assert _load_capped(path, 512 << 20) == "loaded"  # 512 MiB left: far below 1 GiB


def test_memory_running_out_while_reading_is_a_model_file_error(
    good: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "big.cbeal"
    path.write_bytes(good + b"\0" * (150 << 20))  # 150 MB: within max_bytes, not in memory
    said = _load_capped(path, 48 << 20)
    assert said.startswith("ModelFileError"), said
    assert "needs more memory than is available" in said and str(path) in said
