"""Plots of stream runs (matplotlib; ``pip install -e '.[plot]'``).

Every function draws on a given Axes (or a new one) and returns it, so figures can be
composed; nothing here computes results. Colours mean the same in every figure
(:mod:`.style`: the failure class red, passes blue, series never red); one run's panels
are in :mod:`.run`, methods side by side in :mod:`.compare`, regressors' runs in
:mod:`.regression`. Matplotlib loads when a figure is drawn, not on import.
"""

from cbeal.plotting.compare import (
    plot_acquisitions,
    plot_cumulative_reward,
    plot_decision_boundaries,
    plot_scores,
)
from cbeal.plotting.regression import plot_band, plot_band_run, plot_learning_curves
from cbeal.plotting.run import (
    drivers,
    plot_budget,
    plot_drivers,
    plot_label_requests,
    plot_run,
    plot_weights,
)
from cbeal.plotting.style import FAILURE, PASS, SERIES, STREAM_AXIS, distinct_colours

__all__ = [
    "FAILURE",
    "PASS",
    "SERIES",
    "STREAM_AXIS",
    "distinct_colours",
    "drivers",
    "plot_acquisitions",
    "plot_band",
    "plot_band_run",
    "plot_budget",
    "plot_cumulative_reward",
    "plot_decision_boundaries",
    "plot_drivers",
    "plot_label_requests",
    "plot_learning_curves",
    "plot_run",
    "plot_scores",
    "plot_weights",
]
