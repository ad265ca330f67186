"""The command line, the only module that knows flags: ``cbeal demo``, ``run``, ``casestudy``,
``reproduce``, ``benchmark`` and the service's commands (see :data:`DESCRIPTION`). Library
errors name parameters in backticks (`test_fraction`); :func:`_as_flags` turns them into
flags (--test-fraction)."""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from cbeal._version import __version__
from cbeal.bridges.client import ServiceError

__all__ = ["main"]


def _demo(args: argparse.Namespace) -> int:
    from cbeal.learners.registry import make_learner
    from cbeal.models import CbeAL
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
    print(
        f"test accuracy (balanced test set of {s.y_test.size}): initial {initial:.3f} -> "
        f"final {final:.3f}"
    )
    print(f"time: {elapsed:.2f} s ({1e3 * elapsed / len(trace):.2f} ms per sample incl. refits)")
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cbeal.experiments.profiles import reproduce

    gens = tuple(args.generators.split(",")) if args.generators else None
    result = reproduce(
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


def _run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cbeal.reports.folder import check_out
    from cbeal.reports.tablerun import console_lines, write_report
    from cbeal.tablerun import RunOptions, execute, prepare

    out = Path(args.out)
    check_out(out)  # an unusable --out stops here, before any computation
    options = RunOptions(
        data=Path(args.data),
        label=args.label,
        time=args.time,
        features=args.features,
        drop=args.drop,
        ids=args.id,
        preset=args.preset,
        agents=args.agents,
        budget=args.budget,
        learner=args.learner,
        initial=args.initial,
        test_fraction=args.test_fraction,
        positive=args.positive,
        compare=args.compare,
        seed=args.seed,
        repeats=args.repeats,
        refit_every=args.refit_every,
        progress=args.progress,
    )
    try:
        plan = prepare(options)  # validates everything before the report folder is touched
        for line in plan.estimate.lines() if plan.estimate else []:
            print(f"cbeal: {line}", file=sys.stderr)
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
    print("\n".join(console_lines(result, report)))
    return 0


def _percentages(text: str) -> list[float]:
    try:
        return [float(b.strip().rstrip("%")) / 100.0 for b in text.split(",") if b.strip()]
    except ValueError:
        msg = f"--budgets takes percentages of the stream like 5,10,20; got {text!r}"
        raise ValueError(msg) from None


def _casestudy(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cbeal.experiments.casestudy.pipeline import casestudy

    budgets = None if args.budgets is None else _percentages(args.budgets)
    methods = None if args.methods is None else [m.strip() for m in args.methods.split(",")]
    result = casestudy(
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
        cells = result["headline"][study]
        shares = sorted({b for _, b in cells if b >= 0})
        header = ", ".join(f"{100 * b:g}%" for b in shares)
        print(f"    test balanced accuracy (%) by budget: {header}")
        for name in dict.fromkeys(m for m, _ in cells):
            vals = [cells.get((name, b), cells.get((name, -1.0), float("nan"))) for b in shares]
            print(f"    {name:18s} " + "  ".join(f"{100 * v:5.1f}" for v in vals))
    for fig in result["figures"]:
        print(f"  figure: {fig}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from cbeal.service.app import Settings, create_app

    settings = Settings(
        db=args.db or _default_db(),
        open=args.open,
        undo_seconds=args.undo_seconds,
        lease_seconds=args.lease_seconds,
        task_lease_seconds=args.task_lease_seconds,
        checkpoint_every=args.checkpoint_every,
        retrain=args.retrain,
        sqlite_sync=args.sqlite_sync,
    )
    if args.open:
        print(
            "cbeal serve: --open: no tokens are checked; use it for a local demo only",
            file=sys.stderr,
        )
    uvicorn.run(
        create_app(settings),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        access_log=False,
    )
    return 0


def _default_db() -> str:
    from cbeal.service.db import default_url

    return default_url("cbeal-service.db")


def _token(args: argparse.Namespace) -> int:
    from cbeal.service.db import connect, migrate
    from cbeal.service.tokens import create_token

    engine = connect(args.db or _default_db())
    migrate(engine)
    token = create_token(engine, role=args.role, name=args.name)
    print(token)
    print(f"(role {args.role}; shown once — only its hash is stored)", file=sys.stderr)
    return 0


def _replay(args: argparse.Namespace) -> int:
    import os

    from cbeal.bridges.replay import replay

    token = args.token or os.environ.get("CBEAL_TOKEN")

    def show(sent: int, asked: int, answered: int) -> None:
        if args.progress:
            print(
                f"\r{sent} rows sent, {asked} asked, {answered} answered",
                end="",
                file=sys.stderr,
                flush=True,
            )

    out = replay(
        args.file,
        stream=args.stream,
        url=args.url,
        token=token,
        id_col=args.id,
        label=args.label,
        time_col=args.time,
        batch=args.batch,
        create=args.create,
        initial=args.initial,
        budget=args.budget,
        learner=args.learner,
        answer=args.answer,
        limit=args.limit,
        exclude=[c for c in (args.exclude or "").split(",") if c],
        progress=show,
    )
    if args.progress:
        print(file=sys.stderr)
    st = out["status"]
    print(
        f"replayed {out['sent']} rows into {args.stream!r}: {out['asked']} asked, "
        f"{out['answered']} answered; prequential accuracy "
        f"{st.get('prequential_accuracy')}, model version {st.get('model_version')}"
    )
    return 0


def _mqtt(args: argparse.Namespace) -> int:
    import os

    from cbeal.bridges.mqtt import Bridge

    bridge = Bridge(
        broker=args.broker,
        topic=args.topic,
        reply_topic=args.reply,
        stream=args.stream,
        url=args.url,
        token=args.token or os.environ.get("CBEAL_TOKEN"),
        client_id=args.client_id,
    )
    print(
        f"bridging {args.broker} {args.topic} -> stream {args.stream!r} -> {args.reply}",
        file=sys.stderr,
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        bridge.run_forever()
    except KeyboardInterrupt:
        pass  # run_forever stopped the bridge; unstored messages wait at the broker
    return 0


def _labelstudio(args: argparse.Namespace) -> int:
    import os

    import httpx

    from cbeal.bridges.client import Client
    from cbeal.bridges.labelstudio import label_config, push

    cbeal = Client(args.url, args.token or os.environ.get("CBEAL_TOKEN"))
    if args.action == "config":
        config = cbeal.call("GET", f"/api/v1/streams/{args.stream}/config")
        print(label_config(config["classes"]))
        return 0
    ls = httpx.Client(
        base_url=args.ls_url, timeout=60, headers={"Authorization": f"Token {args.ls_token}"}
    )
    ids = push(cbeal, ls, stream=args.stream, project=args.project, limit=args.limit)
    print(f"pushed {len(ids)} tasks of {args.stream!r} to Label Studio project {args.project}")
    return 0


def _data(args: argparse.Namespace) -> int:
    from cbeal.datasets.export import export_csv

    print(export_csv(args.dataset, args.out))
    return 0


def _benchmark(args: argparse.Namespace) -> int:
    """``cbeal benchmark``: the label-efficiency suite (BENCHMARK.md); self-contained."""
    from pathlib import Path

    from cbeal.experiments.suite.pipeline import appendix_figures, benchmark

    out = Path(args.out)
    if args.appendix:
        for path in appendix_figures(out, reps=args.appendix_reps):
            print(f"appendix figure: {path}")
        return 0
    result = benchmark(
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


DESCRIPTION = """cbeal: stream-based active learning for manufacturing (CbeAL).
Commands: 'demo' runs CbeAL-6 on a built-in simulated stream; 'run' runs CbeAL on your
own CSV/Parquet file and writes a report folder; 'casestudy' runs the paper's case study
on bundled SECOM or AI4I data; 'reproduce' runs the paper's simulation study; 'benchmark'
runs the label-efficiency suite; 'serve',
'token', 'replay' and 'mqtt' run and feed the annotation service; 'data' exports a
bundled dataset."""


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none to show (None)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


def _progress(parser: argparse.ArgumentParser, default: bool | None) -> None:
    auto = " (default: shown on a terminal when the run takes more than a few seconds)"
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=default,
        help="show progress bars" + (auto if default is None else ""),
    )


def build_parser() -> argparse.ArgumentParser:
    from cbeal.experiments.tasks import BACKENDS

    fmt = _HelpFormatter
    parser = argparse.ArgumentParser(prog="cbeal", description=DESCRIPTION, formatter_class=fmt)
    parser.add_argument(
        "--version",
        action="version",
        version=f"cbeal {__version__}",
        help="print the version and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True, title="commands")
    demo = sub.add_parser(
        "demo",
        help="run a preset on a built-in simulated stream",
        description="Run a CbeAL preset on the paper's simulated stream and print a short summary.",
        formatter_class=fmt,
    )
    demo.add_argument("--preset", default="CBEAL-6", help="CBEAL-2, -4, -4*, -6 or -8")
    demo.add_argument(
        "--learner", default="svm", help="svm, logreg, logreg-l1, random-forest, gradient-boosting"
    )
    demo.add_argument("--n", type=int, default=1500, help="training samples (D0 + stream)")
    demo.add_argument("--pc", type=float, default=0.10, help="share of positives")
    demo.add_argument("--ds", type=float, default=0.0, help="share of flipped stream labels")
    demo.add_argument("--sp", type=float, default=0.30, help="share of useless features")
    demo.add_argument("--seed", type=int, default=0, help="random seed (same seed, same run)")
    _progress(demo, None)
    demo.set_defaults(func=_demo)

    rep = sub.add_parser(
        "reproduce",
        help="reproduce the paper's simulation study",
        description="Run every method of the paper's simulation study on the "
        "same seeded data sets and write result tables next to the paper's "
        "numbers. Resumable: finished runs are skipped.",
        formatter_class=fmt,
    )
    rep.add_argument(
        "--profile",
        choices=("quick", "paper"),
        default="quick",
        help="quick: 4 scenarios x 2 replications; paper: 24 x 10, both generators",
    )
    rep.add_argument("--out", default="reproduction", help="output folder (resumable)")
    rep.add_argument(
        "--learner", default="svm", help="svm, logreg, logreg-l1, random-forest, gradient-boosting"
    )
    rep.add_argument("--generators", default=None, help="e.g. v1,v2 (default: the profile's)")
    rep.add_argument("--jobs", type=int, default=-1, help="parallel workers (-1: all cores)")
    rep.add_argument(
        "--backend",
        default="loky",
        choices=BACKENDS,
        help="where tasks run: local processes (loky), threads, or a Dask or Ray cluster",
    )
    rep.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="address of a running cluster for --backend dask "
        "(tcp://host:8786) or ray (ray://host:10001 or auto); default: start a "
        "local one",
    )
    _progress(rep, True)
    rep.set_defaults(func=_reproduce)

    run = sub.add_parser(
        "run",
        help="run CbeAL on your own CSV/Parquet file, write a report",
        description="Stream the rows of a labelled table through CbeAL (the "
        "labels in the file act as the expert) and write a report folder. "
        "The report is written to a temporary folder and moved into place at "
        "the end: an interrupted or failed run leaves a previous report as it "
        "was.",
        formatter_class=fmt,
    )
    run.add_argument("--data", required=True, help=".csv, .tsv, .txt, .parquet or .pq file")
    run.add_argument("--label", required=True, help="label column")
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
    agents = run.add_mutually_exclusive_group()
    agents.add_argument("--preset", default="CBEAL-6", help="CBEAL-2, -4, -4*, -6 or -8")
    agents.add_argument("--agents", default=None, help="e.g. LD2,RAL1 (instead of --preset)")
    run.add_argument(
        "--budget",
        default="10%",
        help="labels to spend: a share of the stream (10%%, 0.1) or a count (50)",
    )
    run.add_argument(
        "--learner",
        default="logreg-l1",
        help="logreg-l1, logreg, svm, random-forest, gradient-boosting",
    )
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
    run.add_argument("--compare", default="RS", help="e.g. RS,US,DBALStream,QBC-PYP or none")
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
    _progress(run, None)
    run.set_defaults(func=_run)

    case = sub.add_parser(
        "casestudy",
        help="the paper's case study on bundled SECOM or AI4I data",
        description="The paper's case-study protocol: per replication a "
        "contiguous third of the samples with a random start is the test "
        "set, D0 is the first 10 training samples, budgets 3-20 % of the "
        "stream, 10 replications, L1 logistic regression and a random "
        "forest. Resumable.",
        formatter_class=fmt,
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
    case.add_argument("--out", default="casestudy", help="output folder (resumable)")
    case.add_argument("--replications", type=int, default=10, help="replications per study")
    case.add_argument(
        "--budgets", default=None, help="e.g. 5,10 (%% of the stream; default: 3,5,10,15,20)"
    )
    case.add_argument("--methods", default=None, help="e.g. CBEAL-6,RS,Initial (default: all)")
    case.add_argument("--jobs", type=int, default=-1, help="parallel workers (-1: all cores)")
    case.add_argument(
        "--figures", action=argparse.BooleanOptionalAction, default=True, help="draw the figures"
    )
    _progress(case, True)
    case.set_defaults(func=_casestudy)
    _service_parsers(sub, fmt)
    _benchmark_parser(sub, fmt)
    return parser


def _benchmark_parser(sub: Any, fmt: type[argparse.HelpFormatter]) -> None:
    bench = sub.add_parser(
        "benchmark",
        help="the label-efficiency suite (BENCHMARK.md)",
        description="Run every strategy on the suite's frozen workloads "
        "(quick: CI-sized; dev: development part with the candidate "
        "configurations; full: both parts). Resumable.",
        formatter_class=fmt,
    )
    bench.add_argument(
        "--profile",
        choices=("quick", "dev", "full"),
        default="quick",
        help="which part of the suite",
    )
    bench.add_argument("--out", default="benchmark", help="output folder (resumable)")
    bench.add_argument("--jobs", type=int, default=-1, help="parallel workers (-1: all cores)")
    bench.add_argument(
        "--figures",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="draw the rank and paired figures",
    )
    bench.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=True, help="show progress bars"
    )
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
    bench.set_defaults(func=_benchmark)


def _service_parsers(sub: Any, fmt: type[argparse.HelpFormatter]) -> None:
    """The annotation service's commands: serve, token, replay, mqtt; and data export."""
    serve = sub.add_parser(
        "serve",
        help="run the annotation service (HTTP API)",
        description="The annotation service: machines send samples, cbeal "
        "decides, an expert labels the asked ones later. Needs "
        "pip install 'cbeal[service]'.",
        formatter_class=fmt,
    )
    serve.add_argument(
        "--db",
        default=None,
        help="database URL (default: sqlite file "
        "cbeal-service.db here; or postgresql+psycopg://user@host/db)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--open", action="store_true", help="no tokens (a local demo only; every request is admin)"
    )
    serve.add_argument(
        "--undo-seconds",
        type=float,
        default=60.0,
        help="how long a label can be undone before the model learns it",
    )
    serve.add_argument(
        "--lease-seconds",
        type=float,
        default=15.0,
        help="how long a stream stays owned by this process without renewal",
    )
    serve.add_argument(
        "--task-lease-seconds",
        type=float,
        default=300.0,
        help="how long an expert holds a task before it returns to the queue",
    )
    serve.add_argument(
        "--checkpoint-every", type=int, default=5000, help="save the model every this many events"
    )
    serve.add_argument(
        "--retrain",
        default="background",
        choices=("background", "sync", "off"),
        help="retrain in a worker thread, on the request path (every run reproducible), or never",
    )
    serve.add_argument(
        "--sqlite-sync",
        default="NORMAL",
        choices=("NORMAL", "FULL"),
        help="SQLite: NORMAL survives a killed process, FULL a power cut too",
    )
    serve.add_argument("--log-level", default="warning", help="uvicorn log level")
    serve.set_defaults(func=_serve)

    token = sub.add_parser(
        "token",
        help="manage API tokens of the service",
        description="Manage the service's API tokens.",
        formatter_class=fmt,
    )
    token_sub = token.add_subparsers(dest="action", required=True, title="actions")
    create = token_sub.add_parser(
        "create",
        help="create a token (printed once)",
        description="Create an API token; it is printed once and only its hash is stored.",
        formatter_class=fmt,
    )
    create.add_argument(
        "--role",
        required=True,
        choices=("ingest", "annotate", "admin"),
        help="what the token may do",
    )
    create.add_argument("--name", default="cli", help="who uses it (shown in the audit)")
    create.add_argument("--db", default=None, help="database URL (as for cbeal serve)")
    create.set_defaults(func=_token)

    rep_ = sub.add_parser(
        "replay",
        help="stream a CSV/Parquet file into a running service",
        description="Send the rows of a file to a running service, as the "
        "machines of a line would.",
        formatter_class=fmt,
    )
    rep_.add_argument("file", help=".csv or .parquet file, one row per part")
    rep_.add_argument("--stream", required=True, help="stream name")
    rep_.add_argument("--url", default="http://127.0.0.1:8000", help="service address")
    rep_.add_argument("--token", default=None, help="API token (default: $CBEAL_TOKEN)")
    rep_.add_argument("--id", default=None, help="column with the part id (default: row number)")
    rep_.add_argument("--label", default=None, help="label column (needed for --create/--answer)")
    rep_.add_argument("--time", default=None, help="column to order the rows by")
    rep_.add_argument("--exclude", default=None, help="columns that are not features, e.g. a,b")
    rep_.add_argument("--batch", type=int, default=100, help="rows per request")
    rep_.add_argument(
        "--create",
        action="store_true",
        help="create the stream from the first --initial labelled rows if missing",
    )
    rep_.add_argument("--initial", type=int, default=20, help="rows of D0 with --create")
    rep_.add_argument("--budget", default="5%", help="budget of a created stream (50 or 5%%)")
    rep_.add_argument("--learner", default="logreg", help="learner of a created stream")
    rep_.add_argument(
        "--answer",
        action="store_true",
        help="label every asked part from --label (the file plays the expert)",
    )
    rep_.add_argument("--limit", type=int, default=None, help="send at most this many rows")
    rep_.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=True, help="show progress"
    )
    rep_.set_defaults(func=_replay)

    mq = sub.add_parser(
        "mqtt",
        help="bridge an MQTT topic of samples into a stream",
        description='Subscribe to a topic of samples ({"id", "x"} or '
        '{"samples": [...]}) and publish each decision to a reply topic.',
        formatter_class=fmt,
    )
    mq.add_argument("--broker", default="127.0.0.1:1883", help="MQTT broker host:port")
    mq.add_argument("--topic", required=True, help="topic the machines publish samples to")
    mq.add_argument("--reply", required=True, help="topic the decisions are published to")
    mq.add_argument("--stream", required=True, help="stream name")
    mq.add_argument("--url", default="http://127.0.0.1:8000", help="service address")
    mq.add_argument("--token", default=None, help="ingest token (default: $CBEAL_TOKEN)")
    mq.add_argument(
        "--client-id",
        default=None,
        help="MQTT client id of the bridge's persistent session; messages not yet stored "
        "wait at the broker for the next start with the same id (default: "
        "cbeal-bridge-<stream>)",
    )
    mq.set_defaults(func=_mqtt)

    lst = sub.add_parser(
        "labelstudio",
        help="bridge a stream's tasks to Label Studio",
        description="Print the labelling configuration of a stream for a "
        "Label Studio project, or push its open tasks there.",
        formatter_class=fmt,
    )
    lst_sub = lst.add_subparsers(dest="action", required=True, title="actions")
    for action, what in (
        ("config", "print the labelling configuration for the project"),
        ("push", "import open tasks into a Label Studio project"),
    ):
        p = lst_sub.add_parser(
            action, help=what, description=what[0].upper() + what[1:] + ".", formatter_class=fmt
        )
        p.add_argument("--stream", required=True, help="stream name")
        p.add_argument("--url", default="http://127.0.0.1:8000", help="cbeal service address")
        p.add_argument("--token", default=None, help="cbeal token (default: $CBEAL_TOKEN)")
        if action == "push":
            p.add_argument("--ls-url", required=True, help="Label Studio address")
            p.add_argument("--ls-token", required=True, help="Label Studio access token")
            p.add_argument("--project", type=int, required=True, help="Label Studio project id")
            p.add_argument("--limit", type=int, default=100, help="tasks per push")
        p.set_defaults(func=_labelstudio)

    data = sub.add_parser(
        "data",
        help="export a bundled dataset as a CSV file",
        description="Write a bundled dataset (SECOM or AI4I 2020) as a CSV file.",
        formatter_class=fmt,
    )
    data.add_argument("dataset", choices=("secom", "ai4i"), help="which dataset")
    data.add_argument("--out", required=True, help="CSV file to write")
    data.set_defaults(func=_data)


def _as_flags(message: str, parser: argparse.ArgumentParser, command: str) -> str:
    """Library errors name parameters (`test_fraction`); on the command line say --test-fraction."""
    sub = next(
        a
        for a in parser._subparsers._group_actions  # type: ignore[union-attr]
        if isinstance(a, argparse._SubParsersAction)
    ).choices[command]
    flags = {
        o.lstrip("-").replace("-", "_"): o
        for a in sub._actions
        for o in a.option_strings
        if o.startswith("--")
    }

    def repl(match: re.Match[str]) -> str:
        return flags.get(match.group(1), match.group(0))

    return re.sub(r"`([a-z_]+)`", repl, message)


INTERRUPTED = {  # what an interruption leaves behind, per command
    "run": "interrupted; nothing was written and any previous report in {out} is unchanged",
    "reproduce": "interrupted; finished runs are kept in {out}: rerun the same command to resume",
    "casestudy": "interrupted; finished replications are kept in {out}: rerun the same "
    "command to resume",
    "demo": "interrupted",
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:  # Ctrl-C: a short message, not a traceback; 130 = 128 + SIGINT
        note = INTERRUPTED.get(args.command, "interrupted").format(out=getattr(args, "out", ""))
        print(f"\ncbeal: {note}", file=sys.stderr)
        return 130
    except ServiceError as exc:  # one line that says what to do, never a traceback
        print(f"cbeal: error: {exc}", file=sys.stderr)
        return 1
    except (ValueError, TypeError) as exc:
        print(f"cbeal: error: {_as_flags(str(exc), parser, args.command)}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional extra is missing: say which to install
        extra = (
            "service"
            if args.command in ("serve", "token", "replay", "mqtt", "labelstudio")
            else "all"
        )
        print(
            f"cbeal: error: `cbeal {args.command}` needs {exc.name or exc}, which is not "
            f"installed; install the extras with: pip install 'cbeal[{extra}]'",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
