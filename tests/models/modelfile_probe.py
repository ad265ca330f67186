"""Load model files in a fresh process and report what each cost (test_modelfile_limits.py).

Usage: ``python modelfile_probe.py LIMITS_JSON FILE...`` (``null``: the default limits).
Prints one JSON line per file: the outcome (``"loaded"`` or the exception's type), its
message, the seconds it took and the peak of memory traced by :mod:`tracemalloc` (numpy's
arrays included) during that load. Imports and cbeal's class table are warmed up first, so
that each peak is the load's own. The caller runs it with a deadline, so that a load that
hangs fails its test instead of stopping the suite.
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from pathlib import Path


def main() -> None:
    import skops.io  # noqa: F401  (warm-up: imported before tracing)

    from cbeal import CbeAL
    from cbeal.modelfile import Limits
    from cbeal.modelfile.codec import cbeal_classes

    cbeal_classes()
    given = json.loads(sys.argv[1])
    limits = None if given is None else Limits(**given)
    for path in sys.argv[2:]:
        data = Path(path).read_bytes()
        tracemalloc.start()
        start = time.perf_counter()
        try:
            CbeAL.from_bytes(data, limits=limits)
            outcome, message = "loaded", ""
        except BaseException as exc:  # the point: report whatever escapes
            outcome, message = type(exc).__name__, str(exc)
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out = {"outcome": outcome, "message": message, "seconds": seconds, "peak": peak}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
