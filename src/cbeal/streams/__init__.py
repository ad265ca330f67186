"""Streams to run active learners on: the paper's simulated stream (real data: cbeal.datasets)."""

from cbeal.streams.simulated import SimulatedStream, make_stream

__all__ = ["SimulatedStream", "make_stream"]
