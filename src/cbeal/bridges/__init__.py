"""Clients and bridges of the annotation service: they feed a running ``cbeal serve``.

Apart from the server (they need only httpx, and paho-mqtt for MQTT): :class:`Client`
with its one-line errors, :func:`replay` (a CSV/Parquet file or a historian export),
the MQTT :class:`~cbeal.bridges.mqtt.Bridge`, the OPC UA bridge (:mod:`cbeal.bridges.opcua`)
and the Label Studio bridge (push of the asked parts, pull of the annotations; the webhook
itself is a route of the service).
"""

from cbeal.bridges.client import (
    Client,
    NotFoundError,
    Refused,
    ServiceBusy,
    ServiceError,
    ServiceUnreachable,
    TokenRefused,
)
from cbeal.bridges.replay import replay

__all__ = [
    "Client",
    "NotFoundError",
    "Refused",
    "ServiceBusy",
    "ServiceError",
    "ServiceUnreachable",
    "TokenRefused",
    "replay",
]
