"""The learner layer: the only part of cbeal that knows scikit-learn.

:class:`PlattSVC` is the paper's base learner (an RBF SVM with libsvm's Platt scaling) that
keeps working after scikit-learn 1.11 removes ``SVC(probability=True)``;
:mod:`cbeal.learners.factories` builds the learners that :mod:`cbeal.catalog` names
(``svm``, ``logreg``, …); :class:`LearnerAdapter` wraps any classifier with
``predict_proba`` for the stream models; :func:`fit_preprocessor` imputes and scales real
line data; :class:`CommitteeAgent` asks where bootstrap refits of a learner disagree (an
agent that refits estimators, so it lives here).
"""

from cbeal.learners.adapter import LearnerAdapter
from cbeal.learners.committee import CommitteeAgent
from cbeal.learners.platt_svm import PlattSVC
from cbeal.learners.preprocess import fit_preprocessor

__all__ = ["CommitteeAgent", "LearnerAdapter", "PlattSVC", "fit_preprocessor"]
