"""Round 2's fresh evaluation part (issue 33): five public regression tables never used in
this project, fixed before any candidate ran on them (studies/REGRESSION.md, round 2).

The protocol is ``cbeal run``'s: the rows in file order (a time order for four of them),
the most recent 30 % held out as the test block, ``D0`` the first 10 rows, the rest the
stream; inputs standardized with the training rows' statistics (``D0`` and the stream);
the tolerance the documented default, a quarter of the standard deviation of ``D0``'s
measured values. Tables without a time order (``diabetes``) are permuted per replication.

* ``cars`` — vega_datasets 0.9.0 ``cars.json`` (the UCI Auto MPG data): miles per gallon
  from cylinders, displacement, horsepower, weight, acceleration, model year and origin;
  rows with a missing value dropped; file order is model year 1970–1982 (a trend).
* ``seattle-weather`` — vega_datasets ``seattle-weather.csv`` (NOAA, Seattle 2012–2015,
  daily): the day's highest temperature from precipitation, lowest temperature, wind,
  the weather type and the season (sine and cosine of the day of the year).
* ``macrodata`` — statsmodels 0.15.0 ``macrodata.csv`` (US quarterly macro data
  1959–2009, public domain): real private investment from the other series, year and
  quarter (a trend).
* ``grunfeld`` — statsmodels ``grunfeld.csv`` (Grunfeld 1950, eleven firms 1935–1954,
  public domain): gross investment from firm value, capital stock, year and firm, sorted
  by year (a panel in time order).
* ``diabetes`` — scikit-learn's bundled diabetes data (Efron et al. 2004): disease
  progression after a year (whole numbers) from ten baseline measurements; no time
  order, so permuted per replication.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np

from cbeal.core.regression import default_tolerance

from .workloads import RegressionWorkload

__all__ = ["FRESH", "N_INITIAL", "TEST_SHARE", "load_fresh"]

FRESH = ("cars", "seattle-weather", "macrodata", "grunfeld", "diabetes")
N_INITIAL = 10
TEST_SHARE = 0.3
DATA = Path(__file__).resolve().parents[3] / "regression" / "fresh"  # studies/regression


def _onehot(values: list[str]) -> np.ndarray:
    levels = sorted(set(values))
    return np.array([[v == k for k in levels[1:]] for v in values], dtype=np.float64)


def _cars() -> tuple[np.ndarray, np.ndarray]:
    rows = json.loads((DATA / "cars.json").read_text())
    num = ("Cylinders", "Displacement", "Horsepower", "Weight_in_lbs", "Acceleration")
    rows = [r for r in rows if all(r[k] is not None for k in (*num, "Miles_per_Gallon"))]
    X = np.array([[float(r[k]) for k in num] + [float(r["Year"][:4])] for r in rows])
    X = np.hstack([X, _onehot([r["Origin"] for r in rows])])
    return X, np.array([float(r["Miles_per_Gallon"]) for r in rows])


def _csv(name: str) -> tuple[list[str], list[list[str]]]:
    lines = (DATA / name).read_text().strip().splitlines()
    head = [h.strip('"') for h in lines[0].split(",")]
    return head, [line.split(",") for line in lines[1:]]


def _seattle() -> tuple[np.ndarray, np.ndarray]:
    head, rows = _csv("seattle-weather.csv")
    c = {h: i for i, h in enumerate(head)}
    doy = np.array([(int(r[0][5:7]) - 1) * 30.5 + int(r[0][8:10]) for r in rows]) / 365.25
    X = np.column_stack([
        [float(r[c["precipitation"]]) for r in rows],
        [float(r[c["temp_min"]]) for r in rows],
        [float(r[c["wind"]]) for r in rows],
        np.sin(2 * np.pi * doy), np.cos(2 * np.pi * doy),
        _onehot([r[c["weather"]] for r in rows]),
    ])  # fmt: skip
    return X, np.array([float(r[c["temp_max"]]) for r in rows])


def _macro() -> tuple[np.ndarray, np.ndarray]:
    head, rows = _csv("macrodata.csv")
    A = np.array([[float(v) for v in r] for r in rows])
    col = head.index("realinv")
    return np.delete(A, col, axis=1), A[:, col]


def _grunfeld() -> tuple[np.ndarray, np.ndarray]:
    _, rows = _csv("grunfeld.csv")  # invest,value,capital,firm,year
    rows = sorted(rows, key=lambda r: (int(r[4]), r[3]))
    X = np.column_stack([
        [float(r[1]) for r in rows], [float(r[2]) for r in rows],
        [float(r[4]) for r in rows], _onehot([r[3] for r in rows]),
    ])  # fmt: skip
    return X, np.array([float(r[0]) for r in rows])


def _diabetes(replication: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True, scaled=False)
    order = np.random.default_rng(zlib.crc32(f"fresh2/diabetes/{replication}".encode()))
    idx = order.permutation(y.shape[0])
    return X[idx], y[idx]


def load_fresh(name: str, replication: int) -> RegressionWorkload:
    """One replication of fresh table `name` (deterministic; file order but ``diabetes``)."""
    X, y = {
        "cars": _cars, "seattle-weather": _seattle, "macrodata": _macro,
        "grunfeld": _grunfeld, "diabetes": lambda: _diabetes(replication),
    }[name]()  # fmt: skip
    n_train = y.shape[0] - round(TEST_SHARE * y.shape[0])
    mu, sd = X[:n_train].mean(axis=0), X[:n_train].std(axis=0)
    X = (X - mu) / np.where(sd > 0, sd, 1.0)
    s0, s1 = slice(0, N_INITIAL), slice(N_INITIAL, n_train)
    return RegressionWorkload(
        name=name,
        X0=X[s0], y0=y[s0], X_stream=X[s1], y_stream=y[s1],
        X_test=X[n_train:], y_test=y[n_train:],
        tolerance=default_tolerance(y[s0]),
    )  # fmt: skip
