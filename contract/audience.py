"""A profile's audience (docs/analytics.md): its account's followers over time. The shapes of
`GET /v1/profiles/{slug}/metrics`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.analytics.v1 import audience_pb2
from pydantic import Field

from contract.base import DateTime, InQuery, Request, Response, UtcTimestamp, timestamp
from contract.requests import ProfileSlug

_SOURCE = Annotated[
    Literal["sandbox", "platform"],
    Field(description="`sandbox`: synthetic numbers (HERALD_PUBLISH_MODE=sandbox); `platform`: read from it."),
]


class GetProfileMetricsRequest(Request):
    """The range is [from, to): the last 30 days unless given, at most 400 days."""

    slug: ProfileSlug
    start: Annotated[
        DateTime | None,
        InQuery(),
        Field(
            alias="from",
            description="Readings at or after this instant (ISO 8601 with an offset). Omitted: 30 days before `to`.",
        ),
    ] = None
    end: Annotated[
        DateTime | None,
        InQuery(),
        Field(alias="to", description="Readings before this instant (exclusive). Omitted: now."),
    ] = None

    def to_proto(self) -> audience_pb2.GetProfileMetricsRequest:
        return audience_pb2.GetProfileMetricsRequest(
            slug=self.slug, start_time=self.start or "", end_time=self.end or ""
        )


class FollowersReading(Response):
    """One reading of the account's followers."""

    followers: int = Field(ge=0, description="The account's followers (subscribers on YouTube).")
    collected_at: UtcTimestamp = Field(description="When the reading was made.")
    source: _SOURCE

    @classmethod
    def from_proto(cls, r: audience_pb2.FollowersReading) -> dict[str, Any]:
        return {"followers": r.followers, "collected_at": timestamp(r.collect_time), "source": r.source}


class ProfileMetrics(Response):
    """A profile's account metrics: the latest followers and their history in the range."""

    profile: str = Field(description="The profile's slug.")
    followers: int | None = Field(ge=0, description="The latest reading's followers; null before the first.")
    collected_at: UtcTimestamp | None = Field(description="When the latest reading was made; null before the first.")
    source: _SOURCE | None = Field(description="Where the latest reading came from; null before the first.")
    history: list[FollowersReading] = Field(
        description="The readings in [from, to), oldest first (at most 1,000: the newest of the range)."
    )
    start: UtcTimestamp = Field(alias="from", description="The range's start (inclusive).")
    end: UtcTimestamp = Field(alias="to", description="The range's end (exclusive).")
    next_read_at: UtcTimestamp | None = Field(
        description="When the workers read the account next (once a day); null while a read is under way."
    )

    @classmethod
    def from_proto(cls, r: audience_pb2.ProfileMetrics) -> dict[str, Any]:
        latest = r.latest if r.HasField("latest") else None
        return {
            "profile": r.slug,
            "followers": latest.followers if latest is not None else None,
            "collected_at": timestamp(latest.collect_time) if latest is not None else None,
            "source": latest.source if latest is not None else None,
            "history": [FollowersReading.from_proto(h) for h in r.history],
            "from": timestamp(r.start_time),
            "to": timestamp(r.end_time),
            "next_read_at": timestamp(r.next_read_time) if r.HasField("next_read_time") else None,
        }


Day = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
_BASIS = Annotated[
    Literal["history", "default"],
    Field(
        description="`history`: from the profile's own posts, once at least `minimum_sample` were read; "
        "`default`: the platform's usual best hours (not a measurement of yours) until then."
    ),
]


class GetBestTimesRequest(Request):
    slug: ProfileSlug

    def to_proto(self) -> audience_pb2.GetBestTimesRequest:
        return audience_pb2.GetBestTimesRequest(slug=self.slug)


class BestTimeCell(Response):
    """One hour of the week."""

    day: Day
    hour: int = Field(ge=0, le=23, description="The hour, in the organization's time zone.")
    posts: int = Field(ge=0, description="The profile's posts read that went out in this hour of the week.")
    engagement: float = Field(
        ge=0,
        description="Their mean engagement (likes + reposts + replies + quotes + bookmarks + shares at each post's "
        "latest reading); 0 without posts.",
    )
    score: float = Field(
        ge=0, le=1, description="0 to 1: this hour's engagement over the best hour's, or the default's weight."
    )

    @classmethod
    def from_proto(cls, c: audience_pb2.BestTimeCell) -> dict[str, Any]:
        return {"day": c.day, "hour": c.hour, "posts": c.posts, "engagement": c.engagement, "score": c.score}


class BestTimes(Response):
    """When a profile's posts do best, by weekday and hour in the organization's time zone."""

    profile: str = Field(description="The profile's slug.")
    connector: str = Field(description="Its platform.")
    timezone: str = Field(description="The organization's IANA time zone the hours are in.")
    basis: _BASIS
    sample_size: int = Field(ge=0, description="The profile's posts read in the last year (with engagement).")
    minimum_sample: int = Field(ge=1, description="The posts read the history needs before it is trusted.")
    top: list[BestTimeCell] = Field(description="The best hours, best first (at most 5).")
    grid: list[BestTimeCell] = Field(
        description="The 168 hours of the week, Monday 00:00 first, hour by hour: a 7×24 heatmap."
    )

    @classmethod
    def from_proto(cls, r: audience_pb2.BestTimes) -> dict[str, Any]:
        return {
            "profile": r.slug,
            "connector": r.connector,
            "timezone": r.time_zone,
            "basis": r.basis,
            "sample_size": r.sample_size,
            "minimum_sample": r.minimum_sample,
            "top": [BestTimeCell.from_proto(c) for c in r.top],
            "grid": [BestTimeCell.from_proto(c) for c in r.grid],
        }


class SuggestQueueSlotsRequest(Request):
    """Proposes weekly slots from the best times; `apply` saves them as the profile's slot table."""

    slug: ProfileSlug
    count: int = Field(default=7, ge=1, le=21, description="Slots wanted (at most ceil(count / 7) on one weekday).")
    apply: bool = Field(
        default=False,
        description="Save them as the profile's time slots, replacing its table (needs the publish permission; "
        "agents posts:write). False: only propose.",
    )

    def to_proto(self) -> audience_pb2.SuggestQueueSlotsRequest:
        return audience_pb2.SuggestQueueSlotsRequest(slug=self.slug, count=self.count, apply=self.apply)


class SuggestedSlot(Response):
    day: Day
    time: str = Field(description="HH:MM, 24-hour, in `timezone`.")


class QueueSuggestion(Response):
    """Weekly slots proposed from a profile's best times, and whether they were saved."""

    profile: str = Field(description="The profile's slug.")
    timezone: str = Field(description="The slots' IANA time zone (the organization's).")
    basis: _BASIS
    sample_size: int = Field(ge=0, description="The posts read the best times come from.")
    slots: list[SuggestedSlot] = Field(description="The slots, in the week's order.")
    applied: bool = Field(description="True when they were saved as the profile's time slots.")

    @classmethod
    def from_proto(cls, r: audience_pb2.QueueSuggestion) -> dict[str, Any]:
        return {
            "profile": r.slug,
            "timezone": r.time_zone,
            "basis": r.basis,
            "sample_size": r.sample_size,
            "slots": [{"day": s.day, "time": s.time} for s in r.slots],
            "applied": r.applied,
        }
