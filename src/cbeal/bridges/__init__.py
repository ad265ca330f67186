"""Clients and bridges of the annotation service: they feed a running ``cbeal serve``.

Apart from the server (they need only httpx, and paho-mqtt for MQTT): :class:`Client`
with its one-line errors, :func:`replay` (a CSV/Parquet file or a historian export),
the MQTT :class:`~cbeal.bridges.mqtt.Bridge` and the Label Studio push.
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
