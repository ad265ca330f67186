"""scikit-learn's own estimator checks (sklearn.utils.estimator_checks) on the stream models.

A stream model fitted on ``D0`` is a probabilistic classifier of that set (``fit``,
``predict``, ``predict_proba``) and a transformer (``transform``: the features the agents
see), so scikit-learn's checks apply, and all pass but the ones listed in EXPECTED.
"""

from __future__ import annotations

import warnings

import pytest
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.utils.estimator_checks import check_estimator
from threadpoolctl import threadpool_limits

from cbeal import CbeAL, SingleAgentLearner
from cbeal.core import ReinforcedAgent

# the checks that do not apply, and why (README: "scikit-learn")
EXPECTED = {
    "check_fit_score_takes_y": "fit(X0, y0) names its arguments after D0, the initial labelled "
    "set; they are passed by position as everywhere in scikit-learn",
    "check_dtype_object": "a non-numeric object in X raises cbeal's InvalidInputError (a "
    "ValueError, like every input error), not a TypeError",
}


def models() -> list[tuple[str, object]]:
    est = LogisticRegression()
    return [
        ("CbeAL", CbeAL.from_preset("CBEAL-4", estimator=est, budget=10, random_state=0)),
        (
            "CbeAL+preprocessor",
            CbeAL.from_preset(
                "CBEAL-2", estimator=est, budget=10, preprocessor=SimpleImputer(), random_state=0
            ),
        ),
        (
            "SingleAgentLearner",
            SingleAgentLearner(agent=ReinforcedAgent(), estimator=est, budget=10, random_state=0),
        ),
    ]


@pytest.mark.parametrize(("name", "model"), models(), ids=[n for n, _ in models()])
def test_scikit_learn_estimator_checks(name: str, model: object) -> None:
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore")  # the checks provoke warnings on purpose
        results = check_estimator(model, expected_failed_checks=EXPECTED, on_fail=None)
    by_status: dict[str, set[str]] = {}
    for r in results:
        by_status.setdefault(r["status"], set()).add(r["check_name"])
    failed = {
        r["check_name"]: str(r["exception"])[:300] for r in results if r["status"] == "failed"
    }
    assert not failed, failed
    assert len(by_status["passed"]) >= 50
    # an expected failure that now passes must leave EXPECTED (it would hide a regression)
    assert by_status.get("xfail", set()) <= set(EXPECTED)
    assert "check_fit_score_takes_y" in by_status["xfail"]


def test_tags_follow_the_preprocessor() -> None:
    from scipy import sparse
    from sklearn.preprocessing import MaxAbsScaler
    from sklearn.utils import get_tags

    class Plain:  # a duck-typed transformer, without scikit-learn's tags
        def fit(self, X: object, y: object = None) -> Plain:
            return self

        def transform(self, X: object) -> object:
            return X

    def model(pre: object) -> CbeAL:
        return CbeAL.from_preset(
            "CBEAL-2", estimator=LogisticRegression(), budget=5, preprocessor=pre, random_state=0
        )

    assert not get_tags(model(None)).input_tags.sparse
    assert not get_tags(model(Plain())).input_tags.sparse
    takes_sparse = model(MaxAbsScaler())
    assert get_tags(takes_sparse).input_tags.sparse
    X = sparse.random(30, 4, density=0.5, random_state=0, format="csr")
    m = takes_sparse.fit(X, [0, 1] * 15)  # the preprocessor takes it, the agents get dense rows
    assert m.transform(X[:3]).shape == (3, 4)
    with pytest.raises(ValueError, match="sparse input is not supported"):
        model(None).fit(X, [0, 1] * 15)
