"""kill -9 at random moments loses nothing acknowledged (a short run of the durability script)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "durability.py"


def test_kill_9_loses_nothing_and_recovery_is_exact(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("durability", SCRIPT)
    assert spec is not None and spec.loader is not None
    durability = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(durability)
    result = durability.run(
        3, f"sqlite:///{tmp_path / 'd.db'}", tmp_path, seed=1, low=0.8, high=2.0
    )
    assert result["kills"] == 3 and result["restarts"] >= 3
    assert result["samples_acked"] > 0 and result["labels_acked"] > 0
    assert result["samples_lost"] == result["decisions_changed"] == 0
    assert result["labels_lost"] == result["samples_duplicated"] == 0
    assert result["tasks_duplicated"] == 0 and result["replay_exact"]
