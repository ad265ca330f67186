"""The case study on real line data (spec §8): SECOM and AI4I 2020, L1 and random forest."""

from cbeal_studies.casestudy.protocol import (
    DATASETS,
    METRICS,
    CaseData,
    CaseStudy,
    contiguous_split,
    scores,
)
from cbeal_studies.casestudy.runner import collect, run_case_study, run_case_task, run_method
from cbeal_studies.casestudy.studies import CASE_STUDIES, studies_for

__all__ = [
    "CASE_STUDIES",
    "DATASETS",
    "METRICS",
    "CaseData",
    "CaseStudy",
    "collect",
    "contiguous_split",
    "run_case_study",
    "run_case_task",
    "run_method",
    "scores",
    "studies_for",
]
