"""Plain-word explanations of every name and abbreviation a report uses, written once.

A report lists only the entries it needs (:func:`glossary`), so a reader on the line meets
each term explained the first time, and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["TERMS", "glossary"]

# Order is the reading order of the list in a report: the idea first, then the parts.
TERMS: dict[str, str] = {
    "stream": "**Stream, label, budget.** Parts arrive one at a time, in time order. For each "
    "part the method decides at once whether to ask the expert for its label (pass or "
    "fail) — here the label is read from the file, as if an inspector had been asked — or to "
    "let it go unlabelled. The budget is the number of labels a method may ask for.",
    "D0": "**D0** is the small labelled start: the first rows of the training period, "
    "labelled up front so that the model has something to begin with.",
    "CbeAL": "**CbeAL** (ensemble active learning by contextual bandits) lets several "
    "*agents* each give advice on every part — ask or don't ask — and combines the advice "
    "by a weighted vote. An agent whose past requests taught the model something gains "
    "weight.",
    "exploration": "**Exploration agents** ask for parts that look unlike the parts seen "
    "recently, whatever the model predicts, so that the labels cover every operating "
    "condition. **LD** (low density) asks for a part that lies far from the recent parts; "
    "**SPF** (space filling) asks for a part that falls into a gap between them. The number "
    "(LD1, LD2, LD3) tells one setting from another (how many recent parts are compared, "
    "and how far out a part must be).",
    "exploitation": "**Exploitation agents** ask for parts the current model is unsure "
    "about. **RAL** (reinforced active learning) asks when the model's certainty is below a "
    "threshold, and raises the threshold after a request that caught a model error, lowers "
    "it after one that did not. RAL1 to RAL4 differ in the starting threshold (0.90 or 0.95) "
    "and how fast it moves.",
    "RS": "**RS** (random sampling) asks for parts at random, at the rate the budget allows: "
    "the baseline any smarter method must beat.",
    "US": "**US** (uncertainty sampling) asks whenever the model's certainty is below a fixed "
    "0.7. A model that is confident about everything makes it ask for nothing.",
    "DBALStream": "**DBALStream** (density-based active learning for streams) asks for "
    "parts the model is unsure about that are also typical of many recent parts.",
    "QBC-PYP": "**QBC-PYP** (query by committee with Pitman–Yor process mixtures) draws two "
    "models from a Bayesian mixture model and asks when they disagree about a part.",
    "VariableUncertainty": "**VariableUncertainty** asks for uncertain parts with a threshold "
    "that adapts to keep the labelling rate near the budget; **Split** does the same but "
    "spends part of the budget at random.",
    "reward": "**Reward.** When a label comes back, the method checks the prediction the "
    "model made for that part when it asked: **+1** if the model was wrong (the label taught "
    "it something), **−0.5** if it was right (the label confirmed what it knew). The "
    "cumulative reward is the running total. A falling curve means most of the parts asked "
    "for were ones the model already got right; it does *not* mean the model got worse.",
    "weights": "**Standardized weights** are each agent's share of the vote: they add up to "
    "1 and all start equal (1 divided by the number of agents).",
    "flips": "**Why the weights swing early on.** An EWMA control chart (exponentially "
    "weighted moving average) watches each weight; when a weight drifts outside the chart's "
    "limits it is flipped to the other side of the average, so that no agent takes over "
    "before there is evidence. The limits start narrow and widen as the stream goes on, so "
    "the weights swing back and forth over roughly the first 200 parts, then settle.",
    "references": "**Initial** is the model trained on D0 alone; **All Training Data** the "
    "model trained on every training row's label, what unlimited labelling would give.",
    "scores": "**Scores.** Accuracy is the share of test parts classified correctly. "
    "Balanced accuracy averages the share of passes and the share of failures classified "
    "correctly, so a model that never flags a failure scores 50 %. For the failure class: "
    "recall is the share of the failures the model flags; precision the share of its flags "
    "that are failures; F1 combines the two.",
    "repeats": "**Mean ± SE, paired wins.** With several seeds every method runs once per "
    "seed on the same rows; the table shows the mean over the seeds ± its standard error "
    "(SE, the standard deviation divided by the square root of the number of seeds). A "
    "paired win counts the seeds on which CbeAL scored higher than the other method.",
}


def glossary(keys: Iterable[str]) -> list[str]:
    """The entries for `keys`, in the order of :data:`TERMS` (unknown keys are ignored).

    >>> glossary(["US", "RS"])[0].startswith("**RS**")
    True
    """
    wanted = set(keys)
    return [text for key, text in TERMS.items() if key in wanted]
