"""Provenance: results record cbeal's own commit or nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import cbeal.reports.provenance as prov


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def _repo(path: Path) -> Path:
    (path / "src" / "cbeal").mkdir(parents=True)
    (path / "src" / "cbeal" / "x.py").write_text("")
    _git(path, "init", "-q")
    _git(path, "-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    _git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    return path


def test_git_sha_is_the_checkout_cbeal_was_imported_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "cbeal-checkout")
    monkeypatch.setattr(prov, "_PACKAGE", (repo / "src" / "cbeal").resolve())
    prov.git_sha.cache_clear()
    assert prov.git_sha() == _git(repo, "rev-parse", "--short", "HEAD")


def test_an_install_inside_another_repository_records_no_sha(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path / "users-project")
    site = repo / ".venv" / "lib" / "site-packages" / "cbeal"
    site.mkdir(parents=True)
    monkeypatch.setattr(prov, "_PACKAGE", site.resolve())
    prov.git_sha.cache_clear()
    assert prov.git_sha() is None
    monkeypatch.setattr(prov, "_PACKAGE", tmp_path.resolve())  # no repository at all
    prov.git_sha.cache_clear()
    assert prov.git_sha() is None
    prov.git_sha.cache_clear()
