"""Posts and media: the library, posts (also the publish queue), the outbox, idempotency."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    false,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime

# The posts page's two sections (core/posts/group_listing.py): posts still to go out, and the
# rest. Each has a partial index; the listing's queries repeat these predicates word for word.
UPCOMING_STATUSES = ("draft", "pending_approval", "scheduled", "queued", "publishing")
HISTORY_STATUSES = ("published", "partially_published", "failed", "canceled")
UPCOMING_SQL = f"status IN ({', '.join(repr(s) for s in UPCOMING_STATUSES)})"
HISTORY_SQL = f"status IN ({', '.join(repr(s) for s in HISTORY_STATUSES)})"


class Media(Base):
    """A file of an organization's media library. Usable in posts once `status` is `confirmed`.
    (The upload flows that fill it arrive with the media library issue.)"""

    __tablename__ = "media"
    __table_args__ = (
        CheckConstraint("kind IN ('image', 'gif', 'video')", name="kind_known"),
        CheckConstraint("status IN ('pending', 'confirmed')", name="status_known"),
        Index("ix_media_org_id_id", "org_id", "id"),
        Index("ix_media_org_id_content_hash", "org_id", "content_hash"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))
    mime_type: Mapped[str] = mapped_column(String(100))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str] = mapped_column(Text, default="")
    tags: Mapped[str] = mapped_column(String(1000), default="")
    status: Mapped[str] = mapped_column(String(16))
    content_hash: Mapped[Optional[str]] = mapped_column(String(64))
    width: Mapped[Optional[int]] = mapped_column(Integer)
    height: Mapped[Optional[int]] = mapped_column(Integer)
    storage_key: Mapped[str] = mapped_column(String(255))
    # The object generation confirm checked (GCS), which every read names: a later PUT with a
    # still-valid upload URL replaces nothing confirmed. None: the local backend (its objects are
    # never replaced) and stored objects that no upload URL names.
    storage_generation: Mapped[Optional[int]] = mapped_column(BigInteger)
    # The thumbnail confirm made (docs/media.md, "Thumbnails"): its object key, `{storage_key}.thumb`.
    # None: none was made (confirmed before thumbnails existed, or not decodable).
    thumbnail_key: Mapped[Optional[str]] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    confirmed_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # A stock photo's origin (docs/stock.md): the provider, its handle there, the search it came
    # from, and the credit the provider requires (JSON; "" when none).
    source_provider: Mapped[str] = mapped_column(String(16), default="", server_default="")
    source_ref: Mapped[str] = mapped_column(String(128), default="", server_default="")
    source_query: Mapped[str] = mapped_column(String(500), default="", server_default="")
    attribution: Mapped[str] = mapped_column(Text, default="", server_default="")


class Post(Base):
    """A post to one profile. The table is also the publish queue: `due_at` is when a worker may
    claim it (its schedule, its next retry, or the end of the lease of the worker holding it)."""

    __tablename__ = "posts"
    __table_args__ = (
        CheckConstraint(
            "status IN ('scheduled', 'queued', 'publishing', 'published', 'failed', 'canceled', 'draft', "
            "'partially_published', 'pending_approval')",
            name="status_known",
        ),
        Index("ix_posts_status_due_at", "status", "due_at"),
        Index("ix_posts_org_id_id", "org_id", "id"),
        Index("ix_posts_org_id_schedule_at", "org_id", "schedule_at"),
        # next_slot: a profile's posts after an instant.
        Index("ix_posts_profile_id_schedule_at", "profile_id", "schedule_at"),
        # get_recent_posts: an organization's published posts, newest first.
        Index("ix_posts_org_id_published_at", "org_id", "published_at"),
        # A post group: the posts one request created.
        Index("ix_posts_org_id_group_id", "org_id", "group_id"),
        # The posts page: an organization's groups by send time, upcoming and history apart.
        Index(
            "ix_posts_upcoming",
            "org_id",
            "schedule_at",
            "group_id",
            sqlite_where=text(UPCOMING_SQL),
            postgresql_where=text(UPCOMING_SQL),
        ),
        Index(
            "ix_posts_history",
            "org_id",
            "schedule_at",
            "group_id",
            sqlite_where=text(HISTORY_SQL),
            postgresql_where=text(HISTORY_SQL),
        ),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    # The same for every post one request created (`grp_…`, never a post id): docs/posts.md.
    group_id: Mapped[str] = mapped_column(ID)
    profile_slug: Mapped[str] = mapped_column(String(64))
    connector: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    title: Mapped[Optional[str]] = mapped_column(String(100))
    post_type: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(32))
    schedule_at: Mapped[datetime] = mapped_column(UTCDateTime)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    # Credits charged for the current delivery (0 once refunded or never charged).
    charged: Mapped[int] = mapped_column(Integer, default=0)
    delivery_key: Mapped[str] = mapped_column(String(64))
    lease_owner: Mapped[Optional[str]] = mapped_column(String(64))
    failure_reason: Mapped[str] = mapped_column(String(32), default="")
    # A human explanation of failure_reason when Herald has one (e.g. the never-publish phrase).
    failure_detail: Mapped[str] = mapped_column(Text, default="", server_default="")
    platform_error: Mapped[str] = mapped_column(Text, default="")
    platform_post_id: Mapped[str] = mapped_column(String(128), default="")
    platform_url: Mapped[str] = mapped_column(String(500), default="")
    published_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # Live delivery's progress (JSON): what the platform already holds (uploaded media ids, a
    # container, an upload session) and whether the request creating the post may have been
    # sent, so a later attempt resumes or looks the post up instead of posting twice.
    delivery_state: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Deliveries the post costs: the post and each thread item (a first comment is free).
    units: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    # The X-Request-Id of the request that created it: its publish outcomes' webhook events
    # carry it to the receiver (core/posts/events.py).
    request_id: Mapped[Optional[str]] = mapped_column(String(128))
    # The language of its text (a normalized BCP 47 tag): the request's, else the profile's
    # default when it was created; None: neither named one.
    language: Mapped[Optional[str]] = mapped_column(String(35))
    # TikTok only: the settings the request chose (core/posts/versions.py tiktok_json; "" none).
    tiktok_options: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Its history's first step, `created` (core/posts/history.py): that step's detail as
    # history.dumps writes it (status, schedule_at when it had a send time of its own, request_id),
    # written in creation's own INSERT, at created_at. None: created before histories were kept.
    created_detail: Mapped[Optional[str]] = mapped_column(Text)
    # Who it was written for or by, and how (docs/teams.md, "Approvals"): `dashboard`, `api_key`
    # or `agent`. None: created before approvals existed.
    author_id: Mapped[Optional[str]] = mapped_column(String(32))
    author_via: Mapped[Optional[str]] = mapped_column(String(16))
    # Its last review, when it needed approval: `approved` or `rejected`, by whom, when, why.
    review_outcome: Mapped[Optional[str]] = mapped_column(String(16))
    reviewer_id: Mapped[Optional[str]] = mapped_column(String(32))
    reviewed_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    review_comment: Mapped[Optional[str]] = mapped_column(Text)
    # Waiting for approval with no time of its own: approved, it goes out at once.
    send_now: Mapped[bool] = mapped_column(Boolean, server_default=false())


class PostPart(Base):
    """What a post delivers after itself, in order: its thread items, then its first comment
    (docs/posts.md, "Threads, first comments and versions"). Each part has a delivery of its own: a
    key (the outbox is unique on it), a status, what the platform answered, and a live delivery's
    progress."""

    __tablename__ = "post_parts"
    __table_args__ = (
        CheckConstraint("kind IN ('thread', 'comment')", name="kind_known"),
        CheckConstraint("status IN ('pending', 'published', 'failed', 'skipped')", name="status_known"),
    )

    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    # Delivery order: thread items 0..n-1, the first comment n.
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))
    content: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    delivery_key: Mapped[str] = mapped_column(String(64))
    platform_post_id: Mapped[str] = mapped_column(String(500), default="")
    platform_url: Mapped[str] = mapped_column(String(500), default="")
    # Bluesky's record CID: a reply's strong reference needs it.
    platform_cid: Mapped[str] = mapped_column(String(128), default="")
    delivery_state: Mapped[str] = mapped_column(Text, default="")


class PostMedia(Base):
    """A post's attachments (`part` -1) and its thread items' (`part`: the item's
    post_parts.position); `position` orders them within the post."""

    __tablename__ = "post_media"
    __table_args__ = (Index("ix_post_media_media_id", "media_id"),)

    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    media_id: Mapped[str] = mapped_column(ForeignKey("media.id"))
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    part: Mapped[int] = mapped_column(Integer, default=-1, server_default="-1")


class OutboxEntry(Base):
    """A delivery as recorded: in sandbox mode the exact platform requests that would have been
    sent. Unique on the post's delivery key, so a post is recorded as delivered at most once."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_post_id", "post_id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    delivery_key: Mapped[str] = mapped_column(String(64), unique=True)
    connector: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(8))
    requests_json: Mapped[str] = mapped_column(Text)
    platform_post_id: Mapped[str] = mapped_column(String(128))
    platform_url: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # What it delivered: the post (-1) or its part at that post_parts.position.
    part: Mapped[int] = mapped_column(Integer, default=-1, server_default="-1")
    # Bluesky's record CID (replies reference the post by URI and CID).
    platform_cid: Mapped[str] = mapped_column(String(128), default="", server_default="")


class PostEvent(Base):
    """One step of a post's history (docs/posts.md, "History"): edited, claimed, an attempt that
    failed, published… written in the transaction of the change it records, one INSERT each (the
    first step, `created`, is the post row's created_detail: migration 0029). `detail` is a small
    JSON object of the kind's own facts (the attempt, the failure reason, the next attempt's
    time, the request's id…; core/posts/history.py). The index serves
    a post's history in order and the cascade of a deleted post alike (post ids are unique, so
    the organization is checked beside it, not indexed)."""

    __tablename__ = "post_events"
    __table_args__ = (Index("ix_post_events_post_id_at_id", "post_id", "at", "id"),)

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    kind: Mapped[str] = mapped_column(String(32))
    detail: Mapped[str] = mapped_column(Text, default="", server_default="")


class IdempotencyKey(Base):
    """The first response to a request made with an `Idempotency-Key`, kept 24 hours."""

    __tablename__ = "idempotency_keys"

    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    response: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
