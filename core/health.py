"""The core's health, as the standard gRPC health service reports it (grpc.health.v1).

- Every Herald service, and the server as a whole (""), is SERVING while the database answers
  and NOT_SERVING while it does not: a watcher pings it every HERALD_HEALTH_INTERVAL_SECONDS.
  Envoy's active gRPC health checks and the facade's /readyz read exactly this.
- A core also serves one more name, `herald.database.<fingerprint>` (a hash of its database
  URL, password left out). Several cores may listen on one address (SO_REUSEPORT), which is
  only safe if they share a database: before binding, a core asks whoever already answers on
  its address for its own fingerprint's name, and refuses to start when the answer is NOT_FOUND
  (a core of another database is there).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger(__name__)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def database_service_name(database_url: str) -> str:
    """`herald.database.<16 hex digits>`: the same for every core of one database URL."""
    url = make_url(database_url).set(password=None)
    digest = hashlib.sha256(url.render_as_string(hide_password=False).encode()).hexdigest()
    return f"herald.database.{digest[:16]}"


async def database_answers(engine: AsyncEngine, within: float) -> bool:
    try:
        async with asyncio.timeout(within), engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception:  # unreachable, refused, timed out: all mean "not now"
        return False
    return True


async def watch_database(
    engine: AsyncEngine,
    servicer: health.aio.HealthServicer,
    names: Sequence[str],
    *,
    interval: float,
    within: float,
) -> None:
    """Keeps `names` SERVING while the database answers, NOT_SERVING while it does not; logs
    each change. Runs until cancelled."""
    current: int | None = None
    while True:
        status = SERVING if await database_answers(engine, within) else NOT_SERVING
        if status != current:
            for name in names:
                await servicer.set(name, status)
            if current is not None or status != SERVING:
                log.warning("database %s", "answers again" if status == SERVING else "does not answer")
            current = status
        await asyncio.sleep(interval)


def probe_target(listen: str) -> str:
    """Where a client reaches a listen address: a wildcard host is probed on loopback."""
    host, _, port = listen.rpartition(":")
    host = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]", "": "127.0.0.1"}.get(host, host)
    return f"{host}:{port}"


async def other_database_at(listen: str, own_name: str, *, within: float = 2.0) -> bool:
    """True when a gRPC server on `listen` answers and does not serve `own_name` (a core of
    another database, or another gRPC server altogether); False when nothing answers there or
    a core of this same database does."""
    async with grpc.aio.insecure_channel(probe_target(listen)) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            await stub.Check(health_pb2.HealthCheckRequest(service=own_name), timeout=within)
        except grpc.aio.AioRpcError as error:
            # UNAVAILABLE: nobody listens (or nobody speaking gRPC: binding will say so).
            # NOT_FOUND: another database's core; UNIMPLEMENTED: not a core at all.
            return error.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
    return False


async def cancel(task: asyncio.Task[None] | None) -> None:
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
