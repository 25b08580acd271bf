"""Analytics' operations (docs/analytics.md): a post's metrics, and a refresh of them."""

from __future__ import annotations

from herald.analytics.v1 import analytics_pb2

from contract import analytics, analytics_lists
from contract.operation import Operation, Tool
from contract.requests import rpc_path

ROWS = (
    Operation(
        id="getPostMetrics",
        method="GET",
        path="/v1/posts/{post_id}/metrics",
        summary="A post's metrics: the latest reading, the earlier ones, each thread item's",
        tag="analytics",
        rpc=rpc_path(analytics_pb2, "AnalyticsService", "GetPostMetrics"),
        request=analytics.GetPostMetricsRequest,
        responses={200: analytics.PostMetrics},
        errors=("NOT_FOUND",),
        description="The workers read a published post's metrics about 1 h, 6 h, 24 h, 3 days, 7 days and 30 days "
        "after it went out, then stop (a refresh reads it again). `metrics` is the latest reading of the post "
        "itself, named from the normalized vocabulary; a metric the platform does not give is absent, never 0. "
        "Before the first reading: `metrics` {} and `collected_at` null. `history` holds the earlier readings, "
        "newest first; `thread` each thread item's latest. `tracking` says where the reading stands: "
        "`scheduled`, `reading`, `done` (the schedule is over), `gone` (deleted on its platform: read no more) or "
        "`not_published`. Collecting costs no credits.",
        tool=Tool(
            name="get_post_analytics",
            title="Get a post's analytics",
            description="Read how a published post did: its latest metrics (impressions, reach, likes, reposts, "
            "replies, quotes, bookmarks, shares, link_clicks, video_views, watch_time_seconds; only those its "
            "platform gives), when they were read, earlier readings (history, newest first), each thread item's "
            "latest, and the next read. Metrics are read about 1 h, 6 h, 24 h, 3 d, 7 d and 30 d after publishing; "
            "empty metrics with collected_at null means not read yet; tracking 'gone' means the post was deleted on "
            "its platform (its last numbers stay). Use it to learn what worked before writing "
            "the next post.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="refreshPostMetrics",
        method="POST",
        path="/v1/posts/{post_id}/metrics/refresh",
        summary="Read a published post's metrics now",
        tag="analytics",
        rpc=rpc_path(analytics_pb2, "AnalyticsService", "RefreshPostMetrics"),
        request=analytics.RefreshPostMetricsRequest,
        responses={202: analytics.MetricsRefresh},
        errors=("NOT_FOUND", "INVALID_POST_STATE"),
        description="Queues a read of the post's metrics outside its schedule; a worker makes it within seconds "
        "(GET …/metrics shows it). A refresh while one is pending, a read is under way or one is due already "
        "changes nothing (`queued` false). Only a published or partially published post has metrics "
        "(INVALID_POST_STATE otherwise). Refreshes are counted per organization (RATE_LIMITED past the budget). "
        "The body may be empty.",
    ),
    # -- Summaries and lists (docs/analytics.md, "Summaries and lists") --
    Operation(
        id="listPostAnalytics",
        method="GET",
        path="/v1/analytics/posts",
        summary="The organization's published posts with their latest metrics, newest or best first",
        tag="analytics",
        rpc=rpc_path(analytics_pb2, "AnalyticsService", "ListPostAnalytics"),
        request=analytics_lists.ListPostAnalyticsRequest,
        responses={200: analytics_lists.PostAnalyticsList},
        errors=(),
        description="The posts published in [`from`, `to`) (the last 30 days when both are omitted), each with its "
        "latest metrics (a metric the platform does not give is absent, never 0) and its engagement: likes + "
        "reposts + replies + quotes + bookmarks + shares, of those the platform gives. `sort` by `published_at` "
        "(the default), `engagement` or any metric, `order` desc (the default) or asc; posts without the value "
        "come last. A page token belongs to its sort and order. VALIDATION_ERROR for an instant without an "
        "offset, `from` not before `to`, an unknown sort.",
    ),
    Operation(
        id="getAnalyticsSummary",
        method="GET",
        path="/v1/analytics/summary",
        summary="Sums of the posts' latest metrics per day, week, profile or platform",
        tag="analytics",
        rpc=rpc_path(analytics_pb2, "AnalyticsService", "GetAnalyticsSummary"),
        request=analytics_lists.GetAnalyticsSummaryRequest,
        responses={200: analytics_lists.AnalyticsSummary},
        errors=(),
        description="Over the posts published in [`from`, `to`) (the last 30 days when both are omitted), per "
        "`group_by` group: the number of posts, each metric's sum over their latest readings (absent where no "
        "post of the group has the metric) and the engagement summed. Days and weeks (Monday to Sunday) are in "
        "the organization's time zone (`time_zone`); groups without posts are left out; `total` sums them all.",
        tool=Tool(
            name="get_analytics_summary",
            title="Summarize how posts did",
            description="Sum the latest metrics of the posts published in a range (from/to, ISO 8601; the last 30 "
            "days by default) per day or week (the organization's time zone), per profile or per platform "
            "(group_by): posts, each metric's sum (a metric no post has is absent) and engagement (likes + reposts "
            "+ replies + quotes + bookmarks + shares). Filter by profile, tag or connector. Use it to see which "
            "days, profiles or platforms work best before planning posts; get_recent_posts shows each post's "
            "own metrics.",
            read_only=True,
            idempotent=True,
        ),
    ),
)
