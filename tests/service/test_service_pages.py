"""The expert's pages in a real browser (Debian's Chromium driven by Playwright): label by
click and by keyboard, undo, and see the dashboard change; results checked in the database."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import select

pytest.importorskip("fastapi")
playwright = pytest.importorskip("playwright.sync_api")

from cbeal.service.store.db import connect  # noqa: E402
from cbeal.service.store.tables import tasks  # noqa: E402

from ..service_helpers import Server, line, names, stream_config  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="no chromium (Debian: apt-get install chromium)"
)
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("pages")
    db = f"sqlite:///{tmp / 'pages.db'}"

    def token(role: str) -> str:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "cbeal",
                "token",
                "create",
                "--role",
                role,
                "--name",
                "ana",
                "--db",
                db,
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    admin = {"Authorization": f"Bearer {token('admin')}"}
    server = Server(db, extra=("--undo-seconds", "3600")).start()
    s = line(seed=9, n=1200)
    cfg = stream_config(s, name="press-3", budget="10%")
    cfg["show_guess"] = True  # the page shows the model's guess (a stream setting, off by default)
    cfg["features"] = ["temperature", "pressure", "torque", "speed", "vibration", "wear"]
    httpx.post(
        f"{server.url}/api/v1/streams", json=cfg, timeout=60, headers=admin
    ).raise_for_status()
    httpx.post(
        f"{server.url}/api/v1/streams/press-3/samples",
        timeout=60,
        headers=admin,
        json={"samples": [{"id": f"part-{i}", "x": s.X_stream[i].tolist()} for i in range(600)]},
    ).raise_for_status()
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield {
            "server": server,
            "db": db,
            "token": token("annotate"),
            "browser": browser,
            "admin": admin,
            "truth": dict(
                zip([f"part-{i}" for i in range(600)], names(s.y_stream[:600]), strict=True)
            ),
        }
        browser.close()
    server.stop()


def signed_in(site: dict[str, Any], path: str, width: int = 1280) -> Any:
    page = site["browser"].new_page(viewport={"width": width, "height": 1000})
    page.goto(f"{site['server'].url}/ui/")
    page.fill("#token", site["token"])
    page.keyboard.press("Enter")
    page.wait_for_selector("#list li a")
    page.goto(f"{site['server'].url}/ui/{path}")
    return page


def answers(db: str) -> dict[int, Any]:
    engine = connect(db)
    with engine.connect() as conn:
        rows = conn.execute(
            select(tasks.c.id, tasks.c.status, tasks.c.label).where(
                tasks.c.status.in_(("labelled", "learned", "cannot_tell"))
            )
        )
        out = {r.id: (r.status, r.label) for r in rows}
    engine.dispose()
    return out


def showing(page: Any, part: str, shown: bool = True) -> None:
    """Wait until the page shows (or no longer shows) `part`. A function, not an expression:
    Playwright evaluates an expression with eval() in the page, which the CSP forbids."""
    page.wait_for_function(
        "([part, shown]) => "
        "document.querySelector('#task h1').textContent.includes(part) === shown",
        arg=[part, shown],
    )


def gone(page: Any, part: str) -> None:
    showing(page, part, shown=False)


def current(page: Any) -> tuple[int, str]:
    page.wait_for_selector(".answers button:not([disabled])")
    text = page.locator("#task p.muted").first.inner_text()
    part = page.locator("#task h1").inner_text().removeprefix("Part ").strip()
    return int(text.split("task ")[1].split()[0]), part


def test_label_by_click_and_keyboard_undo_and_the_dashboard_moves(site: dict[str, Any]) -> None:
    page = signed_in(site, "label.html?stream=press-3")
    page.wait_for_selector(".answers button")
    task1, part1 = current(page)
    page.get_by_role("button", name="fail", exact=False).first.click()  # by click
    gone(page, part1)
    task2, part2 = current(page)
    page.keyboard.press("2")  # by keyboard: class 2 is "fail" (classes: ok, fail)
    gone(page, part2)
    task3, _ = current(page)
    page.keyboard.press(" ")  # skip
    page.wait_for_selector(".recent li >> text=skipped")
    got = answers(site["db"])
    assert got[task1] == ("labelled", "fail") and got[task2] == ("labelled", "fail")
    assert task3 not in got  # skipped: back in the queue
    page.keyboard.press("Backspace")  # undo the last answer: part2 comes back
    showing(page, part2)
    assert task2 not in answers(site["db"])
    page.keyboard.press("1")  # answer it again, differently
    gone(page, part2)
    assert answers(site["db"])[task2] == ("labelled", "ok")
    page.keyboard.press("c")  # cannot tell
    page.wait_for_selector(".recent li >> text=cannot tell")
    assert "cannot_tell" in {s for s, _ in answers(site["db"]).values()}
    page.keyboard.press("?")
    assert page.locator("#help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#help").is_visible()
    truth = site["truth"]
    # Backspace at once after an answer, while the next part is still loading: the undo
    # waits for the load instead of being dropped, and the same part comes back
    task4, part4 = current(page)
    page.keyboard.press("2" if truth[part4] == "fail" else "1")
    page.keyboard.press("Backspace")
    page.wait_for_selector(f"#status >> text=part {part4} was withdrawn")
    assert current(page) == (task4, part4) and task4 not in answers(site["db"])
    # ten parts with the digit keys only (the first is part4 again)
    for _ in range(10):
        _, part = current(page)
        key = "2" if truth[part] == "fail" else "1"
        page.keyboard.press(key)
        gone(page, part)
    dash = signed_in(site, "dashboard.html?stream=press-3")
    dash.wait_for_selector("#tiles .tile")
    tiles = dash.locator("#tiles").inner_text()
    labelled = sum(st == "labelled" for st, _ in answers(site["db"]).values())
    assert labelled == 12 and f"{labelled} more within the undo window" in tiles
    tablet = signed_in(site, "label.html?stream=press-3", width=800)
    tablet.wait_for_selector(".answers button")
    assert tablet.evaluate("document.documentElement.scrollWidth") <= 800  # no sideways scroll


def test_nothing_is_loaded_from_the_internet(site: dict[str, Any]) -> None:
    outside: list[str] = []
    page = site["browser"].new_page()
    page.on(
        "request",
        lambda r: outside.append(r.url) if not r.url.startswith(site["server"].url) else None,
    )
    page.goto(f"{site['server'].url}/ui/")
    page.fill("#token", site["token"])
    page.keyboard.press("Enter")
    page.wait_for_selector("#list li a")
    page.goto(f"{site['server'].url}/ui/dashboard.html?stream=press-3")
    page.wait_for_selector("#c-budget svg")
    assert outside == []


def test_a_wrong_token_is_refused(site: dict[str, Any]) -> None:
    page = site["browser"].new_page()
    page.goto(f"{site['server'].url}/ui/")
    page.fill("#token", "cbeal_not-a-token")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=That token was refused.")


def test_the_page_and_dashboard_tell_the_truth(site: dict[str, Any]) -> None:
    # issue 18: the wording follows the actual certainty, agents are named from the catalog,
    # the dashboard explains the weights by the stream's real configuration, and its charts
    # end where its tiles are
    from cbeal.catalog import AGENTS, preset_entry

    page = signed_in(site, "label.html?stream=press-3")
    page.wait_for_selector(".answers button")
    why = page.locator("#task p.why").inner_text()
    said = page.locator("#task p.prediction").inner_text()
    pct = int(said.split("certainty ")[1].split(" %")[0].replace("over ", ""))
    if "Exploitation question" in why:
        assert ("unsure" in why) == (pct < 70), (why, said)
    names = [a for a in preset_entry().agents]
    labels = [AGENTS[a].label for a in names]
    if "Asked by:" in why:
        asked = why.split("Asked by: ")[1].rstrip(".").split(", ")
        assert set(asked) <= set(labels), (asked, labels)
    dash = signed_in(site, "dashboard.html?stream=press-3")
    dash.wait_for_selector("#c-weights svg")
    words = dash.locator("#weighting").inner_text()
    chart = preset_entry().control_chart
    assert ("control chart" in words) and (("no control chart" in words.lower()) != chart)
    legend = dash.locator("#c-weights").inner_text()
    assert all(label in legend for label in labels), legend
    assert "paced" in dash.locator("#budgetwords").inner_text()  # budget "10%": a paced rate
    headers = {"Authorization": f"Bearer {site['token']}"}
    url = site["server"].url
    status = httpx.get(f"{url}/api/v1/streams/press-3", headers=headers, timeout=30).json()
    hist = httpx.get(f"{url}/api/v1/streams/press-3/history", headers=headers, timeout=30).json()
    last = hist["bins"][-1]
    assert last["model_version"] == status["model_version"]
    assert last["prequential_accuracy"] == status["prequential_accuracy"]


def test_the_pages_work_under_the_csp_and_show_a_scoped_token_its_lines(
    site: dict[str, Any],
) -> None:
    # issue 21: a Content-Security-Policy without inline script; a token scoped to a line
    # sees that line only
    from cbeal.service.engine.tokens import create_token

    url = site["server"].url
    engine = connect(site["db"])
    admin = {"Authorization": f"Bearer {create_token(engine, role='admin', name='ops')}"}
    scoped = create_token(engine, role="annotate", name="press-3-only", streams=["press-3"])
    engine.dispose()
    s = line(seed=3)
    cfg = stream_config(s, name="oven-1", budget="10%")
    cfg["features"] = ["temperature", "pressure", "torque", "speed", "vibration", "wear"]
    httpx.post(f"{url}/api/v1/streams", json=cfg, timeout=60, headers=admin).raise_for_status()
    page = site["browser"].new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Security Policy" in m.text else None)
    reply = page.goto(f"{url}/ui/")
    assert reply is not None and "script-src 'self'" in reply.headers["content-security-policy"]
    page.fill("#token", scoped)
    page.keyboard.press("Enter")
    page.wait_for_selector("#list li a")
    lines = page.locator("#list li strong").all_inner_texts()
    assert lines == ["press-3"]  # not oven-1
    page.goto(f"{url}/ui/dashboard.html?stream=press-3")
    page.wait_for_selector("#c-budget svg")
    page.goto(f"{url}/ui/label.html?stream=press-3")
    page.wait_for_selector(".answers button")
    page.goto(f"{url}/ui/dashboard.html?stream=oven-1")
    page.wait_for_selector("#tiles .error >> text=not one of them")
    page.click("[data-sign-out]")  # wired without an inline handler
    page.wait_for_selector("#token")
    assert page.evaluate("sessionStorage.getItem('cbeal-token')") is None
    assert violations == []
    # the same page with the unscoped token lists both lines
    page.fill("#token", site["token"])
    page.keyboard.press("Enter")
    page.wait_for_selector("#list li a")
    assert set(page.locator("#list li strong").all_inner_texts()) == {"press-3", "oven-1"}


# ---------------------------------------------------------------------- issue 29
def test_signing_in_says_how_to_get_the_token_and_then_leaves(site: dict[str, Any]) -> None:
    page = site["browser"].new_page()
    page.goto(f"{site['server'].url}/ui/")
    assert "echo $CBEAL_TOKEN" in page.locator("#signin-card").inner_text()
    page.fill("#token", site["token"])
    page.keyboard.press("Enter")
    page.wait_for_selector("#list li a")
    assert page.locator("#signin-card").is_hidden()  # no form left on screen once signed in
    assert page.locator("#who").inner_text().startswith("Signed in as ana (annotate).")
    page.click("#who button")  # sign out: the form is back
    page.wait_for_selector("#token")
    assert page.locator("#signin-card").is_visible()


def test_a_refused_token_says_which_database_it_must_come_from(site: dict[str, Any]) -> None:
    page = site["browser"].new_page()
    page.goto(f"{site['server'].url}/ui/")
    page.fill("#token", "cbeal_made-in-another-folder")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=That token was refused.")
    said = page.locator("#msg").inner_text()
    assert "cbeal-service.db" in said and "--db" in said, said


def test_the_models_guess_is_a_stream_setting_off_by_default(site: dict[str, Any]) -> None:
    url, admin = site["server"].url, site["admin"]
    s = line(seed=4, n=400)
    cfg = stream_config(s, name="press-quiet", budget="10%")
    cfg["features"] = ["temperature", "pressure", "torque", "speed", "vibration", "wear"]
    httpx.post(f"{url}/api/v1/streams", json=cfg, timeout=60, headers=admin).raise_for_status()
    samples = [{"id": f"q-{i}", "x": s.X_stream[i].tolist()} for i in range(300)]
    httpx.post(
        f"{url}/api/v1/streams/press-quiet/samples",
        json={"samples": samples},
        timeout=60,
        headers=admin,
    ).raise_for_status()
    config = httpx.get(f"{url}/api/v1/streams/press-quiet/config", headers=admin).json()
    assert config["show_guess"] is False
    shown = httpx.get(f"{url}/api/v1/streams/press-3/config", headers=admin).json()
    assert shown["show_guess"] is True
    quiet = signed_in(site, "label.html?stream=press-quiet")
    quiet.wait_for_selector(".answers button")
    assert quiet.locator("#task p.prediction").count() == 0  # no guess next to the question
    assert quiet.locator(".answers .suggested").count() == 0
    assert quiet.locator("#guess-on").is_hidden() and quiet.locator("#guess-off").is_visible()
    guess = signed_in(site, "label.html?stream=press-3")
    guess.wait_for_selector(".answers button")
    assert "The model currently says" in guess.locator("#task p.prediction").inner_text()
    assert guess.locator("#guess-on").is_visible() and guess.locator("#guess-off").is_hidden()


GAP = """() => {
  const box = document.createElement("div");
  lineChart(box, [{ name: "delay", colour: "#123456",
                    points: [[0, 1], [60, 2], [120, null], [180, null], [240, 9], [300, 8],
                             [360, null], [420, 3]] }], {});
  return { paths: box.querySelectorAll('path[stroke="#123456"]').length,
           dots: box.querySelectorAll("circle.alone").length };
}"""


def test_the_dashboard_draws_no_line_across_idle_time_nor_two_units_on_one_axis(
    site: dict[str, Any],
) -> None:
    dash = signed_in(site, "dashboard.html?stream=press-3")
    dash.wait_for_selector("#c-weights svg")
    # two stretches with values and one value alone: two lines and a dot, no ramp across
    assert dash.evaluate(GAP) == {"paths": 2, "dots": 1}
    dash.wait_for_selector("#c-version svg")
    assert "model version" not in dash.locator("#c-pace").inner_text()
    assert "model version" in dash.locator("#c-version").inner_text()
    assert "label delay" not in dash.locator("#c-queue").inner_text()
    delay = dash.locator("#c-delay").inner_text()
    assert "label delay" in delay or delay == "no answers yet"  # (before the first answer)


def test_under_score_fusion_the_dashboard_shows_which_agents_drove_the_asks(
    site: dict[str, Any],
) -> None:
    url, h = site["server"].url, {"Authorization": f"Bearer {site['token']}"}
    bins = httpx.get(f"{url}/api/v1/streams/press-3/history?points=20", headers=h).json()["bins"]
    last = bins[-1]["drivers"]
    assert last is not None and abs(sum(last) - 1) < 1e-3  # shares of the asks so far
    assert len({tuple(b["weights"]) for b in bins if b["weights"]}) == 1  # fusion: fixed
    dash = signed_in(site, "dashboard.html?stream=press-3")
    dash.wait_for_selector("#c-weights svg path", state="attached")  # flat lines: 0 px high
    assert dash.locator("#weightstitle").inner_text() == "Which agents drove the asks"
    assert "share of the asks" in dash.locator("#c-weights").inner_text()


def test_an_unknown_line_is_said_in_plain_words(site: dict[str, Any]) -> None:
    for path in ("label.html?stream=press-9", "dashboard.html?stream=press-9"):
        page = signed_in(site, path)
        page.wait_for_selector("text=There is no line named")
        text = page.locator("main").inner_text()
        assert "“press-9”" in text and "See the lines you can open" in text
        assert "POST" not in text and "/api/v1" not in text  # no developer words
    assert page.locator(".charts").is_hidden()
