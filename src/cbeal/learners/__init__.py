"""The learner layer: the only part of cbeal that knows scikit-learn.

:class:`PlattSVC` is the paper's base learner (an RBF SVM with libsvm's Platt scaling) that
keeps working after scikit-learn 1.11 removes ``SVC(probability=True)``;
:mod:`cbeal.learners.factories` builds the learners that :mod:`cbeal.catalog` names
(``svm``, ``logreg``, …); :class:`LearnerAdapter` wraps any classifier with
``predict_proba`` for the stream models; :func:`fit_preprocessor` imputes and scales real
line data; :class:`CommitteeAgent` asks where bootstrap refits of a learner disagree (an
agent that refits estimators, so it lives here). For regressors: :class:`BootstrapRegressor`
gives any regressor a predictive spread, :class:`RegressionAdapter` wraps one for the
stream models, and :class:`CommitteeVarianceAgent` / :class:`ExpectedChangeAgent` (EMCM)
are the committee agents of regression streams.
"""

from cbeal.learners.adapter import LearnerAdapter
from cbeal.learners.committee import CommitteeAgent
from cbeal.learners.platt_svm import PlattSVC
from cbeal.learners.preprocess import fit_preprocessor
from cbeal.learners.regression import (
    BootstrapRegressor,
    QuantilePairRegressor,
    RegressionAdapter,
)
from cbeal.learners.regression_committee import CommitteeVarianceAgent, ExpectedChangeAgent

__all__ = [
    "BootstrapRegressor",
    "CommitteeAgent",
    "CommitteeVarianceAgent",
    "ExpectedChangeAgent",
    "LearnerAdapter",
    "PlattSVC",
    "QuantilePairRegressor",
    "RegressionAdapter",
    "fit_preprocessor",
]
