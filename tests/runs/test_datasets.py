"""Bundled UCI datasets: shapes, encodings, order, integrity checks, caching and frames."""

from __future__ import annotations

import csv
import datetime as dt
import gzip
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

import cbeal.datasets
from cbeal.core.exceptions import InvalidInputError
from cbeal.datasets import (
    FAULTS,
    DataIntegrityError,
    Dataset,
    _files,
    clear_cache,
    load_ai4i2020,
    load_secom,
    load_steel_plates,
)
from cbeal.datasets import secom as secom_module

PACKAGED = Path(cbeal.datasets.__file__).parent / "data"


def _shared_data() -> Path | None:
    """The raw shared data folder, if it is next to the repository (CI) or on this machine."""
    candidates = [os.environ.get("CBEAL_SHARED_DATA", "")]
    candidates += [
        str(Path(__file__).resolve().parents[3] / "shared" / "data"),
        "/work/shared/data",
    ]
    for c in candidates:
        if c and (Path(c) / "uci-secom" / "secom.data.gz").is_file():
            return Path(c)
    return None


SHARED = _shared_data()
needs_shared = pytest.mark.skipif(SHARED is None, reason="raw shared data folder not found")


@pytest.fixture(scope="module")
def secom() -> Dataset:
    return load_secom()


@pytest.fixture(scope="module")
def ai4i() -> Dataset:
    return load_ai4i2020()


@pytest.fixture(scope="module")
def steel() -> Dataset:
    return load_steel_plates()


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    """Empty the per-process cache before and after the test; failed loads are never cached."""
    clear_cache()
    yield
    clear_cache()


# ---------------------------------------------------------------- shapes and encodings
@pytest.mark.parametrize(
    ("loader", "shape", "positives"),
    [
        (load_secom, (1567, 590), 104),
        (load_ai4i2020, (10000, 6), 339),
        (load_steel_plates, (1941, 27), 55),
    ],
    ids=["secom", "ai4i2020", "steel"],
)
def test_shapes_dtypes_and_positives(
    loader: Callable[[], Dataset], shape: tuple[int, int], positives: int
) -> None:
    ds = loader()
    assert isinstance(ds, Dataset)
    assert ds.X.shape == shape and ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.y.shape == (shape[0],) and ds.y.dtype == np.int64
    assert set(np.unique(ds.y).tolist()) == {0, 1}
    assert int(ds.y.sum()) == positives
    assert len(ds.feature_names) == shape[1] and all(isinstance(n, str) for n in ds.feature_names)
    assert len(set(ds.feature_names)) == shape[1]
    assert ds.frame is None
    assert "CC BY 4.0" in ds.description and "https://doi.org/10.24432/" in ds.description
    assert ds.target_name in repr(ds)


def test_secom_encoding(secom: Dataset) -> None:
    assert secom.feature_names[0] == "f000" and secom.feature_names[-1] == "f589"
    assert secom.target_name == "fail" and secom.class_names == ("pass", "fail")
    assert np.bincount(secom.y).tolist() == [1463, 104]
    # the labels file says -1 (pass) / 1 (fail); read it independently
    text = gzip.decompress((PACKAGED / "secom_labels.data.gz").read_bytes()).decode()
    raw = np.array([int(line.split()[0]) for line in text.splitlines()])
    assert set(raw.tolist()) == {-1, 1}
    np.testing.assert_array_equal(secom.y, (raw == 1).astype(int))  # file order is time order


def test_secom_nan_count_matches_raw_file(secom: Dataset) -> None:
    n_nan = int(np.isnan(secom.X).sum())
    assert n_nan > 0
    text = gzip.decompress((PACKAGED / "secom.data.gz").read_bytes()).decode()
    tokens = text.split()
    assert len(tokens) == 1567 * 590
    assert n_nan == tokens.count("NaN") == 41951
    assert not np.isinf(secom.X).any()


def test_secom_time_order(secom: Dataset) -> None:
    assert secom.time is not None and secom.time.dtype == np.dtype("datetime64[s]")
    gaps = np.diff(secom.time).astype(np.int64)
    assert (gaps >= 0).all()
    assert int((gaps == 0).sum()) == 33  # ties documented in the provenance
    assert str(secom.time[0]) == "2008-07-19T11:55:00"
    assert str(secom.time[-1]) == "2008-10-17T06:07:00"


def test_ai4i_encoding(ai4i: Dataset) -> None:
    assert ai4i.feature_names == (
        "Type",
        "Air temperature [K]",
        "Process temperature [K]",
        "Rotational speed [rpm]",
        "Torque [Nm]",
        "Tool wear [min]",
    )
    assert ai4i.target_name == "Machine failure"
    assert not {"TWF", "HDF", "PWF", "OSF", "RNF", "UDI"} & set(ai4i.feature_names)
    assert np.bincount(ai4i.X[:, 0].astype(int)).tolist() == [6000, 2997, 1003]  # L, M, H
    assert not np.isnan(ai4i.X).any()
    assert ai4i.time is not None and ai4i.time.dtype == np.int64
    np.testing.assert_array_equal(ai4i.time, np.arange(1, 10001))


def test_steel_targets(steel: Dataset) -> None:
    assert steel.time is None
    assert steel.feature_names[0] == "X_Minimum" and steel.feature_names[-1] == "SigmoidOfAreas"
    counts = {
        "Pastry": 158,
        "Z_Scratch": 190,
        "K_Scatch": 391,
        "Stains": 72,
        "Dirtiness": 55,
        "Bumps": 402,
        "Other_Faults": 673,
    }
    multi = load_steel_plates(target="multiclass")
    assert multi.target_name == "fault" and multi.class_names == FAULTS
    assert dict(zip(FAULTS, np.bincount(multi.y).tolist(), strict=True)) == counts
    for k, fault in enumerate(FAULTS):
        binary = load_steel_plates(target=fault)
        assert binary.target_name == fault and binary.class_names == ("rest", fault)
        np.testing.assert_array_equal(binary.y, (multi.y == k).astype(int))
        np.testing.assert_array_equal(binary.X, steel.X)
    np.testing.assert_array_equal(steel.y, load_steel_plates(target="Dirtiness").y)


def test_steel_rejects_unknown_target() -> None:
    with pytest.raises(InvalidInputError, match="multiclass"):
        load_steel_plates(target="K_Scratch")
    with pytest.raises(ValueError, match="Dirtiness"):
        load_steel_plates(target="")


# ---------------------------------------------------------------- against the raw files
def _floats(tokens: list[str]) -> np.ndarray:
    return np.array([float(t) for t in tokens])


@needs_shared
def test_secom_first_and_last_rows_match_raw(secom: Dataset) -> None:
    assert SHARED is not None
    rows = gzip.decompress((SHARED / "uci-secom" / "secom.data.gz").read_bytes())
    lines = rows.decode().splitlines()
    labels = (SHARED / "uci-secom" / "secom_labels.data").read_text().splitlines()
    stamps = [dt.datetime.strptime(line.split('"')[1], "%d/%m/%Y %H:%M:%S") for line in labels]
    order = sorted(range(len(stamps)), key=lambda i: stamps[i])  # stable
    for pos in (0, -1):
        i = order[pos]
        np.testing.assert_array_equal(secom.X[pos], _floats(lines[i].split()))  # NaN == NaN
        assert secom.y[pos] == (labels[i].split()[0] == "1")
        assert secom.time is not None
        assert secom.time[pos].astype(dt.datetime) == stamps[i]


@needs_shared
def test_ai4i_first_and_last_rows_match_raw(ai4i: Dataset) -> None:
    assert SHARED is not None
    with open(SHARED / "uci-ai4i2020" / "ai4i2020.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    rows.sort(key=lambda r: int(r["UDI"]))
    for pos in (0, -1):
        r = rows[pos]
        expected = [float({"L": 0, "M": 1, "H": 2}[r["Type"]])]
        expected += [float(r[name]) for name in ai4i.feature_names[1:]]
        np.testing.assert_array_equal(ai4i.X[pos], expected)
        assert ai4i.y[pos] == int(r["Machine failure"])
        assert ai4i.time is not None and ai4i.time[pos] == int(r["UDI"])


@needs_shared
def test_steel_first_and_last_rows_match_raw(steel: Dataset) -> None:
    assert SHARED is not None
    folder = SHARED / "uci-steel-plates-faults"
    lines = (folder / "Faults.NNA").read_text().splitlines()
    names = (folder / "Faults27x7_var").read_text().split()
    assert tuple(names[:27]) == steel.feature_names
    for pos in (0, -1):
        values = _floats(lines[pos].split("\t"))
        np.testing.assert_array_equal(steel.X[pos], values[:27])
        assert steel.y[pos] == values[names.index("Dirtiness")]


@needs_shared
def test_packaged_content_equals_shared_raw_files() -> None:
    assert SHARED is not None
    pairs = {
        "secom.data.gz": "uci-secom/secom.data.gz",
        "secom_labels.data.gz": "uci-secom/secom_labels.data",
        "ai4i2020.csv.gz": "uci-ai4i2020/ai4i2020.csv",
        "Faults.NNA.gz": "uci-steel-plates-faults/Faults.NNA",
        "Faults27x7_var": "uci-steel-plates-faults/Faults27x7_var",
    }
    assert set(pairs) == set(_files.EXPECTED_SHA256)
    for packaged, raw in pairs.items():
        raw_bytes = (SHARED / raw).read_bytes()
        if raw.endswith(".gz"):
            raw_bytes = gzip.decompress(raw_bytes)
        assert _files.read_bytes(packaged) == raw_bytes, packaged


# ---------------------------------------------------------------- integrity and caching
def test_wrong_hash_raises_clear_error(monkeypatch: pytest.MonkeyPatch, fresh_cache: None) -> None:
    monkeypatch.setitem(_files.EXPECTED_SHA256, "Faults.NNA.gz", "0" * 64)
    with pytest.raises(DataIntegrityError, match=r"'Faults.NNA.gz' is corrupted.*expected 0{64}"):
        load_steel_plates()
    with pytest.raises(OSError, match="Reinstall cbeal"):  # still failing: errors are not cached
        load_steel_plates(target="multiclass")


@pytest.mark.parametrize("damage", ["flip", "truncate", "missing"])
def test_corrupted_file_raises_clear_error(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    for name in ("Faults.NNA.gz", "Faults27x7_var"):
        shutil.copyfile(PACKAGED / name, tmp_path / name)
    target = tmp_path / ("Faults27x7_var" if damage == "flip" else "Faults.NNA.gz")
    data = bytearray(target.read_bytes())
    if damage == "flip":
        data[3] ^= 0x20  # 'X_Minimum' -> 'X_minimum': still readable text, wrong hash
        target.write_bytes(bytes(data))
        message = r"'Faults27x7_var' is corrupted: the SHA-256"
    elif damage == "truncate":
        target.write_bytes(bytes(data[: len(data) // 2]))
        message = r"'Faults.NNA.gz' is corrupted and cannot be read"
    else:
        target.unlink()
        message = r"'Faults.NNA.gz' is missing"
    monkeypatch.setattr(_files, "_data_dir", lambda: tmp_path)
    with pytest.raises(DataIntegrityError, match=message):
        load_steel_plates()


def test_files_are_read_and_verified_once_per_process(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    calls: list[str] = []
    original = secom_module.read_text

    def counting(name: str, encoding: str = "ascii") -> str:
        calls.append(name)
        return original(name, encoding)

    monkeypatch.setattr(secom_module, "read_text", counting)
    load_secom()
    load_secom(as_frame=False)
    assert sorted(calls) == ["secom.data.gz", "secom_labels.data.gz"]


@pytest.mark.parametrize(
    "loader", [load_secom, load_ai4i2020, load_steel_plates], ids=["secom", "ai4i2020", "steel"]
)
def test_returned_arrays_are_copies(loader: Callable[[], Dataset]) -> None:
    first = loader()
    x0, y0 = first.X[0].copy(), first.y.copy()
    first.X[0] = -1.0
    first.y[:] = 7
    if first.time is not None:
        first.time[:] = first.time[-1]
    second = loader()
    np.testing.assert_array_equal(second.X[0], x0)
    np.testing.assert_array_equal(second.y, y0)
    assert not np.shares_memory(first.X, second.X)
    if second.time is not None:
        assert len(np.unique(second.time)) > 1


def test_dataset_is_frozen(steel: Dataset) -> None:
    with pytest.raises(AttributeError):
        steel.X = steel.X  # type: ignore[misc]


# ---------------------------------------------------------------- frames
def test_secom_frame(secom: Dataset) -> None:
    pytest.importorskip("pandas")
    ds = load_secom(as_frame=True)
    assert ds.frame is not None and ds.frame.shape == (1567, 592)
    assert list(ds.frame.columns) == [*secom.feature_names, "fail", "time"]
    np.testing.assert_array_equal(ds.frame[list(ds.feature_names)].to_numpy(), ds.X)
    np.testing.assert_array_equal(ds.frame["fail"].to_numpy(), ds.y)
    assert (ds.frame["time"].to_numpy() == ds.time).all()
    ds.frame.iloc[0, 0] = -5.0
    assert ds.X[0, 0] != -5.0  # the frame does not alias X


def test_ai4i_frame_keeps_leaky_columns_out_of_x() -> None:
    pytest.importorskip("pandas")
    ds = load_ai4i2020(as_frame=True)
    assert ds.frame is not None
    assert list(ds.frame.columns) == [
        *ds.feature_names,
        "Machine failure",
        "UDI",
        "Product ID",
        "TWF",
        "HDF",
        "PWF",
        "OSF",
        "RNF",
    ]
    np.testing.assert_array_equal(ds.frame[list(ds.feature_names)].to_numpy(), ds.X)
    assert ds.frame[["TWF", "HDF", "PWF", "OSF", "RNF"]].sum().tolist() == [46, 115, 95, 98, 19]
    assert ds.frame["Product ID"].iloc[0] == "M14860"
    assert (ds.frame["Product ID"].str[0].map({"L": 0, "M": 1, "H": 2}) == ds.X[:, 0]).all()


def test_steel_frames() -> None:
    pytest.importorskip("pandas")
    binary = load_steel_plates(as_frame=True)
    assert binary.frame is not None
    assert list(binary.frame.columns) == [*binary.feature_names, *FAULTS]
    np.testing.assert_array_equal(binary.frame["Dirtiness"].to_numpy(), binary.y)
    multi = load_steel_plates(target="multiclass", as_frame=True)
    assert multi.frame is not None and list(multi.frame.columns)[-1] == "fault"
    np.testing.assert_array_equal(multi.frame["fault"].to_numpy(), multi.y)


def test_as_frame_without_pandas_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    with pytest.raises(ImportError, match=r"pip install -e '\.\[pandas\]'"):
        load_steel_plates(as_frame=True)
    assert load_steel_plates().frame is None  # the numpy path does not need pandas


def test_import_loads_no_heavy_dependency() -> None:
    code = (
        "import sys, cbeal.datasets;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'sklearn','scipy','pandas','matplotlib','pyarrow'}))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[]"


def test_provenance_lists_every_hash() -> None:
    text = (PACKAGED / "PROVENANCE.md").read_text(encoding="utf-8")
    for name, digest in _files.EXPECTED_SHA256.items():
        assert f"`{name}`" in text and digest in text
    assert "CC BY 4.0" in text
    shipped = {p.name for p in PACKAGED.iterdir()} - {"PROVENANCE.md"}
    assert shipped == set(_files.EXPECTED_SHA256)
