"""The Label Studio bridge against a running Label Studio (the ``label-studio`` package).

Label Studio is started once for this module, with a fresh data directory, and `cbeal
serve` in its own process; Label Studio's webhook reaches cbeal over HTTP, as in a plant.
Annotations are made through Label Studio's own API. The ``label-studio`` command is
found through ``$CBEAL_LABEL_STUDIO`` (its path) or on the PATH; it lives in a venv of its
own because its pins would downgrade cbeal's packages (.ci/run makes that venv). Without
it the module is skipped, unless ``$CBEAL_REQUIRE_LABEL_STUDIO`` is set (as CI does):
then a missing Label Studio fails. The first start migrates Label Studio's database,
which takes about two minutes on this project's machines.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")

from cbeal.bridges.labelstudio import CONTROL, WEBHOOK

from ..service.test_service_regression import regression_config, torque
from ..service_helpers import Server, free_port, line, stream_config

LS_TOKEN = "cbeal-live-test-token-0123456789"  # a throwaway instance's legacy API token


def _label_studio_command() -> str | None:
    found = os.environ.get("CBEAL_LABEL_STUDIO") or shutil.which("label-studio")
    return found if found and Path(found).exists() else None


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cbeal", *args], capture_output=True, text=True, env=env, check=False
    )


def _ok(*args: str, env: dict[str, str]) -> str:
    out = _cli(*args, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


class LabelStudio:
    """A Label Studio process and a client of its API."""

    def __init__(self, command: str, data: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = data / "label-studio.log"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(
            LABEL_STUDIO_BASE_DATA_DIR=str(data),
            LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN="true",
            # cbeal runs on this host: Label Studio's SSRF guard blocks webhooks to private
            # and loopback addresses unless told not to (docs/SERVICE.md says so too)
            SSRF_PROTECTION_ENABLED="false",
            LATEST_VERSION_CHECK="false",  # no calls out: a test reaches only this host
            COLLECT_ANALYTICS="false",
            SENTRY_DSN="",
            FRONTEND_SENTRY_DSN="",
        )
        t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [
                command,
                "start",
                "--no-browser",
                "--data-dir",
                str(data),
                "--port",
                str(self.port),
                "--internal-host",
                "127.0.0.1",
                "--username",
                "expert@example.com",
                "--password",
                "cbeal-live-test",
                "--user-token",
                LS_TOKEN,
                "--enable-legacy-api-token",
            ],
            stdout=open(self.log, "wb"),
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # its own process group, stopped whole at the end
        )
        self.http = httpx.Client(
            base_url=self.url, headers={"Authorization": f"Token {LS_TOKEN}"}, timeout=60
        )
        deadline = t0 + 900
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"label-studio exited:\n{self.log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(1)
        else:
            self.stop()
            raise TimeoutError(f"label-studio did not start:\n{self.log.read_text()[-3000:]}")
        self.started_in = time.monotonic() - t0

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def call(self, method: str, path: str, **kw: Any) -> Any:
        r = self.http.request(method, path, **kw)
        assert r.status_code < 400, f"{method} {path}: {r.status_code} {r.text[:500]}"
        return r.json() if r.content else None

    def tasks(self, project: int) -> list[dict[str, Any]]:
        out = self.call("GET", "/api/tasks", params={"project": project, "page_size": 1000})
        return list(out["tasks"])

    def annotate(self, ls_task: int, choice: str | float | None) -> int:
        """Annotate: a class choice, a typed number (a regression task), or a skip (None)."""
        body: dict[str, Any] = (
            {"result": [], "was_cancelled": True}
            if choice is None
            else {"result": [_choice(choice) if isinstance(choice, str) else _number(choice)]}
        )
        return int(self.call("POST", f"/api/tasks/{ls_task}/annotations/", json=body)["id"])


def _choice(choice: str) -> dict[str, Any]:
    return {
        "from_name": CONTROL,
        "to_name": "part",
        "type": "choices",
        "value": {"choices": [choice]},
    }


def _number(value: float) -> dict[str, Any]:
    """Label Studio's Number result: the typed value under ``number``."""
    return {"from_name": CONTROL, "to_name": "part", "type": "number", "value": {"number": value}}


@pytest.fixture(scope="module")
def label_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabelStudio]:
    command = _label_studio_command()
    if command is None:
        if os.environ.get("CBEAL_REQUIRE_LABEL_STUDIO"):
            pytest.fail("$CBEAL_REQUIRE_LABEL_STUDIO is set but no label-studio command found")
        pytest.skip("label-studio is not installed (set $CBEAL_LABEL_STUDIO to its command)")
    ls = LabelStudio(command, tmp_path_factory.mktemp("label-studio"))
    print(f"\nLabel Studio started in {ls.started_in:.1f} s", file=sys.stderr)
    try:
        yield ls
    finally:
        ls.stop()


class Line:
    """`cbeal serve` with a stream of 300 samples, its tokens, and the CLI's environment;
    with `measured`, a regression stream (torque in Nm, AI4I 2020) instead of classes."""

    def __init__(
        self, tmp: Path, undo_seconds: float, measured: bool = False, per_part: int = 1
    ) -> None:
        self.db = f"sqlite:///{tmp / 'cbeal.db'}"
        self.env = {**os.environ}
        self.env["CBEAL_TOKEN"] = _ok(
            "token", "create", "--role", "admin", "--name", "me", "--db", self.db, env=self.env
        ).strip()
        self.annotate_token = _ok(
            "token", "create", "--role", "annotate", "--name", "ls", "--db", self.db, env=self.env
        ).strip()
        self.env["LABEL_STUDIO_TOKEN"] = LS_TOKEN
        self.server = Server(
            self.db, extra=("--undo-seconds", str(undo_seconds), "--retrain", "sync")
        ).start()
        self.http = httpx.Client(
            base_url=self.server.url,
            headers={"Authorization": f"Bearer {self.env['CBEAL_TOKEN']}"},
            timeout=60,
        )
        if measured:
            self.stream, (_, X, _) = "press-7", torque()
            config, rows = regression_config(), X[30:330]
        else:
            s = line(seed=3)
            config = stream_config(s, labels_per_part=per_part)
            self.stream, rows = "line1", s.X_stream[:300]
        assert self.http.post("/api/v1/streams", json=config).status_code == 201
        samples = [{"id": f"p{i}", "x": x.tolist()} for i, x in enumerate(rows)]
        self.http.post(f"/api/v1/streams/{self.stream}/samples", json={"samples": samples})

    def task(self, task_id: int) -> dict[str, Any]:
        out: dict[str, Any] = self.http.get(f"/api/v1/tasks/{task_id}").json()
        return out

    def labels_counted(self) -> float:
        """cbeal_labels_total of the stream: every label or relabel the service took."""
        for row in self.http.get("/metrics").text.splitlines():
            if row.startswith(f'cbeal_labels_total{{stream="{self.stream}"}}'):
                return float(row.split()[-1])
        return 0.0

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return _cli(*args, "--stream", self.stream, "--url", self.server.url, env=self.env)

    def project(self, ls: LabelStudio, title: str) -> int:
        """A Label Studio project with cbeal's labelling configuration and its webhook."""
        config = self.cli("labelstudio", "config").stdout
        project = ls.call("POST", "/api/projects", json={"title": title, "label_config": config})
        parsed = project["parsed_label_config"][CONTROL]
        if self.stream == "line1":
            assert parsed["type"] == "Choices" and parsed["labels"] == ["ok", "fail"]
        else:  # Label Studio took the regression stream's number box
            assert parsed["type"] == "Number" and parsed["to_name"] == ["part"]
        ls.call(
            "POST",
            "/api/webhooks",
            json={
                "project": project["id"],
                "url": f"{self.server.url}{WEBHOOK}",
                "headers": {"Authorization": f"Bearer {self.annotate_token}"},
                "send_payload": True,
                "send_for_all_actions": True,
            },
        )
        return int(project["id"])

    def push(self, ls: LabelStudio, project: int, limit: int) -> dict[int, int]:
        """Push; cbeal task id -> Label Studio task id of every task in the project."""
        out = self.cli(
            "labelstudio", "push", "--ls-url", ls.url, "--project", str(project),
            "--limit", str(limit),
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        return {t["data"]["cbeal_task"]: t["id"] for t in ls.tasks(project)}

    def pull(self, ls: LabelStudio, project: int) -> subprocess.CompletedProcess[str]:
        out = self.cli("labelstudio", "pull", "--ls-url", ls.url, "--project", str(project))
        assert out.returncode == 0, out.stderr
        return out


@pytest.fixture
def cbeal_line(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Line]:
    undo_seconds, measured, per_part = (
        (*request.param, 1)[:3] if isinstance(request.param, tuple) else (request.param, False, 1)
    )
    the = Line(tmp_path, undo_seconds=undo_seconds, measured=measured, per_part=per_part)
    try:
        yield the
    finally:
        the.server.stop()


def eventually(check: Any, seconds: float = 10.0) -> Any:
    """Label Studio sends its webhook within the annotation request; allow a moment."""
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.1)


@pytest.mark.parametrize("cbeal_line", [3600.0], indirect=True)
def test_push_webhook_and_pull_against_label_studio(
    label_studio: LabelStudio, cbeal_line: Line
) -> None:
    ls, cb = label_studio, cbeal_line
    project = cb.project(ls, "press 3")
    pushed = cb.push(ls, project, limit=4)
    assert len(pushed) == 4
    ls_tasks = {t["data"]["cbeal_task"]: t for t in ls.tasks(project)}
    for cbeal_id, t in ls_tasks.items():
        view = cb.task(cbeal_id)
        assert t["data"]["sample_id"] == view["sample_id"]
        assert set(t["data"]["part"]) == {f"s{i}" for i in range(6)}
        assert t["total_predictions"] == 1  # the model's prediction, as a pre-annotation
    t1, t2, t3, t4 = pushed  # cbeal task ids

    # created in Label Studio: the webhook labels the cbeal task
    a1 = ls.annotate(pushed[t1], "fail")
    assert eventually(lambda: cb.task(t1)["label"] == "fail")
    assert cb.task(t1)["status"] == "labelled"
    assert cb.labels_counted() == 1
    # updated within the undo window: the new label replaces the old
    ls.call("PATCH", f"/api/annotations/{a1}/", json={"result": [_choice("ok")]})
    assert eventually(lambda: cb.task(t1)["label"] == "ok")
    # deleted within the undo window: the label is withdrawn, the task open again
    ls.call("DELETE", f"/api/annotations/{a1}/")
    assert eventually(lambda: cb.task(t1)["status"] == "open")
    assert cb.task(t1)["label"] is None
    # skipped: "not now"
    ls.annotate(pushed[t2], None)
    assert eventually(lambda: cb.task(t2)["skips"] == 1)
    assert cb.task(t2)["status"] == "open"

    # annotated while cbeal is down: the webhook is lost, pull catches up
    cb.server.stop()
    ls.annotate(pushed[t3], "fail")  # Label Studio takes it; its webhook fails
    cb.server.start()
    assert cb.task(t3)["status"] == "open"
    out = cb.pull(ls, project)
    assert "1 labelled" in out.stdout and "unchanged" not in out.stdout, out.stdout
    assert cb.task(t3)["label"] == "fail"
    # through the webhook, then pull again: each annotation reaches cbeal once
    counted = cb.labels_counted()  # the restarted server counts from 0
    ls.annotate(pushed[t4], "ok")
    assert eventually(lambda: cb.task(t4)["label"] == "ok")
    labelled_at = {t: cb.task(t)["labelled_at"] for t in (t3, t4)}
    out = cb.pull(ls, project)
    assert "2 unchanged" in out.stdout and "labelled" not in out.stdout, out.stdout
    assert cb.labels_counted() == counted + 1
    assert {t: cb.task(t)["labelled_at"] for t in (t3, t4)} == labelled_at

    # push again: the task whose annotation was deleted (open and free in cbeal again) is
    # leased to Label Studio again, not imported twice
    again = cb.push(ls, project, limit=2)
    ids = [t["data"]["cbeal_task"] for t in ls.tasks(project)]
    assert len(ids) == len(set(ids)) == 6 and set(pushed) < set(again)


@pytest.mark.parametrize("cbeal_line", [0.0], indirect=True)
def test_after_the_undo_window_label_studio_cannot_change_a_learned_label(
    label_studio: LabelStudio, cbeal_line: Line
) -> None:
    ls, cb = label_studio, cbeal_line
    project = cb.project(ls, "press 4")
    pushed = cb.push(ls, project, limit=2)
    t1, t2 = pushed
    a1 = ls.annotate(pushed[t1], "fail")
    assert eventually(lambda: cb.task(t1)["status"] == "learned")
    # updated after the model learned the label: refused, the label stays; pull says why
    ls.call("PATCH", f"/api/annotations/{a1}/", json={"result": [_choice("ok")]})
    out = cb.pull(ls, project)
    assert "1 refused" in out.stdout, out.stdout
    assert f"annotation {a1} (task {t1}) not taken" in out.stderr
    assert "learned already" in out.stderr
    # deleted: the label stays too (undo is refused after the window)
    ls.call("DELETE", f"/api/annotations/{a1}/")
    ls.annotate(pushed[t2], "ok")  # webhooks go out in order: this one comes after
    assert eventually(lambda: cb.task(t2)["status"] == "learned")
    view = cb.task(t1)
    assert view["status"] == "learned" and view["label"] == "fail"

    # with a personal access token (Label Studio's default kind) instead of a legacy one
    pat = ls.call("POST", "/api/token/")["token"]
    env = {**cb.env, "LABEL_STUDIO_TOKEN": pat}
    where = ("labelstudio", "pull", "--stream", "line1", "--url", cb.server.url)
    out = _cli(*where, "--ls-url", ls.url, "--project", str(project), env=env)
    assert out.returncode == 0 and "1 unchanged" in out.stdout, out.stderr
    env["LABEL_STUDIO_TOKEN"] = pat[:-4] + "AAAA"
    out = _cli(*where, "--ls-url", ls.url, "--project", str(project), env=env)
    assert out.returncode == 1 and "refused the token" in out.stderr

    # one-line errors: no token, a wrong token, an unknown project
    env = {k: v for k, v in cb.env.items() if k != "LABEL_STUDIO_TOKEN"}
    out = _cli(*where, "--ls-url", ls.url, "--project", str(project), env=env)
    assert out.returncode == 2 and "set $LABEL_STUDIO_TOKEN" in out.stderr
    env["LABEL_STUDIO_TOKEN"] = "not-the-token"
    out = _cli(*where, "--ls-url", ls.url, "--project", str(project), env=env)
    assert out.returncode == 1 and "refused the token" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    out = _cli(*where, "--ls-url", ls.url, "--project", "9999", env=cb.env)
    assert out.returncode == 1 and "has no project 9999" in out.stderr


@pytest.mark.parametrize("cbeal_line", [(0.0, True)], indirect=True)
def test_a_measured_value_typed_in_label_studio_is_learned(
    label_studio: LabelStudio, cbeal_line: Line
) -> None:
    ls, cb = label_studio, cbeal_line
    pushed = cb.push(ls, project := cb.project(ls, "press 7 torque"), limit=2)
    assert len(pushed) == 2  # Label Studio took the number box (Line.project checks)
    for t in ls.tasks(project):
        d = cb.task(t["data"]["cbeal_task"])["decision"]
        assert (t["data"]["y_pred"], t["data"]["interval"]) == (d["y_pred"], d["interval"])
        assert t["data"]["prediction"].startswith(f"cbeal predicts {d['y_pred']:.1f} Nm")
        assert t["total_predictions"] == 0  # no pre-filled number
    t1, t2 = pushed
    before = cb.http.get("/api/v1/streams/press-7").json()["labels_learned"]
    # the expert types the measured torque; the webhook labels, the model learns it
    ls.annotate(pushed[t1], 41.25)
    assert eventually(lambda: cb.task(t1)["status"] == "learned")
    assert cb.task(t1)["label"] == 41.25
    assert cb.http.get("/api/v1/streams/press-7").json()["labels_learned"] == before + 1
    band = cb.http.get("/api/v1/streams/press-7/band").json()
    point = band["points"][-1]
    assert (point["sample_id"], point["y"]) == (cb.task(t1)["sample_id"], 41.25)
    assert point["y_pred"] == cb.task(t1)["decision"]["y_pred"]
    # an implausible number is refused with why; pull reports it and the task stays open
    ls.annotate(pushed[t2], 1e300)
    out = cb.pull(ls, project)
    assert "1 unchanged" in out.stdout and "1 refused" in out.stdout, out.stdout
    assert "not a plausible measured value" in out.stderr
    assert cb.task(t2)["status"] == "open"


@pytest.mark.parametrize("cbeal_line", [(3600.0, False, 2)], indirect=True)
def test_two_annotations_of_one_task_are_two_answers(
    label_studio: LabelStudio, cbeal_line: Line
) -> None:
    # issue 30: a stream that asks two experts per part; two Label Studio annotations of one
    # task are two answers: agreed, the label is learned once; differing, a review settles
    ls, cb = label_studio, cbeal_line
    project = cb.project(ls, "two experts")
    pushed = cb.push(ls, project, limit=2)
    t1, t2 = pushed
    ls.annotate(pushed[t1], "ok")
    assert eventually(lambda: cb.task(t1)["answers_given"] == 1)
    assert cb.task(t1)["status"] == "open" and cb.task(t1)["label"] is None
    ls.annotate(pushed[t1], "ok")
    assert eventually(lambda: cb.task(t1)["status"] == "labelled")
    assert cb.task(t1)["label"] == "ok"
    ls.annotate(pushed[t2], "ok")
    ls.annotate(pushed[t2], "fail")
    assert eventually(lambda: cb.task(t2)["status"] == "disputed")
    assert sorted(a["label"] for a in cb.task(t2)["answers"]) == ["fail", "ok"]
    assert all(a["by"].startswith("label-studio:user-") for a in cb.task(t2)["answers"])
    # the reviewer settles it in cbeal; the settled label is the part's label
    review = _ok("token", "create", "--role", "review", "--name", "rita", "--db", cb.db,
                 env=cb.env).strip()  # fmt: skip
    rita = {"Authorization": f"Bearer {review}"}
    got = httpx.get(f"{cb.server.url}/api/v1/streams/line1/reviews/next", headers=rita)
    assert got.status_code == 200 and got.json()["task_id"] == t2
    r = httpx.post(
        f"{cb.server.url}/api/v1/tasks/{t2}/label",
        headers=rita,
        json={"label": "fail", "request_id": "review-1"},
    )
    assert r.status_code == 200 and r.json()["label"] == "fail"
    agreement = cb.http.get("/api/v1/streams/line1/agreement").json()
    assert agreement["parts"] == {"agreed": 1, "disputed": 0, "settled": 1}
