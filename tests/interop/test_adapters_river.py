"""The river adapter, run with the real river: progressive validation with delayed labels,
labels by sample (late, out of order), river classifiers as cbeal's learner, model files."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from cbeal import CbeAL, DecisionError, ModelFileError
from cbeal.core import RATE_BURST

river = pytest.importorskip("river")
from river import compose, datasets, evaluate, linear_model, metrics, preprocessing  # noqa: E402
from river.checks import common  # noqa: E402

from cbeal.adapters.river import CbealActiveClassifier, RiverClassifier  # noqa: E402

N = 300


def sea(n: int = N) -> list[tuple[dict[int, float], bool]]:
    # river's synthetic SEA stream (features keyed 0, 1, 2); river's bundled real-world data
    # sets are kept for outside evaluation
    return list(datasets.synth.SEA(seed=0).take(n))


def cbeal_model(estimator: Any = None, **kw: Any) -> CbeAL:
    # liblinear: ten times faster than lbfgs on these tiny pools
    params: dict[str, Any] = {
        "estimator": estimator or LogisticRegression(solver="liblinear"),
        "budget": 0.1,
        "random_state": 0,
        **kw,
    }
    return CbeAL.from_preset("CBEAL-4", **params)


def river_learner() -> RiverClassifier:
    return RiverClassifier(
        model=compose.Pipeline(preprocessing.StandardScaler(), linear_model.LogisticRegression())
    )


@pytest.mark.parametrize("delay", [None, 7])
def test_progressive_validation_asks_within_budget_and_learns_every_asked_label(
    delay: int | None,
) -> None:
    model = CbealActiveClassifier(model=cbeal_model(), initial=10)
    steps = list(
        evaluate.iter_progressive_val_score(
            datasets.synth.SEA(seed=0).take(N), model, metrics.Accuracy(), delay=delay, step=N
        )
    )
    last = steps[-1]
    fitted = model.model_
    assert last["Step"] == N
    # river recognised an active learner: it learned only the asked samples, all of them
    assert last["Samples used"] == model.n_asked_ == 10 + fitted.budget_used_
    assert fitted.pending == () and fitted.n_labels_ == fitted.budget_used_
    assert 0 < fitted.budget_used_ <= 0.1 * fitted.t_ + RATE_BURST  # the rate's token bucket
    assert last["Accuracy"].get() > 0.7
    if delay is None:
        assert fitted.t_ == N - 10  # each label arrives before the next sample
    else:  # the samples seen while D0's last labels were on their way got no decision
        assert N - 10 - delay <= fitted.t_ < N - 10


def test_same_decisions_as_cbeal_driven_by_hand() -> None:
    data = sea()
    wrapper = CbealActiveClassifier(model=cbeal_model(), initial=10)
    for x, y in data[:10]:
        assert wrapper.predict_one(x) == (None, True)
        wrapper.learn_one(x, y)
    # by hand, features need string names (SEA keys them 0, 1, 2; the wrapper names them)
    named = [{str(k): v for k, v in x.items()} for x, _ in data]
    direct = cbeal_model().fit(pd.DataFrame(named[:10]), [y for _, y in data[:10]])
    for (x, y), x_named in zip(data[10:], named[10:], strict=True):
        y_pred, ask = wrapper.predict_one(x)
        d = direct.query_one(x_named)
        assert (y_pred, ask) == (d.y_pred, d.acquire)
        if ask:
            wrapper.learn_one(x, y)
            direct.learn_one(x_named, y, decision=d)
    assert direct.n_labels_ > 5
    np.testing.assert_array_equal(wrapper.model_.weights_, direct.weights_)


@pytest.mark.filterwarnings("ignore::cbeal.SingleClassWarning")  # D0 of 4: one class
def test_labels_arrive_late_out_of_order_and_for_repeated_samples() -> None:
    data = sea(120)
    model = CbealActiveClassifier(model=cbeal_model(budget=0.5, classes=[False, True]), initial=4)
    for x, _ in data[:4]:
        model.predict_one(x)
    assert model.predict_one(data[4][0]) == (None, False)  # D0 asked, labels not in yet
    for x, y in reversed(data[:4]):
        model.learn_one(dict(x), y)  # a copy, as river's evaluation hands over
    asked = []
    for x, y in data[5:] + data[5:40]:  # the tail repeats samples: same content, two asks
        if model.predict_one(x)[1]:
            asked.append((x, y))
    keys = [tuple(sorted(x.items())) for x, _ in asked]
    assert len(keys) > len(set(keys))  # some sample was asked twice
    pending = model.model_.pending
    assert len(pending) == len(asked)
    for x, y in reversed(asked):
        model.learn_one(x, y)
    assert model.model_.pending == ()
    assert model.model_.n_labels_ == len(asked)
    with pytest.raises(DecisionError, match="not asked for"):
        model.learn_one(asked[0][0], asked[0][1])  # already delivered


def test_a_sample_that_was_not_asked_for_is_refused() -> None:
    data = sea(80)
    model = CbealActiveClassifier(model=cbeal_model(budget=2), initial=5)
    for x, y in data[:5]:
        model.predict_one(x)
        model.learn_one(x, y)
    skipped = next(x for x, _ in data[5:] if not model.predict_one(x)[1])
    before = model.model_.n_labels_
    with pytest.raises(DecisionError, match="not asked for"):
        model.learn_one(skipped, True)
    assert model.model_.n_labels_ == before


def test_wrapper_pickles_mid_stream_and_continues_identically() -> None:
    data = sea(200)
    model = CbealActiveClassifier(model=cbeal_model(), initial=10)
    for x, y in data[:100]:
        if model.predict_one(x)[1]:
            model.learn_one(x, y)
    twin = pickle.loads(pickle.dumps(model))
    for x, y in data[100:]:
        a, b = model.predict_one(x), twin.predict_one(x)
        assert a == b
        if a[1]:
            model.learn_one(x, y)
            twin.learn_one(x, y)


def test_river_conventions() -> None:
    # river's own general checks (the dataset checks assume a passive learner)
    model = CbealActiveClassifier(**next(CbealActiveClassifier._unit_test_params()))
    checks = (
        common.check_repr,
        common.check_str,
        common.check_clone_same_class,
        common.check_clone_is_idempotent,
        common.check_init_has_default_params_for_tests,
        common.check_doc,
        common.check_clone_changes_memory_addresses,
        common.check_pickling_supports_roundtrip,
        common.check_get_params_matches_signature,
    )
    for check in checks:
        check(model)
    assert model.clone().model is not model.model  # the template is copied, never shared


# ---------------------------------------------------------------- river learner
def test_refit_by_replay_is_the_incremental_model() -> None:
    data = sea(150)
    X = np.array([[x[k] for k in data[0][0]] for x, _ in data])
    y = np.array([label for _, label in data])
    fitted = river_learner().fit(X, y)
    incremental = river_learner().model.clone()
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        incremental.learn_one(dict(enumerate(row)), label)
    expected = [incremental.predict_proba_one(dict(enumerate(r)))[True] for r in X.tolist()]
    np.testing.assert_allclose(fitted.predict_proba(X)[:, 1], expected)
    assert fitted.classes_.tolist() == [False, True]
    with pytest.raises(Exception, match="not fitted"):
        river_learner().predict_proba(X)


def test_a_river_classifier_as_cbeal_learner_in_a_river_loop() -> None:
    model = CbealActiveClassifier(model=cbeal_model(estimator=river_learner()), initial=10)
    metric = evaluate.progressive_val_score(
        datasets.synth.SEA(seed=0).take(N), model, metrics.Accuracy(), delay=3
    )
    assert metric.get() > 0.75
    assert model.model_.learner_version == model.model_.n_labels_ + 1  # refit per label
    assert isinstance(model.model_.estimator_, RiverClassifier)


def test_model_with_a_river_learner_saves_and_loads_with_trusted_river_types(
    tmp_path: Path,
) -> None:
    data = sea(200)
    X = pd.DataFrame([x for x, _ in data])
    y = np.array([label for _, label in data])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = cbeal_model(estimator=river_learner()).fit(X.iloc[:10], y[:10])
    for i in range(10, 120):
        d = model.query_one(X.iloc[i])
        if d.acquire:
            model.learn_one(None, y[i], decision=d)
    path = model.save(tmp_path / "line.cbeal")
    with pytest.raises(ModelFileError, match=r"not trusted: .*river\."):
        CbeAL.load(path)
    trusted = [t for t in _untrusted(path)]
    assert all(t.startswith(("river.", "collections.")) for t in trusted)
    again = CbeAL.load(path, trusted=trusted)
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    for i in range(120, 200):
        a, b = model.query_one(X.iloc[i]), again.query_one(X.iloc[i])
        assert (a.acquire, a.p_acquire) == (b.acquire, b.p_acquire)
        if a.acquire:
            model.learn_one(None, y[i], decision=a)
            again.learn_one(None, y[i], decision=b)
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def _untrusted(path: Path) -> list[str]:
    import zipfile

    import skops.io

    with zipfile.ZipFile(path) as zf:
        blobs = [zf.read(n) for n in zf.namelist() if n.endswith(".skops")]
    return sorted({t for b in blobs for t in skops.io.get_untrusted_types(data=b)})
