"""The simulation study's scenarios and seeded, versioned workloads (spec §7).

Scenario ids are permanent: ``S01`` … ``S24`` follow the row order of the paper's tables
(disturbance, then share of positives, then sparsity, then n). A generator version fixes
every detail of data generation; a changed generator gets a new version id.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from cbeal.core.exceptions import ParameterError
from cbeal.streams.simulated import SimulatedStream, make_stream

__all__ = ["GENERATORS", "SCENARIOS", "Generator", "Scenario", "scenario"]


@dataclass(frozen=True)
class Generator:
    """A version of the data generator. Never change one in place: add a new version."""

    id: str
    class_sep: float
    note: str


GENERATORS: dict[str, Generator] = {
    "v1": Generator("v1", 1.0, "make_classification default class_sep = 1.0"),
    # Calibrated by cbeal_studies.reproduction.calibrate (bisection, PlattSVC, 3 replications per
    # scenario, All Training Data only): class_sep 0.9219 -> 78.47 % (paper 78.5 %).
    "v2": Generator(
        "v2",
        0.92,
        "class_sep chosen so that the grid-average All-Training-Data accuracy matches the "
        "paper's 78.5 %; calibrated on the All Training Data row only",
    ),
}


@dataclass(frozen=True)
class Scenario:
    """One cell of the simulation grid (p = 15 features, D0 of 20, test set of 500)."""

    id: str
    n: int
    pc: float
    ds: float
    sp: float
    p: int = 15

    def seed(self, replication: int, generator: str) -> int:
        """The data seed of one replication: fixed by scenario id, replication, generator."""
        key = f"{self.id}/{replication}/{generator}".encode()
        return zlib.crc32(key)

    def data(
        self, replication: int, generator: str = "v1", *, class_sep: float | None = None
    ) -> SimulatedStream:
        """The data set of one replication; every method sees this same data set.

        `class_sep` overrides the generator's value (used only to calibrate a generator).
        """
        sep = GENERATORS[generator].class_sep if class_sep is None else class_sep
        return make_stream(
            n=self.n,
            pc=self.pc,
            ds=self.ds,
            sp=self.sp,
            p=self.p,
            class_sep=sep,
            random_state=np.random.SeedSequence(self.seed(replication, generator)),
        )


def _grid() -> tuple[Scenario, ...]:
    out: list[Scenario] = []
    for ds in (0.0, 0.03):
        for pc in (0.10, 0.05):
            for sp in (0.30, 0.70):
                for n in (500, 1000, 1500):
                    out.append(Scenario(id=f"S{len(out) + 1:02d}", n=n, pc=pc, ds=ds, sp=sp))
    return tuple(out)


SCENARIOS: tuple[Scenario, ...] = _grid()


def scenario(scenario_id: str) -> Scenario:
    """Look a scenario up by its id.

    >>> scenario("S01")
    Scenario(id='S01', n=500, pc=0.1, ds=0.0, sp=0.3, p=15)
    >>> scenario("S24")
    Scenario(id='S24', n=1500, pc=0.05, ds=0.03, sp=0.7, p=15)
    """
    for s in SCENARIOS:
        if s.id == scenario_id:
            return s
    raise ParameterError(f"unknown scenario {scenario_id!r}; ids run from S01 to S24")
