"""The Label Studio bridge for a regression stream: the expert types a measured value.

A regression stream's project asks with Label Studio's ``<Number>`` control (named
:data:`~cbeal.bridges.labelstudio.CONTROL`, like the classes' ``<Choices>``); its
annotation's result is ``{"from_name": "quality", "to_name": "part", "type": "number",
"value": {"number": 12.31}}`` (the ``Number`` tag of Label Studio 1.23: its value holds
the typed number under ``number``). The header names the unit and the tolerance, and
each task pushed carries the model's prediction and its 95 % interval, in words and as
numbers (``y_pred``, ``interval``, ``spread``, ``certainty``) for Label Studio's data
manager to show and sort by.

The prediction is not imported as a pre-annotation, as a class is for a classification
stream: Label Studio fills a pre-annotated ``<Number>`` box with it, and an expert who
submits that box unchanged teaches the model its own prediction (an error of zero
whatever the part measured), which cbeal could not tell from a real measurement.
cbeal's own page likewise leaves the box empty unless the expert asks for the suggestion.
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import quoteattr

__all__ = ["decimals", "number_config", "number_data"]


def decimals(tolerance: float | None) -> int:
    """Decimals worth showing: one more than the tolerance's first significant digit (as
    the service's page shows them).

    >>> decimals(0.05), decimals(2.5), decimals(None)
    (3, 1, 3)
    """
    if tolerance is None or not tolerance > 0:
        return 3
    return max(0, math.ceil(-math.log10(tolerance)) + 1)


def _unit(unit: str | None) -> str:
    return f" {unit}" if unit else ""


def number_config(control: str, *, tolerance: float | None, unit: str | None) -> str:
    """The labelling configuration (XML) of a project for a regression stream.

    Examples
    --------
    >>> print(number_config("quality", tolerance=0.05, unit="mm"))  # doctest: +ELLIPSIS
    <View>...<Header value="Measured value in mm (a prediction within ± 0.05 mm of it ...
    """
    what = f"Measured value in {unit}" if unit else "Measured value"
    if tolerance is not None:
        what += f" (a prediction within ± {tolerance:g}{_unit(unit)} of it counts as right)"
    # no step: Label Studio's Number checks a typed value against its step (1 by default
    # in the browser) and would refuse decimals such as 12.31
    return (
        "<View>"
        '<Header value="Part $sample_id"/>'
        '<Text name="why" value="$question"/>'
        '<Table name="part" value="$part"/>'
        '<Text name="model" value="$prediction"/>'
        f"<Header value={quoteattr(what)}/>"
        f'<Number name="{control}" toName="part" required="true"/>'
        "</View>"
    )


def number_data(decision: dict[str, Any]) -> dict[str, Any]:
    """The fields a regression task adds to a Label Studio task's data: the prediction in
    words (``prediction``, shown above the number box) and as numbers.

    >>> number_data({"y_pred": 12.3104, "interval": [12.2, 12.42], "spread": 0.055,
    ...              "certainty": 0.63, "tolerance": 0.05, "unit": "mm"})["prediction"]
    'cbeal predicts 12.310 mm (95 % interval 12.200 to 12.420 mm; P(within ± 0.05 mm) = 0.63)'
    """
    y, interval = decision.get("y_pred"), decision.get("interval")
    tol, unit = decision.get("tolerance"), decision.get("unit")
    d, u = decimals(tol), _unit(unit)
    if y is None:
        words = "cbeal has no prediction for this part yet"
    else:
        words = f"cbeal predicts {y:.{d}f}{u}"
        if interval:
            words += f" (95 % interval {interval[0]:.{d}f} to {interval[1]:.{d}f}{u}"
            if decision.get("certainty") is not None and tol is not None:
                words += f"; P(within ± {tol:g}{u}) = {decision['certainty']:.2f}"
            words += ")"
    return {
        "prediction": words,
        "y_pred": y,
        "interval": interval,
        "spread": decision.get("spread"),
        "certainty": decision.get("certainty"),
        "tolerance": tol,
        "unit": unit,
    }
