"""The OPC UA bridge's nodes: which nodes make a part, and how a part is read from them.

A part is announced by a new value of the *trigger* node (a part id or a part counter);
its features are the values of the *feature* nodes, in the order given, which is the
order of the stream's features. Reading is done two ways:

* :func:`read_live` — at once, in one Read request together with the trigger, so that a
  part overtaken by the next one while the bridge was reading is recognised;
* :func:`read_history` — from the server's history (OPC UA Historical Access), for the
  parts that went by while the bridge was away: the trigger's changes since the cursor,
  each with the last value of every feature at or before the trigger's source time.

Examples
--------
>>> parse_node_id("ns=2;s=Line1.Part", "trigger")
NodeId(Identifier='Line1.Part', NamespaceIndex=2, NodeIdType=<NodeIdType.String: 3>)
>>> parse_node_id("ns=2;x=7", "trigger")
Traceback (most recent call last):
...
cbeal.core.exceptions.ParameterError: `trigger` 'ns=2;x=7' is not an OPC UA node id;
write it as ns=<index>;s=<name> or ns=<index>;i=<number> (e.g. ns=2;s=Line1.PartId)
>>> sample_id(41), sample_id(41.0), sample_id("A-17 ")
('41', '41', 'A-17')
>>> split_node_ids("ns=2;s=Temp,ns=2;s=Force, ns=3;i=1017")
['ns=2;s=Temp', 'ns=2;s=Force', 'ns=3;i=1017']
>>> split_node_ids("ns=2;s=Zone 1,2 temp,ns=2;s=Force")  # a comma inside a name stays
['ns=2;s=Zone 1,2 temp', 'ns=2;s=Force']
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from cbeal.core import ParameterError

__all__ = [
    "Nodes",
    "Part",
    "Reading",
    "as_variant",
    "check_nodes",
    "features_of",
    "history_available",
    "parse_node_id",
    "read_history",
    "read_live",
    "sample_id",
    "split_node_ids",
    "stamp_of",
]


@dataclass(frozen=True)
class Part:
    """One part read from the line: its sample id, trigger source time and features."""

    sample_id: str
    stamp: float | None
    x: list[float | None]
    nonfinite: tuple[int, ...] = ()  # features read as NaN or ±inf: sent as missing


def split_node_ids(text: str) -> list[str]:
    """Node ids written one after the other, comma-separated; a comma splits only where
    a node id begins (``ns=``, ``i=``, ``s=``, ``g=``, ``b=``)."""
    return [t.strip() for t in re.split(r",(?=\s*(?:ns|[isgb])=)", text) if t.strip()]


def parse_node_id(text: str, what: str) -> Any:
    """The :class:`asyncua.ua.NodeId` written as `text`; `what` names the option in errors."""
    from asyncua import ua

    try:
        return ua.NodeId.from_string(text.strip())
    except Exception:
        raise ParameterError(
            f"`{what}` {text!r} is not an OPC UA node id; write it as ns=<index>;s=<name> or "
            "ns=<index>;i=<number> (e.g. ns=2;s=Line1.PartId)"
        ) from None


@dataclass(frozen=True)
class Nodes:
    """The node ids of a line: trigger, features (in the stream's order), decision nodes."""

    trigger: Any
    features: tuple[Any, ...]
    decision: Any | None = None
    decision_part: Any | None = None

    @classmethod
    def parse(
        cls,
        trigger: str,
        features: list[str],
        decision: str | None = None,
        decision_part: str | None = None,
    ) -> Nodes:
        if not features:
            raise ParameterError("`features` is empty: give the feature nodes, comma-separated")
        return cls(
            trigger=parse_node_id(trigger, "trigger"),
            features=tuple(parse_node_id(f, "features") for f in features),
            decision=None if decision is None else parse_node_id(decision, "decision"),
            decision_part=None
            if decision_part is None
            else parse_node_id(decision_part, "decision_part"),
        )


def sample_id(value: Any) -> str | None:
    """The sample id of a trigger value (None: no part, e.g. an empty string)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = value.hex() if isinstance(value, bytes) else str(value).strip()
    return text or None


def features_of(values: list[Any]) -> tuple[list[float | None], tuple[int, ...]]:
    """The feature values of a part (None: missing) and the positions of those read as
    NaN or ±inf: a non-finite reading is a missing value, which the service imputes.

    >>> features_of([1, 2.5, True, "x", None, float("nan"), float("-inf")])
    ([1.0, 2.5, 1.0, None, None, None, None], (5, 6))
    """
    x: list[float | None] = []
    nonfinite = []
    for j, value in enumerate(values):
        if isinstance(value, bool | int | float):
            number = float(value)
            if not math.isfinite(number):
                nonfinite.append(j)
            x.append(number if math.isfinite(number) else None)
        else:
            x.append(None)  # a bad status or a value that is not a number: missing
    return x, tuple(nonfinite)


def stamp_of(dv: Any) -> float | None:
    """A DataValue's source time (else its server time) in POSIX seconds."""
    ts = dv.SourceTimestamp or dv.ServerTimestamp
    return None if ts is None else _utc(ts).timestamp()


def _utc(ts: datetime) -> datetime:
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=timezone.utc)


async def check_nodes(client: Any, nodes: Nodes, endpoint: str) -> tuple[Any, Any]:
    """Fail with a one-line error if a node is missing; the decision nodes' variant types."""
    from asyncua import ua

    named = [("trigger", nodes.trigger)] + [("features", n) for n in nodes.features]
    named += [
        (w, n)
        for w, n in (("decision", nodes.decision), ("decision_part", nodes.decision_part))
        if n
    ]
    found = await client.read_attributes(
        [client.get_node(n) for _, n in named], ua.AttributeIds.NodeClass
    )
    for (what, node), dv in zip(named, found, strict=True):
        if not dv.StatusCode.is_good():
            raise ParameterError(
                f"`{what}` node {node.to_string()} is not on {endpoint} "
                f"({dv.StatusCode.name}); check the node id (an OPC UA browser shows them)"
            )
    kinds: list[Any] = []
    for what, node in (("decision", nodes.decision), ("decision_part", nodes.decision_part)):
        if node is None:
            kinds.append(None)
            continue
        kind = await client.get_node(node).read_data_type_as_variant_type()
        if kind.name not in _DECISION_TYPES | {"String"}:
            raise ParameterError(
                f"`{what}` node {node.to_string()} holds {kind.name}; it must be Boolean, a "
                "number or a string"
            )
        kinds.append(kind)
    return kinds[0], kinds[1]


_DECISION_TYPES = {
    "Boolean", "SByte", "Byte", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64",
    "Float", "Double",
}  # fmt: skip


def as_variant(kind: Any, value: Any) -> Any:
    """`value` (the decision, or a part id) as a value of a node of variant type `kind`."""
    from asyncua import ua

    if kind.name == "Boolean":
        return ua.Variant(bool(value), kind)
    if kind.name == "String":
        return ua.Variant(str(value), kind)
    if kind.name in ("Float", "Double"):
        return ua.Variant(float(value), kind)
    return ua.Variant(int(value), kind)


@dataclass(frozen=True)
class Reading:
    """The trigger's value and source time, and the features, read in one request."""

    value: Any
    stamp: float | None
    x: list[float | None]
    nonfinite: tuple[int, ...] = ()


async def read_live(client: Any, nodes: Nodes) -> Reading:
    """Read the trigger and the features together (one Read request: one server snapshot)."""
    values = await client.read_attributes(
        [client.get_node(n) for n in (nodes.trigger, *nodes.features)]
    )
    head = values[0]
    value = head.Value.Value if head.StatusCode.is_good() and head.Value is not None else None
    x, nonfinite = features_of(
        [dv.Value.Value if dv.StatusCode.is_good() else None for dv in values[1:]]
    )
    return Reading(value, stamp_of(head), x, nonfinite)


async def history_available(client: Any, nodes: Nodes) -> bool:
    """Whether the server keeps the history of the trigger and of every feature node."""
    from asyncua import ua

    levels = await client.read_attributes(
        [client.get_node(n) for n in (nodes.trigger, *nodes.features)],
        ua.AttributeIds.UserAccessLevel,
    )
    bit = 1 << ua.AccessLevel.HistoryRead.value
    return all(dv.StatusCode.is_good() and int(dv.Value.Value) & bit for dv in levels)


async def read_history(
    client: Any, nodes: Nodes, after: float, until: datetime, last_x: list[float | None]
) -> list[Part]:
    """The parts whose trigger changed after `after` (POSIX seconds) and up to `until`.

    A feature that did not change since the last part keeps its value `last_x`.
    """
    start = datetime.fromtimestamp(after, timezone.utc)
    triggers = await _changes(client, nodes.trigger, start, until, after)
    if not triggers:
        return []
    columns = [await _changes(client, n, start, until, after) for n in nodes.features]
    stamps = [[s for s, _ in column] for column in columns]
    parts: list[Part] = []
    for stamp, value in triggers:
        sid = sample_id(value)
        if sid is None or (parts and parts[-1].sample_id == sid):
            continue  # no part, or the same id written again
        raw = []
        for j, column in enumerate(columns):
            k = bisect.bisect_right(stamps[j], stamp)  # the last change at or before the trigger
            raw.append(column[k - 1][1] if k else (last_x[j] if j < len(last_x) else None))
        x, nonfinite = features_of(raw)
        parts.append(Part(sid, stamp, x, nonfinite))
    return parts


async def _changes(
    client: Any, node_id: Any, start: datetime, until: datetime, after: float
) -> list[tuple[float, Any]]:
    history = await client.get_node(node_id).read_raw_history(start, until)
    return sorted(
        (
            (s, dv.Value.Value)
            for dv in history
            if dv.StatusCode.is_good() and (s := stamp_of(dv)) is not None and s > after
        ),
        key=lambda change: change[0],
    )
