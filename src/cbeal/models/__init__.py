"""The stream models: :class:`CbeAL` (agent ensemble + bandit), :class:`SingleAgentLearner`
(one agent), and their shared machinery :class:`StreamLearner`; :func:`stream_model` builds
either from a catalog name."""

from cbeal.models.build import stream_model
from cbeal.models.cbeal import CbeAL
from cbeal.models.single import SingleAgentLearner
from cbeal.models.stream import StreamLearner

__all__ = ["CbeAL", "SingleAgentLearner", "StreamLearner", "stream_model"]
