"""``cbeal labelstudio``: the labelling configuration of a stream for a Label Studio
project, and push and pull between the two. Tokens come from the environment
(``$CBEAL_TOKEN``, ``$LABEL_STUDIO_TOKEN``), never from the command line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cbeal.cli._common import HelpFormatter, add_url, say_retry, secret

__all__ = ["labelstudio_parser"]


def labelstudio_parser(sub: Any) -> None:
    lst = sub.add_parser(
        "labelstudio",
        help="bridge a stream's tasks to Label Studio",
        description="Print the labelling configuration of a stream for a Label Studio "
        "project, push its open tasks there, or pull the annotations cbeal has not got "
        "yet. Tokens are read from $CBEAL_TOKEN and $LABEL_STUDIO_TOKEN.",
        formatter_class=HelpFormatter,
    )
    lst_sub = lst.add_subparsers(dest="action", required=True, title="actions")
    for action, what in (
        (
            "config",
            "print the labelling configuration for the project: one choice per class, or "
            "a number box for a regression stream's measured value",
        ),
        ("push", "import open tasks into a Label Studio project"),
        ("pull", "give cbeal the project's annotations it has not got yet"),
    ):
        p = lst_sub.add_parser(
            action,
            help=what,
            description=what[0].upper() + what[1:] + ".",
            formatter_class=HelpFormatter,
        )
        p.add_argument("--stream", required=True, help="stream name")
        add_url(p)
        if action != "config":
            p.add_argument("--ls-url", required=True, help="Label Studio address")
            p.add_argument("--project", type=int, required=True, help="Label Studio project id")
        if action == "push":
            p.add_argument("--limit", type=int, default=100, help="tasks per push")
        p.set_defaults(func=run_labelstudio)


def run_labelstudio(args: argparse.Namespace) -> int:
    import httpx

    from cbeal.bridges.client import Client
    from cbeal.bridges.labelstudio import connect, label_config, pull, push

    cbeal = Client(args.url, secret("CBEAL_TOKEN"), on_retry=say_retry)
    if args.action == "config":
        config = cbeal.call("GET", f"/api/v1/streams/{args.stream}/config")
        print(
            label_config(
                config["classes"], tolerance=config.get("tolerance"), unit=config.get("unit")
            )
        )
        return 0
    ls_token = secret("LABEL_STUDIO_TOKEN")
    if ls_token is None:
        print(
            "cbeal: error: set $LABEL_STUDIO_TOKEN to your Label Studio access token "
            "(Account & Settings in Label Studio: a personal access token, or a legacy one)",
            file=sys.stderr,
        )
        return 2
    ls = connect(args.ls_url, ls_token)
    try:
        if args.action == "push":
            ids = push(cbeal, ls, stream=args.stream, project=args.project, limit=args.limit)
            print(
                f"pushed {len(ids)} tasks of {args.stream!r} to Label Studio project {args.project}"
            )
            return 0
        report = pull(cbeal, ls, stream=args.stream, project=args.project)
    except httpx.HTTPStatusError as exc:
        code = exc.response.status_code
        why = {
            401: "it refused the token in $LABEL_STUDIO_TOKEN",
            403: "it refused the token in $LABEL_STUDIO_TOKEN",
            404: f"it has no project {args.project}",
        }.get(code, f"it answered {code}: {exc.response.text[:200]}")
        print(f"cbeal: error: Label Studio at {args.ls_url}: {why}", file=sys.stderr)
        return 1
    except httpx.TransportError as exc:
        print(
            f"cbeal: error: cannot reach Label Studio at {args.ls_url} "
            f"({type(exc).__name__}); check --ls-url",
            file=sys.stderr,
        )
        return 1
    counts = ", ".join(f"{n} {k}" for k, n in sorted(report["outcomes"].items())) or "none"
    print(f"pulled the annotations of Label Studio project {args.project}: {counts}")
    for r in report["refused"]:
        print(
            f"  annotation {r['annotation']} (task {r['task_id']}) not taken: {r['detail']}",
            file=sys.stderr,
        )
    return 0
