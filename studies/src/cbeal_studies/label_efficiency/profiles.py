"""What each run of the suite covers: the profiles, chosen by name (`profile`).

A :class:`Profile` names workloads of :mod:`.scenarios` (by part), learners, budget shares,
replications (data seeds) and the strategies (groups and names of :mod:`.strategies`).
Profiles that ran are part of the record (studies/BENCHMARK.md): add new ones rather than edit them.
"""

from __future__ import annotations

from dataclasses import dataclass

from cbeal_studies.label_efficiency.scenarios import BUDGETS, LEARNERS, WORKLOADS

__all__ = ["PROFILES", "Profile"]


@dataclass(frozen=True)
class Profile:
    """What a run covers: workloads, learners, budget shares, replications, strategy groups.

    ``stream_cap`` keeps only the first samples of each stream (for the CI profile).
    """

    name: str
    workloads: tuple[str, ...]
    replications: int
    learners: tuple[str, ...] = LEARNERS
    budgets: tuple[float, ...] = BUDGETS
    groups: tuple[str, ...] = ("agent", "cbeal", "baseline", "peer", "recommended")
    stream_cap: int | None = None
    names: tuple[str, ...] = ()  # further strategies by name, beside the groups
    first_replication: int = 0  # replications first_replication … + replications - 1

    @property
    def replication_ids(self) -> range:
        """The replications run (data seeds).

        >>> PROFILES["fresh2"].replication_ids
        range(2, 4)
        """
        return range(self.first_replication, self.first_replication + self.replications)


_FIXED_DEV = ("RS", "ENT", "VariableUncertainty", "Split", "CBEAL-4", "CBEAL-6", "CBEAL-4U")


# the fixed strategies of the later fresh parts (round 1's CBEAL-5F is F:4U+MIN-eq)
_FRESH_FIXED = (
    "RS",
    "ENT",
    "CBEAL-2",
    "CBEAL-4",
    "CBEAL-4*",
    "CBEAL-6",
    "CBEAL-8",
    "CBEAL-4U",
    "F:4U+MIN-eq",
)


# issue 23 round 4's challengers, in run order
_ROUND4 = ("F:H+MIN-end", "F:H+QBC+MIN-end")


def _part(part: str) -> tuple[str, ...]:
    """The ids of the workloads of `part`, in the table's order.

    >>> _part("fresh2")[:2]
    ('drift-hyperplane-fast', 'drift-sea-abrupt-0to3')
    """
    return tuple(wid for wid, (_, p) in WORKLOADS.items() if p == part)


PROFILES: dict[str, Profile] = {
    # CI: one workload of four families (development part), streams cut to 300 samples
    "quick": Profile(
        "quick",
        ("paper-v1-S02", "sk-wine", "drift-sea-abrupt", "uci-steel"),
        1,
        learners=("logreg",),
        budgets=(0.10,),
        stream_cap=300,
    ),
    # development part with the ablations and candidate configurations
    "dev": Profile(
        "dev",
        _part("dev"),
        3,
        # the recommended preset is one of the candidates (C:uncertain-fast), not run twice
        groups=("agent", "cbeal", "baseline", "peer", "ablation", "candidate"),
    ),
    # the whole suite: both parts, the fixed strategies and the recommended preset
    "full": Profile("full", _part("dev") + _part("eval"), 3),
    # issue 23, development part: the score-fusion candidates and the new members alone,
    # ranked among the strategies the fresh evaluation part runs (less the slow or weak
    # baselines: US, DBALStream, QBC-PYP and three paper presets)
    "fusion-dev": Profile(
        "fusion-dev",
        _part("dev"),
        2,  # replications 0-1: the machine was too slow for the third (studies/BENCHMARK.md)
        groups=("fusion", "member", "peer"),
        names=_FIXED_DEV,
    ),
    # issue 23, the fresh evaluation part: every fixed strategy and the preset chosen on the
    # development part, nothing else
    "fresh": Profile(
        "fresh",
        _part("fresh"),
        2,  # replications 0-1 (studies/BENCHMARK.md: the time this session had)
        groups=("peer", "recommended", "recommended-rate"),
        names=("RS", "ENT", "CBEAL-2", "CBEAL-4", "CBEAL-4*", "CBEAL-6", "CBEAL-8", "CBEAL-4U"),
    ),
    # issue 23 round 2, development part: round 1's rows (replications 0-1) plus the
    # round-2 pacer candidates and round 1's CBEAL-5F (F:4U+MIN-eq) rerun
    "fusion2-dev": Profile(
        "fusion2-dev",
        _part("dev"),
        2,
        groups=("fusion", "member", "peer", "fusion2"),
        names=_FIXED_DEV,
    ),
    # issue 23 round 2, the second fresh part: the fresh part's workloads with replications
    # 2-3 and six new workloads; every fixed strategy, round 1's CBEAL-5F and the preset
    # chosen on fusion2-dev (with its rate-budget twin)
    "fresh2": Profile(
        "fresh2",
        _part("fresh") + _part("fresh2"),
        2,
        first_replication=2,
        groups=("peer", "recommended", "recommended-rate"),
        names=_FRESH_FIXED,
    ),
    # issue 23 round 3, the development part fusion3-dev (studies/BENCHMARK.md) is assembled from
    # the rows of fusion2-dev, fresh and fresh2; these two profiles add the candidates'
    # missing rows: both on the fresh part's workloads with replications 0-1, F:5F-end on
    # fresh2 (F:5F-delay's rows there are the catalog CBEAL-5F's)
    "fusion3-fresh": Profile(
        "fusion3-fresh", _part("fresh"), 2, groups=(), names=("F:5F-delay", "F:5F-end")
    ),
    "fusion3-fresh2": Profile(
        "fusion3-fresh2",
        _part("fresh") + _part("fresh2"),
        2,
        first_replication=2,
        groups=(),
        names=("F:5F-end",),
    ),
    # issue 23 round 4, the development part fusion4-dev = fusion3-dev + fresh3
    # (studies/BENCHMARK.md);
    # these profiles add the candidates' missing rows, source by source (F:H+QBC+MIN-end
    # has rows on the round-2 development part)
    "fusion4-dev2": Profile("fusion4-dev2", _part("dev"), 2, groups=(), names=_ROUND4[:1]),
    "fusion4-fresh": Profile("fusion4-fresh", _part("fresh"), 2, groups=(), names=_ROUND4),
    "fusion4-fresh2": Profile(
        "fusion4-fresh2",
        _part("fresh") + _part("fresh2"),
        2,
        first_replication=2,
        groups=(),
        names=_ROUND4,
    ),
    "fusion4-fresh3": Profile(
        "fusion4-fresh3", _part("fresh3"), 2, first_replication=4, groups=(), names=_ROUND4
    ),
    # issue 32 (round 5), the development part fusion5-dev = fusion4-dev (studies/BENCHMARK.md);
    # these profiles add the round-5 candidates' rows, source by source (the candidates are
    # named when the profile is run: the rule decides which run after which)
    "fusion5-dev2": Profile("fusion5-dev2", _part("dev"), 2, groups=()),
    "fusion5-fresh": Profile("fusion5-fresh", _part("fresh"), 2, groups=()),
    "fusion5-fresh2": Profile(
        "fusion5-fresh2", _part("fresh") + _part("fresh2"), 2, first_replication=2, groups=()
    ),
    "fusion5-fresh3": Profile("fusion5-fresh3", _part("fresh3"), 2, first_replication=4, groups=()),
    # issue 23 round 3, the third fresh part: 18 new workloads, replications 4-5; the
    # strategies of fresh2 (the rate-budget twin is skipped if its decisions equal the
    # count run's, studies/BENCHMARK.md)
    "fresh3": Profile(
        "fresh3",
        _part("fresh3"),
        2,
        first_replication=4,
        groups=("peer", "recommended", "recommended-rate"),
        names=_FRESH_FIXED,
    ),
    # issue 32 round 5, the fifth fresh part: 19 new workloads, replications 6-7, fixed
    # before any round-5 candidate ran on it; the round-5 winner CBEAL-5D under the rate
    # budget (its token bucket) and the count, ENT, the peers, CBEAL-5F and the fixed ones
    "fresh5": Profile(
        "fresh5",
        _part("fresh5"),
        2,
        first_replication=6,
        groups=(),
        names=(  # in studies/BENCHMARK.md's run order: the winner (rate, count) first
            "CBEAL-5D (rate)",
            "CBEAL-5D",
            "ENT",
            "StreamProbabilisticAL (skactiveml)",
            "RS",
            "EntropySampler (river)",
            "CBEAL-5F",
            "CBEAL-4U",
            "VariableUncertainty (skactiveml)",
            "Split (skactiveml)",
            "StreamDensityBasedAL (skactiveml)",
            "CBEAL-6",
            "CBEAL-4",
        ),
    ),
}
