"""The case studies by permanent id (spec §8): the paper's L1 protocol and a nonlinear one.

The paper's base learner for its FDM case study is L1-penalised logistic regression; on
SECOM and AI4I 2020 it learns little, so each dataset is also run with a random forest,
which can learn AI4I. A forest is too slow to refit after each of up to 1333 labels, so
those studies refit every k labels (all methods alike, and once more after the stream).
"""

from __future__ import annotations

from cbeal.core.exceptions import ParameterError
from cbeal_studies.casestudy.protocol import CaseStudy

__all__ = ["CASE_STUDIES", "studies_for"]

CASE_STUDIES: dict[str, CaseStudy] = {
    s.id: s
    for s in (
        CaseStudy(id="secom-l1", dataset="secom", learner="logreg-l1"),
        CaseStudy(id="ai4i-l1", dataset="ai4i", learner="logreg-l1"),
        CaseStudy(id="secom-rf", dataset="secom", learner="random-forest", refit=10),
        CaseStudy(id="ai4i-rf", dataset="ai4i", learner="random-forest", refit=25),
    )
}


def studies_for(dataset: str) -> list[str]:
    """The ids of the studies of one dataset, the paper's protocol first.

    >>> studies_for("secom")
    ['secom-l1', 'secom-rf']
    """
    found = [k for k, s in CASE_STUDIES.items() if s.dataset == dataset]
    if not found:
        datasets = sorted({s.dataset for s in CASE_STUDIES.values()})
        raise ParameterError(f"unknown dataset {dataset!r}; choose one of {', '.join(datasets)}")
    return found
