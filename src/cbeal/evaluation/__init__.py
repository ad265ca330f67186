"""How methods are scored, in one place for the reproduction, the case study and ``cbeal run``:
the metrics, and the reference learners "Initial" and "All Training Data"."""

from cbeal.evaluation.metrics import METRIC_LABELS, accuracy, choose_positive, scores
from cbeal.evaluation.references import REFERENCES, fit_reference

__all__ = ["METRIC_LABELS", "REFERENCES", "accuracy", "choose_positive", "fit_reference", "scores"]
