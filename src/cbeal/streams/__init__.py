"""Streams to run active learners on: the paper's simulated stream and a user's own table
(:func:`load_table`; bundled real data: cbeal.datasets)."""

from cbeal.streams.simulated import SimulatedStream, make_stream
from cbeal.streams.split import StreamSplit
from cbeal.streams.table import Table, load_table

__all__ = ["SimulatedStream", "StreamSplit", "Table", "load_table", "make_stream"]
