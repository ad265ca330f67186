"""Screenshots of the expert's pages for the docs, from a demo run, and the page's timings.

A line (the bundled AI4I data) runs for a few minutes: rows arrive in small batches, a
simulated expert answers the oldest task every few seconds (the file's labels), then the
labelling page and the dashboard are captured in Debian's Chromium. Also measured: the
labelling page's load time and the seconds per label with the keyboard alone (browser and
server round trip, no human). Writes ``docs/img/*.png`` and
``benchmarks/results/pages.md``.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from service_helpers import Server, demo_line  # noqa: E402

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def main(minutes: float = 4.0) -> None:
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="cbeal-pages-"))
    db = f"sqlite:///{tmp / 'demo.db'}"
    data = tmp / "ai4i.csv"
    subprocess.run(
        [sys.executable, "-m", "cbeal", "data", "ai4i", "--out", str(data)],
        check=True,
        capture_output=True,
    )
    token = subprocess.run(
        [
            sys.executable,
            "-m",
            "cbeal",
            "token",
            "create",
            "--role",
            "admin",
            "--name",
            "demo",
            "--db",
            db,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    h = {"Authorization": f"Bearer {token}"}
    server = Server(db, extra=("--undo-seconds", "20"), log=tmp / "serve.log").start()
    atexit.register(server.stop)  # also when a step below fails: no server left behind
    frame = pd.read_csv(data)
    features = [c for c in frame.columns if c not in ("part", "time", "quality")]
    rows = frame[features].to_numpy().tolist()
    truth = dict(zip(frame["part"], frame["quality"], strict=True))
    http = httpx.Client(base_url=server.url, headers=h, timeout=60)
    http.post(
        "/api/v1/streams",
        json={
            "name": "press-3",
            "features": features,
            "classes": ["no failure", "failure"],
            "failure_class": "failure",
            "budget": "4%",
            "learner": "random-forest",
            "seed": 0,
            "initial": {
                "x": rows[:100],
                "y": frame["quality"][:100].tolist(),
                "ids": frame["part"][:100].tolist(),
            },
        },
    ).raise_for_status()
    parts = list(zip(frame["part"][100:].tolist(), rows[100:], strict=True))
    demo_line(server.url, h, "press-3", parts, truth, minutes=minutes, pause=2.5, every=1.5)
    docs = ROOT / "docs" / "img"
    docs.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{server.url}/ui/")
        page.fill("#token", token)
        page.keyboard.press("Enter")
        page.wait_for_selector("#list li a")
        t0 = time.perf_counter()
        page.goto(f"{server.url}/ui/label.html?stream=press-3")
        page.wait_for_selector(".answers button:not([disabled])")
        load = time.perf_counter() - t0
        times = []
        for _ in range(10):
            part = page.locator("#task h1").inner_text().removeprefix("Part ").strip()
            t1 = time.perf_counter()
            page.keyboard.press("2" if truth.get(part) == "failure" else "1")
            page.wait_for_function(  # a function, not an expression: the CSP forbids eval()
                "(part) => !document.querySelector('#task h1') || "
                "!document.querySelector('#task h1').textContent.includes(part)",
                arg=part,
            )
            page.wait_for_selector(".answers button:not([disabled]), .empty")
            times.append(time.perf_counter() - t1)
            if page.locator(".empty").count():
                break
        page.screenshot(path=str(docs / "label-page.png"), full_page=True)
        page.goto(f"{server.url}/ui/dashboard.html?stream=press-3")
        page.wait_for_selector("#c-weights svg path", state="attached")  # flat under fixed weights
        page.wait_for_timeout(500)
        page.screenshot(path=str(docs / "dashboard.png"), full_page=True)
        browser.close()
    status = http.get("/api/v1/streams/press-3").json()
    server.stop()
    out = ROOT / "benchmarks" / "results" / "pages.md"
    times.sort()
    out.write_text(
        "# The expert's page\n\n"
        f"Demo: AI4I rows for {minutes:g} minutes ({status['samples_seen']} parts, "
        f"{status['labels_learned']} labels learned, model v{status['model_version']}), a "
        "simulated expert answering every ~2.5 s; Debian Chromium headless, server and browser "
        "on the same 2-core machine; load average (1 min) at the end: "
        f"{os.getloadavg()[0]:.1f}.\n\n"
        f"* labelling page load (navigation to the first part ready): {load:.2f} s\n"
        f"* one label with the keyboard (key press to the next part ready), median of "
        f"{len(times)}: {times[len(times) // 2]:.3f} s (max {times[-1]:.3f} s)\n"
    )
    print(out.read_text())


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 4.0)
