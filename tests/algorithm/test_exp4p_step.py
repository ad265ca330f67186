"""The Exp4.P step-size option (``eta``): default is the paper's p_min / 2."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cbeal.core import Exp4P


def test_default_step_is_half_p_min() -> None:
    solver = Exp4P().start(6)
    assert solver.step_ == pytest.approx(0.5 * math.sqrt(math.log(6) / (2 * 2000)))


def test_eta_sets_the_step_of_the_reward_factor() -> None:
    advice = np.array([1.0, 0.0])
    for eta in (None, 0.2):
        solver = Exp4P(eta=eta, ewma=False).start(2)
        p = solver.distribution(advice)
        solver.update_reward(advice, p, reward=-0.5)
        ratio = solver.alpha_[0] / solver.alpha_[1]
        step = solver.step_
        assert ratio == pytest.approx(math.exp(step * -0.5 / p))
    assert Exp4P(eta=0.2).start(2).step_ == 0.2


def test_eta_must_be_positive() -> None:
    with pytest.raises(ValueError, match="eta must be > 0"):
        Exp4P(eta=0.0).start(2)
