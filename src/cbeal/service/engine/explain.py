"""Why a sample was (or was not) asked for, in words a quality engineer reads.

The words follow the decision's actual numbers (a model 97 % sure is not called unsure)
and name the agents by their catalog labels ("uncertainty checker 1", "entropy sampler").
"""

from __future__ import annotations

from typing import Any

__all__ = ["QUESTIONS", "asked_by", "explain", "question", "question_kind"]

#: the title of each kind of question
QUESTIONS = {
    "exploration": "Exploration question",
    "exploitation": "Exploitation question",
    "epsilon": "Random check",
    "cold start": "First labels",
}


def _wanted(decision: dict[str, Any]) -> list[int]:
    # a vote is advice ≥ 0.5; under score fusion a member wants the part when its own score
    # reaches the pacer's threshold (None: no label was due)
    line = 0.5 if decision.get("score") is None else decision.get("threshold")
    if line is None:
        return []
    return [i for i, p in enumerate(decision.get("advice") or []) if p >= line]


def question_kind(decision: dict[str, Any]) -> str | None:
    """``"exploration"``, ``"exploitation"``, ``"epsilon"``, ``"cold start"`` or None."""
    if not decision.get("acquire"):
        return None
    if decision.get("t") is None:
        return "cold start"
    kinds, weights = decision["agent_kinds"], decision["weights"]
    votes = _wanted(decision)
    total = sum(weights[i] for i in votes)
    if total <= 0:
        return "epsilon"
    explore = sum(weights[i] for i in votes if kinds[i] == "exploration")
    return "exploration" if explore / total >= 0.5 else "exploitation"


def asked_by(decision: dict[str, Any]) -> list[dict[str, str]]:
    """The agents that wanted the label: name and plain-words label from the catalog."""
    from cbeal.catalog import AGENTS

    names = decision.get("agent_names") or []
    out = []
    for i in _wanted(decision):
        entry = AGENTS.get(names[i])
        out.append({"name": names[i], "label": entry.label if entry else names[i]})
    return out


def _pct(certainty: float) -> str:
    return f"{100 * certainty:.0f} %" if certainty < 0.995 else "over 99 %"


def _band(decision: dict[str, Any]) -> str:
    """A regression decision's tolerance band in words, e.g. ``±2.5 Nm``."""
    unit = decision.get("unit")
    return f"±{decision['tolerance']:g}" + (f" {unit}" if unit else "")


def _sure(certainty: float, band: str | None = None) -> str:
    pct = _pct(certainty)
    if band is not None:  # regression: certainty is P(|y − ŷ| ≤ tolerance)
        odds = f"{pct} likely within {band} of the measured value"
        if certainty < 0.7:
            return f"the model is unsure of this part's value ({odds})"
        if certainty < 0.9:
            return f"the model is only fairly sure of this part's value ({odds})"
        return (
            f"the model's prediction is {odds}, but the agents that check it still ask at "
            "this level: sure predictions have been off before"
        )
    if certainty < 0.7:
        return f"the model is unsure ({pct} certain): the part is near the boundary between classes"
    if certainty < 0.9:
        return f"the model is only fairly sure ({pct} certain)"
    return (
        f"the model is {pct} certain, but the agents that check its certainty still ask at "
        "this level: sure predictions have been wrong before"
    )


def question(decision: dict[str, Any]) -> dict[str, str] | None:
    """The question the expert is asked: its kind, a title and why, in words that follow
    the decision's numbers; None for a sample that was not asked for."""
    kind = question_kind(decision)
    if kind is None:
        return None
    if kind == "cold start":
        why = "the model needs a few labelled parts before it can decide."
    elif kind == "epsilon":
        why = "a small share of parts is asked at random, to keep the model honest."
    elif kind == "exploration":
        why = (
            "this part is unlike the parts seen recently; your label shows the model a region "
            "it does not know yet."
        )
    else:
        band = None if decision.get("tolerance") is None else _band(decision)
        why = f"{_sure(float(decision['certainty']), band)}; your label settles a hard case."
    return {"kind": kind, "title": QUESTIONS[kind], "why": why[0].upper() + why[1:]}


def explain(decision: dict[str, Any]) -> str:
    """One sentence: asked or not, why, and what the model predicts."""
    if decision.get("reason") == "initial labelled set":
        return "Part of the initial labelled set D0 (labelled before the stream started)."
    if decision.get("t") is None:  # a cold stream has no model yet
        return (
            "Asked: the model needs its first labels before it can decide."
            if decision.get("acquire")
            else "Not asked: waiting for the first labels before the model starts."
        )
    pred = _prediction(decision)
    q = question(decision)
    if q is None:
        reason = decision.get("reason", "drawn")
        why = (
            "the label budget is used up for now"
            if reason != "drawn"
            else "the agents found nothing new to learn from it"
        )
        return f"Not asked: {why}; {pred}."
    who = ", ".join(a["label"] for a in asked_by(decision))
    by = f"; asked by the {who}" if who else ""
    return f"Asked ({q['kind']}{by}): {q['why'][0].lower()}{q['why'][1:].rstrip('.')}; {pred}."


def _prediction(decision: dict[str, Any]) -> str:
    """What the model predicts, in words: a class with its certainty, or a measured value
    with its interval and its chance of being within the tolerance."""
    certainty = float(decision["certainty"])
    if decision.get("tolerance") is None:
        return f"the model predicts {decision['y_pred']!r} with certainty {100 * certainty:.0f} %"
    lo, hi = decision["interval"]
    unit = f" {decision['unit']}" if decision.get("unit") else ""
    return (
        f"the model predicts {decision['y_pred']:.4g}{unit} (95 % interval {lo:.4g} to "
        f"{hi:.4g}), {_pct(certainty)} likely within {_band(decision)}"
    )
