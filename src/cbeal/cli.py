"""Command line: ``cbeal demo`` runs CbeAL-6 on a built-in simulated stream."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np

from cbeal._version import __version__

__all__ = ["main"]


def _demo(args: argparse.Namespace) -> int:
    from cbeal.learners.registry import make_learner
    from cbeal.model import CbeAL
    from cbeal.simulation import simulate
    from cbeal.streams import make_stream

    s = make_stream(n=args.n, pc=args.pc, ds=args.ds, sp=args.sp, random_state=args.seed)
    model = CbeAL.from_preset(
        args.preset,
        estimator=make_learner(args.learner),
        budget=s.budget,
        random_state=args.seed,
    ).fit(s.X0, s.y0)
    initial = float(np.mean(model.predict(s.X_test) == s.y_test))
    start = time.perf_counter()
    trace = simulate(model, s.X_stream, s.y_stream, progress=args.progress)
    elapsed = time.perf_counter() - start
    final = float(np.mean(model.predict(s.X_test) == s.y_test))
    summ = trace.summary()
    print(f"cbeal {__version__} demo: {args.preset}, learner {args.learner!r}, seed {args.seed}")
    print(
        f"stream: n={args.n} (D0 = {s.X0.shape[0]}, stream = {len(trace)}), p={s.X0.shape[1]}, "
        f"positives {args.pc:.0%}, disturbance {args.ds:.0%}, sparsity {args.sp:.0%}"
    )
    print(
        f"labels acquired: {summ['n_acquired']} of budget {s.budget} "
        f"(last at sample {summ['last_acquisition']}); per class {summ['acquired_per_class']}"
    )
    print(
        f"rewards: {summ['n_useful']} useful / {summ['n_useless']} useless, "
        f"cumulative {summ['cumulative_reward']:+.1f}; EWMA flips: {summ['n_flips']}"
    )
    names = ", ".join(
        f"{n}={w:.3f}" for n, w in zip(trace.agent_names, trace.weights_after[-1], strict=True)
    )
    print(f"final standardized weights: {names}")
    print(f"test accuracy (balanced test set of {s.y_test.size}): initial {initial:.3f} -> "
          f"final {final:.3f}")
    print(f"time: {elapsed:.2f} s ({1e3 * elapsed / len(trace):.2f} ms per sample incl. refits)")
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cbeal.experiments.profiles import reproduce

    gens = tuple(args.generators.split(",")) if args.generators else None
    result = reproduce(args.profile, Path(args.out), learner=args.learner, generators=gens,
                       n_jobs=args.jobs, backend=args.backend, progress=args.progress)
    for gen, info in result.items():
        print(f"generator {gen}: {info['seconds']:.0f} s; tables in "
              f"{Path(args.out) / f'tables_{gen}_{args.learner}' / 'tables.md'}")
        for claim, (won, total) in info["tables"]["wins"].items():
            print(f"  {claim}: {won}/{total}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cbeal", description=__doc__)
    parser.add_argument("--version", action="version", version=f"cbeal {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run a preset on a built-in simulated stream")
    demo.add_argument("--preset", default="CBEAL-6")
    demo.add_argument("--learner", default="svm", help="svm, logreg, logreg-l1, random-forest, …")
    demo.add_argument("--n", type=int, default=1500, help="training samples (D0 + stream)")
    demo.add_argument("--pc", type=float, default=0.10, help="share of positives")
    demo.add_argument("--ds", type=float, default=0.0, help="share of flipped stream labels")
    demo.add_argument("--sp", type=float, default=0.30, help="share of useless features")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None)
    demo.set_defaults(func=_demo)

    rep = sub.add_parser("reproduce", help="reproduce the paper's simulation study")
    rep.add_argument("--profile", choices=("quick", "paper"), default="quick")
    rep.add_argument("--out", default="reproduction", help="output folder (resumable)")
    rep.add_argument("--learner", default="svm")
    rep.add_argument("--generators", default=None, help="e.g. v1,v2 (default: the profile's)")
    rep.add_argument("--jobs", type=int, default=-1, help="parallel workers (-1: all cores)")
    rep.add_argument("--backend", default="loky", help="joblib backend: loky, dask or ray")
    rep.add_argument("--progress", action=argparse.BooleanOptionalAction, default=True)
    rep.set_defaults(func=_reproduce)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, TypeError) as exc:
        print(f"cbeal: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
