"""Sourcing runs (docs/stock.md, "Runs"): a sourcing that outlasts its call answers `kind: run`;
the core that started it finishes the work in the background and records the outcome here, and
`get_sourcing_run` reads it. A run still `running` past its lifetime reads as failed: its core
stopped, and nothing was charged (the charge is the work's last step)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import asdict
from datetime import datetime, timedelta

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import organizations, sourcing_runs
from core.db.types import utcnow
from core.errors import DomainError, NotFound
from core.ids import new_id
from core.stock.providers import Attribution, StockPhoto
from core.stock.results import Delivered, Failure, Sourced

log = logging.getLogger(__name__)

Transaction = Callable[..., AbstractAsyncContextManager[AsyncConnection]]
LIFETIME = timedelta(minutes=15)


async def start(tx: Transaction, org_id: str, requested: int, now: datetime) -> str:
    run_id = new_id("srn")
    async with tx(writes=True) as conn:
        await conn.execute(
            insert(sourcing_runs).values(
                id=run_id,
                org_id=org_id,
                status="running",
                requested_count=requested,
                result="",
                error_code="",
                error_message="",
                created_at=now,
                expires_at=now + LIFETIME,
                finished_at=None,
            )
        )
    return run_id


async def finish(tx: Transaction, run_id: str, work: asyncio.Future[Sourced]) -> None:
    values: dict[str, object]
    try:
        done = await work
    except DomainError as error:
        values = {"status": "failed", "error_code": error.reason, "error_message": error.message}
    except Exception:
        log.exception("sourcing run %s failed unexpectedly", run_id)
        values = {"status": "failed", "error_code": "INTERNAL", "error_message": "the sourcing failed"}
    else:
        values = {"status": "ready", "result": json.dumps(_outcome(done), separators=(",", ":"))}
    try:
        async with tx(writes=True) as conn:
            await conn.execute(
                update(sourcing_runs).where(sourcing_runs.c.id == run_id).values(finished_at=utcnow(), **values)
            )
    except Exception:  # the run reads as failed once it expires; what was charged is on the media
        log.exception("could not record the end of sourcing run %s", run_id)


async def read(tx: Transaction, org_id: str, run_id: str, now: datetime) -> Sourced:
    async with tx() as conn:
        row = (
            await conn.execute(
                select(sourcing_runs).where(sourcing_runs.c.id == run_id, sourcing_runs.c.org_id == org_id)
            )
        ).first()
        balance = await conn.scalar(select(organizations.c.credit_balance).where(organizations.c.id == org_id))
    if row is None:
        raise NotFound(f"no sourcing run {run_id[:40]!r} in this organization")
    if row.status == "running" and row.expires_at <= now:
        message = "the sourcing was interrupted before it finished; nothing was charged"
        return Sourced(row.requested_count, [], [], balance, run_id, "failed", ("SOURCE_FAILED", message))
    if row.status == "failed":
        return Sourced(row.requested_count, [], [], balance, run_id, "failed", (row.error_code, row.error_message))
    if row.status == "running":
        return Sourced(row.requested_count, [], [], balance, run_id, "running")
    delivered, failures = _from_outcome(json.loads(row.result))
    return Sourced(row.requested_count, delivered, failures, balance, run_id, "ready")


def _outcome(done: Sourced) -> dict[str, list[dict[str, object]]]:
    return {
        "delivered": [
            {
                "media_id": d.media_id,
                "source_ref": d.photo.source_ref,
                "provider": d.photo.provider,
                "alt_text": d.photo.alt_text,
                "attribution": asdict(d.photo.attribution) if d.photo.attribution else None,
            }
            for d in done.delivered
        ],
        "failures": [asdict(f) for f in done.failures],
    }


def _from_outcome(outcome: dict) -> tuple[list[Delivered], list[Failure]]:  # noqa: ANN001
    delivered = [
        Delivered(
            d["media_id"],
            StockPhoto(
                d["source_ref"],
                d["provider"],
                "",
                "image/jpeg",
                0,
                0,
                d["alt_text"],
                Attribution(**d["attribution"]) if d["attribution"] else None,
            ),
        )
        for d in outcome["delivered"]
    ]
    return delivered, [Failure(**f) for f in outcome["failures"]]
