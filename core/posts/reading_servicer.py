"""herald.posts.v1.PostService's reading views beside the posts themselves: the dashboard's
calendar and post groups, a post's outbox and its history (the part of core/posts/servicer.py's
PostServicer that only reads)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import grpc
from herald.posts.v1 import posts_pb2

from core.identity import profile_limits
from core.pagination import page_request
from core.posts import group_listing, history, outbox, service
from core.posts.calendar import CalendarFilter, list_calendar
from core.posts.messages import STATUS_TO_PROTO, listed_group_message
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import PageBounds

# The page bounds of the list methods here (their policies in core/posts/servicer.py name them).
GROUPS_PAGE = PageBounds(default=25, maximum=100)
EVENTS_PAGE = PageBounds(default=50, maximum=100)


class ReadingMethods:
    async def ListCalendarPosts(
        self, request: posts_pb2.ListCalendarPostsRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.ListCalendarPostsResponse:
        call = current_call()
        found = await list_calendar(
            call.conn,
            call.principal.org_id,
            request.start_time.ToDatetime(tzinfo=UTC),
            request.end_time.ToDatetime(tzinfo=UTC),
            CalendarFilter(
                profile=request.profile,
                tag=request.tag,
                status=request.status,
                limited_to=call.principal.profile_tags,
            ),
            call.now,
        )
        answer = posts_pb2.ListCalendarPostsResponse(
            truncated=found.truncated, free_slots=[timestamp(at) for at in found.free_slots]
        )
        add = answer.posts.add  # a month's thousands: each built in place
        for p in found.posts:
            entry = add(
                id=p.id,
                group_id=p.group_id,
                profile=p.profile,
                connector=p.connector,
                status=STATUS_TO_PROTO[p.status],
                excerpt=p.excerpt,
            )
            entry.schedule_time.CopyFrom(timestamp(p.schedule_at))
        return answer

    async def ListPostGroups(
        self, request: posts_pb2.ListPostGroupsRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.ListPostGroupsResponse:
        call = current_call()
        page = page_request(request.page_size, "", GROUPS_PAGE)
        filters = group_listing.GroupFilter(
            status=request.status,
            profile=request.profile,
            tag=request.tag,
            scheduled_after=request.scheduled_after,
            scheduled_before=request.scheduled_before,
            limited_to=call.principal.profile_tags,
        )
        found = await group_listing.list_groups(
            call.conn, call.principal.org_id, filters, size=page.size, token=request.page_token
        )
        return posts_pb2.ListPostGroupsResponse(
            groups=[listed_group_message(g) for g in found.groups],
            next_page_token=found.next_token,
            previous_page_token=found.previous_token,
        )

    async def ListOutboxEntries(
        self, request: posts_pb2.ListOutboxEntriesRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.ListOutboxEntriesResponse:
        call = current_call()
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        await service.get_post(call.conn, call.principal.org_id, request.post_id)
        entries = await outbox.list_for_post(call.conn, call.principal.org_id, request.post_id)
        return posts_pb2.ListOutboxEntriesResponse(
            entries=[
                posts_pb2.OutboxEntry(
                    id=e.id,
                    post_id=e.post_id,
                    connector=e.connector,
                    mode=e.mode,
                    requests_json=json.dumps(e.requests, separators=(",", ":")),
                    platform_post_id=e.platform_post_id,
                    platform_url=e.platform_url,
                    create_time=timestamp(e.created_at),
                    part=e.part_name,
                    position=max(e.part, 0),
                )
                for e in entries
            ]
        )

    async def ListPostEvents(
        self, request: posts_pb2.ListPostEventsRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.ListPostEventsResponse:
        call = current_call()
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        page = page_request(request.page_size, request.page_token, EVENTS_PAGE)
        found, token = await history.list_events(
            call.conn, call.principal.org_id, request.post_id, page, newest_first=request.newest_first
        )
        return posts_pb2.ListPostEventsResponse(events=[_post_event(e) for e in found], next_page_token=token)


def _post_event(e: history.PostEventRecord) -> posts_pb2.PostEvent:
    """An event as its message: the kind's facts where it has them (core/posts/history.py)."""
    d = e.detail
    message = posts_pb2.PostEvent(id=e.id, post_id=e.post_id, kind=e.kind, event_time=timestamp(e.at))
    for key in ("attempt", "position"):
        if isinstance(d.get(key), int):
            setattr(message, key, d[key])
    for key in ("reason", "error", "part", "platform_post_id", "status", "request_id", "comment"):
        if isinstance(d.get(key), str):
            setattr(message, key, d[key])
    for key in ("will_retry", "recovered"):
        if isinstance(d.get(key), bool):
            setattr(message, key, d[key])
    for key, field in (("next_attempt_at", "next_attempt_time"), ("schedule_at", "schedule_time")):
        if isinstance(d.get(key), str):
            getattr(message, field).CopyFrom(timestamp(datetime.fromisoformat(d[key])))
    message.fields.extend(f for f in d.get("fields", ()) if isinstance(f, str))
    return message
