"""`herald`: the command line of every core-side process, the supervisor and the admin tools.

The only place besides facades/__main__.py that reads configuration (from HERALD_* variables).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn

import uvloop
from sqlalchemy.exc import DBAPIError

from contract import logs
from core.errors import DomainError
from core.settings import CoreSettings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="herald", description="Herald social publishing service")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("core", help="serve the gRPC core")
    p.add_argument("--listen", help="address to listen on (default HERALD_CORE_LISTEN)")
    sub.add_parser("facade", help="serve the HTTP facade (REST /v1, MCP, OAuth, dashboard)", add_help=False)
    p = sub.add_parser("storage", help="serve the embedded object storage")
    p.add_argument("--listen", help="address to listen on (default HERALD_STORAGE_LISTEN)")
    sub.add_parser("worker", help="run the publisher")
    p = sub.add_parser("stock-demo", help="serve the local demo stock provider (Pexels and Unsplash APIs)")
    p.add_argument("--listen", help="host:port (default HERALD_STOCK_DEMO_LISTEN)")
    sub.add_parser("serve", help="run core, facade, storage and worker on one machine")
    sub.add_parser("metrics", help="serve this machine's Prometheus metrics (PROMETHEUS_MULTIPROC_DIR)")
    sub.add_parser("migrate", help="bring the database schema up to date")

    # Parsed by _admin_parser (its errors are JSON too); listed here for `herald --help`.
    sub.add_parser("admin", help="administration; each command prints one JSON object", add_help=False)
    return parser


class _UsageError(Exception):
    pass


class _JsonArgumentParser(argparse.ArgumentParser):
    """The admin commands' parser: a bad or missing argument is a VALIDATION_ERROR object, like
    every other refusal of the CLI contract (argparse would print usage text and exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _admin_parser() -> argparse.ArgumentParser:
    admin = _JsonArgumentParser(prog="herald admin", description="administration; each command prints one JSON object")
    asub = admin.add_subparsers(dest="admin_command", required=True, parser_class=_JsonArgumentParser)
    p = asub.add_parser("bootstrap", help="create user, organization and membership if missing; mint an API key")
    p.add_argument("--email", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--org", required=True)
    p.add_argument("--credits", type=int)
    p.add_argument("--plan", choices=["active", "trialing", "none"])
    p = asub.add_parser("add-profile", help="connect a destination profile")
    p.add_argument("--org", required=True)
    p.add_argument("--slug", required=True)
    p.add_argument("--platform", required=True)
    p.add_argument("--tag", action="append", default=[])
    p.add_argument("--display-name", default="")
    p.add_argument("--language", default="", help="its posts' default language, a BCP 47 tag (e.g. en, pt-BR)")
    p = asub.add_parser("credits", help="add credits to an organization")
    p.add_argument("--org", required=True)
    p.add_argument("--add", type=int, required=True)
    p = asub.add_parser("plan", help="set an organization's plan")
    p.add_argument("--org", required=True)
    p.add_argument("--plan", required=True, choices=["active", "trialing", "none"])
    p = asub.add_parser("stock", help="turn stock photo providers on or off for an organization")
    p.add_argument("--org", required=True)
    p.add_argument("--enable", action="append", default=[], metavar="PROVIDER")
    p.add_argument("--disable", action="append", default=[], metavar="PROVIDER")
    asub.add_parser("reseal-tokens", help="re-seal platform tokens under the first HERALD_PLATFORM_TOKEN_KEYS key")
    return admin


QUIET_LOGGERS = ("httpx", "httpx2", "httpcore", "httpcore2")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["facade"]:
        # The facade is its own program (it must not import the core): hand the process over.
        os.execv(sys.executable, [sys.executable, "-m", "facades", *argv[1:]])
    if argv[:1] == ["admin"]:
        try:
            admin_args = _admin_parser().parse_args(argv[1:])
        except _UsageError as error:
            print(json.dumps({"error": str(error), "code": "VALIDATION_ERROR"}))
            return 2
    args = _parser().parse_args(argv[:1] if argv[:1] == ["admin"] else argv)
    settings = CoreSettings()
    logs.configure(_log_level(args.command, settings.log_level), settings.log_format)
    # The HTTP clients log each request's full URL at INFO, and some platforms' documented calls
    # carry credentials in the query (Meta's token exchanges): their request lines are never logged.
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLogger().level))
    match args.command:
        case "core":
            from core.server import run_core

            return _run_async(lambda: run_core(settings, args.listen or settings.core_listen))
        case "storage":
            from core.storage.server import run_storage

            return _starting(lambda: run_storage(settings, args.listen or settings.storage_listen))
        case "stock-demo":
            from core.stock.demo import run_demo_stock

            run_demo_stock(args.listen or settings.stock_demo_listen, settings.data_dir / "stock-demo")
            return 0
        case "worker":
            from core.worker.main import run_worker

            return _run_async(lambda: run_worker(settings))
        case "migrate":
            return _migrate(settings)
        case "serve":
            from core.serve import serve

            return serve(settings)
        case "metrics":
            return _metrics_exporter(settings)
        case "admin":
            return _admin(settings, admin_args)
    return 2


# The one-shot commands: each prints its result on stdout, so stderr is for what needs a
# reader's attention (warnings and errors), never progress lines (docs/decisions.md, "Admin CLI").
ONE_SHOT_COMMANDS = ("migrate", "admin")


def _log_level(command: str, configured: str) -> str:
    """HERALD_LOG_LEVEL for the processes that run; at least WARNING for a one-shot command,
    unless DEBUG was asked for (troubleshooting a migration or a database that cannot be reached)."""
    if command not in ONE_SHOT_COMMANDS:
        return configured
    level = logging.getLevelNamesMapping().get(configured.upper(), logging.INFO)
    return configured if level <= logging.DEBUG else logging.getLevelName(max(level, logging.WARNING))


def _run_async(factory: Callable[[], Awaitable[Any]]) -> int:
    return _starting(lambda: uvloop.run(factory()))


def _starting(run: Callable[[], Any]) -> int:
    """Runs a process's main; a key file it must not use (core/keyfiles.py) is one line saying
    how to fix it, and exit 1, rather than a traceback."""
    from core.keyfiles import KeyFileError

    try:
        run()
    except KeyFileError as error:
        print(f"herald: cannot start: {error}", file=sys.stderr)
        return 1
    return 0


def _migrate(settings: CoreSettings) -> int:
    from core.db.migrate import upgrade

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade(settings.effective_database_url)
    print(json.dumps({"migrated": True, "database": settings.effective_database_url.split("://")[0]}))
    return 0


def _admin(settings: CoreSettings, args: argparse.Namespace) -> int:
    from core import admin
    from core.db.engine import create_engine
    from core.db.migrate import head_revision, schema_revision
    from core.keyfiles import KeyFileError

    url = settings.effective_database_url
    if settings.is_sqlite and not Path(url.split("///", 1)[1]).exists():
        # Never created here: connecting would leave an empty database file behind.
        return _admin_error(f"no database at {url.split('///', 1)[1]}: run `herald migrate` first", "NOT_MIGRATED")

    async def run() -> dict[str, Any]:
        engine = create_engine(settings, pool_size=1)
        try:
            revision, head = await schema_revision(engine), head_revision()
            if revision != head:
                state = "was never migrated" if revision is None else f"is at revision {revision}, not {head}"
                raise _NotMigrated(f"the database {state}: run `herald migrate` first")
            match args.admin_command:
                case "bootstrap":
                    return await admin.bootstrap(
                        engine,
                        email=args.email,
                        password=args.password,
                        org=args.org,
                        credits_=args.credits,
                        plan=args.plan,
                    )
                case "add-profile":
                    return await admin.add_profile(
                        engine,
                        org=args.org,
                        slug=args.slug,
                        platform=args.platform,
                        tags=args.tag,
                        display_name=args.display_name,
                        language=args.language,
                    )
                case "credits":
                    return await admin.add_credits(engine, org=args.org, amount=args.add)
                case "stock":
                    return await admin.set_stock(engine, org=args.org, enable=args.enable, disable=args.disable)
                case "reseal-tokens":
                    from core.platform_accounts.vault import TokenVault

                    return await admin.reseal_tokens(engine, TokenVault.from_settings(settings))
                case _:
                    return await admin.set_plan(engine, org=args.org, plan=args.plan)
        finally:
            await engine.dispose()

    try:
        result = asyncio.run(run())
    except DomainError as error:
        return _admin_error(error.message, error.reason)
    except _NotMigrated as error:
        return _admin_error(str(error), "NOT_MIGRATED")
    except KeyFileError as error:  # reseal-tokens: the platform-token key file is refused
        return _admin_error(str(error), "KEY_FILE_INVALID")
    except (OSError, DBAPIError) as error:
        logging.getLogger(__name__).debug("admin: the database cannot be reached", exc_info=True)
        return _admin_error(f"the database cannot be reached: {type(error).__name__}", "DATABASE_UNAVAILABLE")
    print(json.dumps(result))
    return 0


class _NotMigrated(Exception):
    pass


def _admin_error(message: str, code: str) -> int:
    print(json.dumps({"error": message, "code": code}))
    return 1


def _metrics_exporter(settings: CoreSettings) -> int:
    """`herald metrics`: the sums of every process's samples in PROMETHEUS_MULTIPROC_DIR, served
    at http://HERALD_METRICS_LISTEN/metrics, for a machine whose processes have no facade."""
    directory = settings.metrics_dir
    if not directory:
        print("herald: cannot serve metrics: PROMETHEUS_MULTIPROC_DIR is not set", file=sys.stderr)
        return 1
    from prometheus_client import CollectorRegistry, multiprocess, start_http_server

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=directory)
    host, _, port = settings.metrics_listen.rpartition(":")
    server, thread = start_http_server(int(port), addr=host.strip("[]") or "127.0.0.1", registry=registry)
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    while not stop["now"]:
        time.sleep(0.2)
    server.shutdown()
    thread.join(timeout=5)
    return 0
