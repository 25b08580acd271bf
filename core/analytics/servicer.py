"""herald.analytics.v1.AnalyticsService: a post's metrics and a refresh of them
(docs/analytics.md, "Surfaces")."""

from __future__ import annotations

import grpc
from herald.analytics.v1 import analytics_pb2, analytics_pb2_grpc

from core.analytics import service
from core.analytics.service import Snapshot
from core.identity import profile_limits
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
