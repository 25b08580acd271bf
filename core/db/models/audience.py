"""Account metrics (docs/analytics.md, "Account metrics"): each profile's followers, read once a
day by the workers as leased work, and the readings kept as small rows."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, PrimaryKeyConstraint, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from core.db.models.base import ID, Base
from core.db.types import UTCDateTime


class AccountMetricSeries(Base):
    """One profile's account reads: the next one (`due_at`; while a worker holds it, the end of
    its lease), the claim that holds it, and the failures in a row. A profile gets its row from
    the workers' enrolment (core/analytics/audience_reads.py), whichever way it was made."""

    __tablename__ = "account_metric_series"
    __table_args__ = (
        # The account reads' queue: due ones, oldest first.
        Index(
            "ix_account_metric_series_due_at",
            "due_at",
            sqlite_where=text("due_at IS NOT NULL"),
            postgresql_where=text("due_at IS NOT NULL"),
        ),
    )

    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True)
    org_id: Mapped[str] = mapped_column(ForeignKey("organizations.id", ondelete="CASCADE"))
    due_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)
    lease_owner: Mapped[Optional[str]] = mapped_column(String(80))
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str] = mapped_column(Text, default="")
    read_at: Mapped[Optional[datetime]] = mapped_column(UTCDateTime)


class AccountMetricSnapshot(Base):
    """One reading of a profile's account: its followers then. The key is the profile and the
    time, so an account's history is a range of it; about 80 bytes a row on PostgreSQL with its
    index, one a day per profile."""

    __tablename__ = "account_metric_snapshots"
    __table_args__ = (PrimaryKeyConstraint("profile_id", "collected_at"),)

    profile_id: Mapped[str] = mapped_column(ID, ForeignKey("profiles.id", ondelete="CASCADE"))
    collected_at: Mapped[datetime] = mapped_column(UTCDateTime)
    followers: Mapped[int] = mapped_column(BigInteger)
    # Synthetic (HERALD_PUBLISH_MODE=sandbox) or read from the platform.
    sandbox: Mapped[bool] = mapped_column(Boolean)
