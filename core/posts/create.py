"""Creating posts: one per profile, or nothing (every check runs before the first insert).

`next_slot` on PostgreSQL takes each profile's lock (core/posts/slot_assignment.py) and holds it until
the commit, so other next_slot requests for those profiles wait their turn: what is done while
it is held is what bounds their rate. Everything that does not depend on the slot — the rows
(their history's `created` step with them), the records, the messages and the events' data —
is built before the lock is taken, with the request's time in place of the slot; once the slots
are known they are written into those (`_place`), and the writes go in one round trip, with the
COMMIT when the caller's unit of work ends with them (the gRPC servicer's does): waiting for the
call to return through the servicer and the unit of work before committing held the locks ~3 ms
more under load. The requests for the same profiles that arrive meanwhile in the same core
process join that turn (core/posts/slot_lock_turns.py): the lock holder gives them the next
slots and holds those for them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from herald.posts.v1 import posts_pb2
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from contract.base import timestamp as rendered
from contract.logs import REQUEST_ID
from core.audit.record import Pending
from core.db.engine import is_sqlite
from core.db.models import posts
from core.db.prepared import Prepared, commit_now, pipelined
from core.ids import new_id
from core.posts import events, history, idempotency, slot_assignment, slot_lock_turns, thread_parts
from core.posts.approvals import Author
from core.posts.messages import post_message
from core.posts.notices import Notice, notices_for
from core.posts.records import PostRecord
from core.posts.thread_parts import PartRecord, new_delivery_key
from core.posts.validation import CreateRequest, validate_create
from core.posts.versions import Version, tiktok_from_json, tiktok_json
from core.rpc.convert import timestamp

# The columns create_posts gives (the others take their defaults); run on the driver.
_INSERT_POSTS = Prepared(
    insert(posts),
    columns=[
        "id", "org_id", "group_id", "profile_id", "profile_slug", "connector", "content", "title", "post_type", "status",
        "schedule_at", "due_at", "created_at", "updated_at", "attempts", "charged", "units", "delivery_key",
        "failure_reason", "failure_detail", "platform_error", "platform_post_id", "platform_url", "request_id",
        "language", "tiktok_options", "created_detail", "author_id", "author_via", "send_now",
    ],
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class CreateOutcome:
    records: list[PostRecord]
    # The stored first response, when the request replays an Idempotency-Key.
    replay: bytes | None = None
    # The records as messages, built once for their post.created events and the response.
    messages: list[posts_pb2.Post] = field(default_factory=list)
    # The request's fields some destination does not use (core/posts/notices.py).
    notices: list[Notice] = field(default_factory=list)


async def create_posts(
    conn: AsyncConnection,
    org_id: str,
    request: CreateRequest,
    now: datetime,
    *,
    idempotency_key: str = "",
    request_digest: str = "",
    encode: Callable[[list[posts_pb2.Post], list[Notice]], bytes] | None = None,
    live: bool = False,
    ends_transaction: bool = False,
    author: Author | None = None,
    audit: Pending | None = None,
) -> CreateOutcome:
    """Creates one post per profile, or nothing: every check runs before the first insert.
    `live`: every profile must have a connected account (PROFILE_NOT_CONNECTED).
    `ends_transaction`: the caller writes nothing more in `conn`'s transaction, so a next_slot
    creation on PostgreSQL may commit it with its writes (core/db/prepared.commit_now).
    `author`: who writes (recorded on each post) and whether their posts wait for approval
    (core/posts/approvals.py): those are `pending_approval` instead of scheduled or queued.
    `audit`: the call's audit event (core/audit/record.py), written with the posts in their round
    trip; a replay changes nothing and records none."""
    if idempotency_key:
        reservation = await idempotency.reserve(conn, org_id, idempotency_key, request_digest, now)
        if reservation.replay is not None:
            if audit is not None:
                audit.unchanged()
            return CreateOutcome([], reservation.replay)
    plan = await validate_create(conn, org_id, request, now, live=live)
    profile_ids = [t.profile.id for t in plan.targets]
    slots, locked_late = {}, False
    if request.next_slot and is_sqlite(conn.engine):
        # The write transaction holds SQLite's lock already: the rows as validation read them.
        read = [
            slot_assignment.SlotState(p.id, p.slug, p.slot_table, p.slot_watermark)
            for p in (t.profile for t in plan.targets)
        ]
        slots = await slot_assignment.next_slots(conn, profile_ids, now, read=read)
    elif request.next_slot:
        locked_late = True
    waiting = await author.waiting(conn, profile_ids) if author is not None and not request.draft else set()
    rows, media_rows, part_rows = [], [], []
    request_id = REQUEST_ID.get()  # its publish events carry it later (core/posts/events.py)
    group_id = new_id("grp")  # the request's posts, one group (docs/posts.md)
    scheduled = bool(slots) or plan.schedule_at is not None  # a send time of its own (else now, or none)
    for target in plan.targets:
        post_id = new_id("pst")
        when = slots.get(target.profile.id) or plan.schedule_at
        status = (
            "draft"
            if request.draft
            else "pending_approval"
            if target.profile.id in waiting
            else "scheduled"
            if when or request.next_slot
            else "queued"
        )
        rows.append(
            {
                "id": post_id,
                "org_id": org_id,
                "group_id": group_id,
                "profile_id": target.profile.id,
                "profile_slug": target.profile.slug,
                "connector": target.profile.connector,
                "content": target.version.content,
                "title": target.version.title,
                "post_type": target.post_type,
                "status": status,
                "schedule_at": when or now,
                "due_at": when or now,
                "created_at": now,
                "updated_at": now,
                "attempts": 0,
                "charged": 0,
                "units": target.version.units,
                "delivery_key": new_delivery_key(),
                "failure_reason": "",
                "failure_detail": "",
                "platform_error": "",
                "platform_post_id": "",
                "platform_url": "",
                "request_id": request_id,
                "language": target.version.language or target.profile.default_language,
                "tiktok_options": tiktok_json(target.version.tiktok),
                # The history's first step (core/posts/history.py), in the row: no row of its own.
                "created_detail": history.created_detail(status, when if scheduled else None, request_id),
                "author_id": author.user_id if author else None,
                "author_via": author.via if author else None,
                # Waiting with no time of its own: approved, it goes out at once.
                "send_now": status == "pending_approval" and not (when or request.next_slot),
            }
        )
        media_rows += thread_parts.main_media_rows(org_id, post_id, target.version)
        item_rows, item_media = thread_parts.part_rows(org_id, post_id, target.version)
        part_rows += item_rows
        media_rows += item_media
    # Built from what is inserted: reading the rows back cost two round trips per request.
    records = [_record(r, target.version, now) for r, target in zip(rows, plan.targets, strict=True)]
    messages = [post_message(r) for r in records]
    notices = [
        n
        for t in plan.targets
        for n in notices_for(t.profile.slug, t.profile.connector, t.version, t.post_type, plan.media)
    ]
    data = events.post_data(messages)
    turn, committed = None, False
    try:
        if locked_late:
            turn = await slot_lock_turns.take(conn, profile_ids, now, lead=ends_transaction)
            _place(turn.given, rows, records, messages, data)
        # The writes go to PostgreSQL in one round trip (psycopg's pipeline): at 1 in flight that
        # took a POST /v1/posts from 4.5-6.5 to 3.8 ms. next_slot holds its profiles' locks until
        # the commit (or holds its slots, when it joined another request's turn): its COMMIT goes
        # in that round trip too, when the caller's transaction ends here.
        async with pipelined(conn):
            await _INSERT_POSTS.many(conn, rows)
            await thread_parts.insert_parts(conn, part_rows, media_rows)
            await events.emit(conn, org_id, "post.created", records, now, data=data)
            if waiting:
                held = [i for i, r in enumerate(records) if r.status == "pending_approval"]
                await events.emit(
                    conn,
                    org_id,
                    "post.approval_requested",
                    [records[i] for i in held],
                    now,
                    data=[data[i] for i in held],
                )
            if idempotency_key and encode is not None:
                await idempotency.store_response(conn, org_id, idempotency_key, encode(messages, notices))
            if turn is not None:
                await turn.write(conn)
            if audit is not None:
                audit.names("post_group", group_id)
                await audit.write(conn)
            if locked_late and ends_transaction:
                await commit_now(conn)
        committed = True
    finally:
        if turn is not None:  # the requests that joined its turn get their slots, or take their own
            turn.settle(committed and ends_transaction)
    return CreateOutcome(records, messages=messages, notices=notices)


def _place(
    slots: dict[str, datetime],
    rows: list[dict],
    records: list[PostRecord],
    messages: list[posts_pb2.Post],
    data: list[dict],
) -> None:
    """Each profile's slot written into what was built before it was known: the row (and its
    history's `created` step), the record, the message and the event's data."""
    for i, row in enumerate(rows):
        when = slots[row["profile_id"]]
        row["schedule_at"] = row["due_at"] = when
        records[i] = replace(records[i], schedule_at=when)
        messages[i].schedule_time.CopyFrom(timestamp(when))
        data[i]["schedule_at"] = rendered(messages[i].schedule_time)
        row["created_detail"] = history.created_detail(row["status"], when, row["request_id"])


def _record(row: dict, version: Version, now: datetime) -> PostRecord:
    return PostRecord(
        id=row["id"],
        group_id=row["group_id"],
        profile_id=row["profile_id"],
        profile=row["profile_slug"],
        connector=row["connector"],
        content=row["content"],
        status=row["status"],
        schedule_at=row["schedule_at"],
        created_at=now,
        updated_at=now,
        media_ids=version.media_ids,
        post_type=row["post_type"],
        title=row["title"],
        failure_reason="",
        failure_detail="",
        platform_error="",
        platform_post_id="",
        platform_url="",
        published_at=None,
        attempts=0,
        language=row["language"],
        tiktok=tiktok_from_json(row["tiktok_options"]),
        author_id=row["author_id"] or "",
        author_via=row["author_via"] or "",
        send_now=row["send_now"],
        parts=tuple(
            PartRecord(i, "thread", item.content, item.media_ids, "pending", "", "")
            for i, item in enumerate(version.thread)
        )
        + (
            (PartRecord(len(version.thread), "comment", version.first_comment, (), "pending", "", ""),)
            if version.first_comment is not None
            else ()
        ),
    )
