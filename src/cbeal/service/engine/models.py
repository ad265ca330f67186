"""A stream's model as its configuration says: built through the catalog, preprocessed, and
the class drawn in red."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cbeal.service.schemas.streams import StreamConfig

if TYPE_CHECKING:
    from cbeal.models import CbeAL

__all__ = ["build_model", "failure_class", "preprocessor"]


def build_model(config: StreamConfig) -> CbeAL:
    """The stream's unfitted CbeAL: refits only when the service says (``refit_every=None``)."""
    from cbeal.catalog import learner
    from cbeal.models import CbeAL

    common: dict[str, Any] = {
        "estimator": learner(str(config.learner), random_state=config.seed),
        "budget": _budget(config),
        "classes": None if config.classes is None else list(config.classes),
        "tolerance": config.tolerance,
        "refit_every": None,
        "preprocessor": None,
        "id_prefix": config.name,
        "random_state": config.seed,
    }
    if config.agents is None:
        return CbeAL.from_preset(config.preset, **common)
    return CbeAL.from_agents(config.agents, **common)


def _budget(config: StreamConfig) -> Any:
    """The stream's budget: a rate as given; a count with its pace (the configured share,
    else the default), so that the status says at what pace it is spent."""
    from cbeal.catalog import budget
    from cbeal.core import LabelCount, paced_share

    spend = budget(config.budget)
    if isinstance(spend, LabelCount):  # the schema allows budget_fraction with a count only
        return LabelCount(total=spend.total, pace=paced_share(spend, config.budget_fraction))
    return config.budget


def preprocessor(config: StreamConfig, rows: Any) -> Any:
    """The fitted preprocessing (None for ``preprocess='none'``), fitted on `rows`."""
    if config.preprocess == "none":
        return None
    from cbeal.learners import fit_preprocessor

    return fit_preprocessor(rows)


def failure_class(config: Any) -> Any:
    """The class shown in red everywhere: the configured one, else D0's rarest, else the last
    (None for a regression stream: it has no classes)."""
    if config.classes is None:
        return None
    if getattr(config, "failure_class", None) is not None:
        return config.failure_class
    if config.initial is not None:
        counts = {
            repr(c): sum(repr(y) == repr(c) for y in config.initial.y) for c in config.classes
        }
        present = [c for c in config.classes if counts[repr(c)] > 0]
        if len(present) >= 2:
            return min(reversed(present), key=lambda c: counts[repr(c)])
    return config.classes[-1]
