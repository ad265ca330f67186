"""Parts per second through the OPC UA bridge, and what a kill -9 storm leaves behind.

Three processes, as on a line: the line's OPC UA server (asyncua, tests/bridges/opcua_line.py,
making parts: features, then a part counter on the trigger), `cbeal serve` (SQLite, every
request with a token), and the bridge. Measured in the same run:

* burst: the line makes parts as fast as it can, the server keeps history; end-to-end
  parts/s (first part made → last part stored), with the bridge's journal synced to disk
  per part (the default) and not (the floor of the journal's cost);
* the service's own floor: the same parts posted one per request by one client;
* paced, no history: the line makes parts at fixed rates; how many the bridge reads live
  (the rest are overwritten before it reads them and counted as lost);
* kill storm: the bridge (`cbeal opcua`, its own process) is killed with SIGKILL every
  ~2.5 s while the line makes parts, and restarted at once; then every part id must be
  stored once.

CPU seconds of each process beside wall time, and the machine's load, are reported.
Usage: ``python benchmarks/bench_opcua.py [--quick]``; the result goes to
benchmarks/results/opcua.md.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import psutil

import cbeal
from cbeal.bridges.opcua import Bridge
from cbeal.reports.provenance import git_sha
from cbeal.service.engine.tokens import create_token
from cbeal.service.store.db import connect, migrate

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "tests" / "bridges")]
from opcua_line import FEATURE_NODES, N_FEATURES, node  # noqa: E402

from service_helpers import FEATURES, Server, free_port  # noqa: E402

OUT = HERE / "results" / "opcua.md"
AUTH: dict[str, str] = {}
ROWS: list[str] = []


def cpu(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


class LineProcess:
    """The line's OPC UA server in its own process (tests/bridges/opcua_line.py `produce`)."""

    def __init__(self, n: int, rate: float | None, history: bool) -> None:
        self.port = free_port()
        self.endpoint = f"opc.tcp://127.0.0.1:{self.port}/line/"
        code = (
            f"import sys; sys.path.insert(0, {str(HERE.parent / 'tests' / 'bridges')!r}); "
            f"from opcua_line import produce; produce({self.port}, {n}, {rate!r}, {history})"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "ready"
        self.X = np.random.default_rng(0).normal(size=(n, N_FEATURES))

    def go(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def done(self) -> tuple[float, float]:
        assert self.proc.stdout is not None
        _, first, last = self.proc.stdout.readline().split()
        return float(first), float(last)

    def quit(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=30)


def create(url: str, name: str) -> None:
    rng = np.random.default_rng(1)
    X0 = rng.normal(size=(20, N_FEATURES))
    cfg = {
        "name": name, "features": FEATURES, "classes": [0, 1], "budget": "2%",
        "learner": "logreg", "seed": 0,
        "initial": {"x": X0.tolist(), "y": [int(v > 0) for v in X0[:, 0]]},
    }  # fmt: skip
    httpx.post(f"{url}/api/v1/streams", json=cfg, headers=AUTH, timeout=60).raise_for_status()


def received(url: str, name: str) -> int:
    r = httpx.get(f"{url}/api/v1/streams/{name}", headers=AUTH, timeout=60)
    return int(r.json()["samples_received"])


def wait_for(check: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def bridge_args(line: LineProcess, server: Server, name: str, journal: Path) -> dict[str, Any]:
    return {
        "endpoint": line.endpoint, "stream": name, "trigger": node("Part"),
        "features": FEATURE_NODES, "url": server.url, "token": AUTH["Authorization"][7:],
        "journal": str(journal), "decision": node("Lab"), "decision_part": node("LabPart"),
    }  # fmt: skip


def burst(server: Server, tmp: Path, n: int, durable: bool) -> dict[str, Any]:
    name = f"burst{'D' if durable else 'N'}"
    create(server.url, name)
    line = LineProcess(n, None, history=True)
    bridge = Bridge(**bridge_args(line, server, name, tmp / f"{name}.db"), durable=durable)
    bridge.start()
    assert bridge.ready.wait(60), bridge.error
    before = (time.process_time(), cpu(line.proc.pid), cpu(server.proc.pid))  # type: ignore[union-attr]
    line.go()
    first, last = line.done()
    assert wait_for(lambda: bridge.stored >= n, 600), bridge.stored
    end = time.time()
    spent = (
        time.process_time() - before[0],
        cpu(line.proc.pid) - before[1],
        cpu(server.proc.pid) - before[2],  # type: ignore[union-attr]
    )
    out = {
        "parts": n, "made_per_s": n / (last - first), "per_s": n / (end - first),
        "read": bridge.read, "recovered": bridge.recovered, "lost": bridge.lost,
        "cpu_bridge": spent[0], "cpu_line": spent[1], "cpu_service": spent[2],
        "received": received(server.url, name),
    }  # fmt: skip
    bridge.stop()
    line.quit()
    return out


def service_floor(server: Server, n: int) -> float:
    """Parts/s of the service alone: the same kind of parts, one per request, one client."""
    create(server.url, "floor")
    X = np.random.default_rng(0).normal(size=(n, N_FEATURES))
    with httpx.Client(headers=AUTH, timeout=60) as http:
        start = time.perf_counter()
        for i in range(n):
            r = http.post(
                f"{server.url}/api/v1/streams/floor/samples",
                json={"samples": [{"id": str(i + 1), "x": X[i].tolist()}]},
            )
            r.raise_for_status()
        return n / (time.perf_counter() - start)


def paced(server: Server, tmp: Path, n: int, rate: float) -> dict[str, Any]:
    name = f"paced{int(rate)}"
    create(server.url, name)
    line = LineProcess(n, rate, history=False)
    bridge = Bridge(**bridge_args(line, server, name, tmp / f"{name}.db"))
    bridge.start()
    assert bridge.ready.wait(60), bridge.error
    cpu0 = time.process_time()
    line.go()
    first, last = line.done()
    wait_for(lambda: bridge.read + bridge.lost >= n and bridge.waiting == 0, 60)
    out = {
        "rate": rate, "parts": n, "made_per_s": n / (last - first), "read": bridge.read,
        "lost": bridge.lost, "stored": received(server.url, name),
        "cpu_bridge": time.process_time() - cpu0,
    }  # fmt: skip
    bridge.stop()
    line.quit()
    return out


def kill_storm(server: Server, tmp: Path, n: int, rate: float, every: float) -> dict[str, Any]:
    """The bridge killed -9 every `every` s while the line makes `n` parts at `rate`/s."""
    import pandas as pd

    name = "storm"
    create(server.url, name)
    line = LineProcess(n, rate, history=True)
    a = bridge_args(line, server, name, tmp / "storm.db")
    cmd = [
        sys.executable, "-m", "cbeal", "opcua", "--endpoint", a["endpoint"], "--stream", name,
        "--trigger", a["trigger"], "--features", ",".join(a["features"]), "--url", a["url"],
        "--journal", a["journal"], "--decision", a["decision"],
        "--decision-part", a["decision_part"],
    ]  # fmt: skip
    env = {**os.environ, "CBEAL_TOKEN": a["token"]}
    log = open(tmp / "storm.log", "ab")

    def spawn() -> subprocess.Popen[bytes]:
        return subprocess.Popen(cmd, stdout=log, stderr=log, env=env)

    proc = spawn()
    # the first start reads the parts after the current one: let it connect first
    assert wait_for(lambda: "first start" in (tmp / "storm.log").read_text(), 120)
    line.go()
    kills, stop = 0, threading.Event()
    made: list[tuple[float, float]] = []
    threading.Thread(target=lambda: (made.append(line.done()), stop.set()), daemon=True).start()
    while not stop.is_set():
        time.sleep(every)
        proc.kill()
        proc.wait()
        kills += 1
        proc = spawn()
    ok = wait_for(lambda: received(server.url, name) >= n, 300)
    time.sleep(2.0)  # anything late would show now
    r = httpx.get(f"{server.url}/api/v1/streams/{name}/export", headers=AUTH, timeout=60)
    frame = pd.read_csv(io.BytesIO(r.content), dtype={"sample_id": str})
    frame = frame[frame["seq"] > 0]
    ids = frame["sample_id"].tolist()
    expected = [str(i + 1) for i in range(n)]
    order = {sid: i for i, sid in enumerate(expected)}
    exact = all(
        np.allclose(row, line.X[order[sid]])
        for sid, row in zip(ids, frame[FEATURES].to_numpy(), strict=True)
        if sid in order
    )
    proc.terminate()
    proc.wait(timeout=30)
    line.quit()
    text = (tmp / "storm.log").read_text()
    return {
        "parts": n, "rate": rate, "kills": kills, "complete": ok,
        "stored": len(ids), "distinct": len(set(ids)), "missing": len(set(expected) - set(ids)),
        "in_order": ids == expected, "features_exact": exact,
        "connections": text.count("connected to opc.tcp"),
        "recovered": sum(
            int(line.split("read ")[1].split(" part")[0])
            for line in text.splitlines()
            if "went by while away from the server's history" in line
        ),
        "not_counted": text.count("was not counted"),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small numbers, a smoke run")
    args = ap.parse_args()
    n = 300 if args.quick else 3000
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        db = f"sqlite:///{tmp / 'bench.db'}"
        migrate(connect(db))
        AUTH["Authorization"] = f"Bearer {create_token(connect(db), role='admin', name='bench')}"
        server = Server(db, extra=("--undo-seconds", "0")).start(timeout=120)
        try:
            results = {
                "burst_durable": burst(server, tmp, n, durable=True),
                "burst_not_synced": burst(server, tmp, n, durable=False),
                "floor": service_floor(server, min(n, 1000)),
                "paced": [
                    paced(server, tmp, 200 if args.quick else 1000, rate)
                    for rate in (25.0, 50.0, 100.0, 200.0)
                ],
                "storm": kill_storm(server, tmp, 300 if args.quick else 2000, 100.0, every=2.5),
            }
        finally:
            server.stop()
    load1 = os.getloadavg()
    write(results, load0, load1)
    print(json.dumps(results, indent=1))


def write(r: dict[str, Any], load0: tuple[float, ...], load1: tuple[float, ...]) -> None:
    import asyncua

    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    b, u, s = r["burst_durable"], r["burst_not_synced"], r["storm"]
    lines = [
        "# OPC UA bridge: parts per second, and a kill -9 storm",
        "",
        f"cbeal {cbeal.__version__} (git {git_sha()}), asyncua {asyncua.__version__}, Python "
        f"{platform.python_version()}, {platform.machine()}, {when}; the line's OPC UA server, "
        "`cbeal serve` (SQLite, every request with a token) and the bridge each in its own "
        "process on the same 2-core machine; 6 features per part; "
        f"load average {load0[0]:.1f} before, {load1[0]:.1f} after "
        f"({os.cpu_count()} cores). Made by `benchmarks/bench_opcua.py`.",
        "",
        "## Burst: the line makes parts as fast as it can (the server keeps history)",
        "",
        "| journal | parts | made by the line | end to end (made → stored) | read live | "
        "from history | lost | CPU s: bridge / line / service |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, x in (("synced per part (default)", b), ("not synced (floor)", u)):
        lines.append(
            f"| {label} | {x['parts']:,} | {x['made_per_s']:,.0f} parts/s | "
            f"**{x['per_s']:,.0f} parts/s** | {x['read']:,} | {x['recovered']:,} | "
            f"{x['lost']} | {x['cpu_bridge']:.1f} / {x['cpu_line']:.1f} / "
            f"{x['cpu_service']:.1f} |"
        )
    lines += [
        "",
        f"The service alone, the same parts one per request from one client: "
        f"**{r['floor']:,.0f} parts/s**; the bridge reached {b['per_s'] / r['floor']:.2f}× "
        "that, because it sends the parts waiting in its journal together (up to 100 per "
        f"request). Syncing the journal to disk: {b['per_s']:,.0f} parts/s against "
        f"{u['per_s']:,.0f} without (parts read together are synced together).",
        "",
        "## Paced, no history: how fast a line the bridge reads live",
        "",
        "Each new part is read (trigger and features in one Read) when its trigger's "
        "notification arrives; a part overwritten by the next before that is lost and "
        "counted (a server that keeps history lets the bridge read it there instead).",
        "",
        "| line's rate | parts | made at | read live | lost | stored | bridge CPU s |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for p in r["paced"]:
        lines.append(
            f"| {p['rate']:.0f} parts/s | {p['parts']:,} | {p['made_per_s']:.0f}/s | "
            f"{p['read']:,} | {p['lost']:,} | {p['stored']:,} | {p['cpu_bridge']:.1f} |"
        )
    lines += [
        "",
        "## Kill storm: the bridge killed with SIGKILL while the line runs",
        "",
        f"The line made {s['parts']:,} parts at {s['rate']:.0f} parts/s; the bridge (its own "
        f"process) was killed -9 **{s['kills']} times**, ~2.5 s apart, and started again "
        f"at once. Stored: {s['stored']:,} samples, {s['distinct']:,} distinct ids, "
        f"{s['missing']} missing; in the line's order: {s['in_order']}; every stored "
        f"feature equal to the part's: {s['features_exact']}. Of the {s['kills'] + 1} "
        f"bridges started, {s['connections']} connected before they were killed (the rest "
        "were killed while starting: imports take seconds on a loaded machine); "
        f"{s['recovered']:,} parts were read from the server's history at the "
        "restarts; parts whose id the service had already from another part: "
        f"{s['not_counted']}.",
        "",
    ]
    OUT.write_text("\n".join(lines))


if __name__ == "__main__":
    main()
