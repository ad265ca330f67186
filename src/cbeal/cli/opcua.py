"""``cbeal opcua``: the OPC UA bridge from a line's server into a stream. The token comes
from ``$CBEAL_TOKEN``, an OPC UA user name and password from ``$CBEAL_OPCUA_USER`` and
``$CBEAL_OPCUA_PASSWORD`` and a key's password from ``$CBEAL_OPCUA_KEY_PASSWORD``: never
from the command line, where any user's ``ps`` shows them."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from cbeal.cli._common import HelpFormatter, add_url, secret

__all__ = ["register"]


def register(sub: Any) -> None:
    op = sub.add_parser(
        "opcua",
        help="bridge a line's OPC UA server into a stream",
        description="Subscribe to a trigger node (a part id or counter) on an OPC UA "
        "server; for each new part read the feature nodes as one sample, send it to the "
        "service and write the decision (send the part to the lab) to a decision node. "
        "Parts wait in a journal until the service stored them. The token is read from "
        "$CBEAL_TOKEN, a user name and password from $CBEAL_OPCUA_USER and "
        "$CBEAL_OPCUA_PASSWORD. See docs/OPCUA.md.",
        formatter_class=HelpFormatter,
    )
    op.add_argument("--endpoint", required=True, help="the server, opc.tcp://HOST:PORT[/path]")
    op.add_argument("--stream", required=True, help="stream name")
    op.add_argument(
        "--trigger", required=True, help="node id of the part id or counter, e.g. ns=2;s=Part"
    )
    op.add_argument(
        "--features",
        required=True,
        help="node ids of the features, comma-separated, in the stream's feature order",
    )
    op.add_argument("--decision", default=None, help="node id the decision is written to")
    op.add_argument(
        "--decision-part",
        default=None,
        help="node id the decided part's id is written to, after the decision",
    )
    add_url(op)
    op.add_argument(
        "--journal",
        default=None,
        help="the bridge's SQLite journal of parts not yet stored, and where it was "
        "(default: cbeal-opcua-<stream>.db in this folder)",
    )
    op.add_argument(
        "--security",
        default=None,
        help="POLICY,MODE: Basic256Sha256, Aes128Sha256RsaOaep or Aes256Sha256RsaPss, "
        "with Sign or SignAndEncrypt (default: no security)",
    )
    op.add_argument("--cert", default=None, help="the bridge's certificate (DER or PEM)")
    op.add_argument("--key", default=None, help="the bridge's private key (PEM or DER)")
    op.add_argument(
        "--server-cert",
        default=None,
        help="the server's certificate to trust (default: the one it offers, unverified)",
    )
    op.add_argument(
        "--publishing-ms", type=float, default=10.0, help="publishing interval asked for"
    )
    op.add_argument(
        "--sampling-ms", type=float, default=0.0, help="sampling interval asked for; 0: fastest"
    )
    op.set_defaults(func=run_opcua)


def run_opcua(args: argparse.Namespace) -> int:
    from cbeal.bridges.opcua import Bridge, Security
    from cbeal.bridges.opcua_nodes import split_node_ids

    policy, _, mode = (args.security or "").partition(",")
    security = Security(
        policy=policy or None,
        mode=mode or "SignAndEncrypt",
        certificate=args.cert,
        private_key=args.key,
        key_password=secret("CBEAL_OPCUA_KEY_PASSWORD"),
        server_certificate=args.server_cert,
        user=secret("CBEAL_OPCUA_USER"),
        password=secret("CBEAL_OPCUA_PASSWORD"),
    )
    bridge = Bridge(
        endpoint=args.endpoint,
        stream=args.stream,
        trigger=args.trigger,
        features=split_node_ids(args.features),
        decision=args.decision,
        decision_part=args.decision_part,
        url=args.url,
        token=secret("CBEAL_TOKEN"),
        journal=args.journal or f"cbeal-opcua-{args.stream}.db",
        security=security,
        publishing_ms=args.publishing_ms,
        sampling_ms=args.sampling_ms,
    )
    print(
        f"cbeal opcua: bridging {args.endpoint} -> stream {args.stream!r} at {args.url}; "
        f"journal {bridge.journal.path}; stop with Ctrl-C",
        file=sys.stderr,
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("asyncua").setLevel(logging.ERROR)  # cbeal.opcua says what happens
    logging.getLogger("httpx").setLevel(logging.WARNING)
    bridge.run_forever()  # SIGINT/SIGTERM stop it; parts not yet stored stay in the journal
    return 0
