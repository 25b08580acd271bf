"""herald.posts.v1.PostService's methods on post groups and on reviews (approving, rejecting):
the part of core/posts/servicer.py's PostServicer that acts on a group or judges a post.

Profile limits (core/identity/profile_limits.py): a limited member sees the posts of a group
within their limits; a group action refuses a group with any post outside them."""

from __future__ import annotations

import grpc
from herald.posts.v1 import posts_pb2

from core.identity import profile_limits
from core.identity.verification import require_verified
from core.posts import groups, review_actions
from core.posts.messages import group_message, post_message
from core.rpc.context import current_call


class GroupMethods:
    async def GetPostGroup(
        self, request: posts_pb2.GetPostGroupRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.PostGroup:
        call = current_call()
        found = await groups.get_group(
            call.conn, call.principal.org_id, request.group_id, limited_to=call.principal.profile_tags
        )
        return group_message(found)

    async def ReschedulePostGroup(
        self, request: posts_pb2.ReschedulePostGroupRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.PostGroup:
        call = current_call()
        await profile_limits.require_group(call.conn, call.principal, request.group_id)
        records = await groups.reschedule_group(
            call.conn,
            call.principal.org_id,
            request.group_id,
            request.schedule_at,
            call.now,
            live=call.settings.publish_mode == "live",
        )
        return group_message(records)

    async def CancelPostGroup(
        self, request: posts_pb2.CancelPostGroupRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.PostGroup:
        call = current_call()
        await profile_limits.require_group(call.conn, call.principal, request.group_id)
        records, balance = await groups.cancel_group(call.conn, call.principal.org_id, request.group_id, call.now)
        if balance is not None:
            call.credits_remaining = balance  # X-Credits-Remaining says what the refunds left
        return group_message(records)

    async def ApprovePost(
        self, request: posts_pb2.ApprovePostRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.Post:
        call = current_call()
        require_verified(call.principal)
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        record = await review_actions.approve_post(
            call.conn,
            call.principal,
            request.post_id,
            comment=request.comment,
            schedule_at=request.schedule_at if request.HasField("schedule_at") else None,
            publish_now=request.publish_now,
            now=call.now,
            live=call.settings.publish_mode == "live",
        )
        return post_message(record)

    async def RejectPost(
        self, request: posts_pb2.RejectPostRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.Post:
        call = current_call()
        await profile_limits.require_post(call.conn, call.principal, request.post_id)
        record = await review_actions.reject_post(
            call.conn, call.principal, request.post_id, comment=request.comment, now=call.now
        )
        return post_message(record)

    async def ApprovePostGroup(
        self, request: posts_pb2.ApprovePostGroupRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.PostGroup:
        call = current_call()
        require_verified(call.principal)
        await profile_limits.require_group(call.conn, call.principal, request.group_id)
        records = await review_actions.approve_group(
            call.conn,
            call.principal,
            request.group_id,
            comment=request.comment,
            schedule_at=request.schedule_at if request.HasField("schedule_at") else None,
            publish_now=request.publish_now,
            now=call.now,
            live=call.settings.publish_mode == "live",
        )
        return group_message(records)

    async def RejectPostGroup(
        self, request: posts_pb2.RejectPostGroupRequest, context: grpc.aio.ServicerContext
    ) -> posts_pb2.PostGroup:
        call = current_call()
        await profile_limits.require_group(call.conn, call.principal, request.group_id)
        records = await review_actions.reject_group(
            call.conn, call.principal, request.group_id, comment=request.comment, now=call.now
        )
        return group_message(records)
