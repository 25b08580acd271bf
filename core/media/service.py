"""The media library (docs/media.md; its routes: docs/api.md, "Media")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import media, post_media, posts
from core.errors import NotFound, ValidationError
from core.ids import new_id
from core.media.errors import (
    ContentHashMismatch,
    FileNotUploaded,
    FileSizeMismatch,
    FileTooLarge,
    MediaInUse,
    UnsupportedMediaType,
)
from core.media.inspect import Inspection
from core.media.inspect import matches as type_matches
from core.media.messages import emit_confirmed
from core.media.records import MediaRecord, media_record
from core.pagination import Page, next_token
from core.storage.base import UPLOAD_URL_LIFETIME, ObjectStorage
from core.tags import normalize_tag

# The allowed MIME types and what kind of media each is (published in docs/media.md).
ALLOWED_TYPES = {
    "image/jpeg": "image",
    "image/png": "image",
    "image/webp": "image",
    "image/gif": "gif",
    "video/mp4": "video",
    "video/quicktime": "video",
    "video/webm": "video",
}
# docs/api.md, "Limits", in decimal units: 50 MB images and GIFs, 1 GB video through presign.
PRESIGN_LIMITS = {"image": 50_000_000, "gif": 50_000_000, "video": 1_000_000_000}
# The legacy multipart upload: same image and GIF limits, video 100 MB.
LEGACY_LIMITS = {"image": 50_000_000, "gif": 50_000_000, "video": 100_000_000}
HASH_RE = re.compile(r"^[0-9a-f]{64}$")
MAX_FILENAME = 255
MAX_DESCRIPTION = 5000
ACTIVE_POST_STATES = ("pending_approval", "scheduled", "queued", "publishing")
MAX_DETAILS = 100  # media ids one ListMediaDetails call describes
USES_SHOWN = 10  # posts listed per media by ListMediaDetails


@dataclass(frozen=True, slots=True)
class UploadTicket:
    media_id: str
    upload_url: str
    expires_in: int
    duplicate: bool


def validate_upload(filename: str, mime_type: str, size_bytes: int, content_hash: str, limits: dict[str, int]) -> str:
    """Returns the media kind; raises the documented error for the first problem found
    (docs/media.md, "Allowed types and limits")."""
    if not filename.strip() or len(filename) > MAX_FILENAME or not filename.isprintable() or "/" in filename:
        raise ValidationError(f"filename must be 1-{MAX_FILENAME} printable characters without '/'")
    if not mime_type:
        raise ValidationError("mime_type is required")
    kind = ALLOWED_TYPES.get(mime_type.lower())
    if kind is None:
        raise UnsupportedMediaType(f"{mime_type[:100]!r} is not allowed; allowed: {', '.join(ALLOWED_TYPES)}")
    if size_bytes <= 0:
        raise ValidationError("size_bytes must be a positive integer")
    if size_bytes > limits[kind]:
        raise FileTooLarge(f"{kind} files are limited to {limits[kind]:,} bytes; this one is {size_bytes:,}")
    if content_hash and not HASH_RE.match(content_hash):
        raise ValidationError("content_hash must be a SHA-256: 64 lowercase hex characters")
    return kind


async def find_duplicate(conn: AsyncConnection, org_id: str, content_hash: str) -> MediaRecord | None:
    row = (
        await conn.execute(
            select(media)
            .where(media.c.org_id == org_id, media.c.content_hash == content_hash, media.c.status == "confirmed")
            .order_by(media.c.id)
            .limit(1)
        )
    ).first()
    return media_record(row) if row else None


async def create_upload(
    conn: AsyncConnection,
    storage: ObjectStorage,
    org_id: str,
    *,
    filename: str,
    mime_type: str,
    size_bytes: int,
    content_hash: str,
    now: datetime,
) -> UploadTicket:
    kind = validate_upload(filename, mime_type, size_bytes, content_hash, PRESIGN_LIMITS)
    if content_hash:
        existing = await find_duplicate(conn, org_id, content_hash)
        if existing is not None:
            return UploadTicket(existing.id, "", 0, True)
    media_id = new_id("med")
    key = f"{org_id}/{media_id}"
    await conn.execute(
        insert(media).values(
            id=media_id,
            org_id=org_id,
            kind=kind,
            mime_type=mime_type.lower(),
            size_bytes=size_bytes,
            name=filename,
            description="",
            tags="",
            status="pending",
            content_hash=content_hash or None,
            width=None,
            height=None,
            storage_key=key,
            created_at=now,
            confirmed_at=None,
        )
    )
    url = storage.upload_url(key, content_type=mime_type.lower(), size_bytes=size_bytes)
    return UploadTicket(media_id, url, UPLOAD_URL_LIFETIME, False)


async def get_media(conn: AsyncConnection, org_id: str, media_id: str, *, status: str | None = None) -> MediaRecord:
    stmt = select(media).where(media.c.org_id == org_id, media.c.id == media_id)
    if status:
        stmt = stmt.where(media.c.status == status)
    row = (await conn.execute(stmt)).first()
    if row is None:
        raise NotFound(f"no {'unconfirmed ' if status == 'pending' else ''}media {media_id[:40]!r} in this library")
    return media_record(row)


def check_landed(record: MediaRecord, stored_size: int | None) -> None:
    if stored_size is None:
        raise FileNotUploaded("the bytes have not landed in storage yet: PUT them to the upload URL first")
    if stored_size != record.size_bytes:
        raise FileSizeMismatch(f"storage holds {stored_size:,} bytes; {record.size_bytes:,} were declared")


def check_inspection(record: MediaRecord, found: Inspection) -> None:
    if record.content_hash and found.sha256 != record.content_hash:
        raise ContentHashMismatch("the stored bytes' SHA-256 differs from the declared content_hash")
    if not type_matches(record.mime_type, found.sniffed_type):
        raise UnsupportedMediaType(
            f"the bytes are not {record.mime_type} (they look like {found.sniffed_type or 'an unknown type'})"
        )


async def mark_confirmed(
    conn: AsyncConnection,
    record: MediaRecord,
    org_id: str,
    found: Inspection,
    now: datetime,
    *,
    generation: int | None = None,
    thumbnail_key: str | None = None,
) -> tuple[MediaRecord, bool]:
    """Confirms the record, pinned to the object `generation` that was inspected (None: the
    backend has none), with the thumbnail made of it (None: none), or, when the library already
    holds these bytes, drops it and returns the existing media (True: the caller deletes the
    duplicate bytes and their thumbnail)."""
    existing = await find_duplicate(conn, org_id, found.sha256)
    if existing is not None:
        await conn.execute(delete(media).where(media.c.id == record.id, media.c.status == "pending"))
        return existing, True
    result = await conn.execute(
        update(media)
        .where(media.c.id == record.id, media.c.org_id == org_id, media.c.status == "pending")
        .values(
            status="confirmed",
            content_hash=found.sha256,
            width=found.width,
            height=found.height,
            confirmed_at=now,
            storage_generation=generation,
            thumbnail_key=thumbnail_key,
        )
    )
    if not result.rowcount:
        raise NotFound("this media was confirmed meanwhile")
    confirmed = await get_media(conn, org_id, record.id)
    await emit_confirmed(conn, org_id, [confirmed], now)
    return confirmed, False


def normalize_tags(tags: str) -> str:
    parts = [normalize_tag(t) for t in tags.split(",") if t.strip()]
    return ",".join(dict.fromkeys(parts))


async def list_media(conn: AsyncConnection, org_id: str, tag: str, page: Page) -> tuple[list[MediaRecord], str]:
    stmt = select(media).where(media.c.org_id == org_id, media.c.status == "confirmed")
    if tag:
        wanted = normalize_tags(tag)
        if "," in wanted:
            raise ValidationError("filter by one tag at a time")
        stmt = stmt.where(("," + media.c.tags + ",").like(f"%,{wanted},%"))
    if page.after:
        stmt = stmt.where(media.c.id < page.after)
    rows = (await conn.execute(stmt.order_by(media.c.id.desc()).limit(page.size + 1))).all()
    return [media_record(r) for r in rows[: page.size]], next_token([r.id for r in rows], page.size)


async def update_media(
    conn: AsyncConnection, org_id: str, media_id: str, description: str | None, tags: str | None
) -> MediaRecord:
    await get_media(conn, org_id, media_id)
    values: dict[str, str] = {}
    if description is not None:
        if len(description) > MAX_DESCRIPTION:
            raise ValidationError(f"description is longer than {MAX_DESCRIPTION} characters")
        values["description"] = description
    if tags is not None:
        values["tags"] = normalize_tags(tags)
    if not values:
        raise ValidationError("nothing to change: send description or tags")
    await conn.execute(update(media).where(media.c.id == media_id, media.c.org_id == org_id).values(**values))
    return await get_media(conn, org_id, media_id)


async def delete_media(conn: AsyncConnection, org_id: str, media_id: str) -> MediaRecord:
    """Deletes the record (the caller deletes the bytes after commit). Refused while a post that
    has not gone out uses it; links from posts that have are removed with it."""
    record = await get_media(conn, org_id, media_id)
    in_use = await conn.scalar(
        select(posts.c.id)
        .select_from(post_media.join(posts, and_(posts.c.id == post_media.c.post_id)))
        .where(post_media.c.media_id == media_id, posts.c.status.in_(ACTIVE_POST_STATES))
        .limit(1)
    )
    if in_use is not None:
        raise MediaInUse(f"post {in_use} has not gone out yet and uses this media; cancel or edit it first")
    await conn.execute(delete(post_media).where(post_media.c.media_id == media_id))
    await conn.execute(delete(media).where(media.c.id == media_id, media.c.org_id == org_id))
    return record


def validate_legacy_header(filename: str, mime_type: str) -> str:
    """The kind of a legacy upload's declared file (its size is known only once streamed)."""
    return validate_upload(filename, mime_type, 1, "", LEGACY_LIMITS)


async def insert_confirmed(
    conn: AsyncConnection,
    org_id: str,
    media_id: str,
    key: str,
    kind: str,
    mime_type: str,
    name: str,
    found: Inspection,
    now: datetime,
    thumbnail_key: str | None = None,
) -> tuple[MediaRecord, bool]:
    """Records a file that arrived whole (legacy upload), or returns the library's existing copy
    of the same bytes (True: the caller deletes the new bytes and their thumbnail)."""
    existing = await find_duplicate(conn, org_id, found.sha256)
    if existing is not None:
        return existing, True
    await conn.execute(
        insert(media).values(
            id=media_id,
            org_id=org_id,
            kind=kind,
            mime_type=mime_type.lower(),
            size_bytes=found.size_bytes,
            name=name,
            description="",
            tags="",
            status="confirmed",
            content_hash=found.sha256,
            width=found.width,
            height=found.height,
            storage_key=key,
            created_at=now,
            confirmed_at=now,
            thumbnail_key=thumbnail_key,
        )
    )
    confirmed = await get_media(conn, org_id, media_id)
    await emit_confirmed(conn, org_id, [confirmed], now)
    return confirmed, False


async def get_many(conn: AsyncConnection, org_id: str, media_ids: list[str]) -> list[MediaRecord]:
    """The organization's records of these ids, in that order (the ids it does not hold are left out)."""
    rows = {
        r.id: r for r in await conn.execute(select(media).where(media.c.org_id == org_id, media.c.id.in_(media_ids)))
    }
    return [media_record(rows[i]) for i in media_ids if i in rows]


@dataclass(frozen=True, slots=True)
class MediaDetails:
    """What the dashboard's media page shows of a media besides its record."""

    media_id: str
    has_thumbnail: bool
    uses: list[tuple[str, str]]  # (post id, status), newest first, at most USES_SHOWN
    use_count: int
    blocking_post_id: str  # a post that keeps it from being deleted (MEDIA_IN_USE), or ""


async def media_details(conn: AsyncConnection, org_id: str, media_ids: list[str]) -> list[MediaDetails]:
    """The posts using each of these media of the library and whether each has a thumbnail, in
    the order asked; ids the library does not hold are left out."""
    if len(media_ids) > MAX_DETAILS:
        raise ValidationError(f"describe at most {MAX_DETAILS} media at a time")
    wanted = list(dict.fromkeys(media_ids))
    held = {
        row.id: row.thumbnail_key
        for row in await conn.execute(
            select(media.c.id, media.c.thumbnail_key).where(media.c.org_id == org_id, media.c.id.in_(wanted))
        )
    }
    uses: dict[str, list[tuple[str, str]]] = {media_id: [] for media_id in held}
    if held:
        rows = await conn.execute(
            select(post_media.c.media_id, posts.c.id, posts.c.status)
            .select_from(post_media.join(posts, posts.c.id == post_media.c.post_id))
            .where(post_media.c.org_id == org_id, post_media.c.media_id.in_(list(held)))
            .distinct()
            .order_by(posts.c.id.desc())
        )
        for row in rows:
            uses[row.media_id].append((row.id, row.status))
    return [
        MediaDetails(
            media_id,
            held[media_id] is not None,
            uses[media_id][:USES_SHOWN],
            len(uses[media_id]),
            next((post_id for post_id, status in uses[media_id] if status in ACTIVE_POST_STATES), ""),
        )
        for media_id in wanted
        if media_id in held
    ]
