"""The commands that feed a running service: ``cbeal replay``, ``cbeal mqtt`` and
``cbeal labelstudio`` (its parsers and handler in :mod:`.labelstudio`, registered here).
Tokens come from the environment (``$CBEAL_TOKEN``,
``$LABEL_STUDIO_TOKEN``), never from the command line, where any user's ``ps`` shows them."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from cbeal.cli._common import (
    HelpFormatter,
    RetryNotice,
    add_progress,
    add_url,
    catalog_choices,
    secret,
)

__all__ = ["register"]


def register(sub: Any) -> None:
    from cbeal.cli.labelstudio import labelstudio_parser

    _replay_parser(sub)
    _mqtt_parser(sub)
    labelstudio_parser(sub)


# ---------------------------------------------------------------------- replay
def _replay_parser(sub: Any) -> None:
    rep = sub.add_parser(
        "replay",
        help="stream a CSV/Parquet file into a running service",
        description="Send the rows of a file to a running service, as the machines of a "
        "line would. The token is read from $CBEAL_TOKEN.",
        formatter_class=HelpFormatter,
    )
    rep.add_argument("file", help=".csv or .parquet file, one row per part")
    rep.add_argument("--stream", required=True, help="stream name")
    add_url(rep)
    rep.add_argument("--id", default=None, help="column with the part id (default: row number)")
    rep.add_argument(
        "--label",
        "--target",
        default=None,
        help="label column (needed for --create/--answer): class labels, or measured values "
        "with --tolerance",
    )
    rep.add_argument(
        "--tolerance",
        type=float,
        default=None,
        help="the label column holds measured values (a regression stream with --create): "
        "the half-width of the band around the measured value that counts as right, in the "
        "column's unit, e.g. 0.05; the learner becomes bayesian-ridge",
    )
    rep.add_argument(
        "--unit", default=None, help="with --tolerance, the measured value's unit, e.g. mm"
    )
    rep.add_argument(
        "--time",
        default=None,
        help="time column to order the rows by: dates and times (UTC if no zone) or seconds",
    )
    rep.add_argument(
        "--speed",
        type=float,
        default=None,
        help="replay at this many times the pace of --time: 1 the original pace, 10 ten "
        "times faster (default: as fast as the service takes the rows)",
    )
    rep.add_argument("--exclude", default=None, help="columns that are not features, e.g. a,b")
    rep.add_argument("--batch", type=int, default=100, help="rows per request")
    _creation_flags(rep.add_argument_group("creating the stream (--create)"))
    rep.add_argument(
        "--answer",
        action="store_true",
        help="label every asked part from --label (the file plays the expert)",
    )
    rep.add_argument("--limit", type=int, default=None, help="send at most this many rows")
    rep.add_argument(
        "--wait",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long to keep retrying a service that is unreachable or busy",
    )
    add_progress(rep, None)  # default: on a terminal only, never `\r` lines in a log
    rep.set_defaults(func=run_replay)


def _creation_flags(new: Any) -> None:
    """The flags of a stream `cbeal replay --create` makes (a group of their own in --help)."""
    new.add_argument(
        "--create",
        action="store_true",
        help="create the stream from the first --initial labelled rows if missing",
    )
    new.add_argument("--initial", type=int, default=20, help="rows of D0 with --create")
    new.add_argument(
        "--budget",
        default=None,
        help="budget of a created stream: a share is a paced rate (5%%), a whole number a "
        f"count (50); default: {catalog_choices('budget')}",
    )
    new.add_argument(
        "--pace",
        default=None,
        help="with a count --budget: the share of the parts to spend it at while it lasts, "
        "e.g. 2%% (default 5%%)",
    )
    new.add_argument(
        "--preset",
        default=None,
        help=f"preset of a created stream (default: the recommended one): "
        f"{catalog_choices('presets')}",
    )
    new.add_argument(
        "--learner",
        default=None,
        help=f"learner of a created stream (default: logreg): {catalog_choices('learners')}; "
        f"with --tolerance (default: bayesian-ridge): {catalog_choices('regressors')}",
    )
    new.add_argument(
        "--labels-per-part",
        type=int,
        default=None,
        help="with --create: how many experts answer each asked part (default 1)",
    )
    new.add_argument(
        "--second-opinion-below",
        type=float,
        default=None,
        metavar="CERTAINTY",
        help="with --create: a part the model was less sure of than this (e.g. 0.7) gets a "
        "second expert's answer",
    )


def _label_values(create: bool) -> Any:
    """The label column read with `cbeal run`'s checks (one vocabulary): measured values
    for a regression stream; classes (2 to the most cbeal takes, if `create`) otherwise."""
    from cbeal.streams.table import read_class_labels, read_labels, read_measurements

    def read(frame: Any, label: str, measured: bool) -> Any:
        if measured:
            return read_measurements(frame, label)
        return read_class_labels(frame, label) if create else read_labels(frame, label)

    return read


def _pace(text: str) -> float:
    """A count budget's pace: a share of the parts such as 5% or 0.05."""
    from cbeal.catalog import budget
    from cbeal.core import LabelRate, ParameterError

    share = budget(text)
    if not isinstance(share, LabelRate):
        raise ParameterError(f"--pace takes a share of the parts such as 5% or 0.05, got {text!r}")
    return share.share()


def run_replay(args: argparse.Namespace) -> int:
    from cbeal.bridges.replay import replay

    if args.progress is None:  # a terminal gets a progress line; a log file or pipe does not
        args.progress = sys.stderr.isatty()

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
        token=secret("CBEAL_TOKEN"),
        id_col=args.id,
        label=args.label,
        time_col=args.time,
        batch=args.batch,
        create=args.create,
        initial=args.initial,
        budget=args.budget,
        budget_fraction=None if args.pace is None else _pace(args.pace),
        preset=args.preset,
        learner=args.learner,
        tolerance=args.tolerance,
        unit=args.unit,
        labels_per_part=args.labels_per_part,
        second_opinion_below=args.second_opinion_below,
        labels=_label_values(args.create),
        answer=args.answer,
        limit=args.limit,
        exclude=[c for c in (args.exclude or "").split(",") if c],
        progress=show,
        on_retry=RetryNotice(args.wait),
        retry_for=args.wait,
        speed=args.speed,
    )
    if args.progress:
        print(file=sys.stderr)
    if out["ignored"]:  # as `cbeal run` says it
        print(
            f"note: non-numeric columns left out of the features: {', '.join(out['ignored'])} "
            "(encode them as numbers to send them, or --exclude them)",
            file=sys.stderr,
        )
    st = out["status"]
    score = "share within the tolerance" if out["measured"] else "accuracy"
    right = st.get("prequential_accuracy")
    print(
        f"replayed {out['sent']} rows into {args.stream!r}: {out['asked']} asked, "
        f"{out['answered']} answered; "
        + (
            f"prequential {score}: none yet (no label learned: the model learns an answer "
            "once its undo window has passed)"
            if right is None
            else f"prequential {score} {100 * right:.1f} % (before learning each label)"
        )
        + f", model version {st.get('model_version')}"
    )
    return 0


# ---------------------------------------------------------------------- mqtt
def _mqtt_parser(sub: Any) -> None:
    mq = sub.add_parser(
        "mqtt",
        help="bridge an MQTT topic of samples into a stream",
        description='Subscribe to a topic of samples ({"id", "x"} or {"samples": [...]}) '
        "and publish each decision to a reply topic. A message is acknowledged only once "
        "the service stored it. The token is read from $CBEAL_TOKEN.",
        formatter_class=HelpFormatter,
    )
    mq.add_argument("--broker", default="127.0.0.1:1883", help="MQTT broker host:port")
    mq.add_argument("--topic", required=True, help="topic the machines publish samples to")
    mq.add_argument("--reply", required=True, help="topic the decisions are published to")
    mq.add_argument("--stream", required=True, help="stream name")
    add_url(mq)
    mq.add_argument(
        "--client-id",
        default=None,
        help="MQTT client id of the bridge's persistent session; messages not yet stored "
        "wait at the broker for the next start with the same id (default: "
        "cbeal-bridge-<stream>)",
    )
    mq.set_defaults(func=run_mqtt)


def quiet_http_logs() -> None:
    """The bridges log what happens to the parts (cbeal.mqtt, cbeal.opcua) at INFO; the HTTP
    client's one line per request stays out of it (warnings only)."""
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(logging.WARNING)


def run_mqtt(args: argparse.Namespace) -> int:
    from cbeal.bridges.mqtt import Bridge

    bridge = Bridge(
        broker=args.broker,
        topic=args.topic,
        reply_topic=args.reply,
        stream=args.stream,
        url=args.url,
        token=secret("CBEAL_TOKEN"),
        client_id=args.client_id,
    )
    print(
        f"cbeal mqtt: bridging {args.broker} {args.topic} -> stream {args.stream!r} at "
        f"{args.url} -> {args.reply}; stop with Ctrl-C",
        file=sys.stderr,
    )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    quiet_http_logs()
    try:
        bridge.run_forever()
    except ConnectionRefusedError:
        print(
            f"cbeal: error: no MQTT broker answers at {args.broker}; start it or fix --broker",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        pass  # run_forever stopped the bridge; unstored messages wait at the broker
    if bridge.failed:
        print(
            "cbeal: error: the bridge stopped on an unexpected error (logged above)",
            file=sys.stderr,
        )
        return 1
    return 0
