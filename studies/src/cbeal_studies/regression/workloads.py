"""The regression benchmark's workloads (issue 20) and their development/evaluation split.

Each workload gives, per replication, an initial labelled set ``D0`` (20 parts), a stream
of 1,000 parts and a test block of 500 parts, all standardized with the statistics of
``D0`` and the stream's inputs (never the test block's), and a tolerance: a quarter of
the standard deviation of the stream's measured values (a fixed rule, as a spec would
give it; it sets the band of the reward and of the in-band share).

* river's synthetic regression generators (river's bundled real-world data sets, the
  regression ones included, are never used): Friedman #1 (stationary), FriedmanDrift
  with its three drifts (``gra``: global recurring abrupt, ``lea``: local expanding
  abrupt, ``gsg``: global gradual), Mv and Planes2D; drift positions inside the stream,
  the test block after it (the final concept).
* the paper's generator made a regression: its clustered inputs (``make_classification``
  with the share ``sp`` of useless features) and a measured value that is a smooth
  nonlinear function of the informative inputs plus noise (10 % of the signal's sd).
* the bundled AI4I 2020 milling data (UCI, CC BY 4.0; `cbeal.datasets`), in time order:
  torque from the other process readings, and process temperature from the others (the
  two quantities a line measures); a contiguous block with a seeded start.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from cbeal.streams.split import StreamSplit

__all__ = ["DEV", "DEV2", "EVAL", "WORKLOADS", "RegressionWorkload", "load_workload"]

N0, N_STREAM, N_TEST = 20, 1000, 500
_N = N0 + N_STREAM + N_TEST

#: fixed before any run (studies/REGRESSION.md): look, tune and choose on DEV only
DEV = ("friedman", "friedman-gra", "planes2d", "paper-reg-v1", "ai4i-torque")
EVAL = ("friedman-lea", "friedman-gsg", "mv", "paper-reg-v2", "ai4i-process-temp")
WORKLOADS = DEV + EVAL
#: round 2 (issue 33): the development part is DEV and this synthetic trending series
DEV2 = (*DEV, "trend-hourly")


@dataclass(frozen=True, eq=False)
class RegressionWorkload(StreamSplit):
    """One replication of a workload: ``D0``, the stream, the test block and the tolerance."""

    name: str = ""
    tolerance: float = 1.0


def _seed(name: str, replication: int) -> int:
    return zlib.crc32(f"regression-v1/{name}/{replication}".encode())


def _number(value: object) -> float:
    """A feature as a number (a text category as a fixed code)."""
    if isinstance(value, str):
        return float(zlib.crc32(value.encode()) % 7)
    return float(value)  # type: ignore[arg-type]


def _river(name: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from river.datasets import synth

    third = (N0 + N_STREAM // 3, N0 + 2 * N_STREAM // 3)
    gen = {
        "friedman": lambda: synth.Friedman(seed=seed),
        "friedman-gra": lambda: synth.FriedmanDrift("gra", position=third, seed=seed),
        "friedman-lea": lambda: synth.FriedmanDrift("lea", position=(*third, N0 + N_STREAM),
                                                    seed=seed),
        "friedman-gsg": lambda: synth.FriedmanDrift("gsg", position=third,
                                                    transition_window=150, seed=seed),
        "mv": lambda: synth.Mv(seed=seed),
        "planes2d": lambda: synth.Planes2D(seed=seed),
    }[name]()  # fmt: skip
    rows, ys = [], []
    for x, y in gen.take(_N):
        rows.append([_number(x[k]) for k in sorted(x, key=str)])
        ys.append(float(y))
    return np.asarray(rows), np.asarray(ys)


def _paper_regression(version: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import make_classification

    rng = np.random.default_rng(seed)
    p, useless = 15, (0.3 if version == 1 else 0.7)
    informative = max(2, round(p * (1 - useless)))
    X, _ = make_classification(
        n_samples=_N, n_features=p, n_informative=informative, n_redundant=0,
        n_clusters_per_class=2, shuffle=False, random_state=seed,
    )  # fmt: skip
    Z = X[:, :informative]
    w = rng.normal(size=informative)
    signal = Z @ w + np.sin(2.0 * Z[:, 0]) * Z[:, 1] + 0.5 * np.tanh(Z[:, -1]) ** 2
    y = signal + 0.1 * signal.std() * rng.normal(size=_N)
    return X, y


def _trend_hourly(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """An hourly process with a trend (round 2's development workload): daily and weekly
    cycles, a covariate that drifts upwards, and a measured value that follows the
    covariate nonlinearly plus an unobserved slow rise, so the test block (after the
    stream) lies beyond what the stream showed."""
    rng = np.random.default_rng(seed)
    t = np.arange(_N, dtype=np.float64)
    day, week = 2 * np.pi * t / 24.0, 2 * np.pi * t / 168.0
    u = np.zeros(_N)
    for i in range(1, _N):
        u[i] = 0.95 * u[i - 1] + 0.3 * rng.normal()
    u += 0.002 * t + 0.8 * np.sin(day)
    v = rng.normal(size=_N)
    X = np.column_stack([np.sin(day), np.cos(day), np.sin(week), np.cos(week), u, v])
    y = 2.0 * u + 0.3 * u**2 + 1.5 * np.cos(day) * (v > 0) + 0.003 * t
    return X, y + 0.5 * rng.normal(size=_N)


def _ai4i(target: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from cbeal.datasets import load_ai4i2020

    d = load_ai4i2020()
    names = list(d.feature_names)
    col = names.index(target)
    X = np.delete(np.asarray(d.X, dtype=np.float64), col, axis=1)
    y = np.asarray(d.X, dtype=np.float64)[:, col]
    start = int(np.random.default_rng(seed).integers(0, X.shape[0] - _N))
    return X[start : start + _N], y[start : start + _N]


def load_workload(name: str, replication: int) -> RegressionWorkload:
    """One replication of workload `name` (deterministic)."""
    seed = _seed(name, replication)
    if name.startswith("paper-reg-v"):
        X, y = _paper_regression(int(name[-1]), seed)
    elif name == "trend-hourly":
        X, y = _trend_hourly(seed)
    elif name == "ai4i-torque":
        X, y = _ai4i("Torque [Nm]", seed)
    elif name == "ai4i-process-temp":
        X, y = _ai4i("Process temperature [K]", seed)
    else:
        X, y = _river(name, seed % (2**31))
    train = slice(0, N0 + N_STREAM)
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    X = (X - mu) / np.where(sd > 0, sd, 1.0)
    s0, s1 = slice(0, N0), slice(N0, N0 + N_STREAM)
    return RegressionWorkload(
        name=name,
        X0=X[s0], y0=y[s0], X_stream=X[s1], y_stream=y[s1],
        X_test=X[N0 + N_STREAM :], y_test=y[N0 + N_STREAM :],
        tolerance=0.25 * float(y[s1].std()),
    )  # fmt: skip
