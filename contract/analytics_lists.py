"""Summaries and lists of analytics (docs/analytics.md, "Summaries and lists"): the organization's
published posts with their latest metrics, the sums per day, week, profile or platform, and the
latest metrics get_recent_posts shows with each post."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.analytics.v1 import analytics_pb2
from herald.posts.v1 import posts_pb2
from pydantic import Field

from contract.analytics import _SOURCE, _VALUES, POST_METRICS
from contract.base import DateTime, InQuery, Request, Response, UtcTimestamp, timestamp
from contract.post_resources import Post
from contract.requests import PageToken, Tag, _page_size, rpc_path
from contract.resources import Connector, NextPageToken, _page

_ENGAGEMENT = (
    "likes + reposts + replies + quotes + bookmarks + shares, counting those the platform gives; null when it "
    "gives none of them (or before the first reading)."
)
Sort = Literal[("published_at", "engagement", *POST_METRICS)]  # type: ignore[valid-type]
GroupBy = Literal["day", "week", "profile", "connector"]

_FROM = Annotated[
    DateTime | None,
    InQuery(),
    Field(
        alias="from",
        description="Posts published at or after this instant (ISO 8601 with an offset). Omitted: 30 days before `to`.",
    ),
]
_TO = Annotated[
    DateTime | None,
    InQuery(),
    Field(alias="to", description="Posts published before this instant (exclusive). Omitted: now."),
]
_PROFILE = Annotated[str | None, InQuery(), Field(min_length=1, description="Only posts to this profile slug.")]
_CONNECTOR = Annotated[Connector | None, InQuery(), Field(description="Only posts to this platform.")]


class ListPostAnalyticsRequest(Request):
    """Filters combine with AND."""

    start: _FROM = None
    end: _TO = None
    profile: _PROFILE = None
    tag: Tag = None
    connector: _CONNECTOR = None
    sort: Annotated[
        Sort | None,
        InQuery(),
        Field(description="`published_at` (the default), `engagement` or a metric's name."),
    ] = None
    order: Annotated[
        Literal["desc", "asc"] | None,
        InQuery(),
        Field(description="`desc` (the default: newest or highest first) or `asc`. Posts without the value last."),
    ] = None
    page_size: _page_size(rpc_path(analytics_pb2, "AnalyticsService", "ListPostAnalytics")) = 0  # type: ignore[valid-type]
    page_token: PageToken = None

    def to_proto(self) -> analytics_pb2.ListPostAnalyticsRequest:
        return analytics_pb2.ListPostAnalyticsRequest(
            start_time=self.start or "",
            end_time=self.end or "",
            profile=self.profile or "",
            tag=self.tag or "",
            connector=self.connector or "",
            sort=self.sort or "",
            order=self.order or "",
            page_size=self.page_size,
            page_token=self.page_token or "",
        )


class GetAnalyticsSummaryRequest(Request):
    """Filters combine with AND."""

    start: _FROM = None
    end: _TO = None
    group_by: Annotated[
        GroupBy | None,
        InQuery(),
        Field(
            description="`day` (the default) or `week` (Monday to Sunday), in the organization's time zone; "
            "`profile`; `connector`."
        ),
    ] = None
    profile: _PROFILE = None
    tag: Tag = None
    connector: _CONNECTOR = None

    def to_proto(self) -> analytics_pb2.GetAnalyticsSummaryRequest:
        return analytics_pb2.GetAnalyticsSummaryRequest(
            start_time=self.start or "",
            end_time=self.end or "",
            group_by=self.group_by or "",
            profile=self.profile or "",
            tag=self.tag or "",
            connector=self.connector or "",
        )


class PostAnalytics(Response):
    """A published post with its latest metrics."""

    post_id: str = Field(pattern="^pst_", description="The post's id.")
    profile: str = Field(description="The profile's slug.")
    connector: str = Field(description="The profile's platform.")
    content: str = Field(description="The post's text.")
    url: str = Field(description="The published post's URL.")
    published_at: UtcTimestamp = Field(description="When it went out.")
    metrics: _VALUES
    engagement: int | None = Field(ge=0, description=_ENGAGEMENT)
    collected_at: UtcTimestamp | None = Field(description="When the latest reading was made; null before the first.")
    source: _SOURCE | None = Field(description="Where the latest reading came from; null before the first.")

    @classmethod
    def from_proto(cls, p: analytics_pb2.PostAnalytics) -> dict[str, Any]:
        read = p.HasField("collect_time")
        return {
            "post_id": p.post_id,
            "profile": p.profile,
            "connector": p.connector,
            "content": p.content,
            "url": p.platform_url,
            "published_at": timestamp(p.publish_time),
            "metrics": dict(p.metrics),
            "engagement": p.engagement if p.HasField("engagement") else None,
            "collected_at": timestamp(p.collect_time) if read else None,
            "source": p.source if read else None,
        }


class PostAnalyticsList(Response):
    """A page of published posts with their latest metrics, in the order asked."""

    start: UtcTimestamp = Field(alias="from", description="The range's start (inclusive).")
    end: UtcTimestamp = Field(alias="to", description="The range's end (exclusive).")
    posts: list[PostAnalytics]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: analytics_pb2.ListPostAnalyticsResponse) -> dict[str, Any]:
        return {
            "from": timestamp(r.start_time),
            "to": timestamp(r.end_time),
            **_page("posts", [PostAnalytics.from_proto(p) for p in r.posts], r.next_page_token),
        }


class AnalyticsGroup(Response):
    """The sums of one group's posts, each post counted by its latest reading."""

    key: str = Field(
        description="The local date (`2026-11-02`; a week: its Monday), the profile's slug or the platform; "
        '"" for the total.'
    )
    posts: int = Field(ge=0, description="Posts published in the group.")
    metrics: _VALUES
    engagement: int | None = Field(ge=0, description="The posts' engagement summed; null when none has any.")

    @classmethod
    def from_proto(cls, g: analytics_pb2.AnalyticsGroup) -> dict[str, Any]:
        return {
            "key": g.key,
            "posts": g.posts,
            "metrics": dict(g.metrics),
            "engagement": g.engagement if g.HasField("engagement") else None,
        }


class AnalyticsSummary(Response):
    """The sums of the latest metrics of the posts published in a range, per group; a metric no post
    of a group has is absent from its `metrics`."""

    group_by: GroupBy
    time_zone: str = Field(description="The organization's time zone, which days and weeks are in.")
    start: UtcTimestamp = Field(alias="from", description="The range's start (inclusive).")
    end: UtcTimestamp = Field(alias="to", description="The range's end (exclusive).")
    groups: list[AnalyticsGroup] = Field(
        description="The groups that have posts: days and weeks oldest first, profiles and platforms by name."
    )
    total: AnalyticsGroup = Field(description='Every group together (its key "").')

    @classmethod
    def from_proto(cls, r: analytics_pb2.AnalyticsSummary) -> dict[str, Any]:
        return {
            "group_by": r.group_by,
            "time_zone": r.time_zone,
            "from": timestamp(r.start_time),
            "to": timestamp(r.end_time),
            "groups": [AnalyticsGroup.from_proto(g) for g in r.groups],
            "total": AnalyticsGroup.from_proto(r.total),
        }


class RecentPost(Post):
    """A published post, with its latest metrics."""

    metrics: _VALUES

    @classmethod
    def from_proto(cls, p: posts_pb2.Post) -> dict[str, Any]:  # type: ignore[override]
        return {**Post.from_proto(p), "metrics": dict(p.metrics)}


class RecentPostList(Response):
    """A page of published posts, newest first by the time they went out, each with its latest
    metrics."""

    posts: list[RecentPost]
    next_page_token: NextPageToken

    @classmethod
    def from_proto(cls, r: posts_pb2.ListPostsResponse) -> dict[str, Any]:
        return _page("posts", [RecentPost.from_proto(p) for p in r.posts], r.next_page_token)
