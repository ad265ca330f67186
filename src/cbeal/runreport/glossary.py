"""Plain-word explanations of every name and abbreviation a ``cbeal run`` report uses.

A report lists only the entries it needs (:func:`glossary`), so a reader on the line meets
each term explained the first time, and nothing else. Agents and comparison strategies are
explained with their catalog label and description (:mod:`cbeal.catalog`), the words the
command line, the labelling page and the dashboard use too.
"""

from __future__ import annotations

from collections.abc import Iterable

from cbeal.catalog import AgentEntry, UnknownNameError, strategy_entry

__all__ = ["TERMS", "glossary", "kind_of", "strategy_words"]

# Order is the reading order of the list in a report: the idea first, then the parts.
TERMS: dict[str, str] = {
    "stream": "**Stream, label.** Parts arrive one at a time, in time order. For each part "
    "the method decides at once whether to ask the expert for its label (pass or fail) — "
    "here the label is read from the file, as if an inspector had been asked — or to let it "
    "go unlabelled.",
    "stream-measured": "**Stream, measured value.** Parts arrive one at a time, in time "
    "order. For each part the method decides at once whether to send it to be measured — "
    "here the value is read from the file, as if the lab had been asked — or to let it go "
    "unmeasured. The model predicts every part's value with a spread (how far off it may be).",
    "budget-rate": "**Budget, paced rate.** A share such as 10 % limits the labels to 10 "
    "per 100 parts *seen so far*: after 50 parts at most 5 labels, after 400 parts at most "
    "40. The allowance grows along the stream, so the labels spread over the whole period; "
    "allowance a method leaves unused carries over to later parts.",
    "budget-count": "**Budget, count.** A whole number such as 50 allows 50 labels over the "
    "whole stream, spent whenever the method asks: a method may spend them all on the first "
    "parts and ask for nothing afterwards.",
    "D0": "**D0** is the small labelled start: the first rows of the training period, "
    "labelled up front so that the model has something to begin with.",
    "CbeAL": "**CbeAL** (ensemble active learning by contextual bandits) lets several "
    "*agents* each give advice on every part — ask or don't ask — and combines the advice "
    "by a weighted vote. An agent whose past requests taught the model something gains "
    "weight.",
    "exploration": "**Exploration agents** ask for parts that look unlike the parts seen "
    "recently, whatever the model predicts, so that the labels cover every operating "
    "condition.",
    "exploitation": "**Exploitation agents** ask for parts the current model is unsure about.",
    "reward": "**Reward.** When a label comes back, the method checks the prediction the "
    "model made for that part when it asked: **+1** if the model was wrong (the label taught "
    "it something), **−0.5** if it was right (the label confirmed what it knew). The "
    "cumulative reward is the running total. A falling curve means most of the parts asked "
    "for were ones the model already got right; it does *not* mean the model got worse.",
    "reward-measured": "**Reward.** When a measurement comes back, the method checks the "
    "value the model predicted for that part when it asked: a positive reward if the "
    "prediction was outside the tolerance (the measurement taught the model something), a "
    "negative one if it was within it. The cumulative reward is the running total; a falling "
    "curve means most parts asked for were predicted well already, not that the model got "
    "worse.",
    "weights": "**Standardized weights** are each agent's share of the vote: they add up to "
    "1 and all start equal (1 divided by the number of agents).",
    "flips": "**Why the weights swing early on.** An EWMA control chart (exponentially "
    "weighted moving average) watches each weight; when a weight drifts outside the chart's "
    "limits it is flipped to the other side of the average, so that no agent takes over "
    "before there is evidence. The limits start narrow and widen as the stream goes on, so "
    "the weights swing back and forth over roughly the first 200 parts, then settle.",
    "no-flips": "**How the weights move.** This ensemble has no control chart: each weight "
    "follows only the rewards of the requests its agent advised, so an agent whose requests "
    "keep catching model errors gains weight steadily.",
    "fusion": "**Score fusion.** In this preset the agents do not vote: each scores every "
    "part (how much it wants the part's label), the scores are averaged with fixed, equal "
    "weights (set in advance, not learned from the rewards), and one pacer turns the averaged "
    "score into ask or don't ask: it spends the budget along the stream, and may run a few "
    "labels ahead of the even schedule when high scores come, or fall behind and catch up "
    "after a quiet stretch.",
    "fusion-evidence": "**Score fusion.** In this preset the agents do not vote: each scores "
    "every part (how much it wants the part's label), the scores are averaged with weights "
    "that grow with each agent's evidence of finding useful labels, and one pacer turns the "
    "averaged score into ask or don't ask.",
    "references": "**Initial** is the model trained on D0 alone; **All Training Data** the "
    "model trained on every training row's label, what unlimited labelling would give.",
    "scores": "**Scores.** Accuracy is the share of test parts classified correctly. "
    "Balanced accuracy averages the share of passes and the share of failures classified "
    "correctly, so a model that never flags a failure scores 50 %. For the failure class: "
    "recall is the share of the failures the model flags; precision the share of its flags "
    "that are failures; F1 combines the two.",
    "scores-measured": "**Scores.** RMSE (root mean squared error) and MAE (mean absolute "
    "error) are the typical distance between the predicted and the measured value of a "
    "test part, in the measured column's unit; RMSE weighs large misses more. *Within "
    "tolerance* is the share of test parts whose prediction is within the tolerance of the "
    "measured value: the share the model would have judged right against the spec. Lower "
    "RMSE and MAE are better, a higher share within tolerance is better.",
    "repeats": "**Mean ± SE, paired wins.** With several seeds every method runs once per "
    "seed on the same rows; the table shows the mean over the seeds ± its standard error "
    "(SE, the standard deviation divided by the square root of the number of seeds). A "
    "paired win counts the seeds on which CbeAL did better than the other method (a higher "
    "score; for RMSE and MAE a lower one).",
}


def glossary(keys: Iterable[str]) -> list[str]:
    """The entries for `keys`, in the order of :data:`TERMS` (unknown keys are ignored).

    >>> glossary(["reward", "stream"])[0].startswith("**Stream, label.**")
    True
    """
    wanted = set(keys)
    return [text for key, text in TERMS.items() if key in wanted]


def kind_of(name: str) -> str | None:
    """An agent's kind (exploration, exploitation, hybrid) from the catalog, else None.

    >>> kind_of("LD1"), kind_of("RAL1"), kind_of("CBEAL-6")
    ('exploration', 'exploitation', None)
    """
    try:
        entry = strategy_entry(name)
    except UnknownNameError:
        return None
    return entry.kind if isinstance(entry, AgentEntry) else None


def strategy_words(name: str) -> str | None:
    """One line on an agent or a preset, from the catalog (None for another name).

    >>> print(strategy_words("ENT"))
    **ENT** (entropy sampler, exploitation): asks in proportion to how unsure the model is,
    paced to the budget.
    """
    try:
        entry = strategy_entry(name)
    except UnknownNameError:
        return None
    kind = f", {entry.kind}" if isinstance(entry, AgentEntry) else ""
    return f"**{entry.name}** ({entry.label}{kind}): {entry.description}."
