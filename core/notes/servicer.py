"""herald.notes.v1.NoteService: comments and each member's notifications (docs/teams.md)."""

from __future__ import annotations

import grpc
from herald.notes.v1 import notes_pb2, notes_pb2_grpc

from core.identity import profile_limits
from core.identity.principal import CredentialKind
from core.notes import comments, notifications
from core.notes.kinds import KINDS
from core.pagination import page_request
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy, PageBounds

# People: dashboard sessions and API keys. An agent neither reads its member's inbox nor comments.
_PEOPLE = frozenset({CredentialKind.SESSION, CredentialKind.API_KEY})


def _policy(permission: str, **more) -> MethodPolicy:
    return MethodPolicy(credential_kinds=_PEOPLE, plan_exempt_for_sessions=True, permission=permission, **more)


POLICIES = {
    "AddComment": _policy("compose", writes=True),
    "ListComments": _policy("read"),
    "ListNotifications": _policy("read", page=PageBounds(default=25, maximum=100)),
    "MarkNotificationsRead": _policy("read", writes=True),
    "GetNotificationSettings": _policy("read"),
    "UpdateNotificationSettings": _policy("read", writes=True),
}


def _comment(c: comments.CommentRecord) -> notes_pb2.Comment:
    return notes_pb2.Comment(
        id=c.id,
        group_id=c.group_id,
        post_id=c.post_id,
        author_id=c.author_id,
        author_email=c.author_email,
        body=c.body,
        mentions=list(c.mentions),
        create_time=timestamp(c.created_at),
    )


def _notification(n: notifications.NotificationRecord) -> notes_pb2.Notification:
    message = notes_pb2.Notification(
        id=n.id, kind=n.kind, text=n.text, subject_id=n.subject_id, link=n.link, create_time=timestamp(n.created_at)
    )
    if n.read_at is not None:
        message.read_time.CopyFrom(timestamp(n.read_at))
    return message


async def _settings(call) -> notes_pb2.NotificationSettings:  # the Call
    p = call.principal
    mine = (await notifications.settings_of(call.conn, p.org_id, [p.user_id]))[p.user_id]
    return notes_pb2.NotificationSettings(
        channels=[
            notes_pb2.NotificationChannel(
                kind=kind, description=KINDS[kind].description, inbox=mine[kind].inbox, email=mine[kind].email
            )
            for kind in KINDS
        ],
        mail_configured=call.settings.smtp_server is not None,
    )


async def _within_limits(call, post_id: str, group_id: str) -> None:  # the Call
    """Profile limits (core/identity/profile_limits.py): a post's comments are its readers'; a
    group's are about every post of it, so they are for members who reach all of them."""
    if post_id:
        await profile_limits.require_post(call.conn, call.principal, post_id)
    elif group_id:
        await profile_limits.require_group(call.conn, call.principal, group_id)


class NoteServicer(notes_pb2_grpc.NoteServiceServicer):
    async def AddComment(
        self, request: notes_pb2.AddCommentRequest, context: grpc.aio.ServicerContext
    ) -> notes_pb2.Comment:
        call = current_call()
        await _within_limits(call, request.post_id, request.group_id)
        added = await comments.add(
            call.conn,
            call.principal,
            post_id=request.post_id,
            group_id=request.group_id,
            body=request.body,
            now=call.now,
            settings=call.settings,
        )
        return _comment(added)

    async def ListComments(
        self, request: notes_pb2.ListCommentsRequest, context: grpc.aio.ServicerContext
    ) -> notes_pb2.ListCommentsResponse:
        call = current_call()
        await _within_limits(call, request.post_id, request.group_id)
        found = await comments.list_for(
            call.conn, call.principal.org_id, post_id=request.post_id, group_id=request.group_id
        )
        return notes_pb2.ListCommentsResponse(comments=[_comment(c) for c in found])

    async def ListNotifications(
        self, request: notes_pb2.ListNotificationsRequest, context: grpc.aio.ServicerContext
    ) -> notes_pb2.ListNotificationsResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListNotifications"].page)
        found, token, unread = await notifications.list_for(
            call.conn, call.principal.org_id, call.principal.user_id, page, unread_only=request.unread_only
        )
        return notes_pb2.ListNotificationsResponse(
            notifications=[_notification(n) for n in found], next_page_token=token, unread_count=unread
        )

    async def MarkNotificationsRead(
        self, request: notes_pb2.MarkNotificationsReadRequest, context: grpc.aio.ServicerContext
    ) -> notes_pb2.MarkNotificationsReadResponse:
        call = current_call()
        left = await notifications.mark_read(
            call.conn, call.principal.org_id, call.principal.user_id, list(request.ids), everything=request.all,
            now=call.now,
        )  # fmt: skip
        return notes_pb2.MarkNotificationsReadResponse(unread_count=left)

    async def GetNotificationSettings(
        self, request: notes_pb2.GetNotificationSettingsRequest, context: grpc.aio.ServicerContext
    ) -> notes_pb2.NotificationSettings:
        return await _settings(current_call())

    async def UpdateNotificationSettings(
        self, request: notes_pb2.UpdateNotificationSettingsRequest, context: grpc.aio.ServicerContext
    ) -> notes_pb2.NotificationSettings:
        call = current_call()
        chosen = [notifications.Channel(c.kind, c.inbox, c.email) for c in request.channels]
        await notifications.update_settings(call.conn, call.principal.org_id, call.principal.user_id, chosen)
        return await _settings(call)
