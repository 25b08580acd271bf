"""herald.analytics.v1.AnalyticsService: a post's metrics and a refresh of them
(docs/analytics.md, "Surfaces")."""

from __future__ import annotations

import grpc
from herald.analytics.v1 import analytics_pb2, analytics_pb2_grpc

from core.analytics import post_list, service, summaries
from core.analytics.filters import Filters
from core.analytics.service import Snapshot
from core.identity import profile_limits
from core.pagination import page_request
from core.rpc import budgets
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy, PageBounds

_READ = frozenset({"posts:read"})
POLICIES = {
    "GetPostMetrics": MethodPolicy(permission="read", scopes=_READ),
    # Asking for a read is reading: any role, posts:read; budgeted per organization.
    "RefreshPostMetrics": MethodPolicy(permission="read", scopes=_READ, writes=True),
    # Summaries and lists: reading, as a post's metrics are.
    "ListPostAnalytics": MethodPolicy(permission="read", scopes=_READ, page=PageBounds(default=50, maximum=200)),
    "GetAnalyticsSummary": MethodPolicy(permission="read", scopes=_READ),
}


def _snapshot(s: Snapshot) -> analytics_pb2.MetricSnapshot:
    return analytics_pb2.MetricSnapshot(
        metrics=s.values, collect_time=timestamp(s.collected_at), source="sandbox" if s.sandbox else "platform"
    )


class AnalyticsServicer(analytics_pb2_grpc.AnalyticsServiceServicer):
    async def GetPostMetrics(
        self, request: analytics_pb2.GetPostMetricsRequest, context: grpc.aio.ServicerContext
    ) -> analytics_pb2.PostMetrics:
        call = current_call()
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        found = await service.post_metrics(call.conn, call.principal.org_id, request.post_id)
        return analytics_pb2.PostMetrics(
            post_id=found.post_id,
            latest=_snapshot(found.latest) if found.latest is not None else None,
            history=[_snapshot(s) for s in found.history],
            thread=[analytics_pb2.ThreadItemMetrics(position=s.part, latest=_snapshot(s)) for s in found.thread],
            next_read_time=timestamp(found.next_read_at),
            tracking=found.tracking,
        )

    async def RefreshPostMetrics(
        self, request: analytics_pb2.RefreshPostMetricsRequest, context: grpc.aio.ServicerContext
    ) -> analytics_pb2.RefreshPostMetricsResponse:
        call = current_call()
        org_id = call.principal.org_id
        await budgets.spend(
            call, "metrics-refresh", org_id, call.settings.rate_limit_metrics_refresh, "metrics refreshes"
        )
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        queued = await service.refresh(call.conn, org_id, request.post_id, call.now, call.settings.metrics_read_offsets)
        return analytics_pb2.RefreshPostMetricsResponse(post_id=request.post_id, queued=queued)

    # -- Summaries and lists --

    async def ListPostAnalytics(
        self, request: analytics_pb2.ListPostAnalyticsRequest, context: grpc.aio.ServicerContext
    ) -> analytics_pb2.ListPostAnalyticsResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListPostAnalytics"].page)
        found = await post_list.list_post_analytics(
            call.conn, call.principal.org_id, _filters(request), request.sort, request.order, page, call.now
        )
        return analytics_pb2.ListPostAnalyticsResponse(
            posts=[_post(p) for p in found.posts],
            next_page_token=found.next_page_token,
            start_time=timestamp(found.start),
            end_time=timestamp(found.end),
        )

    async def GetAnalyticsSummary(
        self, request: analytics_pb2.GetAnalyticsSummaryRequest, context: grpc.aio.ServicerContext
    ) -> analytics_pb2.AnalyticsSummary:
        call = current_call()
        found = await summaries.summary(call.conn, call.principal.org_id, _filters(request), request.group_by, call.now)
        return analytics_pb2.AnalyticsSummary(
            group_by=found.group_by,
            time_zone=found.time_zone,
            start_time=timestamp(found.start),
            end_time=timestamp(found.end),
            groups=[_group(g) for g in found.groups],
            total=_group(found.total),
        )


def _filters(request) -> Filters:  # a ListPostAnalyticsRequest or GetAnalyticsSummaryRequest
    return Filters(
        start=request.start_time,
        end=request.end_time,
        profile=request.profile,
        tag=request.tag,
        connector=request.connector,
        limited_to=current_call().principal.profile_tags,
    )


def _post(p: post_list.PostAnalytics) -> analytics_pb2.PostAnalytics:
    return analytics_pb2.PostAnalytics(
        post_id=p.post_id,
        profile=p.profile,
        connector=p.connector,
        content=p.content,
        platform_url=p.platform_url,
        publish_time=timestamp(p.published_at),
        metrics=p.values,
        engagement=p.engagement,
        collect_time=timestamp(p.collected_at),
        source="" if p.sandbox is None else "sandbox" if p.sandbox else "platform",
    )


def _group(g: summaries.Group) -> analytics_pb2.AnalyticsGroup:
    return analytics_pb2.AnalyticsGroup(key=g.key, posts=g.posts, metrics=g.values, engagement=g.engagement)
