"""`cbeal replay` of a historian's export at its own pace (`speed`), against a real service."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("httpx")
import httpx

from cbeal.bridges.replay import replay
from cbeal.core import InvalidInputError, ParameterError

from ..service_helpers import FEATURES, Server, line, stream_config


def _export(s: Any, path: Path, times: list[Any], ids: list[str]) -> Path:
    """A historian's export: a time column, a column per tag, one row per part."""
    frame = pd.DataFrame(s.X_stream[: len(times)], columns=FEATURES)
    frame.insert(0, "part", ids)
    frame.insert(0, "time", times)
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Any:
    tmp = tmp_path_factory.mktemp("replay")
    server = Server(f"sqlite:///{tmp / 'replay.db'}", extra=("--open",)).start()
    try:
        yield server
    finally:
        server.stop()


def _stream(server: Server, name: str, seed: int) -> Any:
    s = line(seed=seed)
    cfg = stream_config(s, name=name)
    httpx.post(f"{server.url}/api/v1/streams", json=cfg, timeout=30).raise_for_status()
    return s


class _FakeClock:
    """Time that moves only when the replay sleeps: its pace, measured exactly."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_speed_keeps_the_historians_pace(service: Server, tmp_path: Path) -> None:
    s = _stream(service, "paced", seed=31)
    # out of order in the file, as exports from several tags can be; 3 parts at 10:00:01
    times = ["2026-03-02 10:00:03", "2026-03-02 10:00:00", "2026-03-02 10:00:01",
             "2026-03-02 10:00:01", "2026-03-02 10:00:01", "2026-03-02 10:00:09"]  # fmt: skip
    path = _export(s, tmp_path / "historian.csv", times, [f"h{i}" for i in range(6)])
    fake = _FakeClock()
    seen: list[tuple[float, int]] = []
    out = replay(
        path, stream="paced", url=service.url, token=None, id_col="part", time_col="time",
        speed=2.0, clock=fake.clock, sleep=fake.sleep,
        progress=lambda sent, asked, answered: seen.append((fake.now - 1000.0, sent)),
    )  # fmt: skip
    assert out["sent"] == 6
    # due at 0, 0.5 (three parts, one request), 1.5, 4.5 seconds: 9 s of history at speed 2
    assert seen == [(0.0, 1), (0.5, 4), (1.5, 5), (4.5, 6)]
    assert fake.sleeps == [0.5, 1.0, 3.0]
    st = httpx.get(f"{service.url}/api/v1/streams/paced", timeout=30).json()
    assert st["samples_received"] == 6


def test_speed_in_real_time_and_as_fast_as_possible(service: Server, tmp_path: Path) -> None:
    s = _stream(service, "realtime", seed=32)
    path = _export(s, tmp_path / "historian.parquet", [i * 0.1 for i in range(20)],
                   [f"r{i}" for i in range(20)])  # fmt: skip
    calls: list[int] = []
    start = time.monotonic()
    replay(path, stream="realtime", url=service.url, token=None, id_col="part",
           time_col="time", speed=2.0, progress=lambda *a: calls.append(a[0]))  # fmt: skip
    assert time.monotonic() - start >= 1.9 / 2.0 - 0.01  # never ahead of the pace
    assert calls[-1] == 20 and len(calls) > 1
    calls.clear()  # without speed: as fast as the service takes them, one request here
    replay(path, stream="realtime", url=service.url, token=None, id_col="part",
           time_col="time", progress=lambda *a: calls.append(a[0]))  # fmt: skip
    assert calls == [20]
    st = httpx.get(f"{service.url}/api/v1/streams/realtime", timeout=30).json()
    assert st["samples_received"] == 20  # the second replay's parts were duplicates


def test_speed_errors_say_what_to_do(tmp_path: Path) -> None:
    s = line(seed=33)
    path = _export(s, tmp_path / "h.csv", ["10:00", "later", "10:02"], ["a", "b", "c"])
    kw: dict[str, Any] = {"stream": "x", "url": "http://127.0.0.1:9", "token": None}
    with pytest.raises(ParameterError, match="`speed` needs the `time` column"):
        replay(path, speed=1.0, **kw)
    with pytest.raises(ParameterError, match="must be positive"):
        replay(path, time_col="time", speed=0.0, **kw)
    with pytest.raises(InvalidInputError, match="holds neither dates nor numbers"):
        replay(path, time_col="time", speed=1.0, **kw)


# ---------------------------------------------------------------- measured values
def _torque_file(path: Path, n: int = 160) -> tuple[Path, list[float]]:
    """AI4I 2020's first `n` parts: five readings, a part id and the torque (Nm) measured."""
    from ..service.test_service_regression import torque

    features, X, y = torque()
    frame = pd.DataFrame(X[:n], columns=features)
    frame.insert(0, "part", [f"t{i}" for i in range(n)])
    frame["torque"] = y[:n]
    frame.to_csv(path, index=False)
    return path, [float(v) for v in y[:n]]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cbeal", "replay", *args, "--no-progress"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_replay_creates_a_regression_stream_and_answers_with_the_measured_values(
    service: Server, tmp_path: Path
) -> None:
    path, y = _torque_file(tmp_path / "torque.csv")
    out = _cli(
        str(path), "--stream", "torque", "--url", service.url, "--id", "part", "--create",
        "--target", "torque", "--tolerance", "2.5", "--unit", "Nm", "--initial", "30",
        "--budget", "20%", "--answer",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "prequential share within the tolerance" in out.stdout
    cfg = httpx.get(f"{service.url}/api/v1/streams/torque/config", timeout=30).json()
    assert (cfg["task"], cfg["tolerance"], cfg["unit"], cfg["classes"]) == (
        "regression", 2.5, "Nm", None,
    )  # fmt: skip
    assert cfg["learner"] == "bayesian-ridge" and cfg["features"] == [
        c for c in pd.read_csv(path).columns if c not in ("part", "torque")
    ]
    st = httpx.get(f"{service.url}/api/v1/streams/torque", timeout=30).json()
    assert st["samples_received"] == 130 and st["labels_received"] >= 1
    # every label the file gave (the 30 initial ones too) is its part's measured value
    table = pd.read_csv(io.StringIO(httpx.get(
        f"{service.url}/api/v1/streams/torque/export", timeout=30).text))  # fmt: skip
    labelled = table[table["label"].notna()]
    assert len(labelled) == 30 + st["labels_received"]
    for sid, label in zip(labelled["sample_id"], labelled["label"], strict=True):
        assert float(label) == y[int(str(sid)[1:])]
    # replayed again into the regression stream: it answers with numbers, no --tolerance
    more = replay(path, stream="torque", url=service.url, token=None, id_col="part",
                  label="torque", answer=True)  # fmt: skip
    assert more["measured"] and more["sent"] == 160


def test_measured_values_without_a_tolerance_stop_with_what_to_do(
    service: Server, tmp_path: Path
) -> None:
    path, _ = _torque_file(tmp_path / "torque.csv", n=40)
    base = (str(path), "--url", service.url, "--id", "part", "--create")
    out = _cli(*base, "--stream", "t2", "--target", "torque")
    assert out.returncode == 2
    assert "holds non-whole numbers, measured values" in out.stderr
    assert "give the --tolerance of the measurement" in out.stderr
    # 0/1 are classes, not measurements (other whole numbers are counts: issue 33)
    pd.read_csv(path).assign(grade=[i % 2 for i in range(40)]).to_csv(path, index=False)
    out = _cli(*base, "--stream", "t2", "--target", "grade", "--tolerance", "0.5")
    assert out.returncode == 2 and "class labels rather than measured values" in out.stderr
    out = _cli(*base, "--stream", "t2", "--target", "torque", "--unit", "Nm")
    assert out.returncode == 2 and "give the --tolerance too" in out.stderr
    out = _cli(*base, "--stream", "t2", "--target", "torque", "--tolerance", "0")
    assert out.returncode == 2 and "--tolerance must be a number > 0" in out.stderr
    # an existing class stream does not take measured values
    _stream(service, "classes", seed=34)
    out = _cli(*base, "--stream", "classes", "--target", "torque", "--tolerance", "2.5")
    assert out.returncode == 2 and "takes the classes" in out.stderr
    names = httpx.get(f"{service.url}/api/v1/streams", timeout=30).json()["streams"]
    assert "t2" not in names


def _labelled_file(path: Path, s: Any, ids: list[str], start: int = 0) -> Path:
    """Parts with their classes and a text column (who ran the station)."""
    n = len(ids)
    frame = pd.DataFrame(s.X_stream[start : start + n], columns=FEATURES)
    frame.insert(0, "operator", ["ann", "bob"] * (n // 2) + ["ann"] * (n % 2))
    frame.insert(0, "part", ids)
    frame["quality"] = ["fail" if v == 1 else "ok" for v in s.y_stream[start : start + n]]
    frame.to_csv(path, index=False)
    return path


def test_create_says_which_text_columns_it_leaves_out(service: Server, tmp_path: Path) -> None:
    # issue 28 N8: the text column was dropped from the features without a word
    s = line(seed=31)
    path = _labelled_file(tmp_path / "shift.csv", s, [f"t{i}" for i in range(60)])
    out = _cli(
        str(path), "--stream", "n8", "--url", service.url, "--id", "part", "--create",
        "--target", "quality", "--initial", "20",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    notes = [t for t in out.stderr.splitlines() if "left out" in t]
    assert notes == [
        "note: non-numeric columns left out of the features: operator (encode them as "
        "numbers to send them, or --exclude them)"
    ]
    cfg = httpx.get(f"{service.url}/api/v1/streams/n8/config", timeout=30).json()
    assert cfg["features"] == FEATURES
    quiet = _cli(
        str(path), "--stream", "n8", "--url", service.url, "--id", "part", "--exclude",
        "operator,quality",
    )  # fmt: skip
    assert quiet.returncode == 0 and "left out" not in quiet.stderr


def test_answer_stops_in_one_line_at_a_task_for_a_part_not_in_the_file(
    service: Server, tmp_path: Path
) -> None:
    # issue 28 N7: a 17-line KeyError traceback before
    s = _stream(service, "n7", seed=32)
    expert = [{"id": f"e{i}", "x": s.X_stream[i].tolist()} for i in range(150)]
    r = httpx.post(f"{service.url}/api/v1/streams/n7/samples", json={"samples": expert}, timeout=60)
    asked = [d["sample_id"] for d in r.json()["decisions"] if d["acquire"]]
    assert asked  # tasks for parts the file below does not hold
    path = _labelled_file(tmp_path / "mine.csv", s, [f"m{i}" for i in range(40)], start=150)
    out = _cli(
        str(path), "--stream", "n7", "--url", service.url, "--id", "part",
        "--target", "quality", "--answer", "--exclude", "operator",
    )  # fmt: skip
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    (said,) = out.stderr.strip().splitlines()
    assert said.startswith("cbeal: error: the stream 'n7' asks about part 'e")
    assert "which is not in mine.csv: --answer answers from the file only" in said
    st = httpx.get(f"{service.url}/api/v1/streams/n7", timeout=30).json()
    assert st["samples_received"] == 190  # the rows sent are stored
    task = httpx.get(f"{service.url}/api/v1/streams/n7/tasks/next", timeout=30).json()
    assert task["sample_id"] in asked and task["status"] == "open"  # given back, not held


def test_create_takes_a_count_budget_with_its_pace_and_a_preset(
    service: Server, tmp_path: Path
) -> None:
    # issue 32: `--create --budget 20` was a raw 422 telling the user to choose a paper
    # preset, which replay could not
    s = line(seed=32)
    path = _labelled_file(tmp_path / "count.csv", s, [f"c{i}" for i in range(80)])
    base = ("--url", service.url, "--id", "part", "--create", "--target", "quality")
    out = _cli(str(path), "--stream", "count1", *base, "--budget", "20", "--exclude", "operator")
    assert out.returncode == 0, out.stderr
    status = httpx.get(f"{service.url}/api/v1/streams/count1", timeout=30).json()
    assert status["budget"]["spec"] == "20 labels, paced at 5%"
    assert "RAL1" in status["weights"] and "MIN" in status["weights"]  # the recommended preset
    out = _cli(
        str(path), "--stream", "count2", *base, "--budget", "20", "--pace", "2%",
        "--preset", "CBEAL-6", "--exclude", "operator",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    status = httpx.get(f"{service.url}/api/v1/streams/count2", timeout=30).json()
    assert status["budget"]["spec"] == "20 labels, paced at 2%" and "LD1" in status["weights"]
    bad = _cli(str(path), "--stream", "count3", *base, "--budget", "20", "--pace", "5")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "--pace takes a share of the parts such as 5%" in bad.stderr


def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    # issue 29 stumble 1: a 25-line traceback
    out = _cli(str(tmp_path / "nosuch.csv"), "--stream", "x", "--url", "http://127.0.0.1:9")
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "nosuch.csv" in lines[0] and "not found" in lines[0], lines


def test_replay_reads_what_cbeal_run_reads(service: Server, tmp_path: Path) -> None:
    # issue 29 stumble 2: a semicolon CSV with decimal commas came through as one column
    s = line(seed=33)
    frame = pd.DataFrame(s.X_stream[:30], columns=FEATURES)
    frame.insert(0, "part_no", [f"s{i}" for i in range(30)])
    path = tmp_path / "plant.csv"
    frame.to_csv(path, sep=";", decimal=",", index=False)
    _stream(service, "semi", 33)
    out = replay(path, stream="semi", url=service.url, token=None, id_col="part_no")
    assert out["sent"] == 30
    stored = httpx.get(f"{service.url}/api/v1/streams/semi", timeout=30).json()
    assert stored["samples_received"] == 30
    # a column name off by a letter: the closest one is suggested
    with pytest.raises(InvalidInputError, match="did you mean 'part_no'"):
        replay(path, stream="semi", url=service.url, token=None, id_col="part_nr")


def test_create_takes_the_experts_settings(service: Server, tmp_path: Path) -> None:
    # issue 30: several experts per part, set when the file creates the stream
    s = line(seed=30)
    path = _labelled_file(tmp_path / "experts.csv", s, [f"e{i}" for i in range(80)])
    base = ("--url", service.url, "--id", "part", "--create", "--target", "quality")
    out = _cli(
        str(path), "--stream", "experts1", *base, "--exclude", "operator",
        "--labels-per-part", "2", "--second-opinion-below", "0.7",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    status = httpx.get(f"{service.url}/api/v1/streams/experts1", timeout=30).json()
    assert status["labels_per_part"] == 2 and status["second_opinion_below"] == 0.7
    bad = _cli(str(path), "--stream", "experts2", *base, "--second-opinion-below", "1.5")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "--second-opinion-below is a certainty in (0, 1], got 1.5" in bad.stderr
