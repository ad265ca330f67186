"""Every strategy of the suite, by name: cbeal's agents, presets and baselines, the peers
run through their own libraries, and the CbeAL configurations tried on the development part.

A strategy is built per run by ``build(estimator, budget, n_stream, seed)`` exactly like a
:class:`~cbeal_studies.reproduction.methods.Method`: one stream model with the hard budget ``B``,
the model seed ``seed`` and, for strategies that pace themselves, the budget share
``B / n_stream``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cbeal.baselines import (
    EntropyAgent,
    RandomAgent,
    UncertaintyAgent,
    VariableUncertaintyAgent,
)
from cbeal.catalog import PRESETS, RECOMMENDED
from cbeal.core import (
    RATE_BURST,
    Agent,
    Exp4P,
    LabelRate,
    LowDensityAgent,
    SpaceFillingAgent,
    single_agent,
)
from cbeal.models import CbeAL, SingleAgentLearner, StreamLearner
from cbeal.models.fusion_presets import fusion_of, fusion_pool
from cbeal_studies.label_efficiency.peers import RiverEntropyAgent, SkactivemlPALAgent
from cbeal_studies.reproduction.methods import METHODS, Builder
from cbeal_studies.reproduction.skactiveml_check import SkactivemlAgent

__all__ = [
    "CANDIDATES",
    "FUSION",
    "Candidate",
    "FusionCandidate",
    "Strategy",
    "strategies",
    "strategy",
]

AgentPool = Callable[[float], list[tuple[str, Agent]]]


@dataclass(frozen=True)
class Strategy:
    """A row of the suite's tables; ``group`` is ``agent`` (one cbeal agent alone),
    ``cbeal`` (a paper preset), ``baseline`` (cbeal's implementation of a benchmark),
    ``peer`` (another library's implementation), ``candidate`` (a configuration tried on
    the development part) or ``recommended``."""

    name: str
    group: str
    build: Builder


def _peer(name: str, make: Callable[[float], Agent]) -> Strategy:
    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        return SingleAgentLearner(
            agent=make(budget / n_stream),
            name=name,
            epsilon=0.0,
            estimator=est,
            budget=budget,
            random_state=seed,
        )

    return Strategy(name, "peer", build)


# ----------------------------------------------------------------- beyond-the-paper pools
def _paper6(b: float) -> list[tuple[str, Agent]]:
    return [(n, single_agent(n)) for n in ("LD1", "RAL1", "LD2", "RAL2", "SPF1", "RAL3")]


def _paper6_wide_ld(b: float) -> list[tuple[str, Agent]]:
    # δ_L × 10: LD's probability min(1, lsf / (L δ_L)) stops being almost binary
    return [
        ("LD1", LowDensityAgent(window_size=100, sparsity_fraction=0.1)),
        ("RAL1", single_agent("RAL1")),
        ("LD2", LowDensityAgent(window_size=150, sparsity_fraction=0.05)),
        ("RAL2", single_agent("RAL2")),
        ("SPF1", SpaceFillingAgent(window_size=60)),
        ("RAL3", single_agent("RAL3")),
    ]


def _winners(b: float) -> list[tuple[str, Agent]]:
    # the paper's best pair plus fixed-threshold uncertainty (US)
    return [
        ("LD2", single_agent("LD2")),
        ("RAL1", single_agent("RAL1")),
        ("US", UncertaintyAgent(threshold=0.7)),
    ]


def _paced(b: float) -> list[tuple[str, Agent]]:
    # adds variable uncertainty (paced to b) and a uniform expert: random sampling at rate
    # b, the expert Exp4.P's guarantee assumes is in the pool
    return [
        ("LD2", single_agent("LD2")),
        ("RAL1", single_agent("RAL1")),
        ("VU", VariableUncertaintyAgent(budget_fraction=b)),
        ("RS", RandomAgent(rate=b)),
    ]


def _exploit(b: float) -> list[tuple[str, Agent]]:
    return [
        ("RAL1", single_agent("RAL1")),
        ("RAL3", single_agent("RAL3")),
        ("VU", VariableUncertaintyAgent(budget_fraction=b)),
        ("RS", RandomAgent(rate=b)),
    ]


def _uncertain(b: float) -> list[tuple[str, Agent]]:
    # the strategies that won the first development run as agents: RAL, entropy sampling,
    # variable uncertainty
    return [
        ("RAL1", single_agent("RAL1")),
        ("RAL2", single_agent("RAL2")),
        ("ENT", EntropyAgent(budget_fraction=b)),
        ("VU", VariableUncertaintyAgent(budget_fraction=b)),
    ]


def _ent_explore(b: float) -> list[tuple[str, Agent]]:
    # entropy sampling and RAL for exploitation, LD2 and the uniform expert for exploration
    return [
        ("ENT", EntropyAgent(budget_fraction=b)),
        ("RAL1", single_agent("RAL1")),
        ("LD2", single_agent("LD2")),
        ("RS", RandomAgent(rate=b)),
    ]


@dataclass(frozen=True)
class Candidate:
    """A CbeAL configuration: an agent pool (a function of the budget share) and options.

    ``role`` is ``"ablation"`` (one factor of the paper's CBEAL-6 changed, to measure why it
    loses) or ``"candidate"`` (eligible as the recommended preset).
    """

    name: str
    role: str
    pool: AgentPool
    solver: dict[str, Any] = field(default_factory=dict)
    penalty: float = -0.5
    epsilon: float = 0.01
    paced: bool = False

    def build(self, est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        # paced: the label-rate budget allows floor(b t) labels after t samples, at most B
        b = budget / n_stream
        return CbeAL(
            agents=self.pool(b),
            solver=Exp4P(**self.solver),
            epsilon=self.epsilon,
            penalty=self.penalty,
            estimator=est,
            budget=LabelRate(rate=b, total=budget) if self.paced else budget,
            random_state=seed,
        )


_FAST = {"eta": 0.2, "ewma": False}
CANDIDATES: tuple[Candidate, ...] = (
    Candidate("A:step0.2", "ablation", _paper6, {"eta": 0.2}),
    Candidate("A:noEWMA", "ablation", _paper6, {"ewma": False}),
    Candidate("A:penalty-0.05", "ablation", _paper6, penalty=-0.05),
    Candidate("A:LDx10", "ablation", _paper6_wide_ld),
    Candidate("A:rate", "ablation", _paper6, paced=True),
    Candidate("C:6-fast", "candidate", _paper6, _FAST),
    Candidate("C:winners-fast", "candidate", _winners, _FAST),
    Candidate("C:paced-fast", "candidate", _paced, _FAST),
    Candidate("C:paced-step0.05", "candidate", _paced, {"eta": 0.05, "ewma": False}),
    Candidate("C:paced-ewma", "candidate", _paced, {"eta": 0.2}),
    Candidate("C:exploit-fast", "candidate", _exploit, _FAST),
    # added after the first development run, with the lead's label-rate budget and the
    # entropy agent (before any evaluation-part number existed)
    Candidate("C:paced-fast-rate", "candidate", _paced, _FAST, paced=True),
    Candidate("C:exploit-fast-rate", "candidate", _exploit, _FAST, paced=True),
    Candidate("C:uncertain-fast", "candidate", _uncertain, _FAST),
    Candidate("C:uncertain-fast-rate", "candidate", _uncertain, _FAST, paced=True),
    Candidate("C:ent-explore-fast", "candidate", _ent_explore, _FAST),
    Candidate("C:ent-explore-fast-rate", "candidate", _ent_explore, _FAST, paced=True),
)


@dataclass(frozen=True)
class FusionCandidate:
    """A score-fusion configuration (issue 23): members, weight rule and the pacer's options.

    Run like every strategy with the hard budget ``B``; its pacer spends the share
    ``b = B / n`` evenly, with a head start of one label so that all of ``B`` is spent
    (round 1; round 2's candidates set the pacer's options in `pacer`).
    With ``rate=True`` the budget is the rate budget ``LabelRate(rate=b, total=B)``
    instead (no head start).
    """

    name: str
    role: str  # "fusion" (eligible), "member" (alone, paced), "fusion2"/"fusion4" (rounds 2, 4)
    members: tuple[str, ...]
    weights: str = "equal"
    epsilon: float = 0.0
    rate: bool = False
    pacer: tuple[tuple[str, Any], ...] = ()  # ScoreFusion's pacer options (round 2)
    burst: float = 0.0  # with `rate`: the token bucket's depth (round 5)

    def build(self, est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        b = budget / n_stream
        cap = LabelRate(rate=b, total=budget, burst=self.burst) if self.rate else budget
        return CbeAL(
            agents=fusion_pool(self.members, b, est),
            fusion=fusion_of(self.weights, budget_fraction=b, **dict(self.pacer)),
            epsilon=self.epsilon,
            estimator=est,
            budget=cap,
            random_state=seed,
        )


_U4 = ("RAL1", "RAL2", "ENT", "VU")  # CBEAL-4U's members
_DELAYED = (("head_start", 1.0), ("head_start_over", 1.0), ("horizon", "auto"))
_END = (("head_start", 0.0), ("horizon", "auto"))
_DEFICIT = (("pacer", "deficit"),)
_BURSTS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)  # round 5: k is chosen from the count runs
_DIVERSE = ("H", "QBC", "DWU", "MIN", "SPF1", "LDS")  # members that see different things
FUSION: tuple[FusionCandidate, ...] = (
    FusionCandidate("F:4U-eq", "fusion", _U4),
    FusionCandidate("F:4U-ev", "fusion", _U4, "evidence"),
    FusionCandidate("F:div-eq", "fusion", _DIVERSE),
    FusionCandidate("F:div-ev", "fusion", _DIVERSE, "evidence"),
    FusionCandidate("F:4U+3-eq", "fusion", (*_U4, "QBC", "DWU", "MIN")),
    FusionCandidate("F:4U+3-ev", "fusion", (*_U4, "QBC", "DWU", "MIN"), "evidence"),
    FusionCandidate("F:4U+MIN-eq", "fusion", (*_U4, "MIN")),
    FusionCandidate("F:H+QBC+MIN-eq", "fusion", ("H", "QBC", "MIN")),
    # each new member alone, paced by the same quantile filter
    *(
        FusionCandidate(f"M:{m}", "member", (m,))
        for m in ("H", "DWU", "QBC", "MIN", "LDS", "SPF1", "RAL1")
    ),
    # round 2 (studies/BENCHMARK.md): the pacer's head start granted over the first 1/b samples,
    # or none; both with the horizon (a due label waits less near the budget's end)
    FusionCandidate("F:5F-delay", "fusion2", (*_U4, "MIN"), pacer=_DELAYED),
    FusionCandidate("F:5F-end", "fusion2", (*_U4, "MIN"), pacer=_END),
    FusionCandidate("F:H+QBC+MIN-end", "fusion2", ("H", "QBC", "MIN"), pacer=_END),
    # round 4: entropy and minority seeking alone, with round 3's pacer
    FusionCandidate("F:H+MIN-end", "fusion4", ("H", "MIN"), pacer=_END),
    # round 5 (issue 32): the pacer (accrual: F:, deficit: D:) × minority seeking, under the
    # count budget; the rate-budget twins and the leave-one-member-out sets
    FusionCandidate("F:4U-end", "fusion5", _U4, pacer=_END),
    FusionCandidate("D:5F", "fusion5", (*_U4, "MIN"), pacer=_DEFICIT),
    FusionCandidate("D:4U", "fusion5", _U4, pacer=_DEFICIT),
    *(
        FusionCandidate(
            f"D:{tag}-rate{k:g}", "fusion5", members, pacer=_DEFICIT, rate=True, burst=k
        )
        for tag, members in (("5F", (*_U4, "MIN")), ("4U", _U4))
        for k in _BURSTS
    ),
    # round 5, stage 2: the winner D:5F less every member that may go (RAL1, RAL2, VU, MIN)
    FusionCandidate("D:ENT", "fusion5", ("ENT",), pacer=_DEFICIT),
    *(
        FusionCandidate(f"{p[0]}:{tag}-{m}", "fusion5", tuple(x for x in ms if x != m), pacer=p[1])
        for p in (("D", _DEFICIT), ("F", _END))
        for tag, ms in (("5F", (*_U4, "MIN")), ("4U", _U4))
        for m in ms
    ),
)


def _all() -> dict[str, Strategy]:
    out: dict[str, Strategy] = {}
    for name in ("LD1", "LD2", "LD3", "SPF1", "RAL1", "RAL2", "RAL3", "RAL4"):
        out[name] = Strategy(name, "agent", _method(name))
    # cbeal's entropy agent alone (ε = 0), so that "the best single agent" covers every
    # agent a candidate pool may hold
    out["ENT"] = Strategy("ENT", "agent", _entropy_alone)
    for name in ("CBEAL-2", "CBEAL-4", "CBEAL-4*", "CBEAL-6", "CBEAL-8"):
        out[name] = Strategy(name, "cbeal", _method(name))
    for name in ("RS", "US", "VariableUncertainty", "Split", "DBALStream", "QBC-PYP"):
        out[name] = Strategy(name, "baseline", _method(name))
    peers = [
        _peer(
            "VariableUncertainty (skactiveml)",
            lambda b: SkactivemlAgent(strategy="VariableUncertainty", budget_fraction=b),
        ),
        _peer("Split (skactiveml)", lambda b: SkactivemlAgent(strategy="Split", budget_fraction=b)),
        _peer(
            "StreamDensityBasedAL (skactiveml)",
            lambda b: SkactivemlAgent(strategy="DBALStream", budget_fraction=b),
        ),
        _peer(
            "StreamProbabilisticAL (skactiveml)", lambda b: SkactivemlPALAgent(budget_fraction=b)
        ),
        _peer("EntropySampler (river)", lambda b: RiverEntropyAgent(budget_fraction=b)),
    ]
    out.update({p.name: p for p in peers})
    for c in CANDIDATES:
        out[c.name] = Strategy(c.name, c.role, c.build)
    for f in FUSION:
        out[f.name] = Strategy(f.name, f.role, f.build)
    # the presets beyond the paper, each exactly as a user gets it (CBEAL-4U was the
    # recommended one until score fusion's CBEAL-5F was chosen, issue 23); a fusion preset
    # also runs under a rate budget
    for name, entry in PRESETS.items():
        if entry.family in ("paper", "regression"):  # regression presets: studies/REGRESSION.md
            continue
        rec = name == RECOMMENDED
        out[name] = Strategy(name, "recommended" if rec else "cbeal", _fusion_preset(name))
        if entry.fusion is not None:
            out[f"{name} (rate)"] = Strategy(
                f"{name} (rate)", "recommended-rate" if rec else "cbeal", _fusion_preset(name, True)
            )
    return out


def _fusion_preset(name: str, rate: bool = False) -> Builder:
    """A preset exactly as a user gets it: with the count budget ``B`` and
    ``budget_fraction=B/n``, or (`rate`) with the rate budget ``LabelRate(B/n, total=B,
    burst=RATE_BURST)``."""

    def build(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
        b = budget / n_stream
        if rate:  # "5%" as the README shows it (its token bucket), with the total B
            cap = LabelRate(rate=b, total=budget, burst=RATE_BURST)
            return CbeAL.from_preset(name, estimator=est, budget=cap, random_state=seed)
        return CbeAL.from_preset(
            name, estimator=est, budget=budget, budget_fraction=b, random_state=seed
        )

    return build


def _entropy_alone(est: Any, budget: int, n_stream: int, seed: int) -> StreamLearner:
    return SingleAgentLearner(
        agent=EntropyAgent(budget_fraction=budget / n_stream),
        name="ENT",
        epsilon=0.0,
        estimator=est,
        budget=budget,
        random_state=seed,
    )


def _method(name: str) -> Builder:
    build = METHODS[name].build
    assert build is not None
    return build


def strategies(groups: tuple[str, ...] | None = None) -> dict[str, Strategy]:
    """The strategies of `groups` (all when None), in table order.

    >>> [s for s in strategies(("agent",))]
    ['LD1', 'LD2', 'LD3', 'SPF1', 'RAL1', 'RAL2', 'RAL3', 'RAL4', 'ENT']
    """
    table = _all()
    return {k: v for k, v in table.items() if groups is None or v.group in groups}


def strategy(name: str) -> Strategy:
    """One strategy by name."""
    table = _all()
    if name not in table:
        raise ValueError(f"unknown strategy {name!r}; choose from {list(table)}")
    return table[name]
