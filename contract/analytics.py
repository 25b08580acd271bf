"""Analytics (docs/analytics.md): the normalized metric vocabulary, one table every platform's
numbers are mapped to, and the shapes a post's metrics are read and refreshed with.

A metric a platform does not give is absent, never zero: Bluesky and Mastodon count no views, so
their posts have no `impressions`, and a missing number is not a post nobody saw."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal

from herald.analytics.v1 import analytics_pb2
from pydantic import Field

from contract.base import Request, Response, UtcTimestamp, timestamp
from contract.post_requests import PostId


@dataclass(frozen=True, slots=True)
class Metric:
    """One name of the vocabulary: what it counts, of a post or of the account, in which unit."""

    name: str
    scope: Literal["post", "account"]
    unit: Literal["count", "seconds"]
    description: str


METRICS: tuple[Metric, ...] = (
    Metric("impressions", "post", "count", "Times the post was shown (views where the platform calls them so)."),
    Metric("reach", "post", "count", "Distinct accounts the post was shown to."),
    Metric("likes", "post", "count", "Likes, favourites or reactions."),
    Metric("reposts", "post", "count", "Reposts, retweets, boosts or reshares."),
    Metric("replies", "post", "count", "Replies or comments."),
    Metric("quotes", "post", "count", "Quote posts."),
    Metric("bookmarks", "post", "count", "Bookmarks or saves."),
    Metric("shares", "post", "count", "Shares outside the platform's repost (sent, shared off-platform)."),
    Metric("link_clicks", "post", "count", "Clicks on the post's link."),
    Metric("video_views", "post", "count", "Views of the post's video."),
    Metric("watch_time_seconds", "post", "seconds", "Total time the post's video was watched."),
    Metric("followers", "account", "count", "The account's followers (subscribers on YouTube)."),
)
POST_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS if m.scope == "post")

PostMetricName = Literal[POST_METRICS]  # type: ignore[valid-type]
_VALUES = Annotated[
    dict[PostMetricName, Annotated[int, Field(ge=0)]],
    Field(
        description='Metric name to value, e.g. {"likes": 3, "reposts": 1}, named from the vocabulary: '
        + ", ".join(POST_METRICS)
        + ". A metric the platform does not give is absent, never 0."
    ),
]
_SOURCE = Annotated[
    Literal["sandbox", "platform"],
    Field(description="`sandbox`: synthetic numbers (HERALD_PUBLISH_MODE=sandbox); `platform`: read from it."),
]

# Where a post's reading stands, from its series row (docs/analytics.md, "Surfaces").
TRACKING = ("scheduled", "reading", "done", "gone", "not_published")
_TRACKING = Annotated[
    Literal[TRACKING],  # type: ignore[valid-type]
    Field(
        description="`scheduled`: a read is due at next_read_at; `reading`: a worker is reading it now; `done`: "
        "the schedule is over (a refresh reads it again); `gone`: the post was deleted on its platform, so it "
        "is read no more and its readings stay; `not_published`: the post is not out, nothing is read."
    ),
]


class GetPostMetricsRequest(Request):
    post_id: PostId

    def to_proto(self) -> analytics_pb2.GetPostMetricsRequest:
        return analytics_pb2.GetPostMetricsRequest(post_id=self.post_id)


class RefreshPostMetricsRequest(Request):
    """Asks for a read now; the body may be empty."""

    post_id: PostId

    def to_proto(self) -> analytics_pb2.RefreshPostMetricsRequest:
        return analytics_pb2.RefreshPostMetricsRequest(post_id=self.post_id)


class MetricSnapshot(Response):
    """One reading of a published item's metrics."""

    metrics: _VALUES
    collected_at: UtcTimestamp = Field(description="When the reading was made.")
    source: _SOURCE

    @classmethod
    def from_proto(cls, s: analytics_pb2.MetricSnapshot) -> dict[str, Any]:
        return {"metrics": dict(s.metrics), "collected_at": timestamp(s.collect_time), "source": s.source}


class ThreadItemMetrics(MetricSnapshot):
    """A thread item's latest reading."""

    position: int = Field(ge=0, description="The item's position in the thread, from 0.")

    @classmethod
    def from_proto(cls, t: analytics_pb2.ThreadItemMetrics) -> dict[str, Any]:  # type: ignore[override]
        return {"position": t.position, **MetricSnapshot.from_proto(t.latest)}


class PostMetrics(Response):
    """A post's metrics: its latest reading, the earlier ones, each thread item's latest, and
    when the next read is due."""

    post_id: str = Field(pattern="^pst_", description="The post's id.")
    metrics: _VALUES
    collected_at: UtcTimestamp | None = Field(description="When the latest reading was made; null before the first.")
    source: _SOURCE | None = Field(description="Where the latest reading came from; null before the first.")
    history: list[MetricSnapshot] = Field(description="The earlier readings, newest first (at most 100).")
    thread: list[ThreadItemMetrics] = Field(description="Each published thread item's latest reading, in order.")
    next_read_at: UtcTimestamp | None = Field(
        description="When the workers read the post next; null when no read is due (the schedule is over, or the "
        "post is not out). A refresh reads it sooner."
    )
    tracking: _TRACKING

    @classmethod
    def from_proto(cls, r: analytics_pb2.PostMetrics) -> dict[str, Any]:
        latest = r.latest if r.HasField("latest") else None
        return {
            "post_id": r.post_id,
            "metrics": dict(latest.metrics) if latest is not None else {},
            "collected_at": timestamp(latest.collect_time) if latest is not None else None,
            "source": latest.source if latest is not None else None,
            "history": [MetricSnapshot.from_proto(s) for s in r.history],
            "thread": [ThreadItemMetrics.from_proto(t) for t in r.thread],
            "next_read_at": timestamp(r.next_read_time) if r.HasField("next_read_time") else None,
            "tracking": r.tracking,
        }


class MetricsRefresh(Response):
    """What a refresh did."""

    post_id: str = Field(pattern="^pst_", description="The post's id.")
    queued: bool = Field(
        description="True when this call asked for the read; false when one was pending already (nothing changed)."
    )

    @classmethod
    def from_proto(cls, r: analytics_pb2.RefreshPostMetricsResponse) -> dict[str, Any]:
        return {"post_id": r.post_id, "queued": r.queued}
