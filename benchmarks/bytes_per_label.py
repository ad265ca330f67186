"""Python memory per labelled and per unlabelled sample of one service stream (issue 31
item 1), traced: the service's :class:`Runtime` (the stream's model as ``cbeal serve`` holds
it) decides batches of 50; in one stretch of 20,000 samples it learns every asked sample's
label at once, in the next it cancels the asked ones (so that labels and samples are not
proportional); it refits every 100 labels. :mod:`tracemalloc` reads the traced memory
(after a full collection) every 20,000 samples; a least-squares fit against labels learned
and samples decided gives bytes per labelled and per unlabelled sample.

    python benchmarks/bytes_per_label.py --samples 200000

Results: ``benchmarks/results/bytes_per_label.md``.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from service_helpers import FEATURES  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=200_000)
    parser.add_argument("--budget", default="5%")
    args = parser.parse_args()
    from cbeal import make_stream
    from cbeal.service.engine.runtime import Runtime
    from cbeal.service.schemas.streams import StreamConfig

    s = make_stream(n=20_000, pc=0.2, p=6, sp=0.0, random_state=1)
    config = StreamConfig.model_validate(
        {
            "name": "line",
            "features": FEATURES,
            "classes": [0, 1],
            "budget": args.budget,
            "learner": "logreg",
            "seed": 0,
            "initial": {"x": s.X0.tolist(), "y": s.y0.tolist()},
        }
    )
    rt = Runtime(1, config)
    X, y = s.X_stream, np.asarray(s.y_stream)
    tracemalloc.start(1)
    points = []
    seen = labels = since = 0
    while seen < args.samples:
        rows = [X[(seen + i) % len(X)].tolist() for i in range(50)]
        learning = (seen // 20_000) % 2 == 0  # every other 20,000: asked samples cancelled
        for i, d in enumerate(rt.decide(rows, seen + 1)):
            if d["acquire"] and learning:
                rt.learn(d["id"], int(y[(seen + i) % len(X)]))
                labels += 1
                since += 1
            elif d["acquire"]:
                rt.cancel(d["id"], refund=False)
        seen += 50
        if since >= 100:
            rt.model.use_learner(rt.model.train_learner())
            since = 0
        if seen % 20_000 == 0:
            gc.collect()
            points.append((seen, labels, tracemalloc.get_traced_memory()[0]))
            print(points[-1], flush=True)
    p = np.array(points[1:], dtype=float)  # after the first 20,000: warm
    A = np.column_stack([p[:, 1], p[:, 0] - p[:, 1], np.ones(len(p))])
    per_label, per_unlabelled, _ = np.linalg.lstsq(A, p[:, 2], rcond=None)[0]
    print(
        f"bytes per labelled sample {per_label:,.0f}; per unlabelled sample "
        f"{per_unlabelled:,.1f} ({per_unlabelled * 1e4 / 1e6:.3f} MB per 10,000); "
        f"{int(p[-1, 0] - p[0, 0]):,} samples and {int(p[-1, 1] - p[0, 1]):,} labels fitted"
    )


if __name__ == "__main__":
    main()
