"""`Idempotency-Key` for POST /v1/posts: the same key with the same request within 24 hours
returns the first response and creates nothing; with a different request it is refused."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

import grpc
from sqlalchemy import bindparam, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import idempotency_keys
from core.db.prepared import Prepared
from core.errors import DomainError, ValidationError

RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255


class IdempotencyKeyReused(DomainError):
    """The key was used within 24 hours for a different request (409)."""

    reason = "IDEMPOTENCY_KEY_REUSED"
    grpc_code = grpc.StatusCode.ALREADY_EXISTS


@dataclass(frozen=True, slots=True)
class Reservation:
    key: str
    # The stored first response when this request is a replay; None when this request is first.
    replay: bytes | None


def request_hash(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def validate_key(key: str) -> str:
    if len(key) > MAX_KEY_LENGTH or not (key.isascii() and key.isprintable()) or not key.strip():
        raise ValidationError(f"Idempotency-Key must be 1-{MAX_KEY_LENGTH} printable ASCII characters")
    return key


async def reserve(conn: AsyncConnection, org_id: str, key: str, digest: str, now: datetime) -> Reservation:
    """Claims the key for this request inside the caller's transaction, before any work.

    A concurrent request with the same key waits on the row (PostgreSQL) or the write lock
    (SQLite) until the first commits, then sees its response. The claim sits in a savepoint so a
    lost race leaves the caller's transaction usable.
    """
    validate_key(key)
    await conn.execute(
        delete(idempotency_keys).where(
            idempotency_keys.c.org_id == org_id,
            idempotency_keys.c.key == key,
            idempotency_keys.c.created_at < now - RETENTION,
        )
    )
    try:
        async with conn.begin_nested():
            await conn.execute(
                insert(idempotency_keys).values(
                    org_id=org_id, key=key, request_hash=digest, response=b"", created_at=now
                )
            )
        return Reservation(key, None)
    except IntegrityError:
        pass
    row = (
        await conn.execute(
            select(idempotency_keys.c.request_hash, idempotency_keys.c.response).where(
                idempotency_keys.c.org_id == org_id, idempotency_keys.c.key == key
            )
        )
    ).one()
    if row.request_hash != digest:
        raise IdempotencyKeyReused("this Idempotency-Key was used for a different request in the last 24 hours")
    return Reservation(key, row.response)


# Run on the driver (core/db/prepared.py): it may go in a pipelined round trip with the posts.
_STORE = Prepared(
    update(idempotency_keys)
    .where(idempotency_keys.c.org_id == bindparam("org"), idempotency_keys.c.key == bindparam("idempotency_key"))
    .values(response=bindparam("response"))
)


async def store_response(conn: AsyncConnection, org_id: str, key: str, response: bytes) -> None:
    await _STORE.run(conn, {"org": org_id, "idempotency_key": key, "response": response})


async def purge_expired(conn: AsyncConnection, now: datetime) -> int:
    result = await conn.execute(delete(idempotency_keys).where(idempotency_keys.c.created_at < now - RETENTION))
    return result.rowcount or 0
