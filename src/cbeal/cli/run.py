"""``cbeal run``: CbeAL on the user's own CSV/Parquet file, with a report folder."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from pathlib import Path
from typing import Any

from cbeal.cli._common import (
    HelpFormatter,
    add_progress,
    as_flags,
    catalog_choices,
    loading_quietly,
)

__all__ = ["register"]


def register(sub: Any) -> None:
    run = sub.add_parser(
        "run",
        help="run CbeAL on your own CSV/Parquet file, write a report",
        description="Stream the rows of a labelled table through CbeAL (the labels in the "
        "file act as the expert) and write a report folder. The report is written to a "
        "temporary folder and moved into place at the end: an interrupted or failed run "
        "leaves a previous report as it was.",
        formatter_class=HelpFormatter,
    )
    _data_flags(run)
    _method_flags(run)
    _protocol_flags(run)
    add_progress(run, None)
    run.set_defaults(func=run_table, parser=run)


def _data_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "file", nargs="?", default=None, help=".csv, .tsv, .txt, .parquet or .pq file (or --data)"
    )
    run.add_argument("--data", default=None, help="the file, as an option")
    column = run.add_mutually_exclusive_group(required=True)
    column.add_argument("--label", default=None, help="label column of class labels")
    column.add_argument(
        "--target",
        default=None,
        help="label column of measured values (a regression run: the default preset becomes "
        "CBEAL-R and the learner bayesian-ridge; whole numbers such as counts are fine)",
    )
    run.add_argument(
        "--tolerance",
        type=float,
        default=None,
        help="the half-width of the band around a measured value that counts as right, in the "
        "target column's unit (default with --target: a quarter of the standard deviation of "
        "the measured values in D0); with --label it makes the label column measured values",
    )
    run.add_argument("--out", default="cbeal-report", help="report folder")
    run.add_argument(
        "--time", default=None, help="column to order the rows by (default: file order)"
    )
    cols = run.add_mutually_exclusive_group()
    cols.add_argument(
        "--features",
        default=None,
        help="feature columns, e.g. a,b,c (default: every numeric column)",
    )
    cols.add_argument("--drop", default=None, help="columns to leave out, e.g. batch,operator")
    run.add_argument(
        "--id",
        "--ids",
        default=None,
        metavar="COL[,COL]",
        help="part or batch id columns, copied into trace.csv (never features)",
    )


def _method_flags(run: argparse.ArgumentParser) -> None:
    agents = run.add_mutually_exclusive_group()
    agents.add_argument(
        "--preset",
        default=None,
        help=f"the ensemble (default: the recommended {catalog_choices('recommended')}); "
        f"{catalog_choices('presets')}",
    )
    agents.add_argument(
        "--agents",
        default=None,
        help=f"instead of --preset, two or more agents, e.g. LD2,RAL1; {catalog_choices('agents')}",
    )
    run.add_argument(
        "--budget",
        default=None,
        help="labels to spend: a share (10%%, 0.1) is a paced rate — at most 10 labels per "
        "100 rows, spread over the stream; a whole number (50) is a count, spent whenever "
        f"the method asks (default: {catalog_choices('budget')})",
    )
    run.add_argument(
        "--learner",
        default=None,
        help=f"default: logreg-l1; {catalog_choices('learners')}; with --tolerance "
        f"(default: bayesian-ridge): {catalog_choices('regressors')}",
    )
    run.add_argument(
        "--regression-reward",
        choices=("band", "normalized"),
        default="band",
        help="with --tolerance, the reward of a measured part: band (+1 when the prediction "
        "was outside the tolerance) or normalized (graded by the error over the tolerance)",
    )
    run.add_argument(
        "--compare",
        default="RS",
        help="strategies to compare with, e.g. RS,ENT,CBEAL-6, or none: any preset or agent "
        "of the catalog",
    )


def _protocol_flags(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--refit-every",
        type=int,
        default=1,
        metavar="K",
        help="retrain the learner after every K labels (1: after each, as in the "
        "paper); a larger K makes long runs much faster",
    )
    run.add_argument(
        "--initial",
        type=int,
        default=10,
        help="rows in D0, the labelled start; extended forward in time until it "
        "holds every class, when the file allows",
    )
    run.add_argument(
        "--test-fraction",
        type=float,
        default=0.3,
        help="most recent share of rows held out for scoring (0: none)",
    )
    run.add_argument(
        "--positive",
        default=None,
        help="the failure class for F1, precision and recall (default: the minority class)",
    )
    run.add_argument("--seed", type=int, default=0, help="random seed (same seed, same run)")
    run.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="N",
        help="run every method with N seeds (seed, seed+1, ...) and report mean "
        "+/- standard error and paired wins",
    )
    run.add_argument(
        "--format",
        choices=("md", "html"),
        default="md",
        help="report.md (Markdown) or a self-contained report.html",
    )


def run_table(args: argparse.Namespace) -> int:
    with loading_quietly():  # what the run loads, before a Ctrl-C can land in it
        for heavy in ("pandas", "sklearn.linear_model", "matplotlib.pyplot"):
            with contextlib.suppress(ImportError):  # a missing extra is said further on
                importlib.import_module(heavy)
        from cbeal.reports.folder import check_out
        from cbeal.runreport import console_lines, write_report
        from cbeal.tablerun import RunOptions, execute, prepare

    if (args.file is None) == (args.data is None) and args.file != args.data:
        args.parser.error("give the file once: as the first argument or with --data")
    if args.budget is None:
        from cbeal.catalog import DEFAULT_BUDGET

        args.budget = DEFAULT_BUDGET
    out = Path(args.out)
    check_out(out)  # an unusable --out stops here, before any computation
    names = ("time", "features", "drop", "preset", "agents", "budget", "learner")
    more = ("initial", "test_fraction", "positive", "compare", "seed", "repeats", "tolerance")
    options = RunOptions(
        data=Path(args.file or args.data),
        label=args.target if args.target is not None else args.label,
        measured_values=args.target is not None,
        ids=args.id,
        refit_every=args.refit_every,
        regression_reward=args.regression_reward,
        progress=args.progress,
        **{n: getattr(args, n) for n in (*names, *more)},
    )
    try:
        plan = prepare(options)  # validates everything before the report folder is touched
        for line in plan.estimate.lines() if plan.estimate else []:
            print(f"cbeal: {as_flags(line, args.parser)}", file=sys.stderr)
        result = execute(plan)
    except ImportError as exc:  # an optional extra (pandas) is missing: say what to install
        print(f"cbeal: error: {exc}", file=sys.stderr)
        return 2
    try:
        report = write_report(result, out, fmt=args.format)
    except OSError as exc:  # e.g. the disk filled up: the previous report is untouched
        print(
            f"cbeal: error: could not write the report to {out} ({exc}); any previous "
            "report there is unchanged",
            file=sys.stderr,
        )
        return 1
    print("\n".join(as_flags(line, args.parser) for line in console_lines(result, report)))
    return 0
