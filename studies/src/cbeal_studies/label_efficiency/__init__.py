"""The label-efficiency benchmark suite (``cbeal benchmark``; studies/BENCHMARK.md).

Frozen, versioned, seeded workloads split into a development and an evaluation part
(:mod:`.scenarios`, :mod:`.data`) and the profiles that run them (:mod:`.profiles`); every
strategy by name (:mod:`.strategies`, with the peers of :mod:`.peers`); a resumable
parallel runner with provenance (:mod:`.runner`); ranks, paired wins and the goal checks
(:mod:`.analysis`); tables and figures (:mod:`.report`, :mod:`.figures`); the appendix's
characterization of the agents by Monte Carlo (:mod:`.appendix`). Optional dependencies:
``pip install -e '.[suite]'``.
"""

from cbeal_studies.label_efficiency.pipeline import benchmark
from cbeal_studies.label_efficiency.profiles import PROFILES, Profile
from cbeal_studies.label_efficiency.scenarios import WORKLOADS, workload

__all__ = ["PROFILES", "WORKLOADS", "Profile", "benchmark", "workload"]
