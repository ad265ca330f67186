"""A line's OPC UA server for the bridge's tests and benchmark: a real asyncua server.

It runs in a background thread with its own event loop. ``part(id, x)`` does what a PLC
does when a part leaves the station: it writes the part's feature values, then the
trigger (the part id or counter). The decision nodes are writable by clients.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

NS = "urn:cbeal:test-line"
N_FEATURES = 6


def node(name: str) -> str:
    """The node id a client uses (the namespace registered first gets index 2)."""
    return f"ns=2;s=Line1.{name}"


FEATURE_NODES = [node(f"S{i}") for i in range(N_FEATURES)]


class Line:
    """An asyncua server at ``opc.tcp://127.0.0.1:port/line/`` with one line's nodes.

    `counter`: the trigger is an Int64 part counter (else a String part id, empty
    before the first part). `history`: the server keeps the history of the trigger and
    the feature nodes. `security`: a dict with ``dir`` (where certificates are made),
    ``user`` and ``password``: only Basic256Sha256 SignAndEncrypt with that user is let in.
    """

    def __init__(
        self,
        port: int,
        *,
        counter: bool = False,
        history: bool = True,
        security: dict[str, Any] | None = None,
    ) -> None:
        self.port, self.counter, self.history, self.security = port, counter, history, security
        self.endpoint = f"opc.tcp://127.0.0.1:{port}/line/"
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: Any = None
        self.nodes: dict[str, Any] = {}

    def _run(self, coro: Any, timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> Line:
        self._run(self._start())
        return self

    def stop(self) -> None:
        if self.server is not None:
            self._run(self.server.stop())
            self.server = None

    def close(self) -> None:
        self.stop()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)

    def part(self, pid: Any, x: Sequence[float]) -> None:
        """A part leaves the station: its features, then its id on the trigger."""
        self._run(self._part(pid, x))

    def parts(self, items: Sequence[tuple[Any, Sequence[float]]], pause: float = 0.0) -> None:
        """Several parts, `pause` seconds apart (on the server's own loop)."""
        self._run(self._parts(items, pause), timeout=600)

    def value(self, name: str) -> Any:
        return self._run(self.nodes[name].read_value())

    async def _start(self) -> None:
        from asyncua import Server, ua

        server = Server(user_manager=_Users(self.security) if self.security else None)
        await server.init()
        server.set_endpoint(self.endpoint)
        server.set_server_name("cbeal test line")
        if self.security:
            await self._secure(server)
        idx = await server.register_namespace(NS)
        line = await server.nodes.objects.add_object(ua.NodeId("Line1", idx), "Line1")

        async def var(name: str, value: Any, kind: Any) -> Any:
            n = await line.add_variable(ua.NodeId(f"Line1.{name}", idx), name, value, kind)
            self.nodes[name] = n
            return n

        trigger = await var(
            "Part",
            *((0, ua.VariantType.Int64) if self.counter else ("", ua.VariantType.String)),
        )
        features = [await var(f"S{i}", 0.0, ua.VariantType.Double) for i in range(N_FEATURES)]
        await (await var("Lab", False, ua.VariantType.Boolean)).set_writable()
        await (await var("LabPart", "", ua.VariantType.String)).set_writable()
        await var("Text", "not a number", ua.VariantType.String)
        if self.history:
            kept = [trigger, *features]
            await server.historize_node_data_change(kept, period=None, count=100_000)
        await server.start()
        self.server = server

    async def _secure(self, server: Any) -> None:
        from asyncua import ua
        from asyncua.crypto.cert_gen import setup_self_signed_certificate
        from cryptography.x509.oid import ExtendedKeyUsageOID

        assert self.security is not None
        folder = Path(self.security["dir"])
        key, cert = folder / "server-key.pem", folder / "server-cert.der"
        await setup_self_signed_certificate(
            key, cert, "urn:cbeal:test-line:server", "127.0.0.1",
            [ExtendedKeyUsageOID.SERVER_AUTH], {"commonName": "cbeal test line"},
        )  # fmt: skip
        await server.load_certificate(str(cert))
        await server.load_private_key(str(key))
        server.set_security_policy([ua.SecurityPolicyType.Basic256Sha256_SignAndEncrypt])
        server.set_security_IDs(["Username"])

    async def _part(self, pid: Any, x: Sequence[float]) -> None:
        from asyncua import ua

        for i, v in enumerate(x):
            await self.nodes[f"S{i}"].write_value(float(v), ua.VariantType.Double)
        kind = ua.VariantType.Int64 if self.counter else ua.VariantType.String
        await self.nodes["Part"].write_value(pid, kind)

    async def _parts(self, items: Sequence[tuple[Any, Sequence[float]]], pause: float) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        for i, (pid, x) in enumerate(items):
            await self._part(pid, x)
            if pause:  # part i+1 is due at start + (i+1) * pause, however long writes take
                await asyncio.sleep(max(0.0, start + (i + 1) * pause - loop.time()))


class _Users:
    """Lets in only the configured user name and password."""

    def __init__(self, security: dict[str, Any]) -> None:
        self.user, self.password = security["user"], security["password"]

    def get_user(self, iserver: Any, username: Any = None, password: Any = None, **kw: Any) -> Any:
        from asyncua.crypto.permission_rules import User, UserRole

        if username == self.user and password == self.password:
            return User(role=UserRole.User)
        return None


def client_certificate(folder: Path) -> tuple[str, str]:
    """A self-signed client certificate (DER) and key (PEM) for the bridge: (cert, key)."""
    import asyncio as aio

    from asyncua.crypto.cert_gen import setup_self_signed_certificate
    from cryptography.x509.oid import ExtendedKeyUsageOID

    key, cert = folder / "bridge-key.pem", folder / "bridge-cert.der"
    made = setup_self_signed_certificate(
        key, cert, "urn:cbeal:bridge", "127.0.0.1",
        [ExtendedKeyUsageOID.CLIENT_AUTH], {"commonName": "cbeal bridge"},
    )  # fmt: skip
    aio.run(made)
    return str(cert), str(key)


def produce(port: int, n: int, rate: float | None, history: bool, seed: int = 0) -> None:
    """A line in this process making `n` parts (a counter from 1) at `rate` parts/s
    (None: as fast as it can), on "go" from stdin; prints "ready", then "done FIRST LAST"
    (the wall times of the first and last part); stops on "quit"."""
    import sys
    import time

    import numpy as np

    ln = Line(port, counter=True, history=history).start()
    X = np.random.default_rng(seed).normal(size=(n, N_FEATURES))
    print("ready", flush=True)
    for command in sys.stdin:
        if command.strip() == "go":
            first = time.time()
            if rate is None:
                ln.parts([(i + 1, X[i].tolist()) for i in range(n)])
            else:
                ln.parts([(i + 1, X[i].tolist()) for i in range(n)], pause=1.0 / rate)
            print(f"done {first} {time.time()}", flush=True)
        elif command.strip() == "quit":
            break
    ln.close()
