"""Inputs: column names checked on every call, dict samples, a preprocessor for raw rows, and
scikit-learn's estimator conventions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone, is_classifier
from sklearn.compose import make_column_transformer
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

import cbeal
from cbeal import CbeAL, InvalidInputError, SimulatedStream, simulate


def frames(stream: SimulatedStream) -> tuple[pd.DataFrame, pd.DataFrame]:
    cols = [f"sensor_{i}" for i in range(stream.X0.shape[1])]
    return pd.DataFrame(stream.X0, columns=cols), pd.DataFrame(stream.X_stream, columns=cols)


def model(**kw: Any) -> CbeAL:
    params: dict[str, Any] = {
        "estimator": LogisticRegression(),
        "budget": 30,
        "random_state": 0,
        **kw,
    }
    return CbeAL.from_preset("CBEAL-6", **params)


def test_feature_names_are_recorded_and_checked(stream: SimulatedStream) -> None:
    X0, Xs = frames(stream)
    m = model().fit(X0, stream.y0)
    assert list(m.feature_names_in_) == list(X0.columns)
    proba = m.predict_proba(Xs.iloc[:5])
    np.testing.assert_array_equal(proba, m.predict_proba(Xs.to_numpy()[:5]))  # by position
    reordered = Xs[list(reversed(Xs.columns))]
    with pytest.raises(InvalidInputError, match="another order"):
        m.predict_proba(reordered.iloc[:5])
    with pytest.raises(InvalidInputError, match=r"missing \['sensor_3'\]"):
        m.query_one(Xs.drop(columns="sensor_3").iloc[0])
    with pytest.raises(InvalidInputError, match=r"not seen at fit \['extra'\]"):
        m.query_many(Xs.assign(extra=1.0).iloc[:3])
    assert m.t_ == 0  # refused calls decided nothing


def test_dict_samples_follow_the_names(stream: SimulatedStream) -> None:
    X0, Xs = frames(stream)
    a = model().fit(X0, stream.y0)
    b = model().fit(X0, stream.y0)
    for i in range(30):
        row = Xs.iloc[i].to_dict()
        shuffled = dict(reversed(list(row.items())))  # a dict's order carries no meaning
        assert a.query_one(row).p_acquire == b.query_one(Xs.to_numpy()[i]).p_acquire
        assert a.query_one(shuffled).acquire == b.query_one(Xs.to_numpy()[i]).acquire
    plain = model().fit(stream.X0, stream.y0)
    with pytest.raises(InvalidInputError, match="needs column names"):
        plain.query_one(row)


def test_a_preprocessor_takes_raw_rows_with_gaps_and_text(stream: SimulatedStream) -> None:
    X0, Xs = frames(stream)
    rng = np.random.default_rng(0)
    raw0, raw = X0.copy(), Xs.copy()
    raw0["tool"] = rng.choice(["A", "B"], len(raw0))
    raw["tool"] = rng.choice(["A", "B", "C"], len(raw))
    raw.loc[raw.index[::7], "sensor_2"] = np.nan
    numeric = [c for c in raw.columns if c != "tool"]
    pre = make_column_transformer(
        (make_pipeline(SimpleImputer(), StandardScaler()), numeric),
        (OneHotEncoder(handle_unknown="ignore"), ["tool"]),
    )
    m = model(preprocessor=pre).fit(raw0, stream.y0)
    assert pre is m.get_params()["preprocessor"]  # the user's object is cloned, not fitted
    with pytest.raises(SklearnNotFittedError):
        check_is_fitted(pre)
    trace = simulate(m, raw, stream.y_stream)
    assert trace.n_acquired > 0
    assert m.transform(raw.iloc[:3]).shape == (3, len(numeric) + 2)
    d = m.query_one(raw.iloc[0].to_dict())
    assert np.isfinite(d.proba).all()
    assert get_tags(m).input_tags.allow_nan


def test_a_fitted_preprocessor_is_used_as_it_is(stream: SimulatedStream) -> None:
    scaler = StandardScaler().fit(stream.X_stream)  # fitted on unlabelled history
    m = model(preprocessor=scaler).fit(stream.X0, stream.y0)
    np.testing.assert_allclose(m.transform(stream.X0), scaler.transform(stream.X0))


def test_without_a_preprocessor_nan_is_refused(stream: SimulatedStream) -> None:
    m = model().fit(stream.X0, stream.y0)
    x = stream.X_stream[0].copy()
    x[3] = np.nan
    with pytest.raises(InvalidInputError, match="NaN"):
        m.query_one(x)


# ---------------------------------------------------------------- scikit-learn conventions
def test_clone_get_params_deep_and_nested_set_params() -> None:
    m = model(estimator=LogisticRegression(C=2.0))
    twin = clone(m)
    assert type(twin) is CbeAL and twin is not m and twin.estimator is not m.estimator
    assert twin.get_params()["estimator__C"] == 2.0
    deep = m.get_params(deep=True)
    assert "estimator__C" in deep and "estimator" in deep
    assert "agents" in m.get_params(deep=False) and "estimator__C" not in m.get_params(deep=False)
    m.set_params(estimator__C=0.1, epsilon=0.05)
    assert m.estimator.C == 0.1 and m.epsilon == 0.05
    with pytest.raises(cbeal.ParameterError, match="no parameter 'nonsense'"):
        m.set_params(nonsense__C=1)


def test_classifier_tags_and_fitted_check(stream: SimulatedStream) -> None:
    m = model()
    assert is_classifier(m)
    with pytest.raises(SklearnNotFittedError):
        check_is_fitted(m)
    with pytest.raises(SklearnNotFittedError, match="call fit"):
        m.predict(stream.X_test)
    with pytest.raises(cbeal.NotFittedError):
        m.query_one(stream.X_test[0])
    m.fit(stream.X0, stream.y0)
    check_is_fitted(m)
    assert get_tags(m).estimator_type == "classifier"


def test_the_fast_impute_scale_path_equals_scikit_learn() -> None:
    from cbeal.datasets import load_secom
    from cbeal.learners.preprocess import fit_preprocessor, impute_scale_arrays

    X = load_secom().X  # gaps, constant and empty columns
    pre = fit_preprocessor(X[:800])
    fast = impute_scale_arrays(pre)
    assert fast is not None
    fill, mean, scale = fast
    np.testing.assert_array_equal((np.where(np.isnan(X), fill, X) - mean) / scale, pre.transform(X))
    m = model(preprocessor=pre).fit(X[:30], (np.arange(30) % 2))
    np.testing.assert_array_equal(m.transform(X[30:60]), pre.transform(X[30:60]))
    assert impute_scale_arrays(StandardScaler().fit(X[:5, :3])) is None  # anything else
