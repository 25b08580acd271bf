"""herald.analytics.v1.AudienceService: a profile's followers, its best times and queue slots
suggested from them (docs/analytics.md, "Account metrics", "Best times")."""

from __future__ import annotations

import grpc
from herald.analytics.v1 import audience_pb2, audience_pb2_grpc

from core.analytics import account_metrics, best_times, queue_suggestion
from core.analytics.account_metrics import FollowersReading
from core.analytics.best_times import Cell
from core.errors import InsufficientScope
from core.identity import profile_limits
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy, require_permission

_READ = frozenset({"posts:read"})
# Saving suggested slots is setting a profile's slots (ProfileService.SetProfileSlots' policy).
APPLY_PERMISSION = "publish"
APPLY_SCOPE = "posts:write"
POLICIES = {
    "GetProfileMetrics": MethodPolicy(permission="read", scopes=_READ),
    "GetBestTimes": MethodPolicy(permission="read", scopes=_READ),
    # A suggestion is reading; with `apply` it writes the slot table, checked in the method.
    "SuggestQueueSlots": MethodPolicy(permission="read", scopes=_READ, writes=True),
}


def _reading(r: FollowersReading) -> audience_pb2.FollowersReading:
    return audience_pb2.FollowersReading(
        followers=r.followers, collect_time=timestamp(r.collected_at), source="sandbox" if r.sandbox else "platform"
    )


def _cell(c: Cell) -> audience_pb2.BestTimeCell:
    return audience_pb2.BestTimeCell(
        day=best_times.day_name(c.day), hour=c.hour, posts=c.posts, engagement=c.engagement, score=c.score
    )


class AudienceServicer(audience_pb2_grpc.AudienceServiceServicer):
    async def GetProfileMetrics(
        self, request: audience_pb2.GetProfileMetricsRequest, context: grpc.aio.ServicerContext
    ) -> audience_pb2.ProfileMetrics:
        call = current_call()
        await profile_limits.require_profile(call.conn, call.principal, request.slug)
        found = await account_metrics.profile_metrics(
            call.conn, call.principal.org_id, request.slug, request.start_time, request.end_time, call.now
        )
        return audience_pb2.ProfileMetrics(
            slug=found.slug,
            latest=_reading(found.latest) if found.latest is not None else None,
            history=[_reading(r) for r in found.history],
            start_time=timestamp(found.start),
            end_time=timestamp(found.end),
            next_read_time=timestamp(found.next_read_at),
        )

    async def GetBestTimes(
        self, request: audience_pb2.GetBestTimesRequest, context: grpc.aio.ServicerContext
    ) -> audience_pb2.BestTimes:
        call = current_call()
        await profile_limits.require_profile(call.conn, call.principal, request.slug)
        found = await best_times.best_times(
            call.conn, call.principal.org_id, request.slug, call.now, call.settings.best_times_min_posts
        )
        return audience_pb2.BestTimes(
            slug=found.slug,
            connector=found.connector,
            time_zone=found.timezone,
            basis=found.basis,
            sample_size=found.sample_size,
            minimum_sample=found.minimum_sample,
            top=[_cell(c) for c in found.top],
            grid=[_cell(c) for c in found.grid],
        )

    async def SuggestQueueSlots(
        self, request: audience_pb2.SuggestQueueSlotsRequest, context: grpc.aio.ServicerContext
    ) -> audience_pb2.QueueSuggestion:
        call = current_call()
        principal = call.principal
        await profile_limits.require_profile(call.conn, principal, request.slug)
        if request.apply:
            if APPLY_SCOPE not in principal.scopes:
                raise InsufficientScope("saving a profile's time slots needs posts:write", scope=APPLY_SCOPE)
            require_permission(principal, APPLY_PERMISSION, "saving a profile's time slots")
        elif call.audit is not None:
            call.audit.unchanged()  # a proposal changes nothing: no audit event
        found = await queue_suggestion.suggest(
            call.conn,
            principal.org_id,
            request.slug,
            call.now,
            call.settings.best_times_min_posts,
            request.count,
            request.apply,
        )
        return audience_pb2.QueueSuggestion(
            slug=request.slug,
            time_zone=found.best.timezone,
            basis=found.best.basis,
            sample_size=found.best.sample_size,
            slots=[audience_pb2.SuggestedSlot(day=day, time=time) for day, time in found.slots],
            applied=found.applied,
        )
