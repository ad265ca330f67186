"""``cbeal demo``: a preset on the paper's simulated stream, with a short summary."""

from __future__ import annotations

import argparse
import time
from typing import Any

from cbeal._version import __version__
from cbeal.cli._common import HelpFormatter, add_progress, catalog_choices

__all__ = ["register"]


def register(sub: Any) -> None:
    demo = sub.add_parser(
        "demo",
        help="run a preset on a built-in simulated stream",
        description="Run a CbeAL preset on the paper's simulated stream and print a short summary.",
        formatter_class=HelpFormatter,
    )
    demo.add_argument(
        "--preset",
        default="CBEAL-6",
        help=f"a preset or an agent alone; presets: {catalog_choices('presets')}",
    )
    demo.add_argument("--learner", default="svm", help=catalog_choices("learners"))
    demo.add_argument("--n", type=int, default=1500, help="training samples (D0 + stream)")
    demo.add_argument("--pc", type=float, default=0.10, help="share of positives")
    demo.add_argument("--ds", type=float, default=0.0, help="share of flipped stream labels")
    demo.add_argument("--sp", type=float, default=0.30, help="share of useless features")
    demo.add_argument("--seed", type=int, default=0, help="random seed (same seed, same run)")
    add_progress(demo, None)
    demo.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    import numpy as np

    from cbeal.catalog import learner
    from cbeal.models import stream_model
    from cbeal.simulation import simulate
    from cbeal.streams import make_stream

    s = make_stream(n=args.n, pc=args.pc, ds=args.ds, sp=args.sp, random_state=args.seed)
    model = stream_model(
        args.preset,
        estimator=learner(args.learner),
        budget=s.budget,
        n_stream=s.y_stream.size,
        random_state=args.seed,
    ).fit(s.X0, s.y0)
    initial = float(np.mean(model.predict(s.X_test) == s.y_test))
    start = time.perf_counter()
    trace = simulate(model, s.X_stream, s.y_stream, progress=args.progress)
    elapsed = time.perf_counter() - start
    final = float(np.mean(model.predict(s.X_test) == s.y_test))
    summ = trace.summary()
    names = ", ".join(
        f"{n}={w:.3f}" for n, w in zip(trace.agent_names, trace.weights_after[-1], strict=True)
    )
    print(f"cbeal {__version__} demo: {args.preset}, learner {args.learner!r}, seed {args.seed}")
    print(
        f"stream: n={args.n} (D0 = {s.X0.shape[0]}, stream = {len(trace)}), p={s.X0.shape[1]}, "
        f"positives {args.pc:.0%}, disturbance {args.ds:.0%}, sparsity {args.sp:.0%}"
    )
    print(
        f"labels acquired: {summ['n_acquired']} of budget {s.budget} "
        f"(last at sample {summ['last_acquisition']}); per class {summ['acquired_per_class']}"
    )
    for line in reward_lines(summ, model):
        print(line)
    print(f"final standardized weights: {names}")
    print(
        f"test accuracy (balanced test set of {s.y_test.size}): initial {initial:.3f} -> "
        f"final {final:.3f}"
    )
    print(f"time: {elapsed:.2f} s ({1e3 * elapsed / len(trace):.2f} ms per sample incl. refits)")
    return 0


def reward_lines(summ: dict[str, Any], model: Any) -> list[str]:
    """The rewards and the control chart in words: a label earns its reward when the model
    had predicted that part wrong (the label taught it something) and its penalty when the
    model was right, so the sum is negative whenever most asked parts were predicted right."""
    gain, loss = getattr(model, "reward", 1.0), getattr(model, "penalty", -0.5)
    lines = [
        f"rewards: {summ['n_useful']} labels caught a model error ({gain:+g} each), "
        f"{summ['n_useless']} confirmed a right prediction ({loss:+g} each): cumulative "
        f"{summ['cumulative_reward']:+.1f}"
        + (
            " (negative: most asked parts were already predicted right)"
            if summ["cumulative_reward"] < 0
            else ""
        )
    ]
    if getattr(model, "fusion", None) is not None:
        lines.append("weights: fixed (score fusion: no bandit, no control chart)")
    elif summ["n_flips"]:
        lines.append(
            f"EWMA control chart: {summ['n_flips']} weight flips over {summ['n_stream']} "
            "samples (the paper's chart flips an agent's weight each time it leaves the "
            "chart's limits; see the final weights below)"
        )
    return lines
