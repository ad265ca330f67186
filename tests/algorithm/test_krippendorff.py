"""Krippendorff's α against the published worked examples (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability", sections A and C)."""

from __future__ import annotations

import pytest

from cbeal.service.engine.krippendorff import alpha


def test_binary_two_observers() -> None:
    a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    assert alpha([[x, y] for x, y in zip(a, b, strict=True)]) == pytest.approx(0.095, abs=5e-4)


def test_four_observers_with_missing_values() -> None:
    # the paper's reliability data matrix: 4 observers, 12 units, None = missing
    n = None
    rows = [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
        [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n],
    ]
    units = [[v for v in col if v is not None] for col in zip(*rows, strict=True)]
    assert alpha(units, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert alpha(units, "interval") == pytest.approx(0.849, abs=5e-4)


def test_undefined_cases() -> None:
    assert alpha([["a", "a"]]) is None  # one pairable unit
    assert alpha([["a", "a"], ["a", "a"]]) is None  # no variation
    with pytest.raises(ValueError, match="nominal"):
        alpha([[1, 2], [1, 2]], "ordinal")  # type: ignore[arg-type]
