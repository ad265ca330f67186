"""Why a sample was (or was not) asked for, in words a quality engineer reads."""

from __future__ import annotations

from typing import Any

__all__ = ["KINDS", "explain", "question_kind"]

#: what each kind of agent asks for, in plain words
KINDS = {
    "exploration": ("exploration", "unlike the parts seen recently"),
    "exploitation": ("exploitation", "the model is unsure, it is near its decision boundary"),
    "epsilon": ("random check", "a small share of parts is asked at random"),
}


def question_kind(decision: dict[str, Any]) -> str | None:
    """``"exploration"``, ``"exploitation"``, ``"epsilon"``, ``"cold start"`` or None."""
    if not decision.get("acquire"):
        return None
    if decision.get("t") is None:
        return "cold start"
    kinds = decision["agent_kinds"]
    votes = [i for i, p in enumerate(decision["advice"]) if p >= 0.5]
    total = sum(decision["weights"][i] for i in votes)
    if total <= 0:
        return "epsilon"
    explore = sum(decision["weights"][i] for i in votes if kinds[i] == "exploration")
    return "exploration" if explore / total >= 0.5 else "exploitation"


def explain(decision: dict[str, Any]) -> str:
    """One sentence: asked or not, why, and what the model predicts."""
    kind = question_kind(decision)
    if decision.get("reason") == "initial labelled set":
        return "Part of the initial labelled set D0 (labelled before the stream started)."
    if decision.get("t") is None:  # a cold stream has no model yet
        return (
            "Asked: the model needs its first labels before it can decide."
            if decision.get("acquire")
            else "Not asked: waiting for the first labels before the model starts."
        )
    pred = (
        f"the model predicts {decision['y_pred']!r} with certainty "
        f"{100 * decision['certainty']:.0f} %"
    )
    if kind is None:
        reason = decision.get("reason", "drawn")
        why = (
            "the label budget is used up for now"
            if reason != "drawn"
            else "the agents found nothing new to learn from it"
        )
        return f"Not asked: {why}; {pred}."
    wanted = [
        n for n, p in zip(decision["agent_names"], decision["advice"], strict=True) if p >= 0.5
    ]
    label, why = KINDS[kind]
    who = f"; asked by {', '.join(wanted)}" if wanted else ""
    return f"Asked ({label}{who}): {why}; {pred}."
