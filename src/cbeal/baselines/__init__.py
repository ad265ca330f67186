"""The paper's benchmark strategies and Žliobaitė's, as agents (numpy only).

Run one with :class:`cbeal.SingleAgentLearner` (``epsilon=0``) to get the paper's rows RS,
US, DBALStream and QBC-PYP, plus the extra baselines VariableUncertainty and Split, and
EntropyAgent (entropy sampling paced to a budget share, added for the benchmark suite).
Their names (RS, US, VU, ENT, …) are resolved by :mod:`cbeal.catalog`.
"""

from cbeal.baselines.dbal_stream import DBALStreamAgent
from cbeal.baselines.entropy import EntropyAgent
from cbeal.baselines.qbc_pyp import QBCPYPAgent
from cbeal.baselines.simple import (
    RandomAgent,
    SplitAgent,
    UncertaintyAgent,
    VariableUncertaintyAgent,
)

__all__ = [
    "DBALStreamAgent",
    "EntropyAgent",
    "QBCPYPAgent",
    "RandomAgent",
    "SplitAgent",
    "UncertaintyAgent",
    "VariableUncertaintyAgent",
]
