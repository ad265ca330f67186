"""A report folder that is never left half-written.

:func:`check_out` proves, before any computation, that the folder can be written (by
creating and removing a probe in it, or in its nearest existing parent: permission bits
alone do not tell, e.g. for root or on a read-only file system). :class:`Staging` collects
the new outputs in a hidden temporary folder inside the report folder and moves them into
place only at the end: until then a previous report stays as it was, and an interruption
or error removes the temporary folder and leaves no partial file behind.

Only the files this module is told about are replaced or removed; anything else in the
folder (the user's own files, say when `out` is the current folder) is never touched.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from cbeal.core import InvalidInputError

__all__ = ["Staging", "check_out"]


def _existing_parent(path: Path) -> Path:
    for parent in path.absolute().parents:
        if parent.exists():
            return parent
    return Path(path.absolute().anchor)  # pragma: no cover - the root always exists


def check_out(out: Path) -> None:
    """Raise :class:`InvalidInputError` unless `out` is (or can become) a writable folder.

    Nothing is left behind: the probe is removed, and a missing `out` is not created.
    """
    if out.exists() and not out.is_dir():
        raise InvalidInputError(f"`out` {str(out)!r} is a file; name a folder for the report")
    where = out if out.exists() else _existing_parent(out)
    if not where.is_dir():
        raise InvalidInputError(
            f"cannot create the report folder {str(out)!r}: {str(where)!r} "
            "is a file; name another `out`"
        )
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".cbeal-probe-", dir=where))
    except OSError as exc:
        what = "write to" if out.exists() else "create"
        raise InvalidInputError(
            f"cannot {what} the report folder {str(out)!r} ({exc.strerror or exc}); choose a "
            "writable `out`"
        ) from None


class Staging:
    """Write into ``self.path`` (temporary); :meth:`publish` moves the files into `out`.

    Use as a context manager: leaving the block without publishing (an error, Ctrl-C)
    deletes the temporary folder, and the folder `out` too if this run created it.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self._created = not out.exists()
        out.mkdir(parents=True, exist_ok=True)
        self.path = Path(tempfile.mkdtemp(prefix=".cbeal-tmp-", dir=out))
        self._published = False

    def __enter__(self) -> Staging:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if not self._published and self._created:
            shutil.rmtree(self.out, ignore_errors=True)

    def publish(self, stale: Iterable[str]) -> None:
        """Move every staged file into `out` (replacing same-named files), then remove the
        `stale` outputs of an earlier run that this run did not write.

        Each file is replaced atomically (``os.replace``), and Ctrl-C is held back until
        the moves are done, so the folder is never left with a mix of two runs.
        """
        with _sigint_deferred():
            new = sorted(p.relative_to(self.path) for p in self.path.rglob("*") if p.is_file())
            for rel in new:
                (self.out / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(self.path / rel, self.out / rel)
            written = {str(rel) for rel in new}
            for name in stale:
                if name not in written:
                    (self.out / name).unlink(missing_ok=True)
            self._published = True


@contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold a Ctrl-C that arrives inside the block and raise it once the block is done."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    caught: list[Any] = []
    previous = signal.signal(signal.SIGINT, lambda *a: caught.append(a))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt
