"""A regression stream's pages in a real browser (Debian's Chromium driven by Playwright):
the expert sees the prediction with its interval and the tolerance band, types the
measured value and submits it (bad input gets a clear message and is not sent); the
dashboard draws each learned value's error against the band. Checked against the API and
the database, not against pixels."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
playwright = pytest.importorskip("playwright.sync_api")

from ..service_helpers import Server, cli_token  # noqa: E402
from .test_service_pages import CHROMIUM, FLAGS, answers, signed_in  # noqa: E402
from .test_service_regression import TOL, regression_config, torque  # noqa: E402

pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="no chromium (Debian: apt-get install chromium)"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    db = f"sqlite:///{tmp_path_factory.mktemp('regression-pages') / 'pages.db'}"

    admin = {"Authorization": f"Bearer {cli_token(db, 'admin', 'ana')}"}
    server = Server(db, extra=("--undo-seconds", "0")).start()
    http = httpx.Client(base_url=server.url, headers=admin, timeout=60)
    _, X, y = torque()
    http.post("/api/v1/streams", json=regression_config()).raise_for_status()
    rows = [{"id": f"p{i}", "x": X[i].tolist()} for i in range(30, 400)]
    http.post("/api/v1/streams/press-7/samples", json={"samples": rows}).raise_for_status()
    for k in range(8):  # the lab has measured a few parts already: the band has points
        task = http.get("/api/v1/streams/press-7/tasks/next", params={"held": False}).json()
        value = float(y[int(task["sample_id"][1:])])
        http.post(
            f"/api/v1/tasks/{task['task_id']}/label", json={"label": value, "request_id": f"l{k}"}
        ).raise_for_status()
    token = cli_token(db, "annotate", "ana")
    site = {"server": server, "db": db, "token": token, "y": y}
    with playwright.sync_playwright() as p:
        site["browser"] = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield site
        site["browser"].close()
    http.close()
    server.stop()


def hint(page: Any, words: str) -> None:
    page.wait_for_selector(f"#measurehint >> text={words}")


def test_the_expert_types_a_measured_value_and_it_is_stored(site: dict[str, Any]) -> None:
    page = signed_in(site, "label.html?stream=press-7")
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Security Policy" in m.text else None)
    page.wait_for_selector("#measured")
    task_id = int(page.locator("#task p.muted").first.inner_text().split("task ")[1].split()[0])
    headers = {"Authorization": f"Bearer {site['token']}"}
    url = site["server"].url
    task = httpx.get(f"{url}/api/v1/tasks/{task_id}", headers=headers).json()
    d = task["decision"]
    band = page.locator("svg.band")
    shown = {k: float(band.get_attribute(f"data-{k}")) for k in ("prediction", "low", "high")}
    assert shown == {"prediction": d["y_pred"], "low": d["interval"][0], "high": d["interval"][1]}
    assert float(band.get_attribute("data-tolerance")) == TOL
    said = page.locator("#task p.prediction").inner_text()
    assert f"{d['y_pred']:.1f} Nm" in said and "±2.5 Nm" in said and "95 % interval" in said
    assert page.locator(".valuebox .unit").inner_text() == "Nm"
    assert page.evaluate("document.activeElement.id") == "measured"  # ready to type
    before = answers(site["db"])
    page.keyboard.press("Enter")  # nothing typed yet
    hint(page, "Type the measured value in Nm first.")
    page.keyboard.type("4e")  # not a number
    page.keyboard.press("Enter")
    hint(page, "That is not a number")
    page.fill("#measured", "")
    page.keyboard.type("9e37")  # an instrument's overflow code
    page.keyboard.press("Enter")
    hint(page, "is not a plausible measurement")
    assert answers(site["db"]) == before  # nothing was sent
    part = task["sample_id"]
    value = round(float(site["y"][int(part[1:])]), 1)
    page.fill("#measured", "")
    page.keyboard.type(str(value))
    page.wait_for_selector("svg.band line.typed", state="attached")  # the value is drawn
    assert page.locator("svg.band text.typed").text_content() == f"your value {value:.1f} Nm"
    inside = abs(value - d["y_pred"]) <= TOL
    hint(page, "Within ±2.5 Nm of the prediction." if inside else "outside the band")
    page.keyboard.press("Enter")
    shown = repr(value).removesuffix(".0")  # as JavaScript writes the number: 48, 48.3
    page.wait_for_selector(f".recent li >> text={shown} Nm")
    got = answers(site["db"])
    assert got[task_id] == ("learned", value)
    learned = httpx.get(f"{url}/api/v1/tasks/{task_id}", headers=headers).json()
    assert learned["correct"] is inside and learned["reward"] == (-0.5 if inside else 1.0)
    assert violations == []  # the number box and the band plot run under the CSP


def test_the_dashboard_draws_each_error_against_the_band(site: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {site['token']}"}
    band = httpx.get(f"{site['server'].url}/api/v1/streams/press-7/band", headers=headers).json()
    assert band["labels"] >= 8
    page = signed_in(site, "dashboard.html?stream=press-7")
    page.wait_for_selector("#c-band svg circle", state="attached")
    chart = page.locator("#c-band svg")
    assert float(chart.get_attribute("data-tolerance")) == TOL
    dots = page.locator("#c-band svg circle")
    errors = [float(e) for e in dots.evaluate_all("ds => ds.map(d => d.dataset.error)")]
    assert errors == [p["error"] for p in band["points"]]
    outside = page.locator("#c-band svg circle.outside").count()
    assert outside == sum(not p["inside"] for p in band["points"])
    tiles = page.locator("#tiles").inner_text()
    assert f"{round(100 * band['in_band'])} %" in tiles and f"of {band['labels']} measured" in tiles
    assert f"{band['rmse']:.3f}".rstrip("0").rstrip(".") in tiles
    assert page.locator("#bandsection").is_visible()
    assert page.locator("#askedtitle").inner_text() == "Parts sent for measurement"
