"""The regression study (issue 20, studies/REGRESSION.md): fixed workloads, the label ratio, and the
preset chosen in round 2 as a user gets it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.linear_model import BayesianRidge

from cbeal import CbeAL, simulate


def test_benchmark_workloads_are_fixed_and_the_parts_disjoint() -> None:
    from cbeal_studies.regression.workloads import DEV, EVAL, load_workload

    assert not set(DEV) & set(EVAL) and len(DEV) == len(EVAL) == 5
    a, b = load_workload("paper-reg-v1", 0), load_workload("paper-reg-v1", 0)
    np.testing.assert_array_equal(a.y_stream, b.y_stream)
    assert a.X_stream.shape == (1000, 15) and a.X_test.shape == (500, 15)
    assert a.tolerance == pytest.approx(0.25 * a.y_stream.std())
    assert not np.array_equal(load_workload("paper-reg-v1", 1).y0, a.y0)


def test_label_ratio_counts_labels_to_reach_and_stay_at_rs_final_rmse() -> None:
    from cbeal_studies.regression.report import label_ratio

    rs = [{"final": {"rmse": 1.0}, "labels": 100, "curve": [[0, 2.0], [50, 1.2], [100, 1.0]]}]
    fast = [{"curve": [[0, 2.0], [50, 0.9], [100, 0.8]]}]
    dips = [{"curve": [[0, 2.0], [50, 0.9], [100, 1.1]]}]
    assert label_ratio(fast, rs) == 0.5
    assert label_ratio(rs, rs) == 1.0
    assert label_ratio(dips, rs) == math.inf


def test_the_regression_preset_is_the_chosen_candidate_as_a_user_gets_it() -> None:
    from cbeal_studies.regression.round2 import CHOICE, LEARNERS, STRATEGIES
    from cbeal_studies.regression.workloads import load_workload

    w = load_workload("paper-reg-v1", 0)
    kw = {"estimator": LEARNERS["bayes-ridge"](), "tolerance": w.tolerance, "random_state": 5}
    made = [
        STRATEGIES[name](LEARNERS["bayes-ridge"], 30, 0.1, **kw).fit(w.X0, w.y0)
        for name in ("CBEAL-R", CHOICE)
    ]
    preset = CbeAL.from_preset("CBEAL-R", estimator=BayesianRidge(), budget=0.1, tolerance=1.0)
    assert [n for n, _ in preset.agents] == ["QBCRr", "DTLm", "DRIFT"]
    assert preset.fusion.pacer == "deficit"
    assert type(preset.agents[0][1].estimator) is BayesianRidge  # the model's own regressor
    a, b = (simulate(m, w.X_stream[:300], w.y_stream[:300]).acquired for m in made)
    np.testing.assert_array_equal(a, b)
