"""Several experts on the pages (issue 30), in Debian's Chromium: two labellers answer the
same parts, a reviewer settles the one they disagree on seeing both answers side by side,
and the dashboard shows α and each labeller."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
playwright = pytest.importorskip("playwright.sync_api")

from ..service_helpers import Server, cli_token, line, stream_config  # noqa: E402
from .test_service_pages import CHROMIUM, FLAGS, current, gone  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no chromium")
SHOTS = os.environ.get("CBEAL_SCREENSHOTS")  # a folder: keep the pages' pictures there


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("experts-pages")
    db = f"sqlite:///{tmp / 'pages.db'}"
    tok = {
        who: cli_token(db, role, who)
        for who, role in (
            ("ops", "admin"),
            ("alice", "annotate"),
            ("bob", "annotate"),
            ("rita", "review"),
        )
    }
    server = Server(db, extra=("--undo-seconds", "0", "--retrain", "sync")).start()
    s = line(seed=9, n=1200)
    cfg = stream_config(s, name="press-4", budget="10%", labels_per_part=2)
    cfg["features"] = ["temperature", "pressure", "torque", "speed", "vibration", "wear"]
    admin = {"Authorization": f"Bearer {tok['ops']}"}
    httpx.post(f"{server.url}/api/v1/streams", json=cfg, timeout=60, headers=admin)
    httpx.post(
        f"{server.url}/api/v1/streams/press-4/samples",
        timeout=60,
        headers=admin,
        json={"samples": [{"id": f"part-{i}", "x": s.X_stream[i].tolist()} for i in range(400)]},
    ).raise_for_status()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield {"server": server, "tok": tok, "browser": browser, "admin": admin}
        browser.close()
    server.stop()


def page_of(site: dict[str, Any], who: str, path: str) -> Any:
    page = site["browser"].new_page(viewport={"width": 1280, "height": 1000})
    page.goto(f"{site['server'].url}/ui/")
    page.fill("#token", site["tok"][who])
    page.keyboard.press("Enter")
    page.wait_for_selector("#list li a")
    if path:
        page.goto(f"{site['server'].url}/ui/{path}")
    return page


def shot(page: Any, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / name), full_page=True)


def test_two_labellers_and_a_reviewer(site: dict[str, Any]) -> None:
    url, admin = site["server"].url, site["admin"]
    alice = page_of(site, "alice", "label.html?stream=press-4")
    task1, part1 = current(alice)
    assert "Several experts: 2 answer this part (0 so far)" in alice.inner_text("#task")
    alice.keyboard.press("1")  # ok
    gone(alice, part1)
    task2, part2 = current(alice)
    alice.keyboard.press("1")  # ok
    gone(alice, part2)
    bob = page_of(site, "bob", "label.html?stream=press-4")
    # bob is given alice's parts first (each waits for its second answer), never her answers
    assert current(bob) == (task1, part1)
    assert "(1 so far)" in bob.inner_text("#task") and "alice" not in bob.inner_text("#task")
    shot(bob, "experts-second-opinion.png")
    bob.keyboard.press("2")  # fail: they disagree
    gone(bob, part1)
    assert current(bob) == (task2, part2)
    bob.keyboard.press("1")  # ok: they agree, the model learns it
    gone(bob, part2)

    def task(t: int) -> Any:
        return httpx.get(f"{url}/api/v1/tasks/{t}", headers=admin, timeout=30).json()

    assert task(task1)["status"] == "disputed" and task(task2)["status"] == "learned"
    # the reviewer's list offers the review; her page shows both answers side by side
    rita = page_of(site, "rita", "")
    assert "review disputed parts" in rita.inner_text("#list")
    assert "label parts" not in rita.inner_text("#list")
    rita.click("text=review disputed parts")
    rita.wait_for_selector(".verdict")
    assert current(rita) == (task1, part1)
    verdicts = rita.locator(".verdict").all_inner_texts()
    assert len(verdicts) == 2
    assert "alice" in verdicts[0] and "ok" in verdicts[0]
    assert "bob" in verdicts[1] and "fail" in verdicts[1]
    boxes = [rita.locator(".verdict").nth(i).bounding_box() for i in range(2)]
    assert boxes[0]["y"] == boxes[1]["y"] and boxes[0]["x"] < boxes[1]["x"]  # side by side
    assert "1 to review" in rita.inner_text("#queue")
    shot(rita, "experts-review.png")
    rita.keyboard.press("2")  # fail: settled
    rita.wait_for_selector("text=No disputed parts are waiting")
    got = task(task1)
    assert got["status"] == "learned" and got["label"] == "fail"
    assert {(a["by"], a["kind"]) for a in got["answers"]} == {
        ("alice", "label"),
        ("bob", "label"),
        ("rita", "settle"),
    }
    # the dashboard: α, the parts, each labeller; the admin changes the settings there
    dash = page_of(site, "ops", "dashboard.html?stream=press-4")
    dash.wait_for_selector("#labellers tbody tr")
    words = dash.inner_text("#expertsection")
    assert "2 parts answered by several experts: 1 agreed, 1 settled by a reviewer" in words
    table = dash.locator("#labellers tbody").inner_text()
    assert "alice\t2\t50 %" in table and "bob\t2\t100 %" in table
    assert "Experts' agreement (α)" in dash.inner_text("#tiles")
    dash.fill("#sob", "0.7")
    dash.click("#expertsform button")
    dash.wait_for_selector("text=Saved")
    st = httpx.get(f"{url}/api/v1/streams/press-4", headers=admin, timeout=30).json()
    assert st["second_opinion_below"] == 0.7 and st["labels_per_part"] == 2
    shot(dash, "experts-dashboard.png")
