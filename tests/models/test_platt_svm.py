"""Tests of PlattSVC, the Platt-scaled SVM that replaces the deprecated SVC(probability=True)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, sparse
from sklearn.datasets import load_breast_cancer, load_iris, make_classification
from sklearn.metrics.pairwise import pairwise_kernels, rbf_kernel
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from cbeal.learners.platt_svm import PlattSVC, _couple, _fit_sigmoid, _platt_objective

_BY_DESIGN = {
    # predict is the argmax of the calibrated probabilities; the Platt sigmoid re-estimates
    # the threshold from the actual labels and so undoes the shift that an extreme
    # class_weight={0: 1000, 1: 1e-4} puts on the SVM's decision threshold.
    # SVC(probability=True).predict_proba's argmax fails this check the same way.
    "check_class_weight_classifiers": "probabilities are calibrated, undoing class_weight",
}


def _expected_failures(estimator: PlattSVC) -> dict[str, str]:
    failures = dict(_BY_DESIGN)
    if estimator.kernel == "linear":
        # predict (argmax of proba, threshold where P = 0.5) differs from the sign of the
        # decision function on 1 of 200 training points of this check; PlattSVC() passes.
        failures["check_classifiers_train"] = "predict follows predict_proba, not the sign of f"
    return failures


@parametrize_with_checks(
    [PlattSVC(), PlattSVC(kernel="linear", class_weight="balanced", cv=3)],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_estimator_checks(estimator: PlattSVC, check: object) -> None:
    check(estimator)  # type: ignore[operator]


def _binary(n: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    return make_classification(n_samples=n, n_features=10, flip_y=0.05, random_state=seed)


def _three_class() -> tuple[np.ndarray, np.ndarray]:
    return make_classification(
        n_samples=150, n_features=6, n_informative=4, n_classes=3, random_state=2
    )


def _breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    data = load_breast_cancer()
    return StandardScaler().fit_transform(data.data[:200]), data.target[:200]


def _reference_svc(X: np.ndarray, y: np.ndarray, seed: int) -> SVC:
    """libsvm's own Platt scaling; deprecated in scikit-learn 1.9, removed in 1.11."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            return SVC(probability=True, random_state=seed).fit(X, y)
        except (TypeError, ValueError):  # pragma: no cover - scikit-learn >= 1.11
            pytest.skip("SVC(probability=True) is no longer available")


def _svc_proba(X: np.ndarray, y: np.ndarray, seed: int) -> np.ndarray:
    svc = _reference_svc(X, y, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return np.asarray(svc.predict_proba(X))


# ---------------------------------------------------------------- the sigmoid (Platt / LLW)


def test_sigmoid_recovers_known_parameters() -> None:
    # labels drawn from P(y=1|f) = 1/(1+exp(A f + B)); the MLE is within a few asymptotic
    # standard errors sqrt(diag(I^-1)) of the truth. With n = 200 000 the prior-corrected
    # targets differ from 0/1 by 5e-6, a bias far below the standard error (~0.01).
    rng = np.random.default_rng(0)
    true_a, true_b, n = -1.7, 0.4, 200_000
    f = rng.normal(0.0, 2.0, n)
    p = 1.0 / (1.0 + np.exp(true_a * f + true_b))
    positive = rng.random(n) < p
    a, b = _fit_sigmoid(f, positive)
    w = p * (1 - p)
    fisher = np.array([[w @ (f * f), w @ f], [w @ f, w.sum()]])
    se = np.sqrt(np.diag(np.linalg.inv(fisher)))
    assert abs(a - true_a) < 5 * se[0]
    assert abs(b - true_b) < 5 * se[1]


def test_sigmoid_symmetric_separable_case_by_hand() -> None:
    # f = -2, -1, 1, 2 with positives f > 0: targets 3/4 and 1/4 (not 1 and 0), so A stays
    # finite; by symmetry B = 0 and A solves sum f (t - p(f)) = 0.
    f = np.array([-2.0, -1.0, 1.0, 2.0])
    positive = f > 0
    a, b = _fit_sigmoid(f, positive)

    def grad_a(a_: float) -> float:
        return float(np.sum(f * (np.where(positive, 0.75, 0.25) - 1 / (1 + np.exp(a_ * f)))))

    assert b == pytest.approx(0.0, abs=1e-5)
    assert a == pytest.approx(optimize.brentq(grad_a, -20.0, -1e-3), abs=1e-5)


def test_sigmoid_minimises_the_platt_objective() -> None:
    rng = np.random.default_rng(1)
    f = rng.normal(0, 1.5, 40)
    positive = rng.random(40) < 1 / (1 + np.exp(-2 * f))
    n_pos = positive.sum()
    target = np.where(positive, (n_pos + 1) / (n_pos + 2), 1 / (40 - n_pos + 2))
    a, b = _fit_sigmoid(f, positive)
    ref = optimize.minimize(
        lambda v: _platt_objective(f, target, v[0], v[1]),
        [0.0, 0.0],
        method="Nelder-Mead",
        options={"xatol": 1e-8, "fatol": 1e-12},
    )
    assert np.allclose([a, b], ref.x, atol=1e-4)


# ---------------------------------------------------------------- pairwise coupling (WLW)


def test_coupling_recovers_consistent_pairwise_probabilities() -> None:
    # if r_ij = p_i / (p_i + p_j) exactly, every term (r_ji p_i - r_ij p_j) vanishes at p
    p = np.array([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]])
    pairs = [(0, 1), (0, 2), (1, 2)]
    r = np.column_stack([p[:, i] / (p[:, i] + p[:, j]) for i, j in pairs])
    assert np.allclose(_couple(r, 3), p, atol=1e-12)


def test_coupling_matches_the_iterative_method_of_the_paper() -> None:
    rng = np.random.default_rng(3)
    k = 4
    r = rng.uniform(0.05, 0.95, (5, k * (k - 1) // 2))
    got = _couple(r, k)
    for row, r_row in zip(got, r, strict=True):
        rr = np.full((k, k), np.nan)
        q = 0
        for i in range(k):
            for j in range(i + 1, k):
                rr[i, j], rr[j, i] = r_row[q], 1 - r_row[q]
                q += 1
        Q = np.array(
            [
                [
                    sum(rr[s, t] ** 2 for s in range(k) if s != t)
                    if t == j
                    else -rr[j, t] * rr[t, j]
                    for j in range(k)
                ]
                for t in range(k)
            ]
        )
        p = np.full(k, 1 / k)
        for _ in range(2000):  # Wu-Lin-Weng (2004) fixed-point update, one coordinate at a time
            for t in range(k):
                qp = Q @ p
                p[t] += (p @ qp - qp[t]) / Q[t, t]
                p /= p.sum()
        assert np.allclose(row, p, atol=1e-8)
        assert row.min() >= 0 and row.sum() == pytest.approx(1.0)


# ---------------------------------------------------------------- the classifier


@pytest.mark.parametrize("data", [_binary, _three_class, lambda: load_iris(return_X_y=True)])
def test_probabilities_are_valid(data: object) -> None:
    X, y = data()  # type: ignore[operator]
    clf = PlattSVC(random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), len(np.unique(y)))
    assert proba.min() >= 0 and proba.max() <= 1
    assert np.allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert np.array_equal(clf.predict(X), clf.classes_[proba.argmax(axis=1)])
    assert np.array_equal(clf.decision_function(X), clf.svc_.decision_function(X))


@pytest.mark.parametrize(
    "data", [_binary, _breast_cancer, _three_class, lambda: load_iris(return_X_y=True)]
)
def test_agrees_with_svc_probability_true(data: object) -> None:
    # Same method, different fold permutations (libsvm's own rand vs numpy), so not exact.
    # Over 10 seeds, SVC(probability=True) differs from itself with another random_state by
    # a mean |dp| of up to 0.019 on these data, and PlattSVC from SVC by up to the same 0.019;
    # 0.03 leaves room for that permutation noise and catches any systematic error (a
    # flipped sign or wrong target gives > 0.1).
    X, y = data()  # type: ignore[operator]
    ours = PlattSVC(random_state=0).fit(X, y).predict_proba(X)
    ref = _svc_proba(X, y, seed=0)
    assert np.abs(ours - ref).mean() < 0.03
    assert np.mean(ours.argmax(axis=1) == ref.argmax(axis=1)) >= 0.95


def test_sigmoid_parameters_follow_svc_convention() -> None:
    X, y = _breast_cancer()
    svc = _reference_svc(X, y, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # the attributes are deprecated too
        ref_a, ref_b = svc.probA_, svc.probB_
    ours = PlattSVC(random_state=0).fit(X, y)
    # same sign and size (A ~ -3.7 on these data; over 20 seeds both implementations give
    # A = -3.76 +- 0.07 and B = -0.3 +- 0.06, so the bounds are ~4 standard deviations)
    assert ours.probA_ == pytest.approx(ref_a, abs=0.3)
    assert ours.probB_ == pytest.approx(ref_b, abs=0.25)


@pytest.mark.parametrize("labels", [np.array(["no", "yes"]), np.array(["a", "b", "c"])])
def test_string_labels(labels: np.ndarray) -> None:
    X, y = _binary() if labels.size == 2 else _three_class()
    clf_int = PlattSVC(random_state=0).fit(X, y)
    clf_str = PlattSVC(random_state=0).fit(X, labels[y].astype(object))
    assert list(clf_str.classes_) == list(labels)
    assert np.array_equal(clf_str.predict_proba(X), clf_int.predict_proba(X))
    assert np.array_equal(clf_str.predict(X), labels[clf_int.predict(X)])


def test_determinism() -> None:
    X, y = _three_class()
    first = PlattSVC(random_state=7).fit(X, y).predict_proba(X)
    again = PlattSVC(random_state=7).fit(X, y).predict_proba(X)
    other = PlattSVC(random_state=8).fit(X, y).predict_proba(X)
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)  # the seed really drives the folds
    rs_first = PlattSVC(random_state=np.random.RandomState(7)).fit(X, y).predict_proba(X)
    assert np.array_equal(rs_first, first)


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_batch_equals_row_by_row_bitwise(n_classes: int) -> None:
    X, y = make_classification(
        n_samples=80, n_features=8, n_informative=5, n_classes=n_classes, random_state=n_classes
    )
    clf = PlattSVC(random_state=0).fit(X[:50], y[:50])
    queries = np.random.default_rng(1).normal(0, 2, (67, 8))
    batch = clf.predict_proba(queries)
    rows = np.vstack([clf.predict_proba(queries[i : i + 1]) for i in range(len(queries))])
    chunks = np.vstack([clf.predict_proba(queries[i : i + 9]) for i in range(0, 67, 9)])
    assert np.array_equal(batch, rows)
    assert np.array_equal(batch, chunks)
    assert np.array_equal(
        clf.predict(queries),
        np.concatenate([clf.predict(queries[i : i + 1]) for i in range(len(queries))]),
    )


def test_single_class_raises() -> None:
    X = np.random.default_rng(0).normal(size=(6, 3))
    with pytest.raises(ValueError, match="at least two classes"):
        PlattSVC().fit(X, np.ones(6))


@pytest.mark.parametrize("cv", [1, 0, 2.5, True])
def test_bad_cv_raises(cv: object) -> None:
    X, y = _binary(20)
    with pytest.raises(ValueError, match="cv"):
        PlattSVC(cv=cv).fit(X, y)  # type: ignore[arg-type]


@pytest.mark.parametrize("y", [[0, 0, 0, 1], [0, 1], [0, 0, 1, 1], [0, 0, 1, 2, 2, 2]])
def test_tiny_data(y: list[int]) -> None:
    X = np.random.default_rng(0).normal(size=(len(y), 3))
    proba = PlattSVC(random_state=0).fit(X, y).predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0) and proba.min() >= 0


class _FixedPermutation:
    def __init__(self, perm: list[int]) -> None:
        self.perm = np.array(perm)

    def permutation(self, n: int) -> np.ndarray:
        assert n == self.perm.size
        return self.perm


def test_single_class_fold_gets_libsvm_constant() -> None:
    # 2 samples of class i among 10, cv=5: fold 0 tests both, so its training part holds only
    # class j and every test decision value is the constant -1 (+1 in the mirrored case).
    X = np.random.default_rng(0).normal(size=(10, 2))
    is_i = np.array([1, 1, 0, 0, 0, 0, 0, 0, 0, 0])
    clf = PlattSVC(cv=5)
    gram = rbf_kernel(X, gamma=0.5)
    perm = _FixedPermutation([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    dec = clf._cv_decisions(gram, is_i, None, perm)
    assert np.array_equal(dec[:2], [-1.0, -1.0])
    dec = clf._cv_decisions(gram, 1 - is_i, None, perm)
    assert np.array_equal(dec[:2], [1.0, 1.0])


def test_one_sample_class_uses_in_sample_decisions() -> None:
    X = np.random.default_rng(0).normal(size=(6, 2))
    is_i = np.array([0, 0, 1, 0, 0, 0])
    gram = rbf_kernel(X, gamma=0.5)
    dec = PlattSVC()._cv_decisions(gram, is_i, None, np.random.RandomState(0))
    ref = SVC(kernel="precomputed").fit(gram, is_i).decision_function(gram)
    assert np.allclose(dec, ref, atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf", "sigmoid"])
def test_gram_fast_path_matches_sklearn(kernel: str) -> None:
    X = np.random.default_rng(0).normal(size=(30, 5))
    clf = PlattSVC(kernel=kernel, degree=2, coef0=0.5)
    ref = pairwise_kernels(X, metric=kernel, filter_params=True, gamma=0.1, degree=2, coef0=0.5)
    assert np.allclose(clf._gram(X, 0.1), ref, rtol=1e-12, atol=1e-12)


def test_precomputed_callable_and_sparse_agree_with_rbf() -> None:
    X, y = _three_class()
    gamma = 0.1
    base = PlattSVC(gamma=gamma, random_state=0).fit(X, y).predict_proba(X)
    pre = PlattSVC(kernel="precomputed", random_state=0).fit(rbf_kernel(X, gamma=gamma), y)
    call = PlattSVC(kernel=lambda a, b: rbf_kernel(a, b, gamma=gamma), random_state=0).fit(X, y)
    spar = PlattSVC(gamma=gamma, random_state=0).fit(sparse.csr_matrix(X), y)
    # only kernel rounding differs (libsvm vs sklearn computing exp(-g |x - z|^2))
    assert np.allclose(pre.predict_proba(rbf_kernel(X, X, gamma=gamma)), base, atol=1e-6)
    assert np.allclose(call.predict_proba(X), base, atol=1e-6)
    assert np.allclose(spar.predict_proba(sparse.csr_matrix(X)), base, atol=1e-6)


def test_pickle_roundtrip_multiclass() -> None:
    X, y = _three_class()
    clf = PlattSVC(random_state=0).fit(X, y)
    assert np.array_equal(pickle.loads(pickle.dumps(clf)).predict_proba(X), clf.predict_proba(X))


@settings(max_examples=25, deadline=None)
@given(
    counts=st.lists(st.integers(1, 7), min_size=2, max_size=4),
    n_features=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_random_small_pools(counts: list[int], n_features: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(counts)), counts)
    X = rng.normal(size=(y.size, n_features)) + y[:, None]
    clf = PlattSVC(random_state=seed).fit(X, y)
    queries = rng.normal(0, 2, (5, n_features))
    proba = clf.predict_proba(queries)
    assert proba.min() >= 0 and np.allclose(proba.sum(axis=1), 1.0)
    rows = np.vstack([clf.predict_proba(queries[i : i + 1]) for i in range(5)])
    assert np.array_equal(proba, rows)


def test_fast_fold_fit_equals_public_svc() -> None:
    """The fold SVMs' fast path gives exactly what SVC(kernel="precomputed") gives."""
    from sklearn.svm import SVC

    from cbeal.learners import platt_svm

    rng = np.random.default_rng(3)
    for weights in (None, {0: 1.0, 1: 5.0}):
        X = rng.normal(size=(60, 4))
        y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0.3).astype(np.int64)
        gram = np.exp(-0.25 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
        fast = platt_svm._fast_binary_fit(gram, y, 1.0, 1e-3, weights)
        assert fast is not None
        svc = SVC(kernel="precomputed", class_weight=weights).fit(gram, y)
        np.testing.assert_array_equal(fast[0], svc.support_)
        np.testing.assert_array_equal(fast[1], svc.dual_coef_[0])
        assert fast[2] == svc.intercept_[0]
