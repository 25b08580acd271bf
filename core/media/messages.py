"""A media record as the core's messages carry it (herald.media.v1.Media), and its
`media.confirmed` event, rendered through the contract's Media as GET /v1/media/{id} renders it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from herald.media.v1 import media_pb2
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.media_resources import Media
from core.media.records import MediaRecord
from core.rpc.convert import timestamp
from core.webhooks import fanout


def media_message(record: MediaRecord) -> media_pb2.Media:
    return media_pb2.Media(
        media_id=record.id,
        type=record.kind,
        mime_type=record.mime_type,
        size_bytes=record.size_bytes,
        name=record.name,
        description=record.description,
        tags=record.tags,
        create_time=timestamp(record.created_at),
        status=record.status,
        content_hash=record.content_hash if record.status == "confirmed" else "",
        width=record.width or 0,
        height=record.height or 0,
    )


async def emit_confirmed(conn: AsyncConnection, org_id: str, records: Sequence[MediaRecord], now: datetime) -> None:
    """`media.confirmed` for each record that just became usable, in the caller's transaction."""
    await fanout.emit(conn, org_id, "media.confirmed", [Media.from_proto(media_message(r)) for r in records], now)
