"""The studies: ``cbeal reproduce`` (the paper's simulation study), ``cbeal casestudy``
(its case study on bundled data) and ``cbeal benchmark`` (the label-efficiency suite).

The studies are a separate distribution in the repository (``studies/``, package
``cbeal_studies``): each command imports it when it runs, never when the command line
starts, and says in one line how to install it when it is missing."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from cbeal.cli._common import HelpFormatter, add_progress, catalog_choices

__all__ = ["register"]

MISSING = (
    "cbeal: error: `cbeal {command}` runs a study, and the studies are a separate package "
    "in the cbeal repository: from the cbeal folder, `pip install -e studies`"
)


def studies(module: str, command: str) -> ModuleType | None:
    """``cbeal_studies.<module>``, or None after saying how to install the studies."""
    try:
        return importlib.import_module(f"cbeal_studies.{module}")
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "cbeal_studies":
            raise  # a dependency of the studies is missing: the CLI says which
        print(MISSING.format(command=command), file=sys.stderr)
        return None


def register(sub: Any) -> None:
    _reproduce_parser(sub)
    _casestudy_parser(sub)
    _benchmark_parser(sub)


# ---------------------------------------------------------------------- reproduce
def _reproduce_parser(sub: Any) -> None:
    rep = sub.add_parser(
        "reproduce",
        help="reproduce the paper's simulation study",
        description="Run every method of the paper's simulation study on the same seeded "
        "data sets and write result tables next to the paper's numbers. Resumable: "
        "finished runs are skipped.",
        formatter_class=HelpFormatter,
    )
    rep.add_argument(
        "--profile",
        choices=("quick", "paper"),
        default="quick",
        help="quick: 4 scenarios x 2 replications; paper: 24 x 10, both generators",
    )
    rep.add_argument("--out", default="studies/reproduction", help="output folder (resumable)")
    rep.add_argument("--learner", default="svm", help=catalog_choices("learners"))
    rep.add_argument("--generators", default=None, help="e.g. v1,v2 (default: the profile's)")
    rep.add_argument("--jobs", type=int, default=-1, help="parallel workers (-1: all cores)")
    rep.add_argument(
        "--backend",
        default="loky",
        help="where tasks run: local processes (loky), threads, or a Dask or Ray cluster; "
        f"one of {catalog_choices('backends')}",
    )
    rep.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="address of a running cluster for --backend dask (tcp://host:8786) or ray "
        "(ray://host:10001 or auto); default: start a local one",
    )
    add_progress(rep, True)
    rep.set_defaults(func=run_reproduce)


def run_reproduce(args: argparse.Namespace) -> int:
    profiles = studies("reproduction.profiles", "reproduce")
    if profiles is None:
        return 2
    gens = tuple(args.generators.split(",")) if args.generators else None
    result = profiles.reproduce(
        args.profile,
        Path(args.out),
        learner=args.learner,
        generators=gens,
        n_jobs=args.jobs,
        backend=args.backend,
        cluster=args.cluster,
        progress=args.progress,
    )
    for gen, info in result.items():
        print(
            f"generator {gen}: {info['seconds']:.0f} s; tables in "
            f"{Path(args.out) / f'tables_{gen}_{args.learner}' / 'tables.md'}"
        )
        for claim, (won, total) in info["tables"]["wins"].items():
            print(f"  {claim}: {won}/{total}")
    return 0


# ---------------------------------------------------------------------- casestudy
def _casestudy_parser(sub: Any) -> None:
    case = sub.add_parser(
        "casestudy",
        help="the paper's case study on bundled SECOM or AI4I data",
        description="The paper's case-study protocol: per replication a contiguous third "
        "of the samples with a random start is the test set, D0 is the first 10 training "
        "samples, budgets 3-20 % of the stream, 10 replications, L1 logistic regression "
        "and a random forest. Resumable.",
        formatter_class=HelpFormatter,
    )
    case.add_argument(
        "--dataset", required=True, choices=("secom", "ai4i"), help="bundled data set"
    )
    case.add_argument(
        "--learner",
        default="all",
        choices=("l1", "rf", "all"),
        help="L1 logistic regression, random forest, or both",
    )
    case.add_argument("--out", default="studies/casestudy", help="output folder (resumable)")
    case.add_argument("--replications", type=int, default=10, help="replications per study")
    case.add_argument(
        "--budgets", default=None, help="e.g. 5%%,10%% (shares of the stream; default: 3-20%%)"
    )
    case.add_argument("--methods", default=None, help="e.g. CBEAL-6,RS,Initial (default: all)")
    case.add_argument("--jobs", type=int, default=-1, help="parallel workers (-1: all cores)")
    case.add_argument(
        "--figures", action=argparse.BooleanOptionalAction, default=True, help="draw the figures"
    )
    add_progress(case, True)
    case.set_defaults(func=run_casestudy)


def _shares(text: str) -> list[float]:
    """Budget shares such as ``5%,10%`` (bare numbers are percentages here: ``5,10``)."""
    from cbeal.catalog import budget_share
    from cbeal.core import BudgetError

    out = []
    for item in (b.strip() for b in text.split(",") if b.strip()):
        try:
            share = budget_share(item if item.endswith("%") else f"{item}%")
        except BudgetError:
            share = None
        if share is None:
            raise ValueError(
                f"`budgets` takes percentages of the stream like 5,10 (shares of the stream, "
                f"each below 100); got {text!r}"
            )
        out.append(share)
    return out


def run_casestudy(args: argparse.Namespace) -> int:
    pipeline = studies("casestudy.pipeline", "casestudy")
    if pipeline is None:
        return 2
    budgets = None if args.budgets is None else _shares(args.budgets)
    methods = None if args.methods is None else [m.strip() for m in args.methods.split(",")]
    result = pipeline.casestudy(
        args.dataset,
        Path(args.out),
        learner=args.learner,
        replications=args.replications,
        budgets=budgets,
        methods=methods,
        n_jobs=args.jobs,
        progress=args.progress,
        figures=args.figures,
    )
    print(f"case study {args.dataset}: {result['seconds']:.0f} s; results in {result['results']}")
    for study, path in result["tables"].items():
        print(f"  {study}: tables in {path}")
        _headline(result["headline"][study])
    for fig in result["figures"]:
        print(f"  figure: {fig}")
    return 0


def _headline(cells: dict[tuple[str, float], float]) -> None:
    shares = sorted({b for _, b in cells if b >= 0})
    header = ", ".join(f"{100 * b:g}%" for b in shares)
    print(f"    test balanced accuracy (%) by budget: {header}")
    for name in dict.fromkeys(m for m, _ in cells):
        vals = [cells.get((name, b), cells.get((name, -1.0), float("nan"))) for b in shares]
        print(f"    {name:18s} " + "  ".join(f"{100 * v:5.1f}" for v in vals))


# ---------------------------------------------------------------------- benchmark
def _benchmark_parser(sub: Any) -> None:
    bench = sub.add_parser(
        "benchmark",
        help="the label-efficiency suite (studies/BENCHMARK.md)",
        description="Run every strategy on the suite's frozen workloads (quick: CI-sized; "
        "dev: development part with the candidate configurations; full: both parts). "
        "Resumable.",
        formatter_class=HelpFormatter,
    )
    bench.add_argument(
        "--profile", choices=("quick", "dev", "full"), default="quick", help="which part"
    )
    bench.add_argument(
        "--out", default="studies/label_efficiency", help="output folder (resumable)"
    )
    bench.add_argument("--jobs", type=int, default=-1, help="parallel workers (-1: all cores)")
    bench.add_argument(
        "--figures",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="draw the rank and paired figures",
    )
    add_progress(bench, True)
    bench.add_argument(
        "--appendix",
        action="store_true",
        help="instead: the appendix's agent characterization figures",
    )
    bench.add_argument(
        "--appendix-reps",
        type=int,
        default=300,
        help="Monte Carlo draws per point of the appendix figures",
    )
    bench.set_defaults(func=run_benchmark)


def run_benchmark(args: argparse.Namespace) -> int:
    pipeline = studies("label_efficiency.pipeline", "benchmark")
    if pipeline is None:
        return 2
    out = Path(args.out)
    if args.appendix:
        for path in pipeline.appendix_figures(out, reps=args.appendix_reps):
            print(f"appendix figure: {path}")
        return 0
    result = pipeline.benchmark(
        args.profile, out, n_jobs=args.jobs, progress=args.progress, figures=args.figures
    )
    print(
        f"benchmark {args.profile}: {result['seconds']:.0f} s; results in {result['results']}; "
        f"tables in {result['tables']}"
    )
    for part, refs in result["goals"].items():
        for name, g in refs.items():
            print(
                f"  {part}: {name} mean rank {g['rank']:.2f} (position {g['rank_position']}), "
                f"≥ best single agent in {g['share_ge_best_agent']:.0%} of {g['n_cells']} "
                f"cells, above RS in {g['share_above_rs']:.0%}"
            )
    return 0
