"""``cbeal serve`` (the annotation service) and ``cbeal token`` (its API tokens)."""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Any

from cbeal.cli._common import HelpFormatter
from cbeal.service.names import ROLES
from cbeal.service.settings import RETRAIN_MODES, SQLITE_SYNC, default_of

__all__ = ["register"]


def register(sub: Any) -> None:
    _serve_parser(sub)
    _token_parser(sub)


def _db_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        default=None,
        help="database URL (default: the SQLite file cbeal-service.db in this folder; or "
        "postgresql+psycopg://user@host/db)",
    )


def _serve_parser(sub: Any) -> None:
    serve = sub.add_parser(
        "serve",
        help="run the annotation service (HTTP API and the expert's pages)",
        description="The annotation service: machines send samples, cbeal decides, an "
        "expert labels the asked ones later. Needs pip install -e '.[service]'.",
        formatter_class=HelpFormatter,
    )
    _db_flag(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--open", action="store_true", help="no tokens (a local demo only; every request is admin)"
    )
    serve.add_argument(
        "--undo-seconds",
        type=float,
        default=default_of("undo_seconds"),
        help="how long a label can be undone before the model learns it",
    )
    serve.add_argument(
        "--lease-seconds",
        type=float,
        default=default_of("lease_seconds"),
        help="how long a stream stays owned by this process without renewal",
    )
    serve.add_argument(
        "--task-lease-seconds",
        type=float,
        default=default_of("task_lease_seconds"),
        help="how long an expert holds a task before it returns to the queue",
    )
    serve.add_argument(
        "--max-lease-seconds",
        type=float,
        default=default_of("max_lease_seconds"),
        help="the longest lease a client may ask for (Label Studio pushes ask for 7 days)",
    )
    serve.add_argument(
        "--max-open-leases",
        type=int,
        default=default_of("max_open_leases"),
        help="how many tasks one token may hold leased at a time",
    )
    serve.add_argument(
        "--checkpoint-every",
        type=int,
        default=default_of("checkpoint_every"),
        help="save the model every this many events",
    )
    serve.add_argument(
        "--retrain",
        default=default_of("retrain"),
        choices=RETRAIN_MODES,
        help="retrain in a worker thread, on the request path (every run reproducible), or never",
    )
    serve.add_argument(
        "--sqlite-sync",
        default=default_of("sqlite_sync"),
        choices=SQLITE_SYNC,
        help="SQLite: NORMAL survives a killed process, FULL a power cut too",
    )
    serve.add_argument(
        "--retain",
        type=_duration,
        default=None,
        metavar="DURATION",
        help="move unlabelled samples older than this (e.g. 90s, 12h, 30d) to --archive",
    )
    serve.add_argument(
        "--archive",
        default=None,
        metavar="DIR",
        help="folder of the Parquet files retention writes (by stream and day)",
    )
    serve.add_argument("--log-level", default="warning", help="uvicorn log level")
    serve.set_defaults(func=run_serve)


def _duration(text: str) -> float:
    from cbeal.service.settings import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _default_db() -> str:
    from cbeal.service.store.db import default_url

    return default_url()


def _port_free(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _started_lines(args: argparse.Namespace, db: str) -> list[str]:
    from cbeal.service.store.db import redact

    url = f"http://{args.host}:{args.port}"
    lines = [
        f"cbeal serve: listening on {url} (the expert's pages: {url}/ui/, API: {url}/openapi.json)",
        f"cbeal serve: database {redact(db)}",
    ]
    if args.open:
        lines.append("cbeal serve: --open: no tokens are checked; use it for a local demo only")
    else:
        where = "" if args.db is None else f" --db '{redact(db)}'"
        lines.append(
            "cbeal serve: every request needs a token; create one with: cbeal token create "
            f"--role admin --name you{where}  (roles: {', '.join(ROLES)})"
        )
    lines.append("cbeal serve: stop with Ctrl-C")
    return lines


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from cbeal.service.app import create_app
    from cbeal.service.store.db import DatabaseUnavailable

    if not _port_free(args.host, args.port):
        print(
            f"cbeal: error: port {args.port} on {args.host} is in use (another cbeal serve?); "
            "stop it or choose another --port",
            file=sys.stderr,
        )
        return 1
    if (args.retain is None) != (args.archive is None):
        print(
            "cbeal: error: retention needs both a duration and a folder, "
            "e.g. --retain 30d --archive /var/lib/cbeal/archive",
            file=sys.stderr,
        )
        return 1
    db = args.db or _default_db()
    try:
        app = create_app(_settings(args, db))  # connects and migrates the database
    except (DatabaseUnavailable, ValueError) as exc:
        print(f"cbeal: error: {exc}", file=sys.stderr)
        return 1
    lines = _started_lines(args, db)

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print("\n".join(lines), file=sys.stderr, flush=True)

    config = uvicorn.Config(
        app, host=args.host, port=args.port, log_level=args.log_level, access_log=False
    )
    Server(config).run()
    return 0


def _settings(args: argparse.Namespace, db: str) -> Any:
    from cbeal.service.app import Settings

    return Settings(
        db=db,
        open=args.open,
        undo_seconds=args.undo_seconds,
        lease_seconds=args.lease_seconds,
        task_lease_seconds=args.task_lease_seconds,
        max_lease_seconds=args.max_lease_seconds,
        max_open_leases=args.max_open_leases,
        checkpoint_every=args.checkpoint_every,
        retrain=args.retrain,
        sqlite_sync=args.sqlite_sync,
        retain_seconds=args.retain,
        archive=args.archive,
    )


# ---------------------------------------------------------------------- tokens
def _token_parser(sub: Any) -> None:
    token = sub.add_parser(
        "token",
        help="manage API tokens of the service",
        description="Manage the service's API tokens: create, list, revoke. Only a token's "
        "hash is stored; a revocation holds from the next request on, in every process "
        "that uses the database.",
        formatter_class=HelpFormatter,
    )
    token_sub = token.add_subparsers(dest="action", required=True, title="actions")
    create = token_sub.add_parser(
        "create",
        help="create a token (printed once)",
        description="Create an API token; it is printed once and only its hash is stored.",
        formatter_class=HelpFormatter,
    )
    create.add_argument(
        "--role",
        required=True,
        choices=ROLES,
        help="what the token may do",
    )
    create.add_argument("--name", default="cli", help="who uses it (shown in the audit)")
    create.add_argument(
        "--stream",
        action="append",
        default=None,
        metavar="NAME",
        help="scope the token to this stream (repeat for several); default: every stream",
    )
    _db_flag(create)
    create.set_defaults(func=run_token_create)
    listing = token_sub.add_parser(
        "list",
        help="list the tokens (never their secrets)",
        description="List the live tokens: name, role, streams, created, last used.",
        formatter_class=HelpFormatter,
    )
    listing.add_argument("--revoked", action="store_true", help="list revoked tokens too")
    _db_flag(listing)
    listing.set_defaults(func=run_token_list)
    revoke = token_sub.add_parser(
        "revoke",
        help="revoke the tokens of a name, or one token by its id",
        description="Revoke every live token of NAME, or the token of --id: refused from the "
        "next request on.",
        formatter_class=HelpFormatter,
    )
    which = revoke.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "name", metavar="NAME", nargs="?", help="the token's name (see: cbeal token list)"
    )
    which.add_argument(
        "--id", type=int, metavar="ID", help="the token's id instead (see: cbeal token list)"
    )
    _db_flag(revoke)
    revoke.set_defaults(func=run_token_revoke)


def _token_db(args: argparse.Namespace) -> Any:
    """The migrated database of the token commands (None: said why in one line)."""
    from cbeal.service.store.db import DatabaseUnavailable, connect, migrate

    try:
        engine = connect(args.db or _default_db())
        migrate(engine)
    except DatabaseUnavailable as exc:
        print(f"cbeal: error: {exc}", file=sys.stderr)
        return None
    return engine


def run_token_create(args: argparse.Namespace) -> int:
    from cbeal.core.exceptions import ParameterError
    from cbeal.service.engine.tokens import create_token

    engine = _token_db(args)
    if engine is None:
        return 1
    try:
        token = create_token(engine, role=args.role, name=args.name, streams=args.stream)
    except ParameterError as exc:
        print(f"cbeal: error: {exc}", file=sys.stderr)
        return 2
    from cbeal.service.store.db import redact

    scope = "every stream" if args.stream is None else "streams " + ", ".join(args.stream)
    db = redact(args.db or _default_db())
    print(token)
    server = "started in this folder" if args.db is None else "given the same --db"
    print(
        f"(role {args.role}, {scope}; shown once — only its hash is stored, in {db}: a "
        f"`cbeal serve` {server} accepts it)",
        file=sys.stderr,
    )
    return 0


def _when(at: float | None) -> str:
    import datetime as dt

    if at is None:
        return "never"
    return dt.datetime.fromtimestamp(at, dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def run_token_list(args: argparse.Namespace) -> int:
    from cbeal.service.engine.tokens import list_tokens

    engine = _token_db(args)
    if engine is None:
        return 1
    found = list_tokens(engine, revoked=args.revoked)
    head = ["id", "name", "role", "streams", "created", "last used"]
    rows = [
        [
            str(t["id"]),
            t["name"],
            t["role"],
            "all" if t["streams"] is None else ",".join(t["streams"]),
            _when(t["created_at"]),
            _when(t["last_used_at"]),
        ]
        + ([f"revoked {_when(t['revoked_at'])}" if t["revoked_at"] else ""] if args.revoked else [])
        for t in found
    ]
    if args.revoked:
        head.append("revoked")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for row in [head, *rows]:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    if not rows:
        print("(no tokens: create one with cbeal token create)", file=sys.stderr)
    return 0


def run_token_revoke(args: argparse.Namespace) -> int:
    from cbeal.service.engine.tokens import revoke_token_id, revoke_tokens

    engine = _token_db(args)
    if engine is None:
        return 1
    if args.id is not None:
        name = revoke_token_id(engine, args.id)
        if name is None:
            msg = f"no live token has the id {args.id} (see: cbeal token list)"
            print(f"cbeal: error: {msg}", file=sys.stderr)
            return 1
        print(f"revoked the token #{args.id} named {name!r}; refused from now on")
        return 0
    done = revoke_tokens(engine, args.name)
    if not done:
        print(
            f"cbeal: error: no live token is named {args.name!r} (see: cbeal token list)",
            file=sys.stderr,
        )
        return 1
    ids = ", ".join(f"#{i}" for i in done)
    print(f"revoked {len(done)} token(s) named {args.name!r} ({ids}); refused from now on")
    return 0
