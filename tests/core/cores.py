"""Core processes of a test's own, on a database of its own: for what a core does at start-up and
what several cores sharing one database must agree on."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from herald.identity.v1 import oauth_pb2, oauth_pb2_grpc
from sqlalchemy import Executable, text
from sqlalchemy.ext.asyncio import create_async_engine

from harness.stack import ROOT, Stack, free_port, stack_env, stop_processes, wait_for_grpc


@contextmanager
def cores(database_url: str, workdir: Path, count: int = 1, **env: str) -> Iterator[list[str]]:
    """`count` core processes started at once on one database, each on a port of its own
    (data directory `workdir/data`); yields their gRPC targets."""
    targets = [f"127.0.0.1:{free_port()}" for _ in range(count)]
    stack = Stack(database_url, workdir, targets[0], "", stack_env(database_url, workdir, **env))
    try:
        procs = [
            stack.spawn("core", "core", "--listen", target, log_name=f"core-{target.rsplit(':', 1)[1]}")
            for target in targets
        ]
        for target, proc in zip(targets, procs, strict=True):
            wait_for_grpc(target, proc)
        yield targets
    finally:
        stop_processes(stack.processes)


def jwks(target: str) -> list[dict[str, str]]:
    """The key set one core serves (GetJwks, anonymous)."""
    with grpc.insecure_channel(target) as channel:
        answer = oauth_pb2_grpc.OAuthServiceStub(channel).GetJwks(oauth_pb2.GetJwksRequest(), timeout=10)
    return [{f: getattr(k, f) for f in ("kty", "kid", "use", "alg", "crv", "x", "y")} for k in answer.keys]


def sql(database_url: str, statement: str | Executable, **params: Any) -> list[Any]:
    """Rows of one statement (SQL text or SQLAlchemy's), committed, on an engine of its own (for
    synchronous tests)."""

    async def run() -> list[Any]:
        engine = create_async_engine(database_url)
        try:
            async with engine.begin() as conn:
                result = await conn.execute(text(statement) if isinstance(statement, str) else statement, params)
                return list(result.all()) if result.returns_rows else []
        finally:
            await engine.dispose()

    return asyncio.run(run())


def herald(*args: str, database_url: str, workdir: Path, **env: str) -> tuple[int, dict[str, Any], str]:
    """One `herald …` command on the database: exit code, its JSON line (admin), stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "core", *args],
        env=stack_env(database_url, workdir, **env),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = proc.stdout.strip().splitlines()
    return proc.returncode, json.loads(lines[-1]) if lines else {}, proc.stderr
