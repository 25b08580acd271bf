"""Writing tools and background work: brand voices, the lease job queue, generation runs."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime

# The jobs a worker may claim: queued ones, and running ones whose lease ended (core/jobs/queue.py).
CLAIMABLE_SQL = "status IN ('queued', 'running')"


class BrandVoice(Base):
    """One version of a brand voice document (core/brand): the organization's (`scope` = "org")
    or a profile's override (`scope` = the profile's id). Versions are kept; one per scope is
    current."""

    __tablename__ = "brand_voices"
    __table_args__ = (
        UniqueConstraint("org_id", "scope", "version"),
        Index(
            "ix_brand_voices_current",
            "org_id",
            "scope",
            unique=True,
            sqlite_where=text("is_current"),
            postgresql_where=text("is_current"),
        ),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(32))
    profile_id: Mapped[Optional[str]] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)
    is_current: Mapped[bool] = mapped_column(Boolean)
    # The document as JSON (core/brand/voice.py), never-publish phrases included.
    document: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_by: Mapped[str] = mapped_column(String(320))


class Job(Base):
    """One unit of background work in the lease queue (core/jobs; docs/decisions.md, "Background
    work shares one lease primitive"): a generation run now, webhook deliveries and long sourcing
    later. `due_at` is when a worker may claim it (now, its next retry, or the end of the lease of
    the worker holding it), as for posts."""

    __tablename__ = "jobs"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="status_known"),
        Index("ix_jobs_status_due_at", "status", "due_at"),
        Index("ix_jobs_kind_subject_id", "kind", "subject_id"),
        # The claim (core/jobs/queue.py): unpartitioned jobs are the NULL range in due order,
        # and each partition's own range is read on its own, so no partition's backlog is
        # walked to reach another's jobs.
        Index(
            "ix_jobs_claimable",
            "partition",
            "due_at",
            sqlite_where=text(CLAIMABLE_SQL),
            postgresql_where=text(CLAIMABLE_SQL),
        ),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    # The record the job works on (a run's id), in its kind's table.
    subject_id: Mapped[str] = mapped_column(String(32))
    # None for work about no organization (mail to an address that is none's yet).
    org_id: Mapped[Optional[str]] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(16))
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    lease_owner: Mapped[Optional[str]] = mapped_column(String(64))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer)
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    # Jobs of one partition (a webhook endpoint's deliveries) run at most so many at once per
    # worker (core/jobs/runner.py); None: no bound.
    partition: Mapped[Optional[str]] = mapped_column(String(64))


class GenerateRun(Base):
    """One call of a generate_* tool (core/generate): its input, and its output once ready."""

    __tablename__ = "generate_runs"
    __table_args__ = (
        CheckConstraint("status IN ('queued', 'running', 'ready', 'failed')", name="status_known"),
        Index("ix_generate_runs_org_id_id", "org_id", "id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    tool: Mapped[str] = mapped_column(String(32))
    backend: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    # The request as JSON (core/generate/runs.py), and the output once ready.
    input: Mapped[str] = mapped_column(Text)
    output: Mapped[Optional[str]] = mapped_column(Text)
    error_code: Mapped[str] = mapped_column(String(32), default="")
    error_message: Mapped[str] = mapped_column(Text, default="")
    # Credits charged for the run (0 once refunded, or for a free backend).
    charged: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class SourcingRun(Base):
    """A stock sourcing that outlasted its call (docs/stock.md, "Runs"): the core that started
    it finishes it in the background, or a worker does from `request` (a job of the lease queue
    stands behind it), and the outcome is recorded here for get_sourcing_run."""

    __tablename__ = "sourcing_runs"
    __table_args__ = (
        CheckConstraint("status IN ('running', 'ready', 'failed')", name="status_known"),
        Index("ix_sourcing_runs_org_id_id", "org_id", "id"),
    )

    id: Mapped[str] = mapped_column(ID, primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(16))
    requested_count: Mapped[int] = mapped_column(Integer)
    # What was asked (source_refs, preset, provider, query), as JSON: a worker redoes it from this.
    request: Mapped[str] = mapped_column(Text, default="", server_default="")
    # The answer once ready (the SourceMediaResponse as JSON), or why it failed.
    result: Mapped[str] = mapped_column(Text, default="")
    error_code: Mapped[str] = mapped_column(String(32), default="")
    error_message: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # A run still `running` past this reads as failed: neither its core nor a worker finished it
    # (nothing was charged, since the charge is the run's last step).
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
