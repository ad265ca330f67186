"""A stream's state and configuration as the dashboard shows them, in the engine's words."""

from __future__ import annotations

from typing import Any

from cbeal.catalog import AGENTS, describe_budget, preset_entry
from cbeal.service.engine.models import build_model, failure_class
from cbeal.service.store import reads

__all__ = ["stream_config", "stream_status", "weighting"]


def stream_status(service: Any, name: str) -> dict[str, Any]:
    """The stream's model state with the counts the database holds."""
    runtime = service.streams.get(name)
    with runtime.lock:
        out = {"name": name, **runtime.status()}
    with service.engine.connect() as conn:
        counts = reads.stream_counts(conn, runtime.stream_id)
    n = counts["learned"]
    out.update(
        samples_received=counts["samples"],
        labels_received=counts["labels"],
        prequential_accuracy=None if not n else round(counts["right"] / n, 4),
        prequential_labels=n,
        queue=service.tasks.queue(name),
        model_training=service.background.training.get(name),
        last_retrain=service.background.last_retrain.get(name),
        labels_per_part=runtime.config.labels_per_part,
        second_opinion_below=runtime.config.second_opinion_below,
    )
    return out


def weighting(model: Any) -> dict[str, Any]:
    """How a model turns its agents' advice into one decision, in words."""
    if getattr(model, "fusion", None) is not None:
        return {
            "method": "score fusion",
            "control_chart": False,
            "words": (
                "The agents' scores are averaged into one score, and one pacer asks for the "
                "parts whose score is high among the last 200, spending the budget evenly. "
                "There is no bandit and no control chart: the weights stay as configured."
            ),
        }
    solver = getattr(model, "solver", None)
    chart = True if solver is None else bool(getattr(solver, "ewma", True))
    eta = None if solver is None else getattr(solver, "eta", None)
    words = (
        "Each agent's vote is weighed by an Exp4.P bandit: an agent whose past requests "
        "caught model errors gains weight."
    )
    if chart:
        words += (
            " An EWMA control chart watches the weights and flips one that drifts out of its "
            "limits, so the weights swing during the first ~200 parts, then settle."
        )
    else:
        step = f" (step {eta:g})" if eta is not None else ""
        words += f" There is no control chart{step}: the weights move only with the rewards."
    return {"method": "Exp4.P bandit", "control_chart": chart, "words": words}


def stream_config(service: Any, name: str) -> dict[str, Any]:
    """The stream's configuration (no initial set or history), its agents and weighting."""
    runtime = service.streams.get(name)
    config = runtime.config
    model = runtime.model if runtime.model is not None else build_model(config)
    names = config.agents if config.agents is not None else preset_entry(config.preset).agents
    out = config.model_dump(mode="json", exclude={"initial", "history"})
    out.update(
        budget_words=describe_budget(config.budget),
        agent_info=[
            {
                "name": a,
                "label": AGENTS[a].label,
                "description": AGENTS[a].description,
                "kind": AGENTS[a].kind,
            }
            for a in names
        ],
        weighting=weighting(model),
        failure_class=failure_class(config),
    )
    return out
