"""Screenshots of a regression stream's pages for the docs: the labelling page asking for a
measured value, and the dashboard's error chart against the tolerance band.

A line (the bundled AI4I data: each part's process temperature in K, predicted from the
other readings, tolerance ±0.5 K; the stream of docs/SERVICE.md's example) runs for a
minute or two: rows arrive in small batches and a simulated lab measures the oldest asked
part every second or so (the file's value). Then the labelling
page (with a value typed in) and the dashboard are captured in Debian's Chromium. Writes
``docs/img/regression-label-page.png`` and ``docs/img/regression-dashboard.png``.
"""

from __future__ import annotations

import atexit
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))
from page_screenshots import FLAGS  # noqa: E402

from cbeal.datasets import load_ai4i2020  # noqa: E402
from service_helpers import Server, cli_token, demo_line, sign_in  # noqa: E402


def main(minutes: float = 1.5) -> None:
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="cbeal-regression-pages-"))
    db = f"sqlite:///{tmp / 'demo.db'}"
    token = cli_token(db, "admin", "lab")
    h = {"Authorization": f"Bearer {token}"}
    server = Server(db, extra=("--undo-seconds", "5"), log=tmp / "serve.log").start()
    atexit.register(server.stop)  # also when a step below fails: no server left behind
    d = load_ai4i2020()
    names = list(d.feature_names)
    j = names.index("Process temperature [K]")
    features = [n for n in names if n != names[j]]
    X, y = np.delete(d.X, j, axis=1), d.X[:, j]
    line = {  # a prediction within ±0.5 K of the measured value is right
        "name": "oven-2",
        "features": features,
        "task": "regression",
        "tolerance": 0.5,
        "unit": "K",
        "budget": "5%",
        "initial": {"x": X[:30].tolist(), "y": y[:30].tolist()},
    }
    http = httpx.Client(base_url=server.url, headers=h, timeout=60)
    http.post("/api/v1/streams", json=line).raise_for_status()
    truth = {f"part-{k}": float(v) for k, v in enumerate(y)}
    parts = [(f"part-{k}", X[k].tolist()) for k in range(30, 3000)]
    sent = 30 + demo_line(
        server.url, h, "oven-2", parts, truth, minutes=minutes, pause=0.3, every=1.0
    )
    more = [{"id": f"part-{k}", "x": X[k].tolist()} for k in range(sent, sent + 100)]
    http.post("/api/v1/streams/oven-2/samples", json={"samples": more})  # tasks for the page
    time.sleep(6)  # past the undo window: the last answers are learned
    docs = ROOT / "docs" / "img"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        sign_in(page, server.url, token)
        page.goto(f"{server.url}/ui/label.html?stream=oven-2")
        page.wait_for_selector("#measured")
        part = page.locator("#task h1").inner_text().removeprefix("Part part-").strip()
        page.keyboard.type(f"{y[int(part)]:.1f}")
        page.wait_for_selector("svg.band line.typed", state="attached")
        page.screenshot(path=str(docs / "regression-label-page.png"), full_page=True)
        page.goto(f"{server.url}/ui/dashboard.html?stream=oven-2")
        page.wait_for_selector("#c-band svg circle", state="attached")
        page.wait_for_timeout(500)
        page.screenshot(path=str(docs / "regression-dashboard.png"), full_page=True)
        browser.close()
    print(http.get("/api/v1/streams/oven-2/band").json() | {"points": "..."})
    server.stop()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.5)
