"""Analytics (docs/analytics.md): each published post's metric series (its read schedule, the
lease of the worker reading it, the platform's latest raw answer) and the snapshots read."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import (
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    PrimaryKeyConstraint,
    SmallInteger,
    String,
    Text,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime

# SQLite's INTEGER PRIMARY KEY is the rowid, numbered by the database; PostgreSQL's is BIGSERIAL.
SERIES_ID = BigInteger().with_variant(Integer(), "sqlite")


class PostMetricSeries(Base):
    """One published post's metrics as the workers collect them, one row per post: its next read
    (`due_at`; while a worker holds it, the end of its lease; NULL when no read is due), how many
    of the schedule's reads are behind it (`step`: core/analytics/schedule.py), a refresh asked,
    and the platform's latest raw answer (replaced at each read). Its integer `id` names the post
    in its snapshots: a 30-character post id in every snapshot and its index would cost about as
    much as the snapshot itself (docs/analytics.md, "Storage")."""

    __tablename__ = "post_metric_series"
    __table_args__ = (
        # The collection's queue: due reads, oldest first; reads done leave it.
        Index(
            "ix_post_metric_series_due_at",
            "due_at",
            sqlite_where=text("due_at IS NOT NULL"),
            postgresql_where=text("due_at IS NOT NULL"),
        ),
        # Summaries and lists: an organization's posts by the time they went out.
        Index("ix_post_metric_series_org_id_published_at", "org_id", "published_at"),
    )

    id: Mapped[int] = mapped_column(SERIES_ID, primary_key=True, autoincrement=True)
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), unique=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    published_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The post's profile and platform, copied from it when tracked (neither changes once a post
    # is out), and the latest reading of the post itself (part -1), copied at each read: a
    # summary over many posts reads these rows alone, neither `posts` nor every snapshot
    # (core/analytics/summaries.py). NULL metrics: as in the snapshots, not given.
    profile_id: Mapped[str] = mapped_column(ID, default="", server_default="")
    connector: Mapped[str] = mapped_column(String(16), default="", server_default="")
    latest_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    latest_sandbox: Mapped[Optional[bool]] = mapped_column(Boolean)
    latest_impressions: Mapped[Optional[int]] = mapped_column(BigInteger)
    latest_reach: Mapped[Optional[int]] = mapped_column(BigInteger)
    latest_video_views: Mapped[Optional[int]] = mapped_column(BigInteger)
    latest_watch_time_seconds: Mapped[Optional[int]] = mapped_column(BigInteger)
    latest_likes: Mapped[Optional[int]] = mapped_column(Integer)
    latest_reposts: Mapped[Optional[int]] = mapped_column(Integer)
    latest_replies: Mapped[Optional[int]] = mapped_column(Integer)
    latest_quotes: Mapped[Optional[int]] = mapped_column(Integer)
    latest_bookmarks: Mapped[Optional[int]] = mapped_column(Integer)
    latest_shares: Mapped[Optional[int]] = mapped_column(Integer)
    latest_link_clicks: Mapped[Optional[int]] = mapped_column(Integer)
    due_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    step: Mapped[int] = mapped_column(Integer, default=0)
    # A refresh was asked and is not read yet.
    refresh: Mapped[bool] = mapped_column(Boolean, default=False)
    # The claim that holds it (a worker's id and the claim's token): only that claim records.
    lease_owner: Mapped[Optional[str]] = mapped_column(String(80))
    # Reads in a row that failed (a platform's transient error), and the last one's message.
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str] = mapped_column(Text, default="")
    read_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # The platform's answer at the latest read, per part (JSON); "" before the first.
    raw: Mapped[str] = mapped_column(Text, default="")
    # When a read found the post deleted on its platform: its series ended there (no more reads).
    gone_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class PostMetricSnapshot(Base):
    """One reading of a published item's metrics: the post (`part` -1) or a thread item (its
    post_parts.position). One nullable integer column per post metric of the vocabulary
    (contract/analytics.py): NULL is a metric the platform does not give, never a zero. Columns
    are ordered widest first, so PostgreSQL pads nothing between them; with the key in 8 bytes
    a snapshot costs about 150 bytes with its index (bench/metrics_collect.py)."""

    __tablename__ = "post_metric_snapshots"
    __table_args__ = (PrimaryKeyConstraint("series_id", "part", "collected_at"),)

    series_id: Mapped[int] = mapped_column(SERIES_ID, ForeignKey("post_metric_series.id", ondelete="CASCADE"))
    collected_at: Mapped[datetime] = mapped_column(UTCDateTime)
    impressions: Mapped[Optional[int]] = mapped_column(BigInteger)
    reach: Mapped[Optional[int]] = mapped_column(BigInteger)
    video_views: Mapped[Optional[int]] = mapped_column(BigInteger)
    watch_time_seconds: Mapped[Optional[int]] = mapped_column(BigInteger)
    likes: Mapped[Optional[int]] = mapped_column(Integer)
    reposts: Mapped[Optional[int]] = mapped_column(Integer)
    replies: Mapped[Optional[int]] = mapped_column(Integer)
    quotes: Mapped[Optional[int]] = mapped_column(Integer)
    bookmarks: Mapped[Optional[int]] = mapped_column(Integer)
    shares: Mapped[Optional[int]] = mapped_column(Integer)
    link_clicks: Mapped[Optional[int]] = mapped_column(Integer)
    part: Mapped[int] = mapped_column(SmallInteger)
    # Synthetic (HERALD_PUBLISH_MODE=sandbox) or read from the platform.
    sandbox: Mapped[bool] = mapped_column(Boolean)
