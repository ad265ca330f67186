"""One budget pacer for a whole ensemble: a balanced incremental quantile filter.

As in scikit-activeml, the strategy scores and a budget manager decides. The pacer keeps the
members' scores of the last `window` samples, fuses them with the *current* weights and
asks for a sample whose fused score is among the top share ``b`` of that window (Kottke et
al.'s balanced incremental quantile filter). Keeping the members' scores rather than the
fused values means a change of weights re-fuses the whole window: an outside probe traced
a stall to a window fused under old weights, 38 % of it above every new candidate.

The pacer spends a label only once it has accrued: with ``A = b · t + h(t) − acquired``
after ``t`` samples (``h(t)`` the head start granted so far) it never asks while ``A < 1``.
Once a label is due, the balance lowers the quantile level linearly from ``1 − b`` to 0
over `tolerance` labels' worth of samples (``tolerance / b``), so that the chance of
asking rises from ``b`` to 1 (scikit-activeml lowers the threshold by the window's range
instead, which an outlying score stretches). With the default tolerance of one label the
pacer never owes two labels.

**Head start** (`head_start` labels, granted evenly over `head_start_over` labels' worth
of samples). Issue 23's first round gave a count budget ``B`` (``b = B / n``) a head start
of one label at once, so that the last label fell due ``1 / b`` samples before the end and
all of ``B`` was spent. It cost: a window of one score passes any quantile, so the first
label went to the very first sample, whatever its score, and the same preset without it
(under a rate budget) was 2 points better on the fresh part. Granting the head start over
``1 / b`` samples (``head_start_over=1``) makes the first label due only after half a
label's worth of samples, chosen by the quantile among those. It is *not* granted as one
step at ``1 / b`` samples: two labels would then be due at once, the balance would be at
its floor, and the first of them would again go to whatever sample came.

**Horizon** (how a budget is spent to the end). A rate budget allows ``floor(rate · t)``
labels after ``t`` samples, so its last label (the ``B``-th of ``LabelRate(rate,
total=B)`` over ``n = B / rate`` samples) is allowed only at the very last sample. A pacer
that waits for a good sample after a label falls due lags the cap by up to one label, and
a stream that ends meanwhile ends one label short: 151 of 160 runs of the first round,
7–17 % of a budget of 6–14 labels, where the issue asks for 97 % in every run. No pacer can
take a label sooner than the cap allows, and asking as soon as it allows would be random
sampling at fixed times. What is left is to *wait less when little time is left*: given
the `horizon` (the sample by which the budget should be spent: ``total / rate`` or
``B / b``), the level is further scaled by ``min(1, b · (horizon − t) / tolerance)``, so a
label due within the last ``tolerance / b`` samples lowers its bar faster, and a label due
at the horizon itself is asked for at once. Only the last label or two are affected (the
ramp is one label's worth of samples); all of a budget with a horizon is spent, in every
run, whatever the weights do. Without a horizon (an open-ended rate, a count on a stream
of unknown length) spending lags the cap by at most one label at any time. The model's
budget stays the hard cap; the pacer only decides which samples are worth it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cbeal.core.exceptions import ParameterError
from cbeal.core.params import Params
from cbeal.core.window import KERNELS

__all__ = ["QuantilePacer", "allowance", "level", "step"]


class QuantilePacer(Params):
    """Spend a share `budget_fraction` of the samples evenly on the highest fused scores.

    Parameters
    ----------
    budget_fraction
        The share ``b`` of samples to ask for (a rate budget's rate, or ``B / n``).
    window
        How many recent samples' member scores the quantile is taken over.
    tolerance
        How long a due label waits for a good sample, in labels' worth of samples
        (``tolerance / b`` samples); then any sample is asked for (``> 0``).
    head_start
        Labels granted beyond the accrual (``≥ 0``): e.g. 1 for a count budget, 0 under a
        rate budget.
    head_start_over
        Over how many labels' worth of samples (``head_start_over / b``) the head start is
        granted evenly (``≥ 0``); 0 grants it at once.
    horizon
        The sample by which the budget should be spent (``total / rate`` of a rate budget,
        ``B / b`` of a count), or None when unknown; within the last ``tolerance / b``
        samples before it a due label waits less, and at it a due label is asked for.

    Each call of :meth:`decide` observes one sample; call :meth:`acquired_one` when the
    model acquired it.

    Examples
    --------
    >>> import numpy as np
    >>> from cbeal.core import QuantilePacer
    >>> pacer = QuantilePacer(budget_fraction=0.25, window=8).start(n_members=2)
    >>> w = np.array([0.5, 0.5])
    >>> asked = []
    >>> for s in [0.1, 0.2, 0.3, 0.1, 0.9, 0.2, 0.1, 0.8]:
    ...     fused, threshold, ask = pacer.decide(np.array([s, s]), w)
    ...     if ask:
    ...         pacer.acquired_one()
    ...     asked.append(ask)
    >>> [i for i, a in enumerate(asked) if a]   # a label is due from sample 3 on
    [4, 7]
    >>> pacer.allowance                          # 0.25 * 8 - 2
    0.0

    With a horizon, a label due at its end is asked for whatever the score:

    >>> pacer = QuantilePacer(budget_fraction=0.25, window=8, horizon=4).start(n_members=1)
    >>> asked = [pacer.decide(np.array([s]), np.ones(1))[2] for s in [0.9, 0.8, 0.7, 0.6]]
    >>> asked                                    # 0.6 is the lowest, yet due at the horizon
    [False, False, False, True]
    """

    # the last weights: the object (an identity check) and its values (a model file from
    # before these caches has neither)
    _fused_object: Any = None
    _fused_list: list[float] | None = None

    @classmethod
    def _unit_test_params(cls) -> list[dict[str, Any]]:
        return [{"budget_fraction": 0.05, "window": 50, "tolerance": 2.0}]

    def __init__(
        self,
        *,
        budget_fraction: float = 0.1,
        window: int = 200,
        tolerance: float = 1.0,
        head_start: float = 0.0,
        head_start_over: float = 0.0,
        horizon: float | None = None,
    ) -> None:
        self.budget_fraction = budget_fraction
        self.window = window
        self.tolerance = tolerance
        self.head_start = head_start
        self.head_start_over = head_start_over
        self.horizon = horizon

    def _check(self) -> None:
        check_pace(self.budget_fraction, self.window)
        tol = self.tolerance
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol > 0.0:
            raise ParameterError(f"tolerance must be a number of labels > 0, got {tol!r}")
        h = self.head_start
        if isinstance(h, bool) or not isinstance(h, (int, float)) or not h >= 0.0:
            raise ParameterError(f"head_start must be a number of labels ≥ 0, got {h!r}")
        o = self.head_start_over
        if isinstance(o, bool) or not isinstance(o, (int, float)) or not o >= 0.0:
            raise ParameterError(f"head_start_over must be a number of labels ≥ 0, got {o!r}")
        hz = self.horizon
        if hz is not None and (
            isinstance(hz, bool) or not isinstance(hz, (int, float)) or not hz > 0.0
        ):
            raise ParameterError(
                f"horizon must be a number of samples > 0 or None (unknown), got {hz!r}"
            )

    def start(self, n_members: int) -> QuantilePacer:
        """Reset for a stream whose ensemble has `n_members` members."""
        self._check()
        self.scores_ = np.zeros((int(self.window), int(n_members)))
        self.fused_ = np.zeros(int(self.window))
        self.fused_weights_: np.ndarray | None = None  # the weights fused_ holds
        self.size_ = 0
        self.next_ = 0
        self.n_seen_ = 0
        self.n_acquired_ = 0
        return self

    @property
    def allowance(self) -> float:
        """Labels accrued and not spent: ``b · t + h(t) − acquired`` (negative when ahead)."""
        return allowance(
            float(self.budget_fraction), float(self.head_start), float(self.head_start_over),
            self.n_seen_, self.n_acquired_,
        )  # fmt: skip

    def decide(self, scores: np.ndarray, weights: np.ndarray) -> tuple[float, float, bool]:
        """Observe one sample's member `scores`; ``(fused score, threshold, ask)``.

        The window is re-fused whenever `weights` differ from the last call's; otherwise
        :func:`step` (or its compiled twin, :mod:`cbeal.kernels.pacer`) takes the sample.
        """
        window = self.scores_
        slot = self.next_
        n = window.shape[0]
        self.next_ = slot + 1 if slot + 1 < n else 0
        size = self.size_ = self.size_ + 1 if self.size_ < n else n
        seen = self.n_seen_ = self.n_seen_ + 1
        hz = self.horizon
        pace = (
            float(self.budget_fraction), float(self.head_start), float(self.head_start_over),
            float(self.tolerance), math.nan if hz is None else float(hz),
        )  # fmt: skip
        same, own = self._same_weights(weights)
        if not same:  # the whole window fused under the new weights
            window[slot] = scores
            self.fused_[:size] = window[:size] @ weights
            self.fused_weights_ = np.array(weights, dtype=np.float64)
            self._fused_list = self.fused_weights_.tolist()
            fused = float(self.fused_[slot])
            at = level(*pace, seen, self.n_acquired_)
            threshold = math.inf if at < 0.0 else _quantile(self.fused_[:size], at)
        else:
            kernel = KERNELS.get("pace")
            if not (
                kernel is not None
                and weights.shape[0] <= 15
                and scores.shape == weights.shape == window.shape[1:]
                and _dense(scores)
                and (own or _dense(weights))  # a 1-D array of its own is dense
            ):  # the compiled twin sums as OpenBLAS's dot of ≤ 15 dense terms only
                kernel = step
            fused, at, threshold = kernel(
                window, self.fused_, scores, weights, slot, size, seen, self.n_acquired_, *pace
            )
            if threshold != threshold:  # a NaN in the window: numpy's order statistics
                threshold = _quantile(self.fused_[:size], at)
        if at < 0.0:  # no label is due
            return fused, math.inf, False
        return fused, threshold, fused >= threshold

    def _same_weights(self, weights: np.ndarray) -> tuple[bool, bool]:
        """Whether `weights` are the last call's, and whether they are its very read-only
        array of its own (score fusion's weights while they stay the same); equal as plain
        floats otherwise (np.array_equal's exact test, NaN differing from itself, at a
        tenth of its cost)."""
        same = weights is self._fused_object
        own = same and weights.base is None and not weights.flags.writeable and weights.ndim == 1
        if not own:
            now = weights.tolist()
            last = self._fused_list
            if last is None and self.fused_weights_ is not None:  # loaded from an older file
                last = self._fused_list = self.fused_weights_.tolist()
            same = last is not None and now == last
            self._fused_object = weights
        return same, own

    def _modelfile_state(self) -> dict[str, Any]:
        """What a model file keeps: all but the last weights object (an identity check)."""
        return {k: v for k, v in self.__dict__.items() if k != "_fused_object"}

    def acquired_one(self) -> None:
        """The model acquired the last sample (asked for by the pacer or not)."""
        self.n_acquired_ += 1

    def repace(self, budget_fraction: float) -> None:
        """A new budget from the next sample on: pace to `budget_fraction`, owing nothing,
        with no head start and no end in view (the recent scores stay)."""
        self.set_params(budget_fraction=budget_fraction, head_start=0.0, horizon=None)
        self._check()
        self.n_seen_ = 0
        self.n_acquired_ = 0


def allowance(b: float, head: float, over: float, seen: int, acquired: int) -> float:
    """Labels accrued and not spent after `seen` samples: ``b · t + h(t) − acquired``, the
    head start `head` granted evenly over `over` labels' worth of samples (at once if 0).

    >>> allowance(0.25, 1.0, 0.0, seen=8, acquired=2)
    1.0
    """
    accrued = b * seen
    if over > 0.0:
        head *= min(1.0, accrued / over)
    return accrued + head - acquired


def level(
    b: float, head: float, over: float, tol: float, horizon: float, seen: int, acquired: int
) -> float:
    """The quantile level a sample's fused score must reach after `seen` samples, or -1
    when no label is due (`horizon` NaN for none): the balance lowers ``1 − b`` to 0 over
    `tol` labels' worth of samples once a label is due, faster near the horizon.

    >>> level(0.25, 0.0, 0.0, 1.0, math.nan, seen=3, acquired=0)   # 0.75 labels accrued
    -1.0
    >>> level(0.25, 0.0, 0.0, 1.0, 4.0, seen=4, acquired=0)        # due at the horizon
    0.0
    """
    # a label is due once it has accrued (the tiny slack absorbs b · t's rounding)
    due = allowance(b, head, over, seen, acquired) - 1.0 + 1e-9
    if due < 0.0:
        return -1.0
    at = (1.0 - b) * max(0.0, 1.0 - due / tol)
    if not math.isnan(horizon):  # wait less when little time is left
        at *= min(1.0, max(0.0, b * (horizon - seen) / tol))
    return at


def step(  # the arrays, the counters, the pace (as level's)
    window: np.ndarray, fused: np.ndarray, scores: np.ndarray, weights: np.ndarray,
    slot: int, size: int, seen: int, acquired: int,
    b: float, head: float, over: float, tol: float, horizon: float,
) -> tuple[float, float, float]:  # fmt: skip
    """One step of :meth:`QuantilePacer.decide` with unchanged weights, after its counters
    moved: `scores` into the `window` at `slot` and their fused score into `fused`;
    ``(fused score, level, threshold)``, the :func:`level` -1 and the threshold infinite
    when no label is due. The reference of the compiled :func:`cbeal.kernels.pacer.step`
    (which returns a NaN threshold when a fused score is NaN)."""
    window[slot] = scores
    f = float(scores @ weights)
    fused[slot] = f
    at = level(b, head, over, tol, horizon, seen, acquired)
    if at < 0.0:
        return f, at, math.inf
    return f, at, _quantile(fused[:size], at)


def check_pace(budget_fraction: Any, window: Any) -> None:
    """A pacer's share of the samples in (0, 1] and its window of ≥ 2 samples."""
    b = budget_fraction
    if isinstance(b, bool) or not isinstance(b, (int, float)) or not 0.0 < b <= 1.0:
        raise ParameterError(
            f"budget_fraction must be a share of the samples in (0, 1], got {b!r}; e.g. "
            "0.05 for a budget of 5 %"
        )
    w = window
    if isinstance(w, bool) or not isinstance(w, (int, np.integer)) or w < 2:
        raise ParameterError(f"window must be a whole number ≥ 2, got {w!r}")


def _dense(a: np.ndarray) -> bool:
    """Contiguous and aligned: numpy's dot product then calls OpenBLAS on it directly."""
    flags = a.flags
    return bool(flags.c_contiguous and flags.aligned)


def _quantile(values: np.ndarray, level: float) -> float:
    """``np.quantile(values, level)`` (its default, linear method), bit for bit, in a tenth
    of its time: two order statistics by one partition, then numpy's own interpolation.

    >>> v = np.random.default_rng(0).random(200)
    >>> all(_quantile(v, q) == np.quantile(v, q) for q in np.linspace(0.0, 1.0, 101))
    True
    """
    n = values.shape[0]
    virtual = (n - 1) * level
    if virtual >= n - 1:
        return float(values.max())
    lo = math.floor(virtual)
    gamma = virtual - lo
    pair = np.partition(values, (lo, lo + 1))
    a, b = float(pair[lo]), float(pair[lo + 1])
    diff = b - a
    # numpy's _lerp: from the nearer end, so that gamma = 1 gives b exactly
    return b - diff * (1.0 - gamma) if gamma >= 0.5 else a + diff * gamma
